/* test_volume_io.c — the data path: read-modify-write at every misalignment,
 * zero detection, WRITE SAME, UNMAP, GET LBA STATUS, resize, iovecs,
 * concurrent writers; every check compares against a plain shadow buffer. */
#include <errno.h>
#include <pthread.h>
#include "array_test_util.h"

struct combo {
	uint32_t block, lba;
};
static const struct combo combos[] = { { 8192, 512 }, { 16384, 512 }, { 16384, 4096 }, { 8192, 4096 },
				       { 4096, 4096 }, { 512, 4096 } };

static void check_shadow(struct volume *v, const unsigned char *shadow, uint64_t size)
{
	unsigned char *got = malloc(size);
	assert_int_equal(rd(v, 0, got, size), 0);
	assert_memory_equal(got, shadow, size);
	free(got);
}

/* Every (offset, length) pair in lba steps over two blocks, on a volume whose
 * other bytes hold random data that RMW must preserve. */
static void rmw_every_misalignment(void **state)
{
	for (size_t c = 0; c < sizeof(combos) / sizeof(combos[0]); c++) {
		uint32_t B = combos[c].block, L = combos[c].lba;
		uint64_t span = 2 * (B > L ? B : L), size = 2 * span + 2 * L;
		struct array *a = new_array(B, 1, 512);
		struct volume *v = volume_create(a, size, L);
		assert_non_null(v);
		unsigned char *shadow = malloc(size), *data = malloc(size);
		uint64_t seed = 42 + c;
		fill_random(shadow, size, &seed);
		assert_int_equal(wr(v, 0, shadow, size), 0);
		for (uint64_t off = 0; off < span; off += L)
			for (uint64_t len = L; off + len <= span + L; len += L) {
				fill_random(data, len, &seed);
				assert_int_equal(wr(v, off, data, len), 0);
				memcpy(shadow + off, data, len);
				check_shadow(v, shadow, size);
				/* Read back exactly the misaligned range too. */
				unsigned char *back = malloc(len);
				assert_int_equal(rd(v, off, back, len), 0);
				assert_memory_equal(back, data, len);
				free(back);
			}
		/* Refcounts: overwritten blocks were freed, none leaked. */
		struct array_stats s = stats_of(a);
		assert_int_equal(s.mapped_blocks, (size + B - 1) / B);
		assert_int_equal(s.unique_blocks, s.mapped_blocks); /* random data: nothing shared */
		volume_destroy(v);
		s = stats_of(a);
		assert_int_equal(s.unique_blocks, 0);
		assert_int_equal(s.physical_bytes, 0);
		assert_int_equal(s.compressed_bytes, 0);
		free(shadow);
		free(data);
		array_put(a);
	}
}

static void zero_blocks_unmapped(void **state)
{
	const uint32_t B = 16384;
	struct array *a = new_array(B, 6, 512);
	struct volume *v = volume_create(a, 16 * B, 512);
	unsigned char *z = calloc(1, 4 * B), *d = malloc(4 * B), *got = malloc(4 * B);
	uint64_t seed = 7;
	assert_int_equal(wr(v, 0, z, 4 * B), 0);
	assert_int_equal(stats_of(a).mapped_blocks, 0);
	assert_int_equal(volume_mapped_bytes(v), 0);

	fill_random(d, 4 * B, &seed);
	assert_int_equal(wr(v, B, d, 2 * B), 0);
	assert_int_equal(stats_of(a).mapped_blocks, 2);
	assert_int_equal(volume_mapped_bytes(v), 2 * B);
	/* Zeroing a whole block with a normal write unmaps it and frees it. */
	assert_int_equal(wr(v, B, z, B), 0);
	struct array_stats s = stats_of(a);
	assert_int_equal(s.mapped_blocks, 1);
	assert_int_equal(s.unique_blocks, 1);
	/* A block zeroed piecewise by partial writes ends unmapped as well. */
	assert_int_equal(wr(v, 2 * B, z, 512), 0);
	assert_int_equal(stats_of(a).mapped_blocks, 1);
	assert_int_equal(wr(v, 2 * B + 512, z, B - 512), 0);
	s = stats_of(a);
	assert_int_equal(s.mapped_blocks, 0);
	assert_int_equal(s.unique_blocks, 0);
	assert_int_equal(rd(v, 0, got, 4 * B), 0);
	assert_memory_equal(got, z, 4 * B);
	/* A single non-zero byte maps the block. */
	d[0] = 1;
	memset(d + 1, 0, 511);
	assert_int_equal(wr(v, 5 * B + B - 512, d, 512), 0);
	assert_int_equal(stats_of(a).mapped_blocks, 1);
	volume_destroy(v);
	array_put(a);
	free(z);
	free(d);
	free(got);
}

static void write_same_and_unmap(void **state)
{
	const uint32_t B = 8192;
	struct array *a = new_array(B, 6, 1024);
	struct volume *v = volume_create(a, 64 * B, 512);
	unsigned char pat[512], zero[512] = { 0 };
	for (int i = 0; i < 512; i++)
		pat[i] = (unsigned char)(i * 3 + 1);
	/* Unaligned start and end: 2 partial blocks + whole blocks. */
	uint64_t off = B / 2, len = 10 * B;
	assert_int_equal(volume_write_same(v, off, len, pat), 0);
	struct array_stats s = stats_of(a);
	assert_int_equal(s.mapped_blocks, 11);
	/* whole blocks share one block; each partial edge is its own content
	 * (the tail block holds the pattern then zeros, the head zeros then
	 * the pattern) */
	assert_int_equal(s.unique_blocks, 3);
	unsigned char *got = malloc(64 * B);
	assert_int_equal(rd(v, 0, got, 64 * B), 0);
	for (uint64_t i = 0; i < 64 * B; i++)
		assert_int_equal(got[i], (i >= off && i < off + len) ? pat[i % 512] : 0);
	/* An all-zero pattern unmaps. */
	assert_int_equal(volume_write_same(v, 0, 64 * B, zero), 0);
	s = stats_of(a);
	assert_int_equal(s.mapped_blocks, 0);
	assert_int_equal(s.unique_blocks, 0);
	/* UNMAP of part of a block zeroes just that part. */
	assert_int_equal(volume_write_same(v, 0, 2 * B, pat), 0);
	assert_int_equal(volume_unmap(v, 512, B), 0);
	assert_int_equal(rd(v, 0, got, 2 * B), 0);
	for (uint64_t i = 0; i < 2 * B; i++)
		assert_int_equal(got[i], (i >= 512 && i < B + 512) ? 0 : pat[i % 512]);
	assert_int_equal(stats_of(a).mapped_blocks, 2);
	assert_int_equal(volume_unmap(v, 0, 64 * B), 0);
	assert_int_equal(stats_of(a).mapped_blocks, 0);
	free(got);
	volume_destroy(v);
	array_put(a);
}

/* A 2 TiB thin volume: sparse writes, then UNMAP and WRITE SAME(zero) of
 * the whole LU and GET LBA STATUS across it. */
static void thin_2tib(void **state)
{
	const uint32_t B = 16384;
	const uint64_t size = 2ull << 40;
	struct array *a = new_array(B, 1, 512);
	struct volume *v = volume_create(a, size, 4096);
	unsigned char d[8192];
	memset(d, 0xee, sizeof(d));
	assert_int_equal(wr(v, 0, d, 4096), 0);
	assert_int_equal(wr(v, size / 2 + 4096, d, 8192), 0);
	assert_int_equal(wr(v, size - 4096, d, 4096), 0);
	assert_int_equal(stats_of(a).mapped_blocks, 3);
	bool m;
	uint64_t run;
	assert_int_equal(volume_get_status(v, B, &m, &run), 0);
	assert_false(m);
	assert_int_equal(run, size / 2 - B);
	assert_int_equal(volume_unmap(v, 0, size / 2), 0);
	assert_int_equal(stats_of(a).mapped_blocks, 2);
	unsigned char z[4096] = { 0 };
	assert_int_equal(volume_write_same(v, 0, size, z), 0);
	struct array_stats s = stats_of(a);
	assert_int_equal(s.mapped_blocks, 0);
	assert_int_equal(s.unique_blocks, 0);
	assert_int_equal(volume_get_status(v, 0, &m, &run), 0);
	assert_false(m);
	assert_int_equal(run, size);
	volume_destroy(v);
	array_put(a);
}

/* Transfers longer than one lock chunk (256 blocks) with iovecs split at
 * odd places: data crosses chunk boundaries intact, counters exact. */
static void multi_chunk_io(void **state)
{
	const uint32_t B = 4096;
	const uint64_t size = 8ull << 20, off = 3 * 512, len = (5ull << 20) + 512;
	struct array *a = new_array(B, 1, 512);
	struct volume *v = volume_create(a, size, 512);
	unsigned char *src = malloc(len), *got = malloc(len);
	uint64_t seed = 12;
	fill_random(src, len, &seed);
	memset(src + (1 << 20), 0, 3 * B); /* some zero blocks mid-transfer */
	struct iovec wi[4] = { { src, 777 }, { src + 777, (1 << 20) - 777 }, { src + (1 << 20), 3 << 20 },
			       { src + (4 << 20), len - (4 << 20) } };
	assert_int_equal(volume_write(v, off, len, wi, 4), 0);
	struct iovec ri[3] = { { got, 1 << 19 }, { got + (1 << 19), 4095 }, { got + (1 << 19) + 4095, len - (1 << 19) - 4095 } };
	assert_int_equal(volume_read(v, off, len, ri, 3), 0);
	assert_memory_equal(got, src, len);
	struct array_stats s = stats_of(a);
	/* blocks touched minus the zero blocks (offset 1 MiB + 1536 in the
	 * volume: 2 whole zero blocks) */
	uint64_t touched = (off + len + B - 1) / B - off / B;
	assert_int_equal(s.mapped_blocks, touched - 2);
	assert_int_equal(s.unique_blocks, touched - 2);
	volume_destroy(v);
	free(src);
	free(got);
	array_put(a);
}

static void get_status_runs(void **state)
{
	const uint32_t B = 16384;
	struct array *a = new_array(B, 6, 512);
	uint64_t size = 10000 * (uint64_t)B + 1024; /* last block partial */
	struct volume *v = volume_create(a, size, 512);
	unsigned char *d = malloc(3 * B);
	memset(d, 0xab, 3 * B);
	assert_int_equal(wr(v, 5 * B, d, 3 * B), 0);
	assert_int_equal(wr(v, 9000 * (uint64_t)B, d, 512), 0);
	bool m;
	uint64_t run;
	assert_int_equal(volume_get_status(v, 0, &m, &run), 0);
	assert_false(m);
	assert_int_equal(run, 5 * B);
	assert_int_equal(volume_get_status(v, 4 * B + 512, &m, &run), 0);
	assert_false(m);
	assert_int_equal(run, B - 512);
	assert_int_equal(volume_get_status(v, 5 * B + 1024, &m, &run), 0);
	assert_true(m);
	assert_int_equal(run, 3 * B - 1024);
	assert_int_equal(volume_get_status(v, 8 * B, &m, &run), 0);
	assert_false(m);
	assert_int_equal(run, (9000 - 8) * (uint64_t)B);
	assert_int_equal(volume_get_status(v, 9000 * (uint64_t)B, &m, &run), 0);
	assert_true(m);
	assert_int_equal(run, B);
	assert_int_equal(volume_get_status(v, 9001 * (uint64_t)B, &m, &run), 0);
	assert_false(m);
	assert_int_equal(run, size - 9001 * (uint64_t)B); /* clipped at the end */
	assert_int_equal(volume_get_status(v, size, &m, &run), -ERANGE);
	assert_int_equal(volume_get_status(v, 100, &m, &run), -EINVAL);
	free(d);
	volume_destroy(v);
	array_put(a);
}

static void range_and_iov_checks(void **state)
{
	struct array *a = new_array(8192, 6, 512);
	struct volume *v = volume_create(a, 1 << 20, 4096);
	unsigned char buf[8192] = { 1 };
	assert_int_equal(wr(v, 512, buf, 4096), -EINVAL);      /* not lba aligned */
	assert_int_equal(wr(v, (1 << 20) - 4096, buf, 8192), -ERANGE);
	assert_int_equal(wr(v, UINT64_MAX - 4095, buf, 4096), -ERANGE);
	{
		/* Whole blocks are stored before the range is checked under the
		 * locks: a refused write must release them all. */
		unsigned char big[4 * 8192];
		uint64_t sd = 21;
		fill_random(big, sizeof(big), &sd);
		assert_int_equal(wr(v, (1 << 20) - 8192, big, sizeof(big)), -ERANGE);
		struct array_stats s = stats_of(a);
		assert_int_equal(s.unique_blocks, 0);
		assert_int_equal(s.mapped_blocks, 0);
	}
	struct iovec short_iov = { buf, 4096 };
	assert_int_equal(volume_write(v, 0, 8192, &short_iov, 1), -EINVAL);
	/* Scattered iovecs, including empty ones and splits inside a block. */
	unsigned char src[3 * 8192], got[3 * 8192];
	uint64_t seed = 3;
	fill_random(src, sizeof(src), &seed);
	struct iovec iov[5] = { { src, 100 }, { src + 100, 0 }, { src + 100, 9000 }, { src + 9100, 8000 },
				{ src + 17100, sizeof(src) - 17100 } };
	assert_int_equal(volume_write(v, 4096, sizeof(src), iov, 5), 0);
	struct iovec giov[3] = { { got, 1 }, { got + 1, 20000 }, { got + 20001, sizeof(got) - 20001 } };
	assert_int_equal(volume_read(v, 4096, sizeof(got), giov, 3), 0);
	assert_memory_equal(got, src, sizeof(src));
	volume_destroy(v);
	array_put(a);
}

static void resize_keeps_and_zeroes(void **state)
{
	const uint32_t B = 16384;
	struct array *a = new_array(B, 6, 512);
	struct volume *v = volume_create(a, 8 * B, 512);
	unsigned char *d = malloc(8 * B), *got = malloc(8 * B);
	memset(d, 0x5a, 8 * B);
	assert_int_equal(wr(v, 0, d, 8 * B), 0);
	assert_int_equal(stats_of(a).mapped_blocks, 8);
	assert_int_equal(volume_resize(v, 3 * B + 1024), 0);
	assert_int_equal(volume_size(v), 3 * B + 1024);
	assert_int_equal(stats_of(a).mapped_blocks, 4);
	assert_int_equal(volume_resize(v, 8 * B), 0);
	assert_int_equal(rd(v, 0, got, 8 * B), 0);
	for (uint64_t i = 0; i < 8 * B; i++)
		assert_int_equal(got[i], i < 3 * B + 1024 ? 0x5a : 0);
	assert_int_equal(volume_resize(v, 8 * B + 100), -EINVAL);
	free(d);
	free(got);
	volume_destroy(v);
	assert_int_equal(stats_of(a).unique_blocks, 0);
	array_put(a);
}

/* Writers on interleaved and shared ranges: afterwards each thread's region
 * holds its last write, and unmapping everything frees every block (no
 * reference lost or leaked under contention). */
struct wctx {
	struct volume *v;
	int id;
	uint32_t B;
};

static void *writer(void *arg)
{
	struct wctx *c = arg;
	unsigned char buf[3 * 16384];
	for (int iter = 0; iter < 300; iter++) {
		/* same content in all threads for half the writes: dedup races */
		memset(buf, iter % 2 ? c->id + 1 : 0x77, sizeof(buf));
		buf[0] = (unsigned char)(iter & 0xff);
		uint64_t base = (uint64_t)c->id * 4 * c->B + 512;
		if (wr(c->v, base, buf, 3 * c->B) != 0)
			return (void *)1;
		unsigned char back[3 * 16384];
		if (rd(c->v, base, back, 3 * c->B) || memcmp(back, buf, 3 * c->B))
			return (void *)2;
	}
	return NULL;
}

static void concurrent_writers(void **state)
{
	const uint32_t B = 16384;
	struct array *a = new_array(B, 1, 512);
	struct volume *v = volume_create(a, 64 * B, 512);
	pthread_t t[8];
	struct wctx c[8];
	for (int i = 0; i < 8; i++) {
		c[i] = (struct wctx){ v, i, B };
		pthread_create(&t[i], NULL, writer, &c[i]);
	}
	for (int i = 0; i < 8; i++) {
		void *r;
		pthread_join(t[i], &r);
		assert_null(r);
	}
	assert_int_equal(volume_unmap(v, 0, 64 * B), 0);
	struct array_stats s = stats_of(a);
	assert_int_equal(s.mapped_blocks, 0);
	assert_int_equal(s.unique_blocks, 0);
	assert_int_equal(s.single_ref_blocks, 0);
	volume_destroy(v);
	array_put(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rmw_every_misalignment), cmocka_unit_test(zero_blocks_unmapped),
		cmocka_unit_test(write_same_and_unmap),   cmocka_unit_test(get_status_runs),
		cmocka_unit_test(range_and_iov_checks),   cmocka_unit_test(resize_keeps_and_zeroes),
		cmocka_unit_test(concurrent_writers),     cmocka_unit_test(thin_2tib),
		cmocka_unit_test(multi_chunk_io),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
