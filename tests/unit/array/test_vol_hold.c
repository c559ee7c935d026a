/* test_vol_hold.c — ODX holds (handlers/array/vol_hold.c): a hold is a
 * point in time (the source overwritten, unmapped, destroyed afterwards:
 * the hold still writes the old data), several ranges concatenate and a
 * write may start in the middle, unaligned edges are read-modify-written,
 * the figures are exact (the hold's blocks stay stored, logical space
 * stays the volumes'; written, the figures are a volume_copy's; freed, as
 * if it never was), the refusals, a partial write on a full array with its
 * transfer count, the memory a 1 GiB hold costs, concurrent writers of the
 * source, and a crash while a hold lives leaves a state that checks clean
 * and loads without the hold's references. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

#include "array_test_util.h"
#include "handlers/array/array_internal.h"
#include "handlers/array/array_state.h"
#include "handlers/array/volume_names.h"

#define MiB (1ull << 20)

static unsigned char *rnd(size_t n, uint64_t seed)
{
	unsigned char *p = malloc(n);
	fill_random(p, n, &seed);
	return p;
}

static void expect_read(struct volume *v, uint64_t off, const void *want, uint64_t len)
{
	unsigned char *got = malloc(len);
	assert_int_equal(rd(v, off, got, len), 0);
	assert_memory_equal(got, want, len);
	free(got);
}

static void expect_zero(struct volume *v, uint64_t off, uint64_t len)
{
	unsigned char *z = calloc(1, len);
	expect_read(v, off, z, len);
	free(z);
}

static void same_stats(const struct array_stats *x, const struct array_stats *y, bool single_ref)
{
	assert_int_equal(x->logical_bytes, y->logical_bytes);
	assert_int_equal(x->mapped_blocks, y->mapped_blocks);
	assert_int_equal(x->unique_blocks, y->unique_blocks);
	assert_int_equal(x->unique_bytes, y->unique_bytes);
	assert_int_equal(x->physical_bytes, y->physical_bytes);
	assert_int_equal(x->compressed_bytes, y->compressed_bytes);
	if (single_ref)
		assert_int_equal(x->single_ref_blocks, y->single_ref_blocks);
}

/* POPULATE TOKEN, the source overwritten, WRITE USING TOKEN: the old data. */
static void hold_keeps_old_data(void **state)
{
	(void)state;
	const uint64_t B = 16384, len = 8 * MiB;
	struct array *a = new_array(B, 1, 512);
	struct volume *s = volume_create(a, 16 * MiB, 512), *d = volume_create(a, 16 * MiB, 512);
	unsigned char *old = rnd(len, 1), *neu = rnd(len, 2);
	struct vol_hold *h = NULL;
	uint64_t moved = 9, done = 9;

	assert_int_equal(wr(s, 0, old, len), 0);
	struct vol_range r = { 0, len };
	assert_int_equal(volume_hold_create(s, &r, 1, &h), 0);
	assert_int_equal(vol_hold_bytes(h), len);
	assert_int_equal(wr(s, 0, neu, len / 2), 0);          /* overwritten */
	assert_int_equal(volume_unmap(s, len / 2, len / 2), 0); /* and unmapped */
	assert_int_equal(vol_hold_write(h, 0, d, 4 * MiB, len, &moved, &done), 0);
	assert_int_equal(moved, len / B);
	assert_int_equal(done, len);
	expect_read(d, 4 * MiB, old, len);
	expect_read(s, 0, neu, len / 2);
	expect_zero(s, len / 2, len / 2);
	/* written again, into its own source (dst == src) */
	assert_int_equal(vol_hold_write(h, 0, s, 0, len, &moved, &done), 0);
	expect_read(s, 0, old, len);
	vol_hold_free(h);
	expect_read(d, 4 * MiB, old, len);
	volume_destroy(s);
	volume_destroy(d);
	assert_int_equal(stats_of(a).unique_blocks, 0);
	free(old);
	free(neu);
	array_put(a);
}

/* Ranges with 512-byte edges concatenate; a write from the middle of the
 * hold, to a destination offset at another place within a block, reads
 * back the concatenation. */
static void ranges_concatenate(void **state)
{
	(void)state;
	const uint64_t B = 8192, size = 12 * MiB;
	struct array *a = new_array(B, 1, 512);
	struct volume *s = volume_create(a, size, 512), *d = volume_create(a, 16 * MiB, 512);
	unsigned char *src = rnd(size, 3), *want = malloc(size);
	const struct vol_range r[] = {
		{ 1 * MiB + 1536, 100 * 1024 + 512 }, /* unaligned both ends, inside a chunk */
		{ 5 * MiB, 3 * MiB },                  /* chunk-aligned start, 1.5 chunks */
		{ 512, 4096 },                         /* behind the others, within one block */
		{ 9 * MiB - 512, 0 },                  /* adds nothing */
		{ 6 * MiB + 512, 3 * MiB - 1024 },     /* overlapping the second, whole chunks inside */
	};
	const size_t n = sizeof(r) / sizeof(r[0]);
	uint64_t total = 0, moved, done;
	struct vol_hold *h;

	assert_int_equal(wr(s, 0, src, size), 0);
	for (size_t i = 0; i < n; i++) {
		memcpy(want + total, src + r[i].off, r[i].len);
		total += r[i].len;
	}
	assert_int_equal(volume_hold_create(s, r, n, &h), 0);
	assert_int_equal(vol_hold_bytes(h), total);
	assert_int_equal(wr(s, 0, src + 17, size - 17 * 512), 0); /* the source changes */
	/* the whole hold, block-aligned in the destination */
	assert_int_equal(vol_hold_write(h, 0, d, 0, total, &moved, &done), 0);
	assert_int_equal(done, total);
	expect_read(d, 0, want, total);
	/* from the middle of the first range across three boundaries, to an
	 * offset 1 KiB into a block (the data path for misaligned pieces) */
	uint64_t ho = 100 * 1024 - 1024, len = total - ho - 4096;
	assert_int_equal(vol_hold_write(h, ho, d, 8 * MiB + 1024, len, &moved, &done), 0);
	assert_int_equal(done, len);
	expect_read(d, 8 * MiB + 1024, want + ho, len);
	/* the same to the same offset within a block as the source: map entries */
	assert_int_equal(vol_hold_write(h, 512, d, 2 * MiB + 1536 + 512, total - 512, &moved, &done), 0);
	assert_true(moved > 0);
	expect_read(d, 2 * MiB + 1536 + 512, want + 512, total - 512);
	vol_hold_free(h);
	volume_destroy(s);
	volume_destroy(d);
	free(src);
	free(want);
	array_put(a);
}

/* The source destroyed while the hold lives: the hold still writes. */
static void hold_outlives_source(void **state)
{
	(void)state;
	const uint64_t B = 16384, len = 6 * MiB;
	struct array *a = new_array(B, 1, 512);
	struct volume *s = volume_create(a, len, 4096), *d = volume_create(a, len, 4096);
	unsigned char *old = rnd(len, 4);
	struct vol_hold *h;
	uint64_t moved, done;

	assert_int_equal(wr(s, 0, old, len), 0);
	struct vol_range r = { 4096, len - 8192 };
	assert_int_equal(volume_hold_create(s, &r, 1, &h), 0);
	volume_destroy(s);
	struct array_stats st = stats_of(a);
	assert_int_equal(st.mapped_blocks, 0);              /* no volume maps anything */
	assert_int_equal(st.unique_blocks, len / B);        /* the hold keeps every block */
	assert_int_equal(st.single_ref_blocks, len / B);
	assert_int_equal(vol_hold_write(h, 0, d, 4096, len - 8192, &moved, &done), 0);
	expect_read(d, 4096, old + 4096, len - 8192);
	vol_hold_free(h);
	st = stats_of(a);
	assert_int_equal(st.mapped_blocks, len / B);
	/* the edge blocks of d were read-modify-written: new content */
	assert_int_equal(st.unique_blocks, len / B);
	volume_destroy(d);
	assert_int_equal(stats_of(a).unique_blocks, 0);
	free(old);
	array_put(a);
}

/* The figures, step by step, against a twin array doing the equivalent
 * EXTENDED COPY at the hold's moment. */
static void figures_exact(void **state)
{
	(void)state;
	const uint64_t B = 16384, len = 8 * MiB, nb = len / B;
	struct array *a = new_array(B, 6, 512), *t = new_array(B, 6, 512);
	struct volume *s = volume_create(a, len, 512), *d = volume_create(a, len, 512);
	struct volume *ts = volume_create(t, len, 512), *td = volume_create(t, len, 512);
	unsigned char *old = rnd(len, 5), *neu = rnd(len / 2, 6);
	struct vol_hold *h;
	uint64_t moved, done;

	/* half-compressible: physical and compressed differ from unique */
	memset(old, 0x5a, len / 4);
	for (uint64_t i = 0; i < nb / 4; i++)
		old[i * B] = (unsigned char)i;
	assert_int_equal(wr(s, 0, old, len), 0);
	assert_int_equal(wr(ts, 0, old, len), 0);
	struct array_stats s0 = stats_of(a);
	assert_int_equal(s0.mapped_blocks, nb);
	assert_int_equal(s0.single_ref_blocks, nb);
	uint64_t meta0 = s0.metadata_bytes;

	/* made and freed at once: nothing changed, memory included */
	struct vol_range r = { 0, len };
	assert_int_equal(volume_hold_create(s, &r, 1, &h), 0);
	struct array_stats s1 = stats_of(a);
	same_stats(&s1, &s0, false);
	assert_int_equal(s1.single_ref_blocks, 0); /* the hold refers to each */
	/* its memory is in metadata_bytes: all but the hold's own structure
	 * (a pointer to the array and the volume, its size and one range) */
	assert_int_equal(s1.metadata_bytes - meta0, vol_hold_mem(h) - 4 * sizeof(uint64_t) - 3 * sizeof(uint64_t));
	/* no volume a host or the API sees */
	uint64_t prov = 0;
	assert_int_equal(array_volumes_info(a, NULL, 0, &prov), 2);
	assert_int_equal(prov, 2 * len);
	vol_hold_free(h);
	struct array_stats s1f = stats_of(a);
	same_stats(&s1f, &s0, true);
	assert_int_equal(s1f.metadata_bytes, meta0);

	/* written without the source changing: a volume_copy's figures */
	assert_int_equal(volume_hold_create(s, &r, 1, &h), 0);
	assert_int_equal(vol_hold_write(h, 0, d, 0, len, &moved, &done), 0);
	assert_int_equal(moved, nb);
	assert_int_equal(volume_copy(td, 0, ts, 0, len, &moved), 0);
	struct array_stats s2 = stats_of(a), t2 = stats_of(t);
	same_stats(&s2, &t2, true);
	assert_int_equal(s2.mapped_blocks, 2 * nb);
	vol_hold_free(h);
	s2 = stats_of(a);
	same_stats(&s2, &t2, true);
	assert_int_equal(volume_unmap(d, 0, len), 0);
	assert_int_equal(volume_unmap(td, 0, len), 0);

	/* the source overwritten while the hold lives: the old blocks stay
	 * stored (single-referenced by the hold alone), logical space does not
	 * grow */
	assert_int_equal(volume_hold_create(s, &r, 1, &h), 0);
	assert_int_equal(wr(s, 0, neu, len / 2), 0);
	struct array_stats s3 = stats_of(a);
	assert_int_equal(s3.mapped_blocks, nb);
	assert_int_equal(s3.logical_bytes, len);
	assert_int_equal(s3.unique_blocks, nb + nb / 2);
	assert_int_equal(s3.single_ref_blocks, nb); /* the new half, and the old half only the hold keeps */
	assert_true(s3.physical_bytes > s0.physical_bytes);
	/* written: a volume_copy at the hold's moment, then the overwrite */
	assert_int_equal(vol_hold_write(h, 0, d, 0, len, &moved, &done), 0);
	assert_int_equal(volume_copy(td, 0, ts, 0, len, &moved), 0);
	assert_int_equal(wr(ts, 0, neu, len / 2), 0);
	struct array_stats s4 = stats_of(a), t4 = stats_of(t);
	same_stats(&s4, &t4, false);
	/* the old half is the hold's and d's: single once the hold goes */
	assert_int_equal(s4.single_ref_blocks, nb / 2);
	assert_int_equal(t4.single_ref_blocks, nb);
	vol_hold_free(h);
	struct array_stats s5 = stats_of(a);
	same_stats(&s5, &t4, true);
	assert_int_equal(s5.metadata_bytes - t4.metadata_bytes, 0);
	expect_read(d, 0, old, len);

	volume_destroy(s);
	volume_destroy(d);
	volume_destroy(ts);
	volume_destroy(td);
	free(old);
	free(neu);
	array_put(a);
	array_put(t);
}

static void refusals(void **state)
{
	(void)state;
	const uint64_t B = 8192;
	struct array *a = new_array(B, 1, 512), *o = new_array(B, 1, 512);
	struct volume *s = volume_create(a, 4 * MiB, 512), *d4 = volume_create(a, 4 * MiB, 4096);
	struct volume *od = volume_create(o, 4 * MiB, 512);
	unsigned char *buf = rnd(4 * MiB, 7);
	struct vol_hold *h = (struct vol_hold *)1;
	uint64_t moved = 5, done = 5;

	assert_int_equal(wr(s, 0, buf, 4 * MiB), 0);
	struct vol_range r[] = { { 0, 4096 }, { 4 * MiB - 512, 512 } };
	struct array_stats st0 = stats_of(a);
	assert_int_equal(volume_hold_create(s, r, 0, &h), -EINVAL);
	assert_null(h);
	struct vol_range bad = { 0, 0 };
	assert_int_equal(volume_hold_create(s, &bad, 1, &h), -EINVAL); /* nothing to hold */
	bad = (struct vol_range){ 100, 512 };
	assert_int_equal(volume_hold_create(s, &bad, 1, &h), -EINVAL);
	bad = (struct vol_range){ 512, 100 };
	assert_int_equal(volume_hold_create(s, &bad, 1, &h), -EINVAL);
	bad = (struct vol_range){ 4 * MiB - 512, 1024 };
	assert_int_equal(volume_hold_create(s, &bad, 1, &h), -ERANGE);
	bad = (struct vol_range){ UINT64_MAX - 511, 1024 };
	assert_int_equal(volume_hold_create(s, &bad, 1, &h), -ERANGE);
	bad = (struct vol_range){ 4096, 4096 };
	assert_int_equal(volume_hold_create(d4, &bad, 1, &h), 0);
	vol_hold_free(h);
	struct array_stats st1 = stats_of(a);
	same_stats(&st1, &st0, true); /* refusals change nothing */
	assert_int_equal(st1.metadata_bytes, st0.metadata_bytes);
	/* a boundary between ranges inside a block of the destination */
	struct vol_range r2[] = { { 0, 512 }, { 8192, 4096 } };
	assert_int_equal(volume_hold_create(s, r2, 2, &h), 0);
	assert_int_equal(vol_hold_write(h, 0, d4, 0, 4096, &moved, &done), -EINVAL);
	vol_hold_free(h);

	assert_int_equal(volume_hold_create(s, r, 2, &h), 0);
	assert_int_equal(vol_hold_bytes(h), 4608);
	assert_int_equal(vol_hold_write(h, 0, od, 0, 4096, &moved, &done), -EXDEV);
	assert_int_equal(moved, 0);
	assert_int_equal(done, 0);
	assert_int_equal(vol_hold_write(h, 512, s, 0, 4608, &moved, &done), -ERANGE); /* beyond the hold */
	assert_int_equal(vol_hold_write(h, 4608, s, 0, 512, &moved, &done), -ERANGE);
	assert_int_equal(vol_hold_write(h, 0, s, 4 * MiB - 4096, 4608, &moved, &done), -ERANGE); /* beyond dst */
	/* a 4096-byte destination: offsets and lengths in its blocks, and the
	 * boundary between the ranges (at 4096) on one of them */
	assert_int_equal(vol_hold_write(h, 512, d4, 0, 4096, &moved, &done), -EINVAL);
	assert_int_equal(vol_hold_write(h, 0, d4, 512, 4096, &moved, &done), -EINVAL);
	assert_int_equal(vol_hold_write(h, 0, d4, 0, 4608, &moved, &done), -EINVAL);
	assert_int_equal(vol_hold_write(h, 0, d4, 0, 4096, &moved, &done), 0);
	expect_read(d4, 0, buf, 4096);
	/* a zero-length write does nothing */
	assert_int_equal(vol_hold_write(h, 4608, s, 0, 0, &moved, &done), 0);
	assert_int_equal(done, 0);
	vol_hold_free(h);
	vol_hold_free(NULL);
	volume_destroy(s);
	volume_destroy(d4);
	volume_destroy(od);
	free(buf);
	array_put(a);
	array_put(o);
}

/* A full array stops a write at the last piece that fit: the transfer
 * count says how far, what lies before it is the hold's data and nothing
 * after it changed.  The destination sits at another offset within a block
 * than the hold's data, so each block is stored anew (random data claims a
 * whole block, compressed or not: the limit falls at the same place
 * whenever the accounting runs). */
static void full_array_partial_write(void **state)
{
	(void)state;
	const uint64_t B = 8192, CH = 256 * B, len = 4 * CH;
	struct array *a = new_array(B, 1, 512);
	struct volume *s = volume_create(a, len + CH, 512), *d = volume_create(a, len + CH, 512);
	unsigned char *old = rnd(len + B, 8);
	struct vol_hold *h;
	uint64_t moved = 1, done = 1;
	char *err = NULL;

	assert_int_equal(wr(s, 0, old, len + B), 0);
	struct vol_range r = { 512, len };
	assert_int_equal(volume_hold_create(s, &r, 1, &h), 0);
	struct array_space sp;
	array_flush_accounting(a);
	array_get_space(a, &sp);
	assert_int_equal(sp.used_bytes, len + B);
	/* room for two and a half pieces of 256 new blocks */
	assert_int_equal(array_set_capacity(a, sp.used_bytes + 2 * CH + CH / 2, 0, &err), 0);
	assert_int_equal(vol_hold_write(h, 0, d, 0, len, &moved, &done), -ENOSPC);
	assert_int_equal(done, 2 * CH);
	assert_int_equal(moved, 0); /* a data copy: nothing moved as map entries */
	expect_read(d, 0, old + 512, 2 * CH);
	expect_zero(d, 2 * CH, len + CH - 2 * CH);
	/* the rest fits once space is given */
	assert_int_equal(array_set_capacity(a, sp.used_bytes + 8 * CH, 0, &err), 0);
	assert_int_equal(vol_hold_write(h, done, d, done, len - done, &moved, &done), 0);
	assert_int_equal(done, 2 * CH);
	expect_read(d, 0, old + 512, len);
	vol_hold_free(h);

	/* A full array: a range moved as map entries needs no space, the next
	 * one (its bytes at another offset within a block than the
	 * destination's) needs a block and stops the write after the first. */
	assert_int_equal(volume_unmap(d, 0, len + CH), 0);
	struct vol_range r2[] = { { 0, CH }, { CH + 512, 4096 } };
	assert_int_equal(volume_hold_create(s, r2, 2, &h), 0);
	array_flush_accounting(a);
	array_get_space(a, &sp);
	assert_int_equal(array_set_capacity(a, sp.used_bytes, 0, &err), 0);
	assert_int_equal(vol_hold_write(h, 0, d, 0, CH + 4096, &moved, &done), -ENOSPC);
	assert_int_equal(done, CH);
	assert_int_equal(moved, CH / B);
	expect_read(d, 0, old, CH);
	expect_zero(d, CH, B);
	vol_hold_free(h);
	volume_destroy(s);
	volume_destroy(d);
	free(old);
	array_put(a);
}

/* What a 1 GiB hold costs: map pointers for whole shared chunks, a chunk
 * of its own per unaligned range end, and the chunks its source overwrote
 * (the numbers in docs/accounting.md "ODX holds"). */
static void memory_of_a_gib(void **state)
{
	(void)state;
	const uint64_t B = 16384, GiB = 1024 * MiB, CH = 256 * B;
	struct array *a = new_array(B, 1, 512);
	struct volume *s = volume_create(a, GiB, 512), *tmp = volume_create(a, 2 * CH + 2 * B, 512);
	unsigned char *buf = rnd(2 * CH + 2 * B, 9);
	struct vol_hold *h1, *h2;
	uint64_t moved;

	/* 1 GiB mapped with distinct map chunks and 514 distinct blocks: each
	 * chunk copied entry by entry from a scratch volume shifted by its own
	 * number of blocks (1..255, 257: never on a chunk), so no two chunks
	 * are equal (equal ones would share: volume_map.c map_dedup_chunk) */
	assert_int_equal(wr(tmp, 0, buf, 2 * CH + 2 * B), 0);
	for (uint64_t c = 0; c < GiB / CH; c++)
		assert_int_equal(volume_copy(s, c * CH, tmp, (1 + c + (c == 255)) * B, CH, &moved), 0);
	volume_destroy(tmp);
	assert_int_equal(volume_mapped_bytes(s), GiB);

	struct vol_range al = { 0, GiB }, mis = { MiB + 512, GiB - 2 * MiB - 1024 };
	assert_int_equal(volume_hold_create(s, &al, 1, &h1), 0);
	assert_int_equal(volume_hold_create(s, &mis, 1, &h2), 0);
	uint64_t m1 = vol_hold_mem(h1), m2 = vol_hold_mem(h2);
	print_message("1 GiB hold: aligned %llu bytes, misaligned %llu bytes\n", (unsigned long long)m1,
		      (unsigned long long)m2);
	/* no per-block cost: well under the 4 bytes per block of a copied map */
	assert_true(m1 < 64 * 1024);
	/* the misaligned one holds its first and last chunk of its own */
	assert_int_equal(m2 - m1, 2 * sizeof(struct map_chunk));
	/* the source overwritten (unmapped here): every chunk is the holds' */
	assert_int_equal(volume_unmap(s, 0, GiB), 0);
	uint64_t m1u = vol_hold_mem(h1);
	print_message("1 GiB hold after its source was unmapped: %llu bytes\n", (unsigned long long)m1u);
	/* each of the 256 chunks is held by h1 and h2 except h2's two edges:
	 * shared between the holds, neither pays for it */
	assert_int_equal(m1u, m1 + 2 * sizeof(struct map_chunk));
	vol_hold_free(h2);
	assert_int_equal(vol_hold_mem(h1), m1 + (GiB / CH) * sizeof(struct map_chunk));
	vol_hold_free(h1);
	struct array_stats st = stats_of(a);
	assert_int_equal(st.unique_blocks, 0);
	volume_destroy(s);
	free(buf);
	array_put(a);
}

/* Holds made, written and freed while another thread rewrites the source
 * with one WRITE of the whole range at a time: each hold is one point in
 * time (every block of it from the same WRITE), and nothing leaks. */
struct writer {
	struct volume *v;
	uint64_t len;
	_Atomic int stop;
};

static void stamp(unsigned char *buf, uint64_t len, uint64_t B, uint32_t gen)
{
	for (uint64_t o = 0; o < len; o += B) {
		memset(buf + o, (int)(gen & 0xff), B);
		memcpy(buf + o, &gen, sizeof(gen));
		memcpy(buf + o + 8, &o, sizeof(o));
	}
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	unsigned char *buf = malloc(w->len);
	for (uint32_t gen = 2; !atomic_load(&w->stop); gen++) {
		stamp(buf, w->len, 8192, gen);
		if (wr(w->v, 0, buf, w->len))
			abort();
	}
	free(buf);
	return NULL;
}

static void concurrent_with_writes(void **state)
{
	(void)state;
	const uint64_t B = 8192, len = 2 * MiB;
	struct array *a = new_array(B, 1, 512);
	struct volume *s = volume_create(a, len, 512), *d = volume_create(a, 2 * len, 512);
	struct writer w = { s, len, 0 };
	unsigned char *got = malloc(len);
	pthread_t th;

	stamp(got, len, B, 1); /* every block written before the first hold */
	assert_int_equal(wr(s, 0, got, len), 0);
	assert_int_equal(pthread_create(&th, NULL, writer_main, &w), 0);
	for (int i = 0; i < 40; i++) {
		struct vol_range r[2] = { { len / 2, len / 2 }, { 0, len / 2 } };
		struct vol_hold *h;
		uint64_t moved, done;
		assert_int_equal(volume_hold_create(s, r, 2, &h), 0);
		assert_int_equal(vol_hold_write(h, 0, d, (uint64_t)(i % 2) * len, len, &moved, &done), 0);
		vol_hold_free(h);
		assert_int_equal(rd(d, (uint64_t)(i % 2) * len, got, len), 0);
		uint32_t g0;
		memcpy(&g0, got, sizeof(g0));
		for (uint64_t o = 0; o < len; o += B) {
			uint32_t g;
			uint64_t at, want_at = (o + len / 2) % len;
			memcpy(&g, got + o, sizeof(g));
			memcpy(&at, got + o + 8, sizeof(at));
			if (g != g0 || at != want_at)
				fail_msg("hold %d, byte %llu: write %u at %llu, the first block is of write %u", i,
					 (unsigned long long)o, g, (unsigned long long)at, g0);
		}
	}
	atomic_store(&w.stop, 1);
	pthread_join(th, NULL);
	volume_destroy(s);
	volume_destroy(d);
	assert_int_equal(stats_of(a).unique_blocks, 0);
	free(got);
	array_put(a);
}

/* One hold written by four threads at once into four regions of one
 * destination (two where map entries move, two at another offset within a
 * block, so data is copied), while a fifth thread rewrites the source and a
 * fifth region of the destination: every region reads the held data. */
struct hold_writer {
	struct vol_hold *h;
	struct volume *d;
	uint64_t off;
	int rc;
};

static void *hold_writer_main(void *arg)
{
	struct hold_writer *w = arg;
	for (int i = 0; i < 8 && !w->rc; i++) {
		uint64_t moved, done;
		w->rc = vol_hold_write(w->h, 0, w->d, w->off, vol_hold_bytes(w->h), &moved, &done);
	}
	return NULL;
}

static void *noise_main(void *arg)
{
	struct hold_writer *w = arg; /* h unused: 4 MiB of d from off rewritten */
	uint64_t seed = 99;
	unsigned char *buf = malloc(64 * 1024);
	for (int i = 0; i < 200 && !w->rc; i++) {
		fill_random(buf, 64 * 1024, &seed);
		w->rc = wr(w->d, w->off + (rng_next(&seed) % 64) * 64 * 1024, buf, 64 * 1024);
	}
	free(buf);
	return NULL;
}

static void one_hold_many_writers(void **state)
{
	(void)state;
	const uint64_t B = 8192, len = 4 * MiB, R = 8 * MiB;
	struct array *a = new_array(B, 1, 512);
	struct volume *s = volume_create(a, len, 512), *d = volume_create(a, 6 * R, 512);
	unsigned char *old = rnd(len, 12);
	struct vol_hold *h;
	pthread_t th[6];
	struct hold_writer w[6];

	assert_int_equal(wr(s, 0, old, len), 0);
	struct vol_range r = { 0, len };
	assert_int_equal(volume_hold_create(s, &r, 1, &h), 0);
	const uint64_t offs[4] = { 0, R + 512, 2 * R + 4096, 3 * R + 2 * MiB };
	for (int i = 0; i < 4; i++) {
		w[i] = (struct hold_writer){ h, d, offs[i], 0 };
		assert_int_equal(pthread_create(&th[i], NULL, hold_writer_main, &w[i]), 0);
	}
	w[4] = (struct hold_writer){ NULL, s, 0, 0 };
	w[5] = (struct hold_writer){ NULL, d, 4 * R, 0 }; /* past the four regions */
	assert_int_equal(pthread_create(&th[4], NULL, noise_main, &w[4]), 0);
	assert_int_equal(pthread_create(&th[5], NULL, noise_main, &w[5]), 0);
	for (int i = 0; i < 6; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(w[i].rc, 0);
	}
	for (int i = 0; i < 4; i++)
		expect_read(d, offs[i], old, len);
	vol_hold_free(h);
	volume_destroy(s);
	volume_destroy(d);
	assert_int_equal(stats_of(a).unique_blocks, 0);
	free(old);
	array_put(a);
}

/* --state-dir: a child makes a hold, overwrites the source so that blocks
 * only the hold keeps exist, commits (the hold's hidden volume is in
 * meta.db then) and dies by SIGKILL.  The state checks clean, loads without
 * the hold (its blocks gone, the source's counts as they were without it),
 * and checks clean again after the next commit. */
static void crash_while_held(void **state)
{
	(void)state;
	static const struct array_params x2 = { .dedup_block = 16384, .zlib_level = 1, .zlib_window_bits = 14,
						.alloc_unit = 512 };
	const uint64_t B = 16384, len = 8 * MiB, nb = len / B;
	char dir[] = "/tmp/lunlab-vol-hold.XXXXXX", adir[512], out[512], err[512], cmd[600];
	unsigned char *old = rnd(len, 10), *neu = rnd(len, 11);
	char *e = NULL;
	int ws;

	assert_non_null(mkdtemp(dir));
	snprintf(adir, sizeof(adir), "%s/arrays/h1", dir);
	pid_t p = fork();
	if (p == 0) {
		struct array *a = array_get_state("h1", &x2, dir, "x2", &e);
		struct volume *s = a ? array_volume_open(a, "lu:s", len, 512, &e) : NULL;
		struct vol_hold *h;
		struct vol_range r[] = { { 512, 3 * MiB }, { 4 * MiB, 4 * MiB } };
		if (!s || wr(s, 0, old, len) || volume_hold_create(s, r, 2, &h) || wr(s, 0, neu, len / 2) ||
		    array_sync(a))
			_exit(1);
		kill(getpid(), SIGKILL);
		_exit(2);
	}
	assert_int_equal(waitpid(p, &ws, 0), p);
	assert_true(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL);
	if (array_state_check(adir, out, sizeof(out), err, sizeof(err)) != 0)
		fail_msg("check after the crash: %s", err);
	/* the hold's volume was in the state, consistent, and is not a volume */
	if (!strstr(out, "1 volume(s)") || !strstr(out, "1 ODX hold(s) left by a crash"))
		fail_msg("check after the crash: %s", out);

	struct array *a = array_get_state("h1", &x2, dir, "x2", &e);
	if (!a)
		fail_msg("reopen: %s", e);
	struct volume *s = array_volume_open(a, "lu:s", len, 512, &e);
	assert_non_null(s);
	struct array_stats st = stats_of(a);
	assert_int_equal(st.mapped_blocks, nb);
	assert_int_equal(st.unique_blocks, nb);     /* the old half only the hold kept: gone */
	assert_int_equal(st.single_ref_blocks, nb); /* no count inflated */
	assert_int_equal(array_volumes_info(a, NULL, 0, NULL), 1);
	expect_read(s, 0, neu, len / 2);
	expect_read(s, len / 2, old + len / 2, len / 2);
	assert_int_equal(array_sync(a), 0); /* the hold's rows go (checked after the close below) */

	/* a hold made and freed, closed cleanly: nothing of it stays */
	struct vol_hold *h;
	struct vol_range r = { 0, len };
	assert_int_equal(volume_hold_create(s, &r, 1, &h), 0);
	assert_int_equal(array_sync(a), 0);
	assert_int_equal(wr(s, 0, old, len / 2), 0);
	vol_hold_free(h);
	array_volume_close(s);
	array_put(a);
	if (array_state_check(adir, out, sizeof(out), err, sizeof(err)) != 0)
		fail_msg("check after the close: %s", err);
	if (strstr(out, "ODX"))
		fail_msg("check after the close: %s", out);
	a = array_get_state("h1", &x2, dir, "x2", &e);
	assert_non_null(a);
	s = array_volume_open(a, "lu:s", len, 512, &e);
	assert_non_null(s);
	st = stats_of(a);
	assert_int_equal(st.unique_blocks, nb);
	expect_read(s, 0, old, len);
	array_volume_close(s);
	array_put(a);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(old);
	free(neu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hold_keeps_old_data),
		cmocka_unit_test(ranges_concatenate),
		cmocka_unit_test(hold_outlives_source),
		cmocka_unit_test(figures_exact),
		cmocka_unit_test(refusals),
		cmocka_unit_test(full_array_partial_write),
		cmocka_unit_test(memory_of_a_gib),
		cmocka_unit_test(concurrent_with_writes),
		cmocka_unit_test(one_hold_many_writers),
		cmocka_unit_test(crash_while_held),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
