/* test_calib_dr.c - calibrate's data kinds and the data_reduction fit (client/calib_dr.c):
 * the kinds dedup and compress the way their design says under lunlab's accounting rules,
 * and the fit gives back the dedup block, window, unit and level of a profile from the
 * figures those rules produce. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "client/calib_dr.h"

#define SEED 0x5eedull

static void predict(const struct dr_spec *s, const struct dr_params *p, uint64_t *l, uint64_t *u, uint64_t *ph)
{
	assert_int_equal(dr_predict(s, p, l, u, ph), 0);
}

/* dup S dedups exactly when the block is no larger than S; zero blocks are not stored */
static void dup_and_zero(void **state)
{
	(void)state;
	struct dr_params p = { .zlib_level = 1, .zlib_window_bits = 15, .alloc_unit = 512 };
	uint64_t l, u, ph;
	for (uint32_t d = 4096; d <= 65536; d <<= 1) {
		p.dedup_block = d;
		for (uint32_t s = 4096; s <= 65536; s <<= 1) {
			struct dr_spec dup = { .kind = DR_DUP, .param = s, .bytes = 1 << 20, .seed = SEED };
			predict(&dup, &p, &l, &u, &ph);
			assert_int_equal(l, 1 << 20);
			assert_int_equal(u, d <= s ? (1 << 19) : (1 << 20));
		}
	}
	struct dr_spec zero = { .kind = DR_ZERO, .bytes = 1 << 20, .seed = SEED };
	p.dedup_block = 16384;
	predict(&zero, &p, &l, &u, &ph);
	assert_int_equal(l, 0);
	assert_int_equal(u, 0);
	/* random: all unique, incompressible: stored whole */
	struct dr_spec rnd = { .kind = DR_RANDOM, .bytes = 1 << 20, .seed = SEED };
	predict(&rnd, &p, &l, &u, &ph);
	assert_int_equal(u, 1 << 20);
	assert_int_equal(ph, 1 << 20);
	/* a second seed shares nothing with the first */
	uint8_t a[4096], b[4096];
	struct dr_spec rnd2 = rnd;
	rnd2.seed = SEED + 1;
	dr_fill(&rnd, 0, a, sizeof(a));
	dr_fill(&rnd2, 0, b, sizeof(b));
	assert_memory_not_equal(a, b, sizeof(a));
}

/* sparse blocks take exactly one unit; period K compresses only with a window of 2^K */
static void sparse_and_period(void **state)
{
	(void)state;
	uint64_t l, u, ph;
	for (uint32_t unit = 256; unit <= 4096; unit <<= 2) {
		struct dr_params p = { .dedup_block = 16384, .zlib_level = 1, .zlib_window_bits = 14, .alloc_unit = unit };
		struct dr_spec sp = { .kind = DR_SPARSE, .bytes = 1 << 20, .seed = SEED };
		predict(&sp, &p, &l, &u, &ph);
		assert_int_equal(u, 1 << 20);
		assert_int_equal(ph, (uint64_t)unit * 64);
	}
	struct dr_params p = { .dedup_block = 16384, .zlib_level = 1, .alloc_unit = 512 };
	for (uint32_t k = 10; k <= 14; k++) {
		struct dr_spec per = { .kind = DR_PERIOD, .param = k, .bytes = 1 << 20, .seed = SEED, .block = 16384 };
		for (int w = 9; w <= 15; w++) {
			p.zlib_window_bits = w;
			predict(&per, &p, &l, &u, &ph);
			assert_int_equal(u, 1 << 20);
			bool compressed = ph < 0.9 * (double)u;
			if (compressed != (w >= (int)k))
				fail_msg("period %u (K %u) at window %d: physical %llu of %llu", dr_period(k), k, w,
					 (unsigned long long)ph, (unsigned long long)u);
		}
	}
}

/* What a LU with these parameters reports for the kinds calibrate writes (the win10 group
 * only when asked: it is the costly one to recompute). */
static unsigned measure_all(const struct dr_params *truth, struct dr_measure *m, bool win10)
{
	unsigned n = 0;
	struct dr_spec specs[32];
	specs[n++] = (struct dr_spec){ .kind = DR_RANDOM, .bytes = 1 << 20 };
	specs[n++] = (struct dr_spec){ .kind = DR_SPARSE, .bytes = 2 << 20 };
	for (uint32_t s = 4096; s <= 65536; s <<= 1)
		specs[n++] = (struct dr_spec){ .kind = DR_DUP, .param = s, .bytes = 512 << 10 };
	for (uint32_t k = 10; k <= 15 && (1u << k) <= truth->dedup_block; k++)
		specs[n++] = (struct dr_spec){ .kind = DR_PERIOD, .param = k, .bytes = 1 << 20, .block = truth->dedup_block };
	if (win10)
		specs[n++] = (struct dr_spec){ .kind = DR_WIN10, .bytes = 6553600 };
	for (unsigned i = 0; i < n; i++) {
		specs[i].seed = SEED + i;
		m[i] = (struct dr_measure){ .spec = specs[i] }; /* counts of 512 bytes */
		predict(&specs[i], truth, &m[i].logical, &m[i].unique, &m[i].physical);
	}
	return n;
}

static void fit_recovers(void **state)
{
	(void)state;
	static const struct dr_params cases[] = {
		{ 16384, 1, 14, 1024 },   /* x2 */
		{ 8192, 1, 13, 4096 },    /* x1 */
		{ 4096, 6, 11, 512 },     /* a small window: period 12 does not compress */
		{ 16384, 0, 15, 16384 },  /* nothing compresses */
	};
	for (unsigned c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct dr_measure m[32];
		unsigned n = measure_all(&cases[c], m, c == 0);
		assert_int_equal(dr_dedup_block(m, n), cases[c].dedup_block < 4096 ? 4096 : cases[c].dedup_block);
		struct dr_params got;
		struct dr_fit_report rep;
		assert_int_equal(dr_fit(m, n, cases[c].dedup_block, &got, &rep), 0);
		printf("  truth block %u level %d window %d unit %u -> level %d (%d..%d) window %d (%d..%d%s) unit %u, "
		       "err %.2g next %.2g\n", cases[c].dedup_block, cases[c].zlib_level, cases[c].zlib_window_bits,
		       cases[c].alloc_unit, got.zlib_level, rep.level_lo, rep.level_hi, got.zlib_window_bits,
		       rep.window_lo, rep.window_hi, rep.window_identified ? ", identified" : "", got.alloc_unit,
		       rep.err, rep.err_next);
		assert_int_equal(got.dedup_block, cases[c].dedup_block);
		if (!rep.compresses) {
			assert_int_equal(cases[c].zlib_level, 0);
			assert_int_equal(got.alloc_unit, cases[c].dedup_block);
			continue;
		}
		assert_int_equal(got.alloc_unit, cases[c].alloc_unit);
		/* the true window and level lie in the ranges the fit says fit equally */
		assert_true(cases[c].zlib_window_bits >= rep.window_lo);
		assert_true(cases[c].zlib_level >= rep.level_lo && cases[c].zlib_level <= rep.level_hi);
		/* a window below the block is identified exactly (its period kind stopped compressing) */
		if ((1u << cases[c].zlib_window_bits) < cases[c].dedup_block) {
			assert_true(rep.window_identified);
			assert_int_equal(got.zlib_window_bits, cases[c].zlib_window_bits);
		}
		/* the fitted parameters predict every kind's physical bytes */
		for (unsigned i = 0; i < n; i++) {
			uint64_t l, u, ph;
			predict(&m[i].spec, &got, &l, &u, &ph);
			assert_int_equal(u, m[i].unique);
			if (m[i].physical && fabs((double)ph / (double)m[i].physical - 1) > 0.02)
				fail_msg("kind %u: physical %llu predicted, %llu measured", i, (unsigned long long)ph,
					 (unsigned long long)m[i].physical);
		}
	}
}

/* A LU that counts threshold sets (SBC-4 page 0Ch; lunlab: one set per dedup block) reports
 * every figure rounded down to a set: with the resolution said, the ranges the fit gives
 * still hold the truth (calibrate's round trip met level 5..5 for a true 6 when the fit took
 * set counts for 512-byte ones). */
/* bytes x added to an array holding o, as the difference of two counts in whole sets */
static int64_t counted(uint64_t o, uint64_t x, uint32_t set)
{
	return (int64_t)((o + x) / set - o / set) * set;
}

static void fit_in_threshold_sets(void **state)
{
	(void)state;
	const struct dr_params truth = { 8192, 6, 13, 512 };
	const uint32_t set = 8192;
	struct dr_measure m[32];
	unsigned n = measure_all(&truth, m, true);
	/* as calibrate reads them: each count before and after the kind was written, each in
	 * whole sets of an array that already held some bytes (o), then the differences */
	for (unsigned i = 0; i < n; i++) {
		uint64_t o = (uint64_t)(i + 1) * 5003 % set;
		int64_t l = counted(o, m[i].logical, set);
		int64_t d = counted(o * 3 % set, m[i].logical - m[i].unique, set);
		int64_t c = counted(o * 7 % set, m[i].unique - m[i].physical, set);
		m[i].logical = (uint64_t)l;
		m[i].unique = l - d > 0 ? (uint64_t)(l - d) : 0;
		m[i].physical = l - d - c > 0 ? (uint64_t)(l - d - c) : 0;
		m[i].resolution = set;
	}
	assert_int_equal(dr_dedup_block(m, n), truth.dedup_block);
	struct dr_params got;
	struct dr_fit_report rep;
	assert_int_equal(dr_fit(m, n, truth.dedup_block, &got, &rep), 0);
	printf("  in %u-byte sets: level %d (%d..%d) window %d (%d..%d) unit %u, err %.3g over %u kinds\n", set, got.zlib_level, rep.level_lo,
	       rep.level_hi, got.zlib_window_bits, rep.window_lo, rep.window_hi, got.alloc_unit, rep.err, n);
	assert_true(rep.compresses);
	assert_true(truth.zlib_level >= rep.level_lo && truth.zlib_level <= rep.level_hi);
	assert_true(truth.zlib_window_bits >= rep.window_lo && truth.zlib_window_bits <= rep.window_hi);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dup_and_zero),
		cmocka_unit_test(sparse_and_period),
		cmocka_unit_test(fit_recovers),
		cmocka_unit_test(fit_in_threshold_sets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
