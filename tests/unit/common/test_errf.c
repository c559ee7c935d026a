/* test_errf.c — common/errf.c: the error convention's helpers write one
 * line (control characters from outside input made '?') and return -1. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lunlab/errf.h"

static void errf_one_line(void **state)
{
	char err[32];

	assert_int_equal(ll_errf(err, sizeof(err), "size '%s': bad", "4\nX"), -1);
	assert_string_equal(err, "size '4?X': bad");
	/* cut to the buffer, still terminated */
	assert_int_equal(ll_errf(err, 8, "%s", "0123456789"), -1);
	assert_string_equal(err, "0123456");
	/* no buffer: nothing written, still -1 */
	assert_int_equal(ll_errf(NULL, 0, "x"), -1);
}

static void strerrf_allocates(void **state)
{
	char *r = NULL;

	assert_int_equal(ll_strerrf(&r, "volume '%s': want %d", "a\tb", 3), -1);
	assert_non_null(r);
	assert_string_equal(r, "volume 'a?b': want 3");
	free(r);
	assert_int_equal(ll_strerrf(NULL, "dropped"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(errf_one_line),
		cmocka_unit_test(strerrf_allocates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
