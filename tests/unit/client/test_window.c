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

static void rate(void **state)
{
	/* 5 completions 0.5 s apart of 4 MB: 4 intervals x 4 MB / 2 s = 8 MB/s, whatever the
	 * window length around them */
	assert_true(window_rate(5, 4e6, 10.2, 12.2, 0, 3) == 8e6);
	/* unequal latencies: the completion-rate estimate is what was delivered */
	assert_true(window_rate(3, 1e6, 1, 3, 5e6, 3) == 1e6);
	/* fewer than 3 completions: the pro-rata bytes over the window */
	assert_true(window_rate(2, 4e6, 10, 11, 6e6, 3) == 2e6);
	assert_true(window_rate(0, 4e6, 0, 0, 0, 3) == 0);
	assert_true(window_rate(1, 4e6, 0, 0, 1e6, 0) == 0);
	/* identical completion times cannot make an infinite rate */
	assert_true(window_rate(4, 4e6, 5, 5, 3e6, 3) == 1e6);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(credit), cmocka_unit_test(rate) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
