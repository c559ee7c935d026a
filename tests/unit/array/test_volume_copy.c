/* test_volume_copy.c — the metadata copy behind EXTENDED COPY: whole blocks
 * move as map entries (no new unique blocks), unaligned edges use RMW,
 * same-volume overlap behaves like memmove, other arrays get -EXDEV. */
#include <errno.h>
#include <pthread.h>
#include "array_test_util.h"

static void copy_moves_entries_only(void **state)
{
	const uint32_t B = 16384;
	struct array *a = new_array(B, 6, 512);
	struct volume *s = volume_create(a, 256 * B, 512), *d = volume_create(a, 256 * B, 4096);
	unsigned char *buf = malloc(64 * B), *got = malloc(64 * B);
	uint64_t seed = 1, moved;
	fill_random(buf, 64 * B, &seed);
	assert_int_equal(wr(s, 0, buf, 64 * B), 0);
	struct array_stats st = stats_of(a);
	assert_int_equal(volume_copy(d, 128 * B, s, 0, 64 * B, &moved), 0);
	assert_int_equal(moved, 64);
	struct array_stats st2 = stats_of(a);
	assert_int_equal(st2.unique_blocks, st.unique_blocks);
	assert_int_equal(st2.physical_bytes, st.physical_bytes);
	assert_int_equal(st2.mapped_blocks, 128);
	assert_int_equal(volume_mapped_bytes(d), 64 * B);
	assert_int_equal(rd(d, 128 * B, got, 64 * B), 0);
	assert_memory_equal(got, buf, 64 * B);
	/* Copying unmapped source blocks unmaps the destination. */
	assert_int_equal(volume_copy(d, 128 * B, s, 100 * B, 8 * B, &moved), 0);
	assert_int_equal(moved, 8);
	assert_int_equal(volume_mapped_bytes(d), 56 * B);
	/* Same offset within a block but unaligned: edges RMW, middle moved. */
	assert_int_equal(volume_copy(d, 4096, s, 4096, 10 * B, &moved), 0);
	assert_int_equal(moved, 9);
	assert_int_equal(rd(d, 4096, got, 10 * B), 0);
	assert_memory_equal(got, buf + 4096, 10 * B);
	/* Different offsets within a block: data copy, nothing moved. */
	assert_int_equal(volume_copy(d, 200 * B + 4096, s, 512, 3 * B, &moved), 0);
	assert_int_equal(moved, 0);
	assert_int_equal(rd(d, 200 * B + 4096, got, 3 * B), 0);
	assert_memory_equal(got, buf + 512, 3 * B);
	/* Range checks. */
	assert_int_equal(volume_copy(d, 255 * B, s, 0, 2 * B, &moved), -ERANGE);
	assert_int_equal(volume_copy(d, 0, s, 255 * B, 2 * B, &moved), -ERANGE);
	assert_int_equal(volume_copy(d, 512, s, 0, 4096, &moved), -EINVAL); /* d has 4096-byte LBAs */
	volume_destroy(s);
	volume_destroy(d);
	free(buf);
	free(got);
	array_put(a);
}

static void copy_across_arrays_refused(void **state)
{
	struct array *a = new_array(8192, 6, 512), *b = new_array(8192, 6, 512);
	struct volume *s = volume_create(a, 1 << 20, 512), *d = volume_create(b, 1 << 20, 512);
	uint64_t moved = 77;
	assert_int_equal(volume_copy(d, 0, s, 0, 8192, &moved), -EXDEV);
	assert_int_equal(moved, 0);
	volume_destroy(s);
	volume_destroy(d);
	array_put(a);
	array_put(b);
}

/* Random same-volume and cross-volume copies, checked against memmove on a
 * shadow; lengths and offsets in LBA steps hit every edge case. */
static void copy_overlap_matches_memmove(void **state)
{
	const uint32_t Bs[] = { 8192, 16384 };
	for (int k = 0; k < 2; k++) {
		uint32_t B = Bs[k];
		uint64_t size = 48 * (uint64_t)B;
		struct array *a = new_array(B, 1, 512);
		struct volume *v = volume_create(a, size, 512), *w = volume_create(a, size, 512);
		unsigned char *sv = malloc(size), *sw = malloc(size), *got = malloc(size);
		uint64_t seed = 1000 + k, moved;
		/* Some repeated blocks so dedup and copies interact. */
		fill_random(sv, size, &seed);
		for (uint64_t i = 0; i < size / B; i += 3)
			memcpy(sv + i * B, sv, B);
		memset(sv + 5 * B, 0, 2 * B);
		memcpy(sw, sv, size);
		assert_int_equal(wr(v, 0, sv, size), 0);
		assert_int_equal(wr(w, 0, sw, size), 0);
		for (int it = 0; it < 400; it++) {
			uint64_t len = (rng_next(&seed) % (size / 512 / 2) + 1) * 512;
			uint64_t so = rng_next(&seed) % ((size - len) / 512 + 1) * 512;
			uint64_t dof;
			if (it % 2) /* same block phase: metadata path */
				dof = (rng_next(&seed) % ((size - len) / B + 1)) * B + so % B;
			else
				dof = rng_next(&seed) % ((size - len) / 512 + 1) * 512;
			if (dof + len > size)
				dof = so;
			int same = it % 3 != 0;
			struct volume *dst = same ? v : w;
			unsigned char *sdst = same ? sv : sw;
			assert_int_equal(volume_copy(dst, dof, v, so, len, &moved), 0);
			memmove(sdst + dof, sv + so, len);
			if (it % 40 == 0 || it == 399) {
				assert_int_equal(rd(v, 0, got, size), 0);
				assert_memory_equal(got, sv, size);
				assert_int_equal(rd(w, 0, got, size), 0);
				assert_memory_equal(got, sw, size);
			}
		}
		volume_destroy(v);
		volume_destroy(w);
		struct array_stats s = stats_of(a);
		assert_int_equal(s.unique_blocks, 0);
		assert_int_equal(s.mapped_blocks, 0);
		free(sv);
		free(sw);
		free(got);
		array_put(a);
	}
}

/* Cross copies in both directions (small and huge ranges, which lock a whole
 * volume), same-volume copies and small writes, all at once: must neither
 * deadlock nor lose a reference. */
struct xctx {
	struct volume *a, *b;
	int id;
	uint32_t B;
};

static void *cross_worker(void *arg)
{
	struct xctx *c = arg;
	uint64_t seed = 500 + c->id, moved;
	unsigned char buf[4096];
	uint64_t size = volume_size(c->a);
	for (int i = 0; i < 200; i++) {
		int big = rng_next(&seed) % 8 == 0;
		uint64_t len = big ? size / 2 : (rng_next(&seed) % 64 + 1) * 512;
		uint64_t so = rng_next(&seed) % ((size - len) / 512 + 1) * 512;
		uint64_t dof = rng_next(&seed) % ((size - len) / 512 + 1) * 512;
		if (i % 3 == 0)
			dof = dof / c->B * c->B + so % c->B; /* metadata path */
		if (dof + len > size)
			dof = so;
		struct volume *s = c->id % 2 ? c->a : c->b, *d = c->id % 2 ? c->b : c->a;
		if (i % 5 == 0)
			d = s;
		if (volume_copy(d, dof, s, so, len, &moved))
			return (void *)1;
		memset(buf, (int)(i + c->id), sizeof(buf));
		if (wr(d, (rng_next(&seed) % (size / 4096)) * 4096, buf, sizeof(buf)))
			return (void *)2;
	}
	return NULL;
}

static void concurrent_copies_no_deadlock(void **state)
{
	const uint32_t B = 8192;
	uint64_t size = 512 * (uint64_t)B;
	struct array *a = new_array(B, 1, 512);
	struct volume *v = volume_create(a, size, 512), *w = volume_create(a, size, 512);
	unsigned char *d = malloc(size);
	uint64_t seed = 4;
	fill_random(d, size, &seed);
	assert_int_equal(wr(v, 0, d, size), 0);
	pthread_t t[4];
	struct xctx c[4];
	for (int i = 0; i < 4; i++) {
		c[i] = (struct xctx){ v, w, i, B };
		pthread_create(&t[i], NULL, cross_worker, &c[i]);
	}
	for (int i = 0; i < 4; i++) {
		void *r;
		pthread_join(t[i], &r);
		assert_null(r);
	}
	assert_int_equal(volume_unmap(v, 0, size), 0);
	assert_int_equal(volume_unmap(w, 0, size), 0);
	struct array_stats s = stats_of(a);
	assert_int_equal(s.mapped_blocks, 0);
	assert_int_equal(s.unique_blocks, 0);
	assert_int_equal(s.single_ref_blocks, 0);
	volume_destroy(v);
	volume_destroy(w);
	free(d);
	array_put(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(copy_moves_entries_only),
		cmocka_unit_test(copy_across_arrays_refused),
		cmocka_unit_test(copy_overlap_matches_memmove),
		cmocka_unit_test(concurrent_copies_no_deadlock),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
