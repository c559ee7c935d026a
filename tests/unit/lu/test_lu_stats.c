/* test_lu_stats.c — target/lu/lu_stats.c: command kinds, exact counts,
 * bytes and latency buckets, shards summed, one sample counted into
 * several sets, and exact totals when several threads record at once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <string.h>
#include <cmocka.h>

#include "target/lu/lu_stats.h"

static void test_kinds(void **state)
{
	static const struct { uint8_t op; enum lu_kind k; } t[] = {
		{ 0x08, LU_KIND_READ }, { 0x28, LU_KIND_READ }, { 0xa8, LU_KIND_READ }, { 0x88, LU_KIND_READ },
		{ 0x0a, LU_KIND_WRITE }, { 0x2a, LU_KIND_WRITE }, { 0xaa, LU_KIND_WRITE }, { 0x8a, LU_KIND_WRITE },
		{ 0x2e, LU_KIND_WRITE }, { 0x8e, LU_KIND_WRITE }, { 0x83, LU_KIND_XCOPY },
		{ 0xae, LU_KIND_WRITE }, { 0x9c, LU_KIND_WRITE }, /* WRITE AND VERIFY(12), WRITE ATOMIC(16) */
		{ 0x8b, LU_KIND_OTHER },                          /* ORWRITE(16) */
		{ 0x41, LU_KIND_WRITE_SAME }, { 0x93, LU_KIND_WRITE_SAME }, { 0x42, LU_KIND_UNMAP },
		{ 0x89, LU_KIND_CAW }, { 0x12, LU_KIND_OTHER }, { 0x4d, LU_KIND_OTHER }, { 0x84, LU_KIND_OTHER },
		{ 0x00, LU_KIND_OTHER },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint8_t cdb[16] = { t[i].op };
		assert_int_equal(lu_kind_of(cdb, sizeof(cdb)), t[i].k);
	}
	assert_string_equal(lu_kind_name(LU_KIND_READ), "read");
	assert_string_equal(lu_kind_name(LU_KIND_WRITE_SAME), "write_same");
	assert_string_equal(lu_kind_name(LU_KIND_CAW), "caw");
	assert_string_equal(lu_kind_name(LU_KIND_OTHER), "other");
	assert_string_equal(lu_kind_name(LU_KINDS), "other");
}

static void test_buckets_bounds(void **state)
{
	(void)state;
	assert_int_equal(lunlab_lat_bucket(0), 0);
	assert_int_equal(lunlab_lat_bucket(5000), 0);    /* le is inclusive */
	assert_int_equal(lunlab_lat_bucket(5001), 1);
	assert_int_equal(lunlab_lat_bucket(10000), 1);
	assert_int_equal(lunlab_lat_bucket(23000), 3);   /* X2's 23 us: in le=50us */
	assert_int_equal(lunlab_lat_bucket(10000000000ull), LUNLAB_LAT_BOUNDS - 1);
	assert_int_equal(lunlab_lat_bucket(10000000001ull), LUNLAB_LAT_BOUNDS);
	for (unsigned i = 1; i < LUNLAB_LAT_BOUNDS; i++)
		assert_true(lunlab_lat_bound_ns[i] > lunlab_lat_bound_ns[i - 1]);
}

static void test_record_and_read(void **state)
{
	struct lu_stats *s = lu_stats_new();
	struct lu_kind_figures f[LU_KINDS];

	(void)state;
	assert_non_null(s);
	lu_stats_read(s, f);
	for (unsigned k = 0; k < LU_KINDS; k++)
		assert_int_equal(f[k].commands, 0);
	/* shards 0, 1 and 9 (which shares 1's lines) all count */
	lu_stats_record(s, 0, LU_KIND_READ, 4096, true, 12000);
	lu_stats_record(s, 1, LU_KIND_READ, 65536, true, 700000);
	lu_stats_record(s, 9, LU_KIND_READ, 0, false, 3000);
	lu_stats_record(s, 3, LU_KIND_XCOPY, 32, true, 23000);
	lu_stats_record(s, 3, LU_KIND_OTHER, 36, true, 0);
	lu_stats_record(s, 3, LU_KINDS, 36, true, 0); /* ignored */
	lu_stats_record(NULL, 3, LU_KIND_READ, 36, true, 0); /* ignored */
	lu_stats_read(s, f);
	assert_int_equal(f[LU_KIND_READ].commands, 3);
	assert_int_equal(f[LU_KIND_READ].errors, 1);
	assert_int_equal(f[LU_KIND_READ].bytes, 4096 + 65536);
	assert_int_equal(f[LU_KIND_READ].latency_sum_ns, 12000 + 700000 + 3000);
	assert_int_equal(f[LU_KIND_READ].latency_buckets[0], 1);  /* 3 us */
	assert_int_equal(f[LU_KIND_READ].latency_buckets[2], 1);  /* 12 us: le=20us */
	assert_int_equal(f[LU_KIND_READ].latency_buckets[7], 1);  /* 700 us: le=1ms */
	assert_int_equal(f[LU_KIND_XCOPY].commands, 1);
	assert_int_equal(f[LU_KIND_XCOPY].bytes, 32);
	assert_int_equal(f[LU_KIND_XCOPY].latency_buckets[3], 1);
	assert_int_equal(f[LU_KIND_OTHER].commands, 1);
	assert_int_equal(f[LU_KIND_WRITE].commands, 0);
	/* one kind's sums alone: the same totals, no buckets */
	struct lu_kind_figures one;
	memset(&one, 0xff, sizeof(one));
	lu_stats_read_kind(s, LU_KIND_READ, &one);
	assert_int_equal(one.commands, 3);
	assert_int_equal(one.errors, 1);
	assert_int_equal(one.bytes, 4096 + 65536);
	assert_int_equal(one.latency_sum_ns, 12000 + 700000 + 3000);
	assert_int_equal(one.latency_buckets[0], 0);
	lu_stats_read_kind(s, LU_KINDS, &one);
	assert_int_equal(one.commands, 0);
	lu_stats_read_kind(NULL, LU_KIND_READ, &one);
	assert_int_equal(one.bytes, 0);
	lu_stats_free(s);
}

/* One sample counted into three sets (an LU's, its portal's, its
 * initiator's, as count_answer does): each holds exactly what
 * lu_stats_record would have put there. */
static void test_sample_into_several(void **state)
{
	struct lu_stats *s[3] = { lu_stats_new(), lu_stats_new(), lu_stats_new() };
	struct lu_kind_figures f[LU_KINDS];
	struct lu_stats_sample smp;

	(void)state;
	lu_stats_sample_set(&smp, LU_KIND_WRITE, 8192, false, 23000);
	assert_int_equal(smp.bucket, 3); /* 23 us: le=50us */
	for (int i = 0; i < 3; i++)
		lu_stats_add(s[i], (unsigned)i, &smp);
	lu_stats_add(NULL, 0, &smp); /* ignored */
	for (int i = 0; i < 3; i++) {
		lu_stats_read(s[i], f);
		assert_int_equal(f[LU_KIND_WRITE].commands, 1);
		assert_int_equal(f[LU_KIND_WRITE].errors, 1);
		assert_int_equal(f[LU_KIND_WRITE].bytes, 8192);
		assert_int_equal(f[LU_KIND_WRITE].latency_sum_ns, 23000);
		assert_int_equal(f[LU_KIND_WRITE].latency_buckets[3], 1);
		assert_int_equal(f[LU_KIND_READ].commands, 0);
	}
	lu_stats_sample_set(&smp, LU_KINDS, 1, true, 0);
	lu_stats_add(s[0], 0, &smp); /* a kind out of range: ignored */
	lu_stats_read(s[0], f);
	assert_int_equal(f[LU_KIND_WRITE].commands + f[LU_KIND_OTHER].commands, 1);
	for (int i = 0; i < 3; i++)
		lu_stats_free(s[i]);
}

#define THREADS 4
#define PER_THREAD 20000

static void *hammer(void *arg)
{
	struct lu_stats *s = arg;

	for (unsigned i = 0; i < PER_THREAD; i++)
		lu_stats_record(s, i & 1, LU_KIND_WRITE, 512, true, 1000 * (i % 7));
	return NULL;
}

static void test_concurrent_exact(void **state)
{
	struct lu_stats *s = lu_stats_new();
	struct lu_kind_figures f[LU_KINDS];
	pthread_t t[THREADS];
	uint64_t sum = 0;

	(void)state;
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, hammer, s), 0);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	lu_stats_read(s, f);
	assert_int_equal(f[LU_KIND_WRITE].commands, THREADS * PER_THREAD);
	assert_int_equal(f[LU_KIND_WRITE].bytes, 512ull * THREADS * PER_THREAD);
	for (unsigned b = 0; b < LUNLAB_LAT_BUCKETS; b++)
		sum += f[LU_KIND_WRITE].latency_buckets[b];
	assert_int_equal(sum, THREADS * PER_THREAD);
	lu_stats_free(s);
}

/* Each thread the sole writer of its own shard (LU_STATS_SOLE, as an I/O
 * thread is while there are no more of them than shards): plain stores,
 * still exact totals, the shard index without the flag. */
struct sole_arg {
	struct lu_stats *s;
	unsigned shard;
};

static void *hammer_sole(void *arg)
{
	struct sole_arg *a = arg;
	struct lu_stats_sample smp;

	lu_stats_sample_set(&smp, LU_KIND_READ, 4096, true, 7000);
	for (unsigned i = 0; i < PER_THREAD; i++)
		lu_stats_add(a->s, a->shard | LU_STATS_SOLE, &smp);
	return NULL;
}

static void test_sole_writers_exact(void **state)
{
	struct lu_stats *s = lu_stats_new();
	struct lu_kind_figures f[LU_KINDS];
	struct sole_arg a[THREADS];
	pthread_t t[THREADS];

	(void)state;
	assert_true(THREADS <= LU_STATS_SHARDS);
	for (int i = 0; i < THREADS; i++) {
		a[i].s = s;
		a[i].shard = (unsigned)i;
		assert_int_equal(pthread_create(&t[i], NULL, hammer_sole, &a[i]), 0);
	}
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	lu_stats_record(s, LU_STATS_SOLE | 5, LU_KIND_READ, 512, false, 2000000); /* shard 5 */
	lu_stats_read(s, f);
	assert_int_equal(f[LU_KIND_READ].commands, THREADS * PER_THREAD + 1);
	assert_int_equal(f[LU_KIND_READ].errors, 1);
	assert_int_equal(f[LU_KIND_READ].bytes, 4096ull * THREADS * PER_THREAD + 512);
	assert_int_equal(f[LU_KIND_READ].latency_sum_ns, 7000ull * THREADS * PER_THREAD + 2000000);
	assert_int_equal(f[LU_KIND_READ].latency_buckets[1], THREADS * PER_THREAD); /* 7 us: le=10us */
	assert_int_equal(f[LU_KIND_READ].latency_buckets[8], 1);                    /* 2 ms */
	lu_stats_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_buckets_bounds),
		cmocka_unit_test(test_record_and_read),
		cmocka_unit_test(test_sample_into_several),
		cmocka_unit_test(test_concurrent_exact),
		cmocka_unit_test(test_sole_writers_exact),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
