/* test_block_store.c — content addressing: dedup across the volumes of one
 * array and never across arrays, exact reference counts after copy,
 * overwrite and unmap, and fingerprint collisions that must never return
 * wrong data. */
#include "array_test_util.h"
#include "handlers/array/array_internal.h"

static uint32_t ref_at(struct volume *v, uint64_t off)
{
	uint32_t id = map_get(v, off >> v->bshift);
	return id ? atomic_load(&bs_rec(v->a, id)->ref) : 0;
}

static void dedup_across_volumes_not_arrays(void **state)
{
	const uint32_t B = 16384;
	struct array *a = new_array(B, 6, 512), *b = new_array(B, 6, 512);
	struct volume *v1 = volume_create(a, 64 * B, 512), *v2 = volume_create(a, 64 * B, 4096);
	struct volume *w = volume_create(b, 64 * B, 512);
	unsigned char *d = malloc(4 * B);
	uint64_t seed = 11;
	fill_random(d, 4 * B, &seed);
	assert_int_equal(wr(v1, 0, d, 4 * B), 0);
	assert_int_equal(wr(v2, 8 * B, d, 4 * B), 0); /* same blocks, other volume, other lba size */
	assert_int_equal(wr(w, 0, d, 4 * B), 0);
	struct array_stats s = stats_of(a);
	assert_int_equal(s.mapped_blocks, 8);
	assert_int_equal(s.unique_blocks, 4);
	assert_int_equal(s.single_ref_blocks, 0);
	assert_int_equal(s.logical_bytes, 8 * B);
	assert_int_equal(s.unique_bytes, 4 * B);
	assert_int_equal(ref_at(v1, 0), 2);
	s = stats_of(b);
	assert_int_equal(s.unique_blocks, 4); /* a second array stores its own copy */
	assert_int_equal(s.single_ref_blocks, 4);
	/* Same content in the same volume twice. */
	assert_int_equal(wr(v1, 20 * B, d, B), 0);
	assert_int_equal(ref_at(v1, 0), 3);
	assert_int_equal(stats_of(a).unique_blocks, 4);
	volume_destroy(v1);
	volume_destroy(v2);
	volume_destroy(w);
	assert_int_equal(stats_of(a).unique_blocks, 0);
	assert_int_equal(stats_of(b).unique_blocks, 0);
	free(d);
	array_put(a);
	array_put(b);
}

static void refcounts_copy_overwrite_unmap(void **state)
{
	const uint32_t B = 8192;
	struct array *a = new_array(B, 6, 1024);
	struct volume *v = volume_create(a, 128 * B, 512), *c = volume_create(a, 128 * B, 512);
	unsigned char *d = malloc(4 * B), *e = malloc(B);
	uint64_t seed = 5, moved = 0;
	fill_random(d, 4 * B, &seed);
	fill_random(e, B, &seed);
	assert_int_equal(wr(v, 0, d, 4 * B), 0);
	struct array_stats s = stats_of(a);
	assert_int_equal(s.unique_blocks, 4);
	assert_int_equal(s.single_ref_blocks, 4);
	/* XCOPY-style clone: 3 copies, each moving 4 entries. */
	for (int i = 0; i < 3; i++) {
		assert_int_equal(volume_copy(c, (uint64_t)i * 8 * B, v, 0, 4 * B, &moved), 0);
		assert_int_equal(moved, 4);
	}
	s = stats_of(a);
	assert_int_equal(s.mapped_blocks, 16);
	assert_int_equal(s.unique_blocks, 4);
	assert_int_equal(s.single_ref_blocks, 0);
	assert_int_equal(ref_at(v, 0), 4);
	uint64_t phys = s.physical_bytes;
	/* Overwrite one clone's first block with new content. */
	assert_int_equal(wr(c, 0, e, B), 0);
	s = stats_of(a);
	assert_int_equal(ref_at(v, 0), 3);
	assert_int_equal(ref_at(c, 0), 1);
	assert_int_equal(s.unique_blocks, 5);
	assert_int_equal(s.single_ref_blocks, 1);
	assert_true(s.physical_bytes > phys);
	/* Unmap the source and two clones of block 1: refcount 4 -> 1. */
	assert_int_equal(volume_unmap(v, B, B), 0);
	assert_int_equal(volume_unmap(c, 9 * B, B), 0);
	assert_int_equal(volume_unmap(c, 17 * B, B), 0);
	assert_int_equal(ref_at(c, B), 1);
	s = stats_of(a);
	assert_int_equal(s.single_ref_blocks, 2);
	assert_int_equal(s.mapped_blocks, 13);
	/* Last reference gone: block freed, its physical space returned. */
	assert_int_equal(volume_unmap(c, B, B), 0);
	s = stats_of(a);
	assert_int_equal(s.unique_blocks, 4);
	assert_int_equal(s.single_ref_blocks, 1);
	volume_destroy(c);
	volume_destroy(v);
	s = stats_of(a);
	assert_int_equal(s.unique_blocks, 0);
	assert_int_equal(s.physical_bytes, 0);
	assert_int_equal(s.compressed_bytes, 0);
	assert_int_equal(s.single_ref_blocks, 0);
	assert_int_equal(s.mapped_blocks, 0);
	free(d);
	free(e);
	array_put(a);
}

static uint64_t constant_fp(const void *data, size_t len)
{
	(void)data;
	(void)len;
	return 0x1234567890abcdefull; /* every block collides */
}

static void fingerprint_collisions_verified(void **state)
{
	const uint32_t B = 8192;
	const int N = 40;
	struct array *a = new_array(B, 1, 512);
	array_set_fingerprint(a, constant_fp);
	struct volume *v = volume_create(a, 2 * N * (uint64_t)B, 512);
	unsigned char *d = malloc((size_t)N * B), *got = malloc((size_t)N * B);
	uint64_t seed = 99;
	fill_random(d, (size_t)N * B, &seed);
	/* Blocks differing in one byte only, all with the same fingerprint. */
	memcpy(d + B, d, B);
	d[2 * B - 1] ^= 1;
	assert_int_equal(wr(v, 0, d, (uint64_t)N * B), 0);
	assert_int_equal(bs_count_fragment(a, constant_fp(NULL, 0)), N);
	struct array_stats s = stats_of(a);
	assert_int_equal(s.unique_blocks, N);
	assert_int_equal(rd(v, 0, got, (uint64_t)N * B), 0);
	assert_memory_equal(got, d, (size_t)N * B);
	/* Identical content still dedups among the colliding entries. */
	assert_int_equal(wr(v, (uint64_t)N * B, d + 7 * B, B), 0);
	s = stats_of(a);
	assert_int_equal(s.unique_blocks, N);
	assert_int_equal(s.mapped_blocks, N + 1);
	/* Removing entries from the middle of one long probe chain keeps the
	 * rest findable. */
	for (int i = 0; i < N; i += 3)
		assert_int_equal(volume_unmap(v, (uint64_t)i * B, B), 0);
	for (int i = 0; i < N; i++) {
		unsigned char blk[8192];
		assert_int_equal(rd(v, (uint64_t)i * B, blk, B), 0);
		if (i % 3 == 0)
			assert_true(is_zero(blk, B));
		else
			assert_memory_equal(blk, d + (size_t)i * B, B);
		if (i % 3) { /* rewriting existing content must find it, not add */
			assert_int_equal(wr(v, (uint64_t)(N + 1) * B, d + (size_t)i * B, B), 0);
		}
	}
	s = stats_of(a);
	assert_int_equal(s.unique_blocks, N - (N + 2) / 3); /* blocks at N, N+1 repeat live ones */
	volume_destroy(v);
	assert_int_equal(stats_of(a).unique_blocks, 0);
	free(d);
	free(got);
	array_put(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dedup_across_volumes_not_arrays),
		cmocka_unit_test(refcounts_copy_overwrite_unmap),
		cmocka_unit_test(fingerprint_collisions_verified),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
