/* test_accounting.c — compression accounting: exact sizes and rounding on
 * crafted blocks (checked against a one-shot deflate computed here), and the
 * capacity figures of a generated image compared, figure by figure, with an
 * independent Python recomputation of docs/accounting.md (drr_recompute.py),
 * once the accounting backlog is drained (array_flush_accounting), and what
 * the figures may say before that; then the same for volumes, snapshots and
 * copies that diverge and are deleted: the figures must equal a
 * recomputation from the live volumes' contents alone. */
#include <errno.h>
#include <limits.h>
#include <unistd.h>
#include <zlib.h>
#include "array_test_util.h"
#include "handlers/array/volume_names.h"

/* Independent reference: one deflateInit2/deflate/deflateEnd into a buffer
 * large enough for the whole output. */
static uint64_t ref_csize(const void *blk, uint32_t B, int level, int wbits)
{
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	assert_int_equal(deflateInit2(&zs, level, Z_DEFLATED, -wbits, 8, Z_DEFAULT_STRATEGY), Z_OK);
	uLong bound = deflateBound(&zs, B);
	unsigned char *out = malloc(bound);
	zs.next_in = (Bytef *)blk;
	zs.avail_in = B;
	zs.next_out = out;
	zs.avail_out = (uInt)bound;
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	uint64_t n = zs.total_out;
	deflateEnd(&zs);
	free(out);
	return n;
}

static uint64_t round_cap(uint64_t c, uint32_t unit, uint32_t B)
{
	uint64_t r = (c + unit - 1) / unit * unit;
	return r > B ? B : r;
}

static void crafted_blocks(void **state)
{
	const struct { uint32_t B; int level; uint32_t unit; } ps[] = {
		{ 8192, 6, 1024 }, { 16384, 6, 512 }, { 16384, 1, 512 }, { 16384, 9, 1 }, { 8192, 1, 4096 },
	};
	for (size_t k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
		uint32_t B = ps[k].B;
		struct array *a = new_array(B, ps[k].level, ps[k].unit);
		struct volume *v = volume_create(a, 64 * (uint64_t)B, 512);
		unsigned char *rnd = malloc(B), *rep = malloc(B), *half = malloc(B);
		uint64_t seed = 77 + k;
		fill_random(rnd, B, &seed);
		for (uint32_t i = 0; i < B; i++)
			rep[i] = "lunlab repetitive block "[i % 24];
		memset(half, 0, B);
		fill_random(half, B / 2 - 100, &seed);

		/* random: incompressible, capped at the block size */
		assert_int_equal(wr(v, 0, rnd, B), 0);
		struct array_stats s = stats_of(a);
		uint64_t cr = ref_csize(rnd, B, ps[k].level, 14);
		assert_true(cr > B);
		assert_int_equal(s.compressed_bytes, cr);
		assert_int_equal(s.physical_bytes, B);
		/* repetitive: exact size rounded up to the unit */
		assert_int_equal(wr(v, B, rep, B), 0);
		uint64_t cp = ref_csize(rep, B, ps[k].level, 14);
		s = stats_of(a);
		assert_true(cp < 200);
		assert_int_equal(s.compressed_bytes, cr + cp);
		assert_int_equal(s.physical_bytes, B + round_cap(cp, ps[k].unit, B));
		/* half random, half zero */
		assert_int_equal(wr(v, 2 * B, half, B), 0);
		uint64_t ch = ref_csize(half, B, ps[k].level, 14);
		s = stats_of(a);
		uint64_t phys = B + round_cap(cp, ps[k].unit, B) + round_cap(ch, ps[k].unit, B);
		assert_int_equal(s.physical_bytes, phys);
		/* duplicates cost nothing physical; logical grows */
		assert_int_equal(wr(v, 3 * B, rep, B), 0);
		assert_int_equal(wr(v, 4 * B, rnd, B), 0);
		s = stats_of(a);
		assert_int_equal(s.physical_bytes, phys);
		assert_int_equal(s.logical_bytes, 5 * (uint64_t)B);
		assert_int_equal(s.unique_bytes, 3 * (uint64_t)B);
		assert_int_equal(s.pending_blocks, 0);
		/* freeing a block subtracts exactly what it added */
		assert_int_equal(volume_unmap(v, 2 * B, B), 0);
		s = stats_of(a);
		assert_int_equal(s.physical_bytes, B + round_cap(cp, ps[k].unit, B));
		assert_int_equal(s.compressed_bytes, cr + cp);
		volume_destroy(v);
		array_put(a);
		free(rnd);
		free(rep);
		free(half);
	}
}

/* A mix like an OS image: zeros, text-like runs, random (compressed media),
 * sparse blocks, and whole-block repeats (duplicated files). */
static void gen_image(unsigned char *img, uint64_t size, uint64_t seed)
{
	static const char *words[] = { "system32 ", "dll ", "Windows ", "kernel ", "0000 ", "config ",
				       "registry ", "\x01\x02\x03\x04", "MZ\x90", "driver " };
	const uint64_t C = 16384, P = 2048;
	for (uint64_t off = 0; off < size; off += C) {
		uint64_t n = size - off < C ? size - off : C;
		unsigned chunk = (unsigned)(rng_next(&seed) % 20);
		if (chunk < 3) { /* free space */
			memset(img + off, 0, n);
			continue;
		}
		if (chunk < 7 && off >= 4 * C) { /* a duplicated file */
			memcpy(img + off, img + (rng_next(&seed) % (off / C)) * C, n);
			continue;
		}
		for (uint64_t po = off; po < off + n; po += P) {
			uint64_t m = off + n - po < P ? off + n - po : P;
			unsigned char *p = img + po;
			unsigned kind = (unsigned)(rng_next(&seed) % 8);
			if (kind < 1) {
				memset(p, 0, m);
			} else if (kind < 5) { /* text and code: compressible */
				for (uint64_t i = 0; i < m;) {
					const char *w = words[rng_next(&seed) % 10];
					for (size_t j = 0; w[j] && i < m; j++)
						p[i++] = (unsigned char)w[j];
				}
			} else if (kind < 7) { /* compressed media */
				fill_random(p, m, &seed);
			} else { /* sparse */
				memset(p, 0, m);
				for (int j = 0; j < 5; j++)
					p[rng_next(&seed) % m] = (unsigned char)rng_next(&seed);
			}
		}
	}
}

/* images: one or more quoted paths, each a volume of the array */
static int run_recompute(const char *images, const struct array_params *p, struct array_stats *out, uint64_t ratios[3])
{
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "'%s' '%s' %s --block %u --level %d --wbits %d --unit %u", PYTHON3, DRR_SCRIPT, images,
		 p->dedup_block, p->zlib_level, p->zlib_window_bits, p->alloc_unit);
	FILE *f = popen(cmd, "r");
	if (!f)
		return -1;
	char key[64];
	unsigned long long val;
	int n = 0;
	memset(out, 0, sizeof(*out));
	while (fscanf(f, "%63s %llu", key, &val) == 2) {
		n++;
#define F(name) if (!strcmp(key, #name)) out->name = val;
		F(logical_bytes) F(unique_bytes) F(physical_bytes) F(compressed_bytes) F(unique_blocks)
		F(mapped_blocks) F(single_ref_blocks)
#undef F
		if (!strcmp(key, "dedup_ratio_x1000"))
			ratios[0] = val;
		if (!strcmp(key, "compression_ratio_x1000"))
			ratios[1] = val;
		if (!strcmp(key, "data_reduction_ratio_x1000"))
			ratios[2] = val;
	}
	int st = pclose(f);
	return st == 0 && n == 10 ? 0 : -1;
}

/* Every figure the recomputation prints equals the store's. */
static void assert_same_figures(const struct array_stats *s, const struct array_stats *py)
{
	assert_int_equal(s->logical_bytes, py->logical_bytes);
	assert_int_equal(s->unique_bytes, py->unique_bytes);
	assert_int_equal(s->physical_bytes, py->physical_bytes);
	assert_int_equal(s->compressed_bytes, py->compressed_bytes);
	assert_int_equal(s->unique_blocks, py->unique_blocks);
	assert_int_equal(s->mapped_blocks, py->mapped_blocks);
	assert_int_equal(s->single_ref_blocks, py->single_ref_blocks);
}

static void drr_matches_independent_recomputation(void **state)
{
	const struct array_params ps[] = {
		{ 8192, 6, 14, 1024 }, { 16384, 6, 14, 512 }, { 16384, 1, 9, 512 }, { 8192, 9, 15, 1 },
	};
	const uint64_t size = (6ull << 20) + 3 * 512; /* final block partial */
	unsigned char *img = malloc(size), *got = malloc(size);
	gen_image(img, size, 2024);
	char path[] = "/tmp/lunlab-drr-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, img, size), (ssize_t)size);
	close(fd);
	for (size_t k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
		char *err = NULL, name[64];
		snprintf(name, sizeof(name), "drr-%zu-%d", k, (int)getpid());
		struct array *a = array_get(name, &ps[k], &err);
		assert_non_null(a);
		struct volume *v = volume_create(a, size, 512);
		/* Write in uneven chunks (multiples of 512) so many writes are
		 * partial blocks going through read-modify-write. */
		uint64_t seed = k + 1;
		for (uint64_t off = 0; off < size;) {
			uint64_t n = (rng_next(&seed) % 97 + 1) * 512;
			if (n > size - off)
				n = size - off;
			assert_int_equal(wr(v, off, img + off, n), 0);
			off += n;
		}
		assert_int_equal(rd(v, 0, got, size), 0);
		assert_memory_equal(got, img, size);
		/* Before the backlog is drained (docs/accounting.md "When figures
		 * lag"): counts are exact at once, physical and compressed cover
		 * the accounted blocks only, and physical + pending x B is an
		 * upper bound of the final physical figure. */
		struct array_stats early;
		array_get_stats(a, &early);
		struct array_stats s = stats_of(a), py;
		assert_int_equal(early.mapped_blocks, s.mapped_blocks);
		assert_int_equal(early.unique_blocks, s.unique_blocks);
		assert_int_equal(early.single_ref_blocks, s.single_ref_blocks);
		assert_true(early.pending_blocks <= early.unique_blocks);
		assert_true(early.physical_bytes <= s.physical_bytes);
		assert_true(early.compressed_bytes <= s.compressed_bytes);
		assert_true(early.physical_bytes + early.pending_blocks * ps[k].dedup_block >= s.physical_bytes);
		uint64_t ratios[3] = { 0 };
		char quoted[PATH_MAX + 3];
		snprintf(quoted, sizeof(quoted), "'%s'", path);
		assert_int_equal(run_recompute(quoted, &ps[k], &py, ratios), 0);
		assert_same_figures(&s, &py);
		assert_int_equal(s.pending_blocks, 0);
		/* the generated mix really exercises every rule */
		assert_true(s.mapped_blocks > s.unique_blocks);
		assert_true(s.mapped_blocks < (size + ps[k].dedup_block - 1) / ps[k].dedup_block);
		assert_true(s.physical_bytes < s.unique_bytes);
		assert_int_equal(ratios[0], s.logical_bytes * 1000 / s.unique_bytes);
		assert_int_equal(ratios[2], s.logical_bytes * 1000 / s.physical_bytes);
		print_message("dedup_block %u level %d wbits %d unit %u: logical %llu unique %llu physical %llu "
			      "DRR %.3f\n", ps[k].dedup_block, ps[k].zlib_level, ps[k].zlib_window_bits,
			      ps[k].alloc_unit, (unsigned long long)s.logical_bytes,
			      (unsigned long long)s.unique_bytes, (unsigned long long)s.physical_bytes,
			      (double)s.logical_bytes / (double)s.physical_bytes);
		volume_destroy(v);
		array_put(a);
	}
	unlink(path);
	free(img);
	free(got);
}

/* Dump every volume of vols[] to a temporary file; paths quoted into list. */
static void dump_volumes(struct volume **vols, size_t n, uint64_t size, char (*paths)[32], char *list, size_t len)
{
	unsigned char *buf = malloc(size);
	list[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		snprintf(paths[i], 32, "/tmp/lunlab-snap-XXXXXX");
		int fd = mkstemp(paths[i]);
		assert_true(fd >= 0);
		assert_int_equal(rd(vols[i], 0, buf, size), 0);
		assert_int_equal(write(fd, buf, size), (ssize_t)size);
		close(fd);
		size_t at = strlen(list);
		snprintf(list + at, len - at, "%s'%s'", at ? " " : "", paths[i]);
	}
	free(buf);
}

static void check_against_python(struct array *a, const struct array_params *p, struct volume **vols, size_t n,
				 uint64_t size)
{
	char paths[8][32], list[512];
	struct array_stats s = stats_of(a), py;
	uint64_t ratios[3] = { 0 };
	dump_volumes(vols, n, size, paths, list, sizeof(list));
	assert_int_equal(run_recompute(list, p, &py, ratios), 0);
	for (size_t i = 0; i < n; i++)
		unlink(paths[i]);
	assert_same_figures(&s, &py);
	struct array_space sp;
	array_get_space(a, &sp);
	assert_int_equal(sp.used_bytes, py.physical_bytes); /* drained (stats_of): used is exact */
}

/* A volume, two snapshots (one writable, one read-only), a clone made by
 * EXTENDED COPY's metadata copy, all diverging by writes and UNMAP, then a
 * snapshot and the source deleted: after every step the figures equal the
 * recomputation from the contents of the volumes alive. */
static void snapshots_match_independent_recomputation(void **state)
{
	const struct array_params p = { 16384, 1, 14, 512 };
	const uint64_t size = 4ull << 20;
	unsigned char *img = malloc(size), *other = malloc(size);
	gen_image(img, size, 7);
	gen_image(other, size, 8);
	char name[64], *err = NULL;
	snprintf(name, sizeof(name), "snap-drr-%d", (int)getpid());
	struct array *a = array_get(name, &p, &err);
	assert_non_null(a);
	struct volume *src = NULL, *s1 = NULL, *s2 = NULL;
	assert_int_equal(volume_attach(a, "src", size, 512, &src, &err), 0);
	assert_int_equal(wr(src, 0, img, size), 0);
	struct array_stats before = stats_of(a);

	const char *from[] = { "src", "src" }, *to[] = { "s1", "s2" };
	uint64_t entries = 0;
	assert_int_equal(array_snapshot(a, from, to, 1, false, &entries, &err), 0);
	assert_int_equal(array_snapshot(a, from + 1, to + 1, 1, true, &entries, &err), 0);
	assert_int_equal(entries, before.mapped_blocks);
	/* a snapshot copies no data: only mapped and single-ref move */
	struct array_stats after = stats_of(a);
	assert_int_equal(after.unique_blocks, before.unique_blocks);
	assert_int_equal(after.physical_bytes, before.physical_bytes);
	assert_int_equal(after.mapped_blocks, 3 * before.mapped_blocks);
	assert_int_equal(volume_attach(a, "s1", size, 512, &s1, &err), 0);
	assert_int_equal(volume_attach(a, "s2", size, 512, &s2, &err), 0);
	assert_true(volume_is_readonly(s2));
	assert_false(volume_is_readonly(s1));
	struct volume *all[] = { src, s1, s2 };
	check_against_python(a, &p, all, 3, size);

	/* diverge: the source gets new data in places, the writable snapshot in
	 * others (unaligned, so partial blocks are read-modify-written), part
	 * of the source is unmapped; the read-only snapshot keeps the moment */
	assert_int_equal(wr(src, 512 * 1024, other, 1536 * 1024), 0);
	assert_int_equal(wr(s1, 3 * 512, other + 2 * 1024 * 1024, 700 * 1024 + 512), 0);
	assert_int_equal(volume_unmap(src, 3 * 1024 * 1024, 256 * 1024 + 4096), 0);
	unsigned char *got = malloc(size);
	assert_int_equal(rd(s2, 0, got, size), 0);
	assert_memory_equal(got, img, size);
	check_against_python(a, &p, all, 3, size);

	/* a clone by metadata copy (EXTENDED COPY) of part of the snapshot */
	struct volume *clone = volume_create(a, size, 512);
	uint64_t moved = 0;
	assert_int_equal(volume_copy(clone, 0, s1, 0, 2 * 1024 * 1024, &moved), 0);
	assert_int_equal(moved, 128);
	struct volume *all4[] = { src, s1, s2, clone };
	check_against_python(a, &p, all4, 4, size);

	/* delete the read-only snapshot, then the source: what only they held
	 * is freed, the rest stays with s1 and the clone */
	volume_release(s2);
	assert_int_equal(array_volume_delete(a, "s2", &err), 0);
	struct volume *three[] = { src, s1, clone };
	check_against_python(a, &p, three, 3, size);
	volume_release(src);
	assert_int_equal(array_volume_delete(a, "src", &err), 0);
	struct volume *two[] = { s1, clone };
	check_against_python(a, &p, two, 2, size);
	volume_release(s1);
	assert_int_equal(array_volume_delete(a, "s1", &err), 0);
	volume_destroy(clone);
	struct array_stats none = stats_of(a);
	assert_int_equal(none.unique_blocks, 0);
	assert_int_equal(none.mapped_blocks, 0);
	assert_int_equal(none.physical_bytes, 0);
	array_put(a);
	free(got);
	free(img);
	free(other);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(crafted_blocks),
		cmocka_unit_test(drr_matches_independent_recomputation),
		cmocka_unit_test(snapshots_match_independent_recomputation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
