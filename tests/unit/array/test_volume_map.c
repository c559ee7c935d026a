/* test_volume_map.c — shared map chunks (volume_map.c): an aligned copy
 * points the destination at the source's chunk instead of copying entries;
 * copies of copies share the same chunk; a write or an UNMAP through one
 * slot copies the chunk first and leaves every other holder unchanged; a
 * copy that overlaps its own destination behaves like memmove; a chunk
 * completed by smaller copies shares its source's.  After each
 * step: the chunk's share count, the blocks' reference counts (one per
 * holding chunk, one more while the chunk is shared), the memory of the
 * chunks, and logical / unique / single-referenced / physical figures, all
 * exact, with the data read back. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include "array_test_util.h"
#include "handlers/array/array_internal.h"

#define B 8192u                      /* x1 block: a chunk is 256 x 8 KiB = 2 MiB */
#define CH ((uint64_t)MAP_CHUNK_ENTRIES) /* blocks per chunk */

static uint32_t shares(struct volume *v, uint64_t chunk)
{
	struct map_chunk *c = map_chunk_at(v, chunk);
	return c ? atomic_load(&c->shares) : 0;
}

static uint32_t ref_of(struct volume *v, uint64_t block)
{
	uint32_t id = map_get(v, block);
	return id ? atomic_load(&bs_rec(v->bs, id)->ref) : 0;
}

static uint64_t chunk_bytes(struct array *a)
{
	return atomic_load(&a->bs->map_chunk_bytes);
}

/* every block of [b0, b0+n) of v holds expect (n blocks of B bytes) */
static void expect_data(struct volume *v, uint64_t b0, const unsigned char *expect, uint64_t n)
{
	unsigned char *got = malloc(n * B);
	assert_int_equal(rd(v, b0 * B, got, n * B), 0);
	assert_memory_equal(got, expect, n * B);
	free(got);
}

static void expect_zero(struct volume *v, uint64_t b0, uint64_t n)
{
	unsigned char *z = calloc(n, B);
	expect_data(v, b0, z, n);
	free(z);
}

static void copy(struct volume *d, uint64_t db, struct volume *s, uint64_t sb, uint64_t n)
{
	uint64_t moved = 0;
	assert_int_equal(volume_copy(d, db * B, s, sb * B, n * B, &moved), 0);
	assert_int_equal(moved, n); /* the cost model's figure: one entry per block, shared or not */
}

/* A template of 2 chunks, a copy of it, a copy of the copy: one chunk per
 * 256 blocks in memory whatever the number of copies. */
static void copies_of_copies_share(void **state)
{
	struct array *a = new_array(B, 6, 512);
	struct volume *t = volume_create(a, 4 * CH * B, 512), *c1 = volume_create(a, 4 * CH * B, 512),
		      *c2 = volume_create(a, 4 * CH * B, 512);
	unsigned char *tmpl = malloc(2 * CH * B);
	uint64_t seed = 7;
	fill_random(tmpl, 2 * CH * B, &seed);
	assert_int_equal(wr(t, 0, tmpl, 2 * CH * B), 0);
	struct array_stats s0 = stats_of(a);
	assert_int_equal(s0.unique_blocks, 512);
	assert_int_equal(s0.mapped_blocks, 512);
	assert_int_equal(s0.single_ref_blocks, 512);
	assert_int_equal(chunk_bytes(a), 2 * sizeof(struct map_chunk));
	assert_int_equal(shares(t, 0), 1);
	assert_int_equal(ref_of(t, 0), 1);

	copy(c1, 0, t, 0, 2 * CH);
	assert_ptr_equal(map_chunk_at(c1, 0), map_chunk_at(t, 0));
	assert_ptr_equal(map_chunk_at(c1, 1), map_chunk_at(t, 1));
	assert_int_equal(shares(t, 0), 2);
	assert_int_equal(shares(t, 1), 2);
	assert_int_equal(ref_of(t, 0), 2); /* one holding chunk, shared */
	assert_int_equal(ref_of(t, 511), 2);
	struct array_stats s1 = stats_of(a);
	assert_int_equal(s1.unique_blocks, 512);
	assert_int_equal(s1.mapped_blocks, 1024);
	assert_int_equal(s1.logical_bytes, 1024ull * B);
	assert_int_equal(s1.unique_bytes, 512ull * B);
	assert_int_equal(s1.single_ref_blocks, 0);
	assert_int_equal(s1.physical_bytes, s0.physical_bytes);
	assert_int_equal(volume_mapped_bytes(c1), 512ull * B);
	assert_int_equal(chunk_bytes(a), 2 * sizeof(struct map_chunk)); /* no chunk made */

	/* the copy of the copy, one chunk further on */
	copy(c2, CH, c1, 0, 2 * CH);
	assert_ptr_equal(map_chunk_at(c2, 1), map_chunk_at(t, 0));
	assert_ptr_equal(map_chunk_at(c2, 2), map_chunk_at(t, 1));
	assert_int_equal(shares(t, 0), 3);
	assert_int_equal(ref_of(t, 0), 2); /* the extra reference is taken once */
	struct array_stats s2 = stats_of(a);
	assert_int_equal(s2.unique_blocks, 512);
	assert_int_equal(s2.mapped_blocks, 1536);
	assert_int_equal(s2.single_ref_blocks, 0);
	assert_int_equal(s2.physical_bytes, s0.physical_bytes);
	assert_int_equal(chunk_bytes(a), 2 * sizeof(struct map_chunk));
	expect_data(c1, 0, tmpl, 2 * CH);
	expect_data(c2, CH, tmpl, 2 * CH);
	expect_zero(c2, 0, CH);

	/* destroying the volumes gives everything back in any order */
	volume_destroy(t);
	assert_int_equal(shares(c1, 0), 2);
	assert_int_equal(ref_of(c1, 0), 2);
	volume_destroy(c1);
	assert_int_equal(shares(c2, 1), 1);
	assert_int_equal(ref_of(c2, CH), 1);
	struct array_stats s3 = stats_of(a);
	assert_int_equal(s3.mapped_blocks, 512);
	assert_int_equal(s3.single_ref_blocks, 512);
	volume_destroy(c2);
	struct array_stats s4 = stats_of(a);
	assert_int_equal(s4.unique_blocks, 0);
	assert_int_equal(s4.physical_bytes, 0);
	assert_int_equal(chunk_bytes(a), 0);
	free(tmpl);
	array_put(a);
}

/* Writes through one holder of a shared chunk: it gets its own copy, the
 * others keep the chunk and their data; the last holder's write leaves the
 * chunk private again (the extra references go). */
static void overwrite_shared_chunk(void **state)
{
	struct array *a = new_array(B, 6, 512);
	struct volume *t = volume_create(a, 2 * CH * B, 512), *c1 = volume_create(a, 2 * CH * B, 512),
		      *c2 = volume_create(a, 2 * CH * B, 512);
	unsigned char *tmpl = malloc(CH * B), *n1 = malloc(B), *n2 = malloc(B), *want = malloc(CH * B);
	uint64_t seed = 8;
	fill_random(tmpl, CH * B, &seed);
	fill_random(n1, B, &seed);
	fill_random(n2, B, &seed);
	assert_int_equal(wr(t, 0, tmpl, CH * B), 0);
	copy(c1, 0, t, 0, CH);
	copy(c2, 0, t, 0, CH);
	struct array_stats s0 = stats_of(a);
	assert_int_equal(s0.mapped_blocks, 768);
	assert_int_equal(s0.single_ref_blocks, 0);
	struct map_chunk *orig = map_chunk_at(t, 0);
	assert_int_equal(shares(t, 0), 3);

	/* c1 writes block 5 (4 KiB of it: read-modify-write, a new block) */
	assert_int_equal(wr(c1, 5 * B + 4096, n1, 4096), 0);
	assert_ptr_not_equal(map_chunk_at(c1, 0), orig);
	assert_ptr_equal(map_chunk_at(t, 0), orig);
	assert_ptr_equal(map_chunk_at(c2, 0), orig);
	assert_int_equal(shares(t, 0), 2);
	assert_int_equal(shares(c1, 0), 1);
	assert_int_equal(ref_of(t, 5), 2);  /* the shared chunk (its extra reference) */
	assert_int_equal(ref_of(t, 6), 3);  /* shared chunk x2 + c1's copy */
	assert_int_equal(ref_of(c1, 5), 1); /* the new block */
	struct array_stats s1 = stats_of(a);
	assert_int_equal(s1.unique_blocks, 257);
	assert_int_equal(s1.mapped_blocks, 768);
	assert_int_equal(s1.logical_bytes, 768ull * B);
	assert_int_equal(s1.single_ref_blocks, 1);
	assert_int_equal(chunk_bytes(a), 2 * sizeof(struct map_chunk));
	memcpy(want, tmpl, CH * B);
	memcpy(want + 5 * B + 4096, n1, 4096);
	expect_data(c1, 0, want, CH);
	expect_data(t, 0, tmpl, CH);
	expect_data(c2, 0, tmpl, CH);

	/* c1 writes again: its chunk is private now, written in place */
	struct map_chunk *own = map_chunk_at(c1, 0);
	assert_int_equal(wr(c1, 9 * B, n2, B), 0);
	assert_ptr_equal(map_chunk_at(c1, 0), own);
	memcpy(want + 9 * B, n2, B);
	expect_data(c1, 0, want, CH);

	/* c2 writes block 5 with the content c1 wrote at 9: dedup, and t is
	 * the chunk's last holder, so its blocks are single-referenced again
	 * unless c1's copy maps them too */
	assert_int_equal(wr(c2, 5 * B, n2, B), 0);
	assert_int_equal(shares(t, 0), 1);
	assert_int_equal(ref_of(t, 5), 1);  /* only t maps the old block 5 */
	assert_int_equal(ref_of(t, 6), 3);  /* t, c1, c2 each in its own chunk */
	assert_int_equal(ref_of(c2, 5), 2); /* c1's block 9 and c2's block 5 */
	assert_int_equal(ref_of(t, 9), 2);  /* t and c2 (c1 overwrote it) */
	struct array_stats s2 = stats_of(a);
	assert_int_equal(s2.unique_blocks, 258);
	assert_int_equal(s2.mapped_blocks, 768);
	assert_int_equal(s2.single_ref_blocks, 2); /* t's old 5, c1's new 5 */
	assert_int_equal(chunk_bytes(a), 3 * sizeof(struct map_chunk));
	expect_data(t, 0, tmpl, CH);
	memcpy(want, tmpl, CH * B);
	memcpy(want + 5 * B, n2, B);
	expect_data(c2, 0, want, CH);
	volume_destroy(t);
	volume_destroy(c1);
	volume_destroy(c2);
	assert_int_equal(chunk_bytes(a), 0);
	assert_int_equal(stats_of(a).unique_blocks, 0);
	free(tmpl);
	free(n1);
	free(n2);
	free(want);
	array_put(a);
}

/* UNMAP of a whole shared chunk lets go of it without a copy; UNMAP of part
 * of one copies it first; the source keeps its data either way. */
static void unmap_shared_range(void **state)
{
	struct array *a = new_array(B, 6, 512);
	struct volume *t = volume_create(a, 2 * CH * B, 512), *c = volume_create(a, 2 * CH * B, 512);
	unsigned char *tmpl = malloc(2 * CH * B);
	uint64_t seed = 9;
	fill_random(tmpl, 2 * CH * B, &seed);
	assert_int_equal(wr(t, 0, tmpl, 2 * CH * B), 0);
	copy(c, 0, t, 0, 2 * CH);
	struct array_stats s0 = stats_of(a);
	assert_int_equal(s0.single_ref_blocks, 0);

	assert_int_equal(volume_unmap(c, 0, CH * B), 0);
	assert_null(map_chunk_at(c, 0));
	assert_int_equal(shares(t, 0), 1);
	assert_int_equal(ref_of(t, 0), 1);
	assert_int_equal(ref_of(t, CH), 2);
	struct array_stats s1 = stats_of(a);
	assert_int_equal(s1.unique_blocks, 512);
	assert_int_equal(s1.mapped_blocks, 768);
	assert_int_equal(s1.single_ref_blocks, 256);
	assert_int_equal(s1.physical_bytes, s0.physical_bytes);
	assert_int_equal(chunk_bytes(a), 2 * sizeof(struct map_chunk));
	assert_int_equal(volume_mapped_bytes(c), 256ull * B);

	/* blocks 300..309, inside the second (shared) chunk */
	assert_int_equal(volume_unmap(c, 300 * B, 10 * B), 0);
	assert_int_equal(shares(t, 1), 1);
	assert_int_equal(shares(c, 1), 1);
	assert_int_equal(ref_of(t, 300), 1);
	assert_int_equal(ref_of(t, 310), 2);
	assert_int_equal(ref_of(c, 310), 2);
	assert_int_equal(ref_of(c, 300), 0);
	struct array_stats s2 = stats_of(a);
	assert_int_equal(s2.unique_blocks, 512);
	assert_int_equal(s2.mapped_blocks, 758);
	assert_int_equal(s2.logical_bytes, 758ull * B);
	assert_int_equal(s2.single_ref_blocks, 266);
	assert_int_equal(s2.physical_bytes, s0.physical_bytes);
	assert_int_equal(chunk_bytes(a), 3 * sizeof(struct map_chunk));
	expect_data(t, 0, tmpl, 2 * CH);
	expect_zero(c, 0, CH);
	expect_data(c, CH, tmpl + CH * B, 300 - CH);
	expect_zero(c, 300, 10);
	expect_data(c, 310, tmpl + 310 * B, 2 * CH - 310);

	/* unmapping the source's last holding frees its blocks */
	assert_int_equal(volume_unmap(t, 0, 2 * CH * B), 0);
	struct array_stats s3 = stats_of(a);
	assert_int_equal(s3.unique_blocks, 246);
	assert_int_equal(s3.mapped_blocks, 246);
	assert_int_equal(s3.single_ref_blocks, 246);
	assert_int_equal(chunk_bytes(a), 1 * sizeof(struct map_chunk));
	volume_destroy(t);
	volume_destroy(c);
	free(tmpl);
	array_put(a);
}

/* Copies within one volume whose source and destination overlap, checked
 * against memmove on a shadow of block tags (which original block each
 * block of the volume holds): data, mapped entries, distinct blocks. */
static void check_shadow(struct array *a, struct volume *v, const int *tag, uint64_t nb, const unsigned char *orig)
{
	uint64_t mapped = 0, distinct = 0;
	unsigned char *seen = calloc(nb, 1);
	for (uint64_t i = 0; i < nb; i++) {
		if (tag[i] < 0) {
			expect_zero(v, i, 1);
			continue;
		}
		mapped++;
		if (!seen[tag[i]]++)
			distinct++;
		expect_data(v, i, orig + (uint64_t)tag[i] * B, 1);
	}
	struct array_stats s = stats_of(a);
	assert_int_equal(s.mapped_blocks, mapped);
	assert_int_equal(s.unique_blocks, distinct);
	free(seen);
}

static void xcopy_overlapping_own_destination(void **state)
{
	const uint64_t nb = 6 * CH;
	struct array *a = new_array(B, 6, 512);
	struct volume *v = volume_create(a, nb * B, 512);
	unsigned char *orig = malloc(nb * B);
	int *tag = malloc(nb * sizeof(*tag));
	uint64_t seed = 10;
	fill_random(orig, nb * B, &seed);
	assert_int_equal(wr(v, 0, orig, 3 * CH * B), 0);
	for (uint64_t i = 0; i < nb; i++)
		tag[i] = i < 3 * CH ? (int)i : -1;
	struct map_chunk *A = map_chunk_at(v, 0), *Bc = map_chunk_at(v, 1), *C = map_chunk_at(v, 2);

	/* chunks 0..2 to 1..3: the copy runs backwards, chunk by chunk */
	copy(v, CH, v, 0, 3 * CH);
	memmove(tag + CH, tag, 3 * CH * sizeof(*tag));
	assert_ptr_equal(map_chunk_at(v, 0), A);
	assert_ptr_equal(map_chunk_at(v, 1), A);
	assert_ptr_equal(map_chunk_at(v, 2), Bc);
	assert_ptr_equal(map_chunk_at(v, 3), C);
	assert_int_equal(shares(v, 0), 2);
	assert_int_equal(shares(v, 2), 1);
	assert_int_equal(shares(v, 3), 1);
	assert_int_equal(ref_of(v, 0), 2);
	assert_int_equal(ref_of(v, 2 * CH), 1);
	struct array_stats s1 = stats_of(a);
	assert_int_equal(s1.mapped_blocks, 1024);
	assert_int_equal(s1.unique_blocks, 768);
	assert_int_equal(s1.single_ref_blocks, 512);
	assert_int_equal(chunk_bytes(a), 3 * sizeof(struct map_chunk));
	check_shadow(a, v, tag, nb, orig);

	/* chunks 1..3 back to 0..2 (forwards): A's holding in slot 0 goes */
	copy(v, 0, v, CH, 3 * CH);
	memmove(tag, tag + CH, 3 * CH * sizeof(*tag));
	assert_ptr_equal(map_chunk_at(v, 0), A);
	assert_ptr_equal(map_chunk_at(v, 1), Bc);
	assert_ptr_equal(map_chunk_at(v, 2), C);
	assert_ptr_equal(map_chunk_at(v, 3), C);
	assert_int_equal(shares(v, 0), 1);
	assert_int_equal(shares(v, 3), 2);
	assert_int_equal(ref_of(v, 0), 1);
	assert_int_equal(ref_of(v, 3 * CH), 2);
	check_shadow(a, v, tag, nb, orig);

	/* same offset within a chunk, not chunk-aligned: entries at both ends,
	 * whole chunks shared between, backwards */
	copy(v, CH + 10, v, 10, 2 * CH + 100);
	memmove(tag + CH + 10, tag + 10, (2 * CH + 100) * sizeof(*tag));
	check_shadow(a, v, tag, nb, orig);
	/* and forwards */
	copy(v, 30, v, CH + 30, 3 * CH - 60);
	memmove(tag + 30, tag + CH + 30, (3 * CH - 60) * sizeof(*tag));
	check_shadow(a, v, tag, nb, orig);
	/* offsets that differ within a chunk: entries only, nothing shared */
	uint64_t before = chunk_bytes(a);
	copy(v, 100, v, 0, 4 * CH);
	memmove(tag + 100, tag, 4 * CH * sizeof(*tag));
	check_shadow(a, v, tag, nb, orig);
	for (uint64_t c = 0; c < 6; c++)
		assert_true(shares(v, c) <= 1);
	assert_true(chunk_bytes(a) >= before);

	volume_destroy(v);
	assert_int_equal(chunk_bytes(a), 0);
	assert_int_equal(stats_of(a).unique_blocks, 0);
	free(orig);
	free(tag);
	array_put(a);
}

/* A snapshot shares every chunk of its source. */
static void snapshot_shares_chunks(void **state)
{
	struct array *a = new_array(B, 6, 512);
	struct volume *t = volume_create(a, 4 * CH * B, 512);
	unsigned char *d = malloc(CH * B);
	uint64_t seed = 11, entries = 0;
	fill_random(d, CH * B, &seed);
	assert_int_equal(wr(t, 2 * CH * B, d, CH * B), 0);
	struct volume *s = array_vol_alloc(a, t->size, t->lba_size);
	assert_non_null(s);
	assert_int_equal(vol_copy_map(s, t, &entries), 0);
	assert_int_equal(entries, 256);
	assert_ptr_equal(map_chunk_at(s, 2), map_chunk_at(t, 2));
	assert_int_equal(shares(t, 2), 2);
	assert_int_equal(volume_mapped_bytes(s), 256ull * B);
	assert_int_equal(chunk_bytes(a), sizeof(struct map_chunk));
	expect_data(s, 2 * CH, d, CH);
	volume_destroy(s);
	assert_int_equal(shares(t, 2), 1);
	assert_int_equal(ref_of(t, 2 * CH), 1);
	volume_destroy(t);
	free(d);
	array_put(a);
}

/* A chunk filled by 16 smaller copies (a datamover at 128 KiB here) shares
 * its source chunk once the last piece makes it equal; until then it is
 * the destination's own. */
static void small_copies_share_when_complete(void **state)
{
	struct array *a = new_array(B, 6, 512);
	struct volume *t = volume_create(a, 2 * CH * B, 512), *c = volume_create(a, 2 * CH * B, 512);
	unsigned char *tmpl = malloc(CH * B);
	uint64_t seed = 12;
	fill_random(tmpl, CH * B, &seed);
	assert_int_equal(wr(t, 0, tmpl, CH * B), 0);
	for (uint64_t p = 0; p < 15; p++)
		copy(c, CH + p * 16, t, p * 16, 16);
	assert_ptr_not_equal(map_chunk_at(c, 1), map_chunk_at(t, 0));
	assert_int_equal(shares(t, 0), 1);
	assert_int_equal(ref_of(t, 0), 2); /* t's chunk and c's own */
	assert_int_equal(chunk_bytes(a), 2 * sizeof(struct map_chunk));
	copy(c, CH + 240, t, 240, 16);
	assert_ptr_equal(map_chunk_at(c, 1), map_chunk_at(t, 0));
	assert_int_equal(shares(t, 0), 2);
	assert_int_equal(ref_of(t, 0), 2); /* one chunk, shared */
	assert_int_equal(chunk_bytes(a), sizeof(struct map_chunk));
	struct array_stats s = stats_of(a);
	assert_int_equal(s.unique_blocks, 256);
	assert_int_equal(s.mapped_blocks, 512);
	assert_int_equal(s.single_ref_blocks, 0);
	expect_data(c, CH, tmpl, CH);
	/* a chunk of another shape (offsets differ within a chunk) never does */
	copy(c, 3, t, 0, CH - 3);
	assert_int_equal(shares(t, 0), 2);
	volume_destroy(t);
	volume_destroy(c);
	assert_int_equal(chunk_bytes(a), 0);
	free(tmpl);
	array_put(a);
}

/* Writers through clones that share the template's chunks, readers of the
 * template, and a thread copying the template again and again onto one
 * more volume (chunks shared, unshared, freed) all at once: every read sees
 * the template, every clone ends as its writer left it, and the figures and
 * the chunks' memory come out exact (under ASan: no chunk is used after it
 * is freed). */
#define STRESS_CH 4u
#define STRESS_WRITES 300u

struct stress {
	struct volume *t, *c[3], *spare;
	const unsigned char *tmpl;
	int *last[3];          /* per clone block: the iteration that wrote it last, -1 none */
	_Atomic int bad;
};

static void stress_block(unsigned char *buf, unsigned k, int it)
{
	uint64_t seed = 1000000u * (k + 1) + (uint64_t)it;
	fill_random(buf, B, &seed);
}

static void *stress_writer(void *arg)
{
	struct stress *x = ((struct stress **)arg)[0];
	unsigned k = (unsigned)(uintptr_t)((void **)arg)[1];
	unsigned char *buf = malloc(B);
	uint64_t rng = 77 + k;
	for (int it = 0; it < (int)STRESS_WRITES; it++) {
		uint64_t b = rng_next(&rng) % (STRESS_CH * CH);
		stress_block(buf, k, it);
		if (wr(x->c[k], b * B, buf, B) != 0)
			x->bad++;
		x->last[k][b] = it;
	}
	free(buf);
	return NULL;
}

static void *stress_reader(void *arg)
{
	struct stress *x = arg;
	unsigned char *buf = malloc(B);
	uint64_t rng = 5;
	for (int it = 0; it < 3 * (int)STRESS_WRITES; it++) {
		uint64_t b = rng_next(&rng) % (STRESS_CH * CH);
		if (rd(x->t, b * B, buf, B) != 0 || memcmp(buf, x->tmpl + b * B, B))
			x->bad++;
	}
	free(buf);
	return NULL;
}

static void *stress_copier(void *arg)
{
	struct stress *x = arg;
	unsigned char *buf = malloc(B);
	uint64_t rng = 9, moved;
	for (int it = 0; it < 40; it++) {
		uint64_t c = rng_next(&rng) % STRESS_CH, b = c * CH + rng_next(&rng) % CH;
		if (volume_copy(x->spare, c * CH * B, x->t, c * CH * B, CH * B, &moved) != 0 ||
		    rd(x->spare, b * B, buf, B) != 0 || memcmp(buf, x->tmpl + b * B, B))
			x->bad++;
		if (volume_unmap(x->spare, (c ^ 1) * CH * B, CH * B) != 0)
			x->bad++;
	}
	free(buf);
	return NULL;
}

static void shared_chunks_under_concurrency(void **state)
{
	const uint64_t nb = STRESS_CH * CH;
	struct array *a = new_array(B, 1, 512);
	struct stress x = { 0 };
	unsigned char *tmpl = malloc(nb * B), *buf = malloc(B), *got = malloc(B);
	uint64_t seed = 13;
	fill_random(tmpl, nb * B, &seed);
	x.tmpl = tmpl;
	x.t = volume_create(a, nb * B, 512);
	x.spare = volume_create(a, nb * B, 512);
	assert_int_equal(wr(x.t, 0, tmpl, nb * B), 0);
	for (unsigned k = 0; k < 3; k++) {
		x.c[k] = volume_create(a, nb * B, 512);
		copy(x.c[k], 0, x.t, 0, nb);
		x.last[k] = malloc(nb * sizeof(int));
		for (uint64_t i = 0; i < nb; i++)
			x.last[k][i] = -1;
	}
	pthread_t th[5];
	void *args[3][2];
	for (unsigned k = 0; k < 3; k++) {
		args[k][0] = &x;
		args[k][1] = (void *)(uintptr_t)k;
		assert_int_equal(pthread_create(&th[k], NULL, stress_writer, args[k]), 0);
	}
	assert_int_equal(pthread_create(&th[3], NULL, stress_reader, &x), 0);
	assert_int_equal(pthread_create(&th[4], NULL, stress_copier, &x), 0);
	for (unsigned k = 0; k < 5; k++)
		pthread_join(th[k], NULL);
	assert_int_equal(x.bad, 0);

	/* every clone block: its writer's last content, or the template's */
	uint64_t written = 0;
	for (unsigned k = 0; k < 3; k++)
		for (uint64_t b = 0; b < nb; b++) {
			assert_int_equal(rd(x.c[k], b * B, got, B), 0);
			if (x.last[k][b] < 0) {
				assert_memory_equal(got, tmpl + b * B, B);
				continue;
			}
			written++;
			stress_block(buf, k, x.last[k][b]);
			assert_memory_equal(got, buf, B);
		}
	/* the spare holds the template wherever it is mapped */
	uint64_t spare_mapped = volume_mapped_bytes(x.spare) / B, seen = 0;
	for (uint64_t c = 0; c < STRESS_CH; c++) {
		struct map_chunk *mc = map_chunk_at(x.spare, c);
		if (!mc)
			continue;
		assert_ptr_equal(mc, map_chunk_at(x.t, c)); /* still the template's chunk */
		seen += CH;
	}
	assert_int_equal(spare_mapped, seen);
	struct array_stats s = stats_of(a);
	assert_int_equal(s.mapped_blocks, nb * 4 + spare_mapped);
	/* distinct blocks: the template's, minus none (t keeps them all), plus
	 * one per (clone, block) still holding a written content */
	assert_int_equal(s.unique_blocks, nb + written);
	volume_destroy(x.t);
	volume_destroy(x.spare);
	for (unsigned k = 0; k < 3; k++) {
		volume_destroy(x.c[k]);
		free(x.last[k]);
	}
	assert_int_equal(chunk_bytes(a), 0);
	assert_int_equal(stats_of(a).unique_blocks, 0);
	free(tmpl);
	free(buf);
	free(got);
	array_put(a);
}

/* ---- copies whose offsets differ within a chunk (the index by content) ---- */

/* The reference counts and figures the chunks imply, checked against the
 * store: every id's count is the sum over the distinct chunks holding it of
 * 1 (one holder) or 2 (shared), each chunk's shares is the number of slots
 * holding it, a count is 1 exactly when one map entry of one volume maps the
 * id, and mapped / unique / single-referenced blocks are what the maps say. */
static void check_refs(struct array *a, struct volume **vols, unsigned nv)
{
	uint32_t nid = atomic_load(&a->bs->next_id);
	uint32_t *entries = calloc(nid, sizeof(*entries)), *model = calloc(nid, sizeof(*model));
	struct map_chunk **seen = NULL;
	uint32_t *holders = NULL;
	size_t nseen = 0;
	uint64_t mapped = 0, unique = 0, single = 0;

	for (unsigned k = 0; k < nv; k++) {
		struct volume *v = vols[k];
		for (uint64_t b = 0; b < v->nblocks; b++) {
			uint32_t id = map_get(v, b);
			if (id) {
				assert_true(id < nid);
				entries[id]++;
				mapped++;
			}
		}
		for (uint64_t c = 0; c < (v->nblocks + CH - 1) / CH; c++) {
			struct map_chunk *mc = map_chunk_at(v, c);
			size_t i = 0;
			if (!mc)
				continue;
			while (i < nseen && seen[i] != mc)
				i++;
			if (i == nseen) {
				seen = realloc(seen, (nseen + 1) * sizeof(*seen));
				holders = realloc(holders, (nseen + 1) * sizeof(*holders));
				seen[nseen] = mc;
				holders[nseen++] = 0;
			}
			holders[i]++;
		}
	}
	for (size_t i = 0; i < nseen; i++) {
		assert_int_equal(atomic_load(&seen[i]->shares), holders[i]);
		for (unsigned e = 0; e < CH; e++)
			if (seen[i]->ids[e])
				model[seen[i]->ids[e]] += holders[i] >= 2 ? 2 : 1;
	}
	for (uint32_t id = 1; id < nid; id++) {
		if (!entries[id])
			continue;
		unique++;
		single += entries[id] == 1;
		uint32_t ref = atomic_load(&bs_rec(a->bs, id)->ref);
		assert_int_equal(ref, model[id]);
		assert_int_equal(ref == 1, entries[id] == 1);
	}
	struct array_stats s = stats_of(a);
	assert_int_equal(s.mapped_blocks, mapped);
	assert_int_equal(s.logical_bytes, mapped * B);
	assert_int_equal(s.unique_blocks, unique);
	assert_int_equal(s.single_ref_blocks, single);
	free(entries);
	free(model);
	free(seen);
	free(holders);
}

/* clone of t's n blocks at block db of d, in copies of one chunk at a time
 * from source block sb (a datamover's 2 MiB pieces) */
static void clone_in_chunks(struct volume *d, uint64_t db, struct volume *s, uint64_t sb, uint64_t n)
{
	for (uint64_t at = 0; at < n; at += CH)
		copy(d, db + at, s, sb + at, n - at < CH ? n - at : CH);
}

/* Clones at offsets 232 (mod 256 blocks) of a 3-chunk template: the first
 * clone's chunks are published as they complete, the second clone at the
 * same offset shares them; copies of those clones at another odd offset
 * share each other's too; a write and an UNMAP through a shared chunk copy
 * it (the other clone unchanged); a misaligned copy over its own
 * destination is memmove.  Exact counts and figures after each step. */
static void misaligned_clones_share(void **state)
{
	const uint64_t T = 3 * CH, A = 1000, Bc = A + 5 * CH, C = 4000, D = C + 5 * CH;
	struct array *a = new_array(B, 6, 512);
	struct volume *t = volume_create(a, T * B, 512), *d = volume_create(a, 24 * CH * B, 512);
	struct volume *vols[] = { t, d };
	unsigned char *tmpl = malloc(T * B), *img = calloc(24 * CH, B);
	uint64_t seed = 31;
	(void)state;
	fill_random(tmpl, T * B, &seed);
	assert_int_equal(wr(t, 0, tmpl, T * B), 0);
	struct array_stats s0 = stats_of(a);
	assert_int_equal(chunk_bytes(a), 3 * sizeof(struct map_chunk));

	/* clone A: chunks 3 (t[0..24) in its last 24 entries), 4, 5 complete
	 * and published; chunk 6 (the clone's tail) stays private */
	clone_in_chunks(d, A, t, 0, T);
	memcpy(img + A * B, tmpl, T * B);
	assert_int_equal(chunk_bytes(a), 7 * sizeof(struct map_chunk));
	for (uint64_t c = 3; c <= 6; c++)
		assert_int_equal(shares(d, c), 1);
	assert_true(atomic_load(&map_chunk_at(d, 4)->indexed));
	assert_false(atomic_load(&map_chunk_at(d, 6)->indexed));
	check_refs(a, vols, 2);
	assert_int_equal(ref_of(d, A + 100), 2);
	assert_true(a->bs->map_index_bytes > 0);

	/* clone B at the same offset: chunks 8, 9, 10 are A's 3, 4, 5 */
	clone_in_chunks(d, Bc, t, 0, T);
	memcpy(img + Bc * B, tmpl, T * B);
	assert_ptr_equal(map_chunk_at(d, 8), map_chunk_at(d, 3));
	assert_ptr_equal(map_chunk_at(d, 9), map_chunk_at(d, 4));
	assert_ptr_equal(map_chunk_at(d, 10), map_chunk_at(d, 5));
	assert_ptr_not_equal(map_chunk_at(d, 11), map_chunk_at(d, 6)); /* its tail chunk */
	assert_int_equal(shares(d, 4), 2);
	assert_int_equal(chunk_bytes(a), 8 * sizeof(struct map_chunk)); /* one more: B's tail */
	assert_int_equal(ref_of(d, A + 100), 3); /* t's chunk 1, the shared chunk 2 */
	assert_int_equal(ref_of(d, A + 700), 3); /* t, A's tail, B's tail: one each */
	check_refs(a, vols, 2);
	struct array_stats s1 = stats_of(a);
	assert_int_equal(s1.unique_blocks, s0.unique_blocks);
	assert_int_equal(s1.physical_bytes, s0.physical_bytes);
	assert_int_equal(s1.mapped_blocks, 3 * T);
	assert_int_equal(s1.single_ref_blocks, 0);
	expect_data(d, 0, img, 24 * CH);

	/* copies of the clones at offset 160: C from A, then D from B share */
	clone_in_chunks(d, C, d, A, T);
	memcpy(img + C * B, tmpl, T * B);
	uint64_t before = chunk_bytes(a);
	clone_in_chunks(d, D, d, Bc, T);
	memcpy(img + D * B, tmpl, T * B);
	for (uint64_t c = C / CH; c < (C + T) / CH; c++)
		assert_ptr_equal(map_chunk_at(d, c + 5), map_chunk_at(d, c));
	assert_int_equal(chunk_bytes(a), before + sizeof(struct map_chunk)); /* D's tail only */
	check_refs(a, vols, 2);
	assert_int_equal(stats_of(a).mapped_blocks, 5 * T);
	assert_int_equal(stats_of(a).unique_blocks, s0.unique_blocks);
	expect_data(d, 0, img, 24 * CH);

	/* a write through B's shared chunk 9: B gets its own copy, A keeps it */
	unsigned char *nb = malloc(B);
	fill_random(nb, B, &seed);
	assert_int_equal(wr(d, (Bc + 100) * B, nb, B), 0);
	memcpy(img + (Bc + 100) * B, nb, B);
	assert_ptr_not_equal(map_chunk_at(d, 9), map_chunk_at(d, 4));
	assert_int_equal(shares(d, 4), 1);
	assert_int_equal(shares(d, 9), 1);
	check_refs(a, vols, 2);
	assert_int_equal(stats_of(a).unique_blocks, s0.unique_blocks + 1);
	assert_int_equal(stats_of(a).single_ref_blocks, 1);
	expect_data(d, 0, img, 24 * CH);

	/* a write into A's chunk 4 now (one holder, still published) is in
	 * place; a later clone at that offset no longer finds it */
	assert_int_equal(wr(d, (A + 100) * B, nb, B), 0);
	memcpy(img + (A + 100) * B, nb, B);
	assert_false(atomic_load(&map_chunk_at(d, 4)->indexed));
	check_refs(a, vols, 2);

	/* UNMAP: all of B's chunk 10 (shared with A's 5) and part of A's
	 * chunk 3 (shared with B's 8): B and A keep the other's data */
	assert_int_equal(shares(d, 5), 2);
	assert_int_equal(volume_unmap(d, 10 * CH * B, CH * B), 0);
	memset(img + 10 * CH * B, 0, CH * B);
	assert_null(map_chunk_at(d, 10));
	assert_int_equal(shares(d, 5), 1);
	assert_int_equal(volume_unmap(d, (A + 4) * B, 8 * B), 0);
	memset(img + (A + 4) * B, 0, 8 * B);
	assert_ptr_not_equal(map_chunk_at(d, 3), map_chunk_at(d, 8));
	check_refs(a, vols, 2);
	expect_data(d, 0, img, 24 * CH);

	/* a misaligned copy over its own destination (100 blocks up, then
	 * 300 down): memmove */
	copy(d, A + 100, d, A, T);
	memmove(img + (A + 100) * B, img + A * B, T * B);
	check_refs(a, vols, 2);
	expect_data(d, 0, img, 24 * CH);
	copy(d, C - 300, d, C, T);
	memmove(img + (C - 300) * B, img + C * B, T * B);
	check_refs(a, vols, 2);
	expect_data(d, 0, img, 24 * CH);

	volume_destroy(d);
	struct array_stats s9 = stats_of(a);
	assert_int_equal(s9.mapped_blocks, T);
	assert_int_equal(s9.unique_blocks, s0.unique_blocks);
	assert_int_equal(s9.single_ref_blocks, T);
	assert_int_equal(chunk_bytes(a), 3 * sizeof(struct map_chunk));
	assert_int_equal(a->bs->map_index_bytes, 0); /* the index gave its table back */
	volume_destroy(t);
	assert_int_equal(chunk_bytes(a), 0);
	free(nb);
	free(tmpl);
	free(img);
	array_put(a);
}

/* Three threads each clone the template again and again at the same odd
 * offset (100 blocks into a chunk) into their own region of one volume and
 * write one block of their clone after each, so chunks are published,
 * shared through the index, taken off it by in-place writes and let go, all
 * at once; a reader reads the template meanwhile.  Each clone ends as the
 * template plus its last write, and the counts are exact (under ASan: no
 * chunk used after it is freed). */
struct mis_stress {
	struct volume *t, *d;
	const unsigned char *tmpl;
	uint64_t last_b[3];
	int last_it[3];
	_Atomic int bad, done;
};

#define MIS_T (3 * CH)
#define MIS_REGION (6 * CH)

static void *mis_cloner(void *arg)
{
	struct mis_stress *x = ((struct mis_stress **)arg)[0];
	unsigned k = (unsigned)(uintptr_t)((void **)arg)[1];
	unsigned char *buf = malloc(B);
	uint64_t rng = 300 + k, moved, base = k * MIS_REGION + 100;
	for (int it = 0; it < 12; it++) {
		for (uint64_t at = 0; at < MIS_T; at += CH)
			if (volume_copy(x->d, (base + at) * B, x->t, at * B, CH * B, &moved) != 0)
				x->bad++;
		uint64_t b = rng_next(&rng) % MIS_T;
		stress_block(buf, 10 + k, it);
		if (wr(x->d, (base + b) * B, buf, B) != 0)
			x->bad++;
		x->last_b[k] = b;
		x->last_it[k] = it;
	}
	free(buf);
	x->done++;
	return NULL;
}

static void *mis_reader(void *arg)
{
	struct mis_stress *x = arg;
	unsigned char *buf = malloc(B);
	uint64_t rng = 17;
	while (x->done < 3) {
		uint64_t b = rng_next(&rng) % MIS_T;
		if (rd(x->t, b * B, buf, B) != 0 || memcmp(buf, x->tmpl + b * B, B))
			x->bad++;
	}
	free(buf);
	return NULL;
}

static void misaligned_clones_under_concurrency(void **state)
{
	struct array *a = new_array(B, 1, 512);
	struct mis_stress x = { 0 };
	unsigned char *tmpl = malloc(MIS_T * B), *buf = malloc(B), *got = malloc(MIS_T * B);
	uint64_t seed = 23;
	(void)state;
	fill_random(tmpl, MIS_T * B, &seed);
	x.tmpl = tmpl;
	x.t = volume_create(a, MIS_T * B, 512);
	x.d = volume_create(a, 3 * MIS_REGION * B, 512);
	assert_int_equal(wr(x.t, 0, tmpl, MIS_T * B), 0);
	pthread_t th[4];
	void *args[3][2];
	for (unsigned k = 0; k < 3; k++) {
		args[k][0] = &x;
		args[k][1] = (void *)(uintptr_t)k;
		assert_int_equal(pthread_create(&th[k], NULL, mis_cloner, args[k]), 0);
	}
	assert_int_equal(pthread_create(&th[3], NULL, mis_reader, &x), 0);
	for (unsigned k = 0; k < 4; k++)
		pthread_join(th[k], NULL);
	assert_int_equal(x.bad, 0);
	for (unsigned k = 0; k < 3; k++) {
		uint64_t base = k * MIS_REGION + 100;
		assert_int_equal(rd(x.d, base * B, got, MIS_T * B), 0);
		stress_block(buf, 10 + k, x.last_it[k]);
		for (uint64_t b = 0; b < MIS_T; b++)
			assert_memory_equal(got + b * B, b == x.last_b[k] ? buf : tmpl + b * B, B);
	}
	struct volume *vols[] = { x.t, x.d };
	check_refs(a, vols, 2);
	assert_int_equal(stats_of(a).unique_blocks, MIS_T + 3);
	volume_destroy(x.d);
	volume_destroy(x.t);
	assert_int_equal(chunk_bytes(a), 0);
	assert_int_equal(a->bs->map_index_bytes, 0);
	free(tmpl);
	free(buf);
	free(got);
	array_put(a);
}

int main(void)


{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(copies_of_copies_share),
		cmocka_unit_test(overwrite_shared_chunk),
		cmocka_unit_test(unmap_shared_range),
		cmocka_unit_test(xcopy_overlapping_own_destination),
		cmocka_unit_test(snapshot_shares_chunks),
		cmocka_unit_test(small_copies_share_when_complete),
		cmocka_unit_test(shared_chunks_under_concurrency),
		cmocka_unit_test(misaligned_clones_share),
		cmocka_unit_test(misaligned_clones_under_concurrency),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
