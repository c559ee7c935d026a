/* test_read_file.c — common/read_file.c: a whole small file, bounded, the
 * secret file's owner and mode checks, and one-line errors naming the path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "lunlab/read_file.h"

static char dir[] = "/tmp/ll-read-file-XXXXXX";
static char path[256];

static void put(const char *text, size_t n, mode_t mode)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, n, f), n);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

static void whole_file_nul_terminated(void **state)
{
	struct ll_read_rules r = { .max = 64 };
	char err[256] = "";
	size_t len = 0;

	put("ab\0cd", 5, 0644);
	char *b = ll_read_file(path, &r, &len, err, sizeof(err));
	assert_non_null(b);
	assert_int_equal(len, 5);
	assert_memory_equal(b, "ab\0cd", 6); /* and the NUL after it */
	free(b);
}

static void larger_than_max(void **state)
{
	struct ll_read_rules r = { .max = 4 };
	char err[256] = "", want[300];
	size_t len = 0;

	put("12345", 5, 0644);
	assert_null(ll_read_file(path, &r, &len, err, sizeof(err)));
	snprintf(want, sizeof(want), "%s: larger than 4 bytes", path);
	assert_string_equal(err, want);
	/* or keep the first max bytes, when asked */
	r.truncate = true;
	r.max = 3;
	put("123456", 6, 0644);
	char *b = ll_read_file(path, &r, &len, err, sizeof(err));
	assert_non_null(b);
	assert_int_equal(len, 3);
	assert_string_equal(b, "123");
	free(b);
}

static void limit_in_mib(void **state)
{
	char big[2048];
	struct ll_read_rules r = { .max = 1024 };
	char err[256] = "", want[300];
	size_t len;

	memset(big, 'x', sizeof(big));
	put(big, sizeof(big), 0644);
	assert_null(ll_read_file(path, &r, &len, err, sizeof(err)));
	snprintf(want, sizeof(want), "%s: larger than 1 KiB", path);
	assert_string_equal(err, want);
}

static void empty_refused_when_asked(void **state)
{
	struct ll_read_rules r = { .max = 16, .nonempty = true };
	char err[256] = "", want[300];
	size_t len = 7;

	put("", 0, 0644);
	assert_null(ll_read_file(path, &r, &len, err, sizeof(err)));
	snprintf(want, sizeof(want), "%s: empty", path);
	assert_string_equal(err, want);
	r.nonempty = false;
	char *b = ll_read_file(path, &r, &len, err, sizeof(err));
	assert_non_null(b);
	assert_int_equal(len, 0);
	free(b);
}

static void secret_mode_checked(void **state)
{
	struct ll_read_rules r = { .max = 16, .secret = true, .holds = "secrets" };
	char err[256] = "";
	size_t len;

	put("pw", 2, 0640);
	assert_null(ll_read_file(path, &r, &len, err, sizeof(err)));
	assert_non_null(strstr(err, "mode 0640 lets group/others read secrets; want 0600 or stricter"));
	assert_int_equal(strncmp(err, path, strlen(path)), 0);
	put("pw", 2, 0600);
	char *b = ll_read_file(path, &r, &len, err, sizeof(err));
	assert_non_null(b);
	assert_string_equal(b, "pw");
	explicit_bzero(b, len); /* what a caller does with a secret */
	assert_int_equal(b[0], 0);
	free(b);
}

static void not_a_file(void **state)
{
	struct ll_read_rules r = { .max = 16 };
	char err[256] = "", want[300];
	size_t len;

	assert_null(ll_read_file(dir, &r, &len, err, sizeof(err)));
	snprintf(want, sizeof(want), "%s: not a regular file", dir);
	assert_string_equal(err, want);
	snprintf(want, sizeof(want), "%s/none", dir);
	assert_null(ll_read_file(want, &r, &len, err, sizeof(err)));
	assert_non_null(strstr(err, "No such file or directory"));
}

static int setup(void **state)
{
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/f", dir);
	return 0;
}

static int teardown(void **state)
{
	unlink(path);
	rmdir(dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(whole_file_nul_terminated),
		cmocka_unit_test(larger_than_max),
		cmocka_unit_test(limit_in_mib),
		cmocka_unit_test(empty_refused_when_asked),
		cmocka_unit_test(secret_mode_checked),
		cmocka_unit_test(not_a_file),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
