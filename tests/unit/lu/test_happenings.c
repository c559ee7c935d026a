/* test_happenings.c — target/lu/happenings.c: records read once and in
 * order, sense conditions recognised in both formats (and nothing read
 * past a short buffer), repeats folded per LU within the window on a
 * clock held by the test, state changes never folded, a reader that fell
 * behind told how many it missed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "target/lu/happenings.h"

static uint64_t fake_ms;
static uint64_t fake_clock(void) { return fake_ms; }

static int setup(void **state)
{
	(void)state;
	happenings_reset();
	fake_ms = 1000;
	happenings_set_clock(fake_clock);
	return 0;
}

static void test_read_once_in_order(void **state)
{
	struct happening out[4];
	uint64_t cur = 0, missed = 9;

	(void)state;
	happening_post(HAPPEN_PORTAL_DOWN, 0, "portal %d down", 1);
	happening_post(HAPPEN_PORTAL_UP, 0, "portal %d up", 1);
	assert_int_equal(happenings_read(&cur, out, 4, &missed), 2);
	assert_int_equal(missed, 0);
	assert_int_equal(out[0].seq, 1);
	assert_int_equal(out[0].kind, HAPPEN_PORTAL_DOWN);
	assert_string_equal(out[0].text, "portal 1 down");
	assert_int_equal(out[1].kind, HAPPEN_PORTAL_UP);
	assert_int_equal(cur, 2);
	assert_int_equal(happenings_read(&cur, out, 4, NULL), 0);
	/* a second reader has a cursor of its own */
	uint64_t other = 0;
	assert_int_equal(happenings_read(&other, out, 1, NULL), 1);
	assert_int_equal(happenings_read(&other, out, 4, NULL), 1);
	assert_string_equal(happening_kind_name(HAPPEN_OUT_OF_SPACE), "out_of_space");
}

static void test_sense_formats(void **state)
{
	uint8_t fixed[18] = { 0x70, 0, 0x06, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x38, 0x07 };
	uint8_t desc[8] = { 0x72, 0x07, 0x27, 0x07 };
	uint8_t other[18] = { 0x70, 0, 0x05, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x24, 0x00 };
	struct happening out[4];
	uint64_t cur = 0;

	(void)state;
	happening_check_sense(7, 3, 0x02, fixed, sizeof(fixed));
	happening_check_sense(7, 3, 0x02, desc, sizeof(desc));
	happening_check_sense(7, 3, 0x02, other, sizeof(other));  /* not one of ours */
	happening_check_sense(7, 3, 0x00, fixed, sizeof(fixed));   /* GOOD: no sense to read */
	happening_check_sense(7, 3, 0x02, fixed, 13);              /* too short for ASC/ASCQ */
	happening_check_sense(7, 3, 0x02, NULL, 0);
	assert_int_equal(happenings_read(&cur, out, 4, NULL), 2);
	assert_int_equal(out[0].kind, HAPPEN_SOFT_THRESHOLD);
	assert_int_equal(out[0].subject, 7);
	assert_non_null(strstr(out[0].text, "LUN 3"));
	assert_int_equal(out[1].kind, HAPPEN_OUT_OF_SPACE);
}

static void test_repeats_folded(void **state)
{
	uint8_t desc[8] = { 0x72, 0x07, 0x27, 0x07 };
	struct happening out[8];
	uint64_t cur = 0;

	(void)state;
	for (int i = 0; i < 50; i++)
		happening_check_sense(7, 1, 0x02, desc, sizeof(desc));
	happening_check_sense(8, 2, 0x02, desc, sizeof(desc)); /* another LU: its own record */
	fake_ms += HAPPENINGS_REPEAT_MS - 1;
	happening_check_sense(8, 2, 0x02, desc, sizeof(desc)); /* still inside LU 8's window */
	fake_ms += 1;
	happening_check_sense(8, 2, 0x02, desc, sizeof(desc)); /* the window is over: a new record */
	assert_int_equal(happenings_read(&cur, out, 8, NULL), 3);
	assert_int_equal(out[0].subject, 7);
	assert_int_equal(out[0].repeats, 49);
	assert_int_equal(out[1].subject, 8);
	assert_int_equal(out[1].repeats, 1);
	assert_int_equal(out[2].subject, 8);
	assert_int_equal(out[2].repeats, 0);
	/* state changes are never folded, however quick */
	happening_post(HAPPEN_ALUA, 5, "a");
	happening_post(HAPPEN_ALUA, 5, "b");
	assert_int_equal(happenings_read(&cur, out, 8, NULL), 2);
}

static void test_missed_when_behind(void **state)
{
	struct happening out[HAPPENINGS_MAX];
	uint64_t cur = 0, missed = 0;

	(void)state;
	for (int i = 0; i < HAPPENINGS_MAX + 10; i++)
		happening_post(HAPPEN_FAULT_FIRED, (uint64_t)i, "rule %d", i);
	assert_int_equal(happenings_read(&cur, out, HAPPENINGS_MAX, &missed), HAPPENINGS_MAX);
	assert_int_equal(missed, 10);
	assert_int_equal(out[0].seq, 11);
	assert_string_equal(out[0].text, "rule 10");
	assert_int_equal(out[HAPPENINGS_MAX - 1].subject, HAPPENINGS_MAX + 9);
	/* text from anywhere is made printable */
	happening_post(HAPPEN_FAULT_FIRED, 1, "a\nb\x7f");
	assert_int_equal(happenings_read(&cur, out, 1, NULL), 1);
	assert_string_equal(out[0].text, "a?b?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_read_once_in_order, setup),
		cmocka_unit_test_setup(test_sense_formats, setup),
		cmocka_unit_test_setup(test_repeats_folded, setup),
		cmocka_unit_test_setup(test_missed_when_behind, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
