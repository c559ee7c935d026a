/* test_block_account.c — the background accounting workers: they start with
 * the first store and stop with the last, they work a store's backlog off on
 * their own (no caller waiting), acct_drain leaves no block pending while
 * writers and frees run beside the workers, and the figures after a drain
 * are exactly what a one-shot compression of the live blocks gives; while
 * new blocks keep arriving the workers hold back (one batch per 20 ms each)
 * unless the backlog or the array's headroom calls for exact figures. */
#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <zlib.h>
#include "array_test_util.h"
#include "handlers/array/block_account.h"
#include "handlers/array/block_compress.h"
#include "handlers/array/block_store.h"

static const struct acct_params P = { 1, 14, NULL, NULL };

static void put_blocks(struct block_store *bs, uint32_t *ids, int n, uint64_t seed)
{
	unsigned char blk[8192];
	for (int i = 0; i < n; i++) {
		/* half compressible, half random */
		fill_random(blk, bs->block, &seed);
		if (i % 2)
			memset(blk + 64, 'a' + i % 26, bs->block - 64);
		assert_int_equal(bs_ref_content(bs, blk, &ids[i]), 0);
	}
}

static uint64_t expected_compressed(struct block_store *bs, const uint32_t *ids, int n)
{
	uint64_t c = 0;
	for (int i = 0; i < n; i++)
		if (ids[i])
			c += compressed_size(P.zlib_level, P.zlib_window_bits, bs_data(bs, ids[i]), bs->block);
	return c;
}

static void workers_start_and_stop_with_stores(void **state)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct block_store *a = bs_create(8192, 512), *b = bs_create(8192, 512);
	assert_int_equal(acct_workers(), 0);
	assert_int_equal(acct_attach(a, &P), 0);
	assert_int_equal(acct_workers(), cpus > 8 ? 8 : (unsigned)cpus);
	assert_int_equal(acct_attach(b, &P), 0);
	acct_detach(a);
	assert_true(acct_workers() > 0);   /* b still needs them */
	acct_detach(b);
	assert_int_equal(acct_workers(), 0);
	bs_destroy(a);
	bs_destroy(b);
}

static void workers_drain_a_backlog_unasked(void **state)
{
	enum { N = 600 };
	static uint32_t ids[N];
	struct block_store *bs = bs_create(8192, 512);
	assert_int_equal(acct_attach(bs, &P), 0);
	put_blocks(bs, ids, N, 3);
	/* no drain call: the idle-priority workers alone must get there (their
	 * share of a busy machine is small, so the limit is generous) */
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		bs_wait_drained(bs, 100);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (bs_backlog(bs)); /* no limit of our own: meson's timeout is the hang guard */
	assert_int_equal(bs_backlog(bs), 0);
	struct bs_figures f;
	bs_figures(bs, &f);
	assert_int_equal(f.pending_blocks, 0);
	assert_int_equal(f.unique_blocks, N);
	assert_int_equal(f.compressed_bytes, expected_compressed(bs, ids, N));
	acct_detach(bs);
	for (int i = 0; i < N; i++)
		bs_unref(bs, ids[i]);
	bs_destroy(bs);
}

struct churn {
	struct block_store *bs;
	uint64_t seed;
	uint32_t ids[400];
};

/* Write blocks and free two of every three again, some of them surely
 * while they are pending or being compressed. */
static void *churner(void *arg)
{
	struct churn *c = arg;
	unsigned char blk[8192];
	for (int i = 0; i < 400; i++) {
		fill_random(blk, c->bs->block, &c->seed);
		memset(blk + 100, 0, 4000);
		assert_int_equal(bs_ref_content(c->bs, blk, &c->ids[i]), 0);
		if (i >= 2 && i % 3) {
			bs_unref(c->bs, c->ids[i - 2]);
			c->ids[i - 2] = 0;
		}
	}
	return NULL;
}

static void drain_while_writers_free_blocks(void **state)
{
	struct block_store *bs = bs_create(8192, 1024);
	assert_int_equal(acct_attach(bs, &P), 0);
	struct churn c[2] = { { bs, 11, { 0 } }, { bs, 12, { 0 } } };
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, churner, &c[i]);
	acct_drain(bs); /* concurrent with the writers: returns with whatever is there accounted */
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	acct_drain(bs);
	struct bs_figures f;
	bs_figures(bs, &f);
	assert_int_equal(f.pending_blocks, 0);
	assert_int_equal(bs_backlog(bs), 0);
	uint64_t live = 0, phys = 0;
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < 400; i++)
			if (c[k].ids[i]) {
				live++;
				phys += bs_physical_size(bs, compressed_size(1, 14, bs_data(bs, c[k].ids[i]), 8192));
			}
	assert_int_equal(f.unique_blocks, live);
	assert_int_equal(f.compressed_bytes, expected_compressed(bs, c[0].ids, 400) + expected_compressed(bs, c[1].ids, 400));
	assert_int_equal(f.physical_bytes, phys);
	assert_int_equal(f.used_bytes, phys);
	acct_detach(bs);
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < 400; i++)
			if (c[k].ids[i])
				bs_unref(bs, c[k].ids[i]);
	bs_figures(bs, &f);
	assert_int_equal(f.unique_blocks, 0);
	assert_int_equal(f.physical_bytes, 0);
	bs_destroy(bs);
}

static void hold_back_rule(void **state)
{
	(void)state;
	const uint32_t B = 16384;
	/* nothing arrived since the last look: full speed */
	assert_false(acct_hold_back(0, 10, UINT64_MAX, B));
	/* writes of new data arriving, far from full: hold back */
	assert_true(acct_hold_back(1, 10, UINT64_MAX, B));
	assert_true(acct_hold_back(500, (1u << 20) - 1, UINT64_MAX, B));
	/* a backlog of 2^20 blocks: full speed whatever arrives */
	assert_false(acct_hold_back(500, 1u << 20, UINT64_MAX, B));
	/* near full: the backlog's worst case (pending x B) reaches the headroom */
	assert_true(acct_hold_back(1, 99, 100ull * B, B));
	assert_false(acct_hold_back(1, 100, 100ull * B, B));
	assert_false(acct_hold_back(1, 1, 0, B));
}

/* A writer adds 8 blocks a millisecond for 1.5 s.  The backlog starts at
 * 4,000 blocks; the workers may account at most one batch (32) per worker per
 * 20 ms meanwhile (doubled for slack), where unrestrained they would have
 * emptied it in a fraction of that.  The rule holds them back only while blocks
 * keep arriving between two looks (hold_back_rule tests it on chosen figures):
 * a writer the machine held up for a look's 20 ms rightly lets them go at full
 * speed, so the bound is asserted only when no two arrivals were 20 ms apart (the
 * end of each batch minus the start of the one before bounds every gap between
 * arrivals), up to the moment the writer read the backlog. */
static uint64_t headroom_value;
static uint64_t headroom_fn(void *ctx)
{
	(void)ctx;
	return headroom_value;
}

struct trickle {
	struct block_store *bs;
	uint32_t *ids;
	int n;
	double seconds;
	double max_gap;       /* bounds the longest time between two arrivals, s */
	uint64_t backlog_end; /* the backlog right after the last batch */
};

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *trickler(void *arg)
{
	struct trickle *t = arg;
	unsigned char blk[4096];
	uint64_t seed = 77;
	double t0 = now_s(), prev_start = t0, start, now;
	while ((start = now_s()) - t0 < 1.5 && t->n + 8 <= 20000) {
		for (int k = 0; k < 8; k++) {
			fill_random(blk, 64, &seed);
			memset(blk + 64, 'x', sizeof(blk) - 64);
			assert_int_equal(bs_ref_content(t->bs, blk, &t->ids[t->n]), 0);
			t->n++;
		}
		now = now_s();
		if (now - prev_start > t->max_gap)
			t->max_gap = now - prev_start;
		prev_start = start;
		usleep(1000);
	}
	t->backlog_end = bs_backlog(t->bs);
	now = now_s();
	if (now - prev_start > t->max_gap)
		t->max_gap = now - prev_start;
	t->seconds = now - t0;
	return NULL;
}

static void workers_hold_back_while_blocks_arrive(void **state)
{
	(void)state;
	static uint32_t ids[24000];
	struct block_store *bs = bs_create(4096, 512);
	headroom_value = UINT64_MAX;
	struct acct_params p = { 1, 12, headroom_fn, NULL };
	/* 4,000 pending before the workers exist */
	put_blocks(bs, ids, 4000, 5);
	uint64_t before = bs_backlog(bs);
	assert_int_equal(before, 4000);
	struct trickle t = { bs, ids + 4000, 0, 0, 0, 0 };
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, trickler, &t), 0);
	usleep(2000); /* the first arrivals come before the workers start */
	assert_int_equal(acct_attach(bs, &p), 0);
	pthread_join(th, NULL);
	uint64_t accounted = 4000 + (uint64_t)t.n - t.backlog_end;
	uint64_t bound = 2 * ((uint64_t)(t.seconds * 1000 / 20) + 2) * 32 * acct_workers();
	printf("     %d blocks arrived in %.2f s (arrivals at most %.1f ms apart); the workers accounted %llu (bound %llu)\n",
	       t.n, t.seconds, t.max_gap * 1e3, (unsigned long long)accounted, (unsigned long long)bound);
	if (t.max_gap < 0.020) { /* ACCT_YIELD_NS: the time between two looks that hold back */
		assert_true(accounted <= bound);
		assert_true(t.backlog_end > 0);
	} else {
		printf("     (the writer was held up %.1f ms: arrivals paused for a look, so full speed was right; "
		       "the bound is not judged)\n", t.max_gap * 1e3);
	}
	/* once the writer stops they catch up on their own (no limit of our own: meson's timeout) */
	while (bs_backlog(bs))
		bs_wait_drained(bs, 100);
	assert_int_equal(bs_backlog(bs), 0);
	acct_detach(bs);
	for (int i = 0; i < 4000 + t.n; i++)
		bs_unref(bs, ids[i]);
	bs_destroy(bs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(workers_start_and_stop_with_stores),
		cmocka_unit_test(workers_drain_a_backlog_unasked),
		cmocka_unit_test(drain_while_writers_free_blocks),
		cmocka_unit_test(hold_back_rule),
		cmocka_unit_test(workers_hold_back_while_blocks_arrive),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
