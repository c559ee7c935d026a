/* test_calib_capacity.c - client/calib_capacity.c and the pages it reads (client/lbp_page.c):
 * the capacity interval a page 0Ch reading allows, the soft threshold's percentage, and the
 * bounds-checked decoding of 0003h and of the mode page 1Ch/02h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "client/calib_capacity.h"
#include "client/lbp_page.h"

/* What lunlab's own page says for a capacity and a use, rounded as it rounds: the interval
 * holds the truth, and the estimate is within half the interval, 0.5 / pct of it (0.5% for
 * the nearly empty array calibrate reads). */
static void interval_holds_the_truth(void **state)
{
	(void)state;
	const uint64_t caps[] = { 1ull << 30, 17179869184ull, 5400000000000ull, 25000000000000ull };
	const uint64_t set = 16384;
	for (unsigned i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		for (unsigned used_pm = 0; used_pm < 990; used_pm += 7) {
			uint64_t cap = caps[i], used = cap / 1000 * used_pm, avail = cap - used;
			unsigned pct = (unsigned)(avail * 100 / cap);
			uint64_t lo, hi, est;
			assert_true(calib_capacity_from_lbp(avail / set * set, pct, &lo, &hi, &est));
			/* the count is whole sets: allow one set below */
			assert_true(lo <= cap + set && cap <= hi + set * 100);
			long double rel = ((long double)est - (long double)cap) / (long double)cap;
			long double tol = 0.5L / pct + 0.0001L;
			if (rel < -tol || rel > tol)
				fail_msg("cap %llu used %u/1000: estimate %llu (%.3Lf%%)", (unsigned long long)cap, used_pm,
					 (unsigned long long)est, rel * 100);
		}
	}
	uint64_t lo, hi, est;
	/* an empty array: available is the capacity */
	assert_true(calib_capacity_from_lbp(1ull << 34, 100, &lo, &hi, &est));
	assert_int_equal(est, 1ull << 34);
	assert_int_equal(lo, 1ull << 34);
	assert_int_equal(hi, 1ull << 34);
	/* 0%: any capacity above 100 x available fits */
	assert_false(calib_capacity_from_lbp(1ull << 20, 0, &lo, &hi, &est));
	assert_false(calib_capacity_from_lbp(0, 50, &lo, &hi, &est));
	assert_false(calib_capacity_from_lbp(1ull << 20, 101, &lo, &hi, &est));
}

static void soft_threshold_percent(void **state)
{
	(void)state;
	/* lunlab's page: count = (capacity - capacity x pct / 100) / set */
	const uint64_t cap = 17179869184ull, set = 16384;
	for (unsigned pct = 1; pct <= 100; pct++) {
		uint64_t count = (cap - cap / 100 * pct) / set;
		assert_int_equal(calib_soft_threshold_percent(cap, count * set), pct);
	}
	assert_int_equal(calib_soft_threshold_percent(cap, cap), 0);
	assert_int_equal(calib_soft_threshold_percent(0, 5), 0);
}

static struct log_page page_with(uint16_t code, uint8_t len, uint64_t value)
{
	struct log_page pg;
	memset(&pg, 0, sizeof(pg));
	pg.page_code = 0x0c;
	pg.n = 1;
	pg.p[0].code = code;
	pg.p[0].len = len;
	pg.p[0].value = value;
	return pg;
}

static void percentage_decoded(void **state)
{
	(void)state;
	struct lbp_counts c;
	char err[200];
	struct log_page pg = page_with(0x0003, 8, 0x0061000002000000ull); /* 97%, scope 2 (lunlab) */
	assert_int_equal(lbp_counts_decode(&pg, &c, err, sizeof(err)), 0);
	assert_true(c.have_avail_pct);
	assert_int_equal(c.avail_pct, 97);
	pg = page_with(0x0003, 4, 0x00400002ull); /* 64%, the 4-byte form */
	assert_int_equal(lbp_counts_decode(&pg, &c, err, sizeof(err)), 0);
	assert_int_equal(c.avail_pct, 64);
	pg = page_with(0x0003, 2, 0x0040ull);
	assert_int_equal(lbp_counts_decode(&pg, &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "parameter 0x0003 is 2 bytes"));
	pg = page_with(0x0003, 8, 0x0065000002000000ull); /* 101% */
	assert_int_equal(lbp_counts_decode(&pg, &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "101%"));
}

/* MODE SENSE(10) data: 8-byte header, no block descriptors, the 1Ch/02h page with descriptors */
static size_t mode_data(uint8_t *b, const uint8_t (*desc)[8], unsigned nd)
{
	size_t page_len = 12 + 8 * nd, total = 8 + 4 + page_len;
	memset(b, 0, total);
	b[0] = (uint8_t)((total - 2) >> 8);
	b[1] = (uint8_t)(total - 2);
	b[8] = 0x40 | 0x1c;
	b[9] = 0x02;
	b[10] = (uint8_t)(page_len >> 8);
	b[11] = (uint8_t)page_len;
	for (unsigned i = 0; i < nd; i++)
		memcpy(b + 8 + 16 + 8 * i, desc[i], 8);
	return total;
}

static void threshold_decoded(void **state)
{
	(void)state;
	uint8_t b[128];
	char err[200];
	struct lbp_threshold t;
	/* a used-resource descriptor first (skipped), then the soft one on available resources */
	const uint8_t d[2][8] = { { 0x80, 0x02, 0, 0, 0, 0, 0, 9 }, { 0x80, 0x01, 0, 0, 0x00, 0x03, 0x33, 0x33 } };
	size_t n = mode_data(b, d, 2);
	assert_int_equal(lbp_threshold_decode(b, n, &t, err, sizeof(err)), 0);
	assert_true(t.have && t.enabled);
	assert_int_equal(t.count, 0x33333);
	/* disabled */
	const uint8_t off[1][8] = { { 0x00, 0x01, 0, 0, 0, 0, 0, 0 } };
	n = mode_data(b, off, 1);
	assert_int_equal(lbp_threshold_decode(b, n, &t, err, sizeof(err)), 0);
	assert_true(t.have && !t.enabled);
	/* another page */
	n = mode_data(b, off, 1);
	b[8] = 0x40 | 0x08;
	assert_int_equal(lbp_threshold_decode(b, n, &t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "page 08h"));
	/* the page length runs past what came */
	n = mode_data(b, d, 2);
	assert_int_equal(lbp_threshold_decode(b, n - 4, &t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "PAGE LENGTH"));
	/* a block descriptor length past the data, and a short header */
	n = mode_data(b, d, 2);
	b[7] = 200;
	assert_int_equal(lbp_threshold_decode(b, n, &t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "BLOCK DESCRIPTOR LENGTH"));
	assert_int_equal(lbp_threshold_decode(b, 5, &t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "8-byte header"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(interval_holds_the_truth),
		cmocka_unit_test(soft_threshold_percent),
		cmocka_unit_test(percentage_decoded),
		cmocka_unit_test(threshold_decoded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
