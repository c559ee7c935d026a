/* test_text.c — key=value parsing (including malformed input) and building. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "target/iscsi/text.h"

static int parse(const char *src, size_t len, struct text_list *l, const char **err)
{
	static char buf[16384];

	memcpy(buf, src, len);
	return text_parse(buf, len, l, err);
}

static void parses_pairs(void **state)
{
	struct text_list l;
	const char *err = NULL;
	static const char in[] = "InitiatorName=iqn.x\0SessionType=Normal\0Empty=\0";

	assert_int_equal(parse(in, sizeof(in) - 1, &l, &err), 0);
	assert_int_equal(l.n, 3);
	assert_string_equal(text_get(&l, "InitiatorName"), "iqn.x");
	assert_string_equal(text_get(&l, "SessionType"), "Normal");
	assert_string_equal(text_get(&l, "Empty"), "");
	assert_null(text_get(&l, "TargetName"));
}

static void tolerates_missing_final_nul_and_padding(void **state)
{
	struct text_list l;
	const char *err = NULL;

	assert_int_equal(parse("A=1\0B=2", 7, &l, &err), 0);
	assert_int_equal(l.n, 2);
	assert_string_equal(text_get(&l, "B"), "2");
	assert_int_equal(parse("A=1\0\0\0\0", 8, &l, &err), 0);
	assert_int_equal(l.n, 1);
}

static void rejects_malformed(void **state)
{
	struct text_list l;
	const char *err = NULL;
	char longkey[80];

	assert_int_equal(parse("NoEquals\0", 9, &l, &err), -1);
	assert_non_null(strstr(err, "'='"));
	assert_int_equal(parse("=value\0", 7, &l, &err), -1);
	assert_non_null(strstr(err, "empty key"));
	assert_int_equal(parse("A=1\0A=2\0", 8, &l, &err), -1);
	assert_non_null(strstr(err, "twice"));
	memset(longkey, 'K', 64);
	memcpy(longkey + 64, "=1", 3);
	assert_int_equal(parse(longkey, 67, &l, &err), -1);
	assert_non_null(strstr(err, "63"));
}

static void builds_and_detects_overflow(void **state)
{
	char store[16];
	struct text_buf tb;

	text_buf_init(&tb, store, sizeof(store));
	text_add(&tb, "A", "Yes");
	text_add_u32(&tb, "N", 42);
	assert_int_equal(tb.len, 6 + 5);
	assert_memory_equal(store, "A=Yes\0N=42\0", 11);
	assert_int_equal(tb.overflow, 0);
	text_add(&tb, "Long", "value");
	assert_int_equal(tb.overflow, 1);
	assert_int_equal(tb.len, 11); /* nothing partial was written */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parses_pairs),
		cmocka_unit_test(tolerates_missing_final_nul_and_padding),
		cmocka_unit_test(rejects_malformed),
		cmocka_unit_test(builds_and_detects_overflow),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
