/* test_latency.c - nearest-rank percentiles at 100 ns resolution. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "client/latency.h"

static void percentiles(void **state)
{
	struct lat_samples s = { 0 };
	assert_true(lat_percentile_ms(&s, 50) == 0);
	/* 1..1000 us, added in reverse */
	for (int i = 1000; i >= 1; i--)
		lat_add(&s, (uint64_t)i * 1000);
	assert_int_equal(s.n, 1000);
	assert_true(lat_percentile_ms(&s, 50) == 0.5);
	assert_true(lat_percentile_ms(&s, 90) == 0.9);
	assert_true(lat_percentile_ms(&s, 99) == 0.99);
	assert_true(lat_percentile_ms(&s, 100) == 1.0);
	assert_true(lat_percentile_ms(&s, 0) == 0.001);
	/* 23 us keeps its precision (seed 000's X2 figure) and huge values saturate */
	struct lat_samples t = { 0 };
	lat_add(&t, 23000);
	assert_true(lat_percentile_ms(&t, 50) == 0.023);
	lat_add(&t, UINT64_MAX);
	assert_true(lat_percentile_ms(&t, 100) > 400000);
	lat_free(&s);
	lat_free(&t);
	assert_null(s.v);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(percentiles) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
