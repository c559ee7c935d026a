/* test_block_account.c — the background accounting workers: they start with
 * the first store and stop with the last, they work a store's backlog off on
 * their own (no caller waiting), acct_drain leaves no block pending while
 * writers and frees run beside the workers, and the figures after a drain
 * are exactly what a one-shot compression of the live blocks gives. */
#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <zlib.h>
#include "array_test_util.h"
#include "handlers/array/block_account.h"
#include "handlers/array/block_compress.h"
#include "handlers/array/block_store.h"

static const struct acct_params P = { 1, 14 };

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
	} while (bs_backlog(bs) && t.tv_sec - t0.tv_sec < 120);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(workers_start_and_stop_with_stores),
		cmocka_unit_test(workers_drain_a_backlog_unasked),
		cmocka_unit_test(drain_while_writers_free_blocks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
