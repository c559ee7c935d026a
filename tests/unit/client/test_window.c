/* test_window.c - pro-rata crediting of I/Os to the scale measurement window. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "client/window.h"

static void credit(void **state)
{
	/* window [10, 20] */
	assert_true(window_credit(400, 12, 14, 10, 20) == 400);   /* inside */
	assert_true(window_credit(400, 8, 12, 10, 20) == 200);    /* half before the window */
	assert_true(window_credit(400, 19, 23, 10, 20) == 100);   /* a quarter inside at the end */
	assert_true(window_credit(400, 5, 25, 10, 20) == 200);    /* spans the window */
	assert_true(window_credit(400, 1, 9, 10, 20) == 0);       /* warmup: excluded */
	assert_true(window_credit(400, 21, 22, 10, 20) == 0);
	assert_true(window_credit(400, 12, 12, 10, 20) == 0);     /* no duration */
	assert_true(window_credit(400, 14, 12, 10, 20) == 0);     /* clock went backwards */
	assert_true(window_credit(400, 12, 14, 20, 10) == 0);     /* empty window */
	/* back-to-back I/Os of one VM add up to exactly the window's share of its bytes */
	double sum = 0;
	for (double t = 7; t < 23; t += 2)
		sum += window_credit(2, t, t + 2, 10, 20);
	assert_true(sum > 10 - 1e-9 && sum < 10 + 1e-9);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(credit) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
