/* test_block_store.c — content addressing: dedup across the volumes of one
 * array and never across arrays, exact reference counts after copy,
 * overwrite and unmap, and fingerprint collisions that must never return
 * wrong data; on a bare block store (no accounting workers): the accounting
 * backlog (pending blocks claim dedup_block bytes, blocks freed before or
 * while being accounted, stale backlog entries of reused ids) and the
 * capacity hooks. */
#include <errno.h>
#include <zlib.h>
#include "array_test_util.h"
#include "handlers/array/array_internal.h"
#include "handlers/array/block_compress.h"

static uint32_t ref_at(struct volume *v, uint64_t off)
{
	uint32_t id = map_get(v, off >> v->bshift);
	return id ? atomic_load(&bs_rec(v->bs, id)->ref) : 0;
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
	assert_int_equal(bs_count_fragment(a->bs, constant_fp(NULL, 0)), N);
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

/* ---- random operations vs a recount from the data itself ----
 * After any mix of writes, WRITE SAME, UNMAP, copies, COMPARE AND WRITE and
 * resizes on three volumes (lba 512 and 4096), the figures must equal what a
 * recount of the volumes' contents gives: mapped = non-zero blocks, unique =
 * distinct non-zero contents, single_ref = contents seen once, physical from
 * an independent one-shot deflate of each distinct content. */
static uint32_t g_B;
static int cmp_blocks(const void *x, const void *y)
{
	return memcmp(*(unsigned char *const *)x, *(unsigned char *const *)y, g_B);
}

static uint64_t oneshot_csize(const void *blk, uint32_t B, int level, int wbits)
{
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	deflateInit2(&zs, level, Z_DEFLATED, -wbits, 8, Z_DEFAULT_STRATEGY);
	uLong bound = deflateBound(&zs, B);
	unsigned char *out = malloc(bound);
	zs.next_in = (Bytef *)blk;
	zs.avail_in = B;
	zs.next_out = out;
	zs.avail_out = (uInt)bound;
	deflate(&zs, Z_FINISH);
	uint64_t n = zs.total_out;
	deflateEnd(&zs);
	free(out);
	return n;
}

static void recount(struct array *a, unsigned char **shadow, uint64_t *size, int nv)
{
	uint32_t B = a->p.dedup_block;
	size_t cap = 0, n = 0;
	for (int i = 0; i < nv; i++)
		cap += (size[i] + B - 1) / B;
	unsigned char **blocks = calloc(cap, sizeof(*blocks));
	for (int i = 0; i < nv; i++)
		for (uint64_t off = 0; off < size[i]; off += B) {
			unsigned char *blk = calloc(1, B);
			memcpy(blk, shadow[i] + off, size[i] - off < B ? size[i] - off : B);
			if (is_zero(blk, B))
				free(blk);
			else
				blocks[n++] = blk;
		}
	g_B = B;
	qsort(blocks, n, sizeof(*blocks), cmp_blocks);
	uint64_t unique = 0, single = 0, phys = 0, comp = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && !memcmp(blocks[i], blocks[j], B))
			j++;
		unique++;
		single += j - i == 1;
		uint64_t c = oneshot_csize(blocks[i], B, a->p.zlib_level, a->p.zlib_window_bits);
		uint64_t r = (c + a->p.alloc_unit - 1) / a->p.alloc_unit * a->p.alloc_unit;
		phys += r > B ? B : r;
		comp += c;
		i = j;
	}
	struct array_stats s = stats_of(a);
	assert_int_equal(s.mapped_blocks, n);
	assert_int_equal(s.unique_blocks, unique);
	assert_int_equal(s.single_ref_blocks, single);
	assert_int_equal(s.compressed_bytes, comp);
	assert_int_equal(s.physical_bytes, phys);
	for (size_t i = 0; i < n; i++)
		free(blocks[i]);
	free(blocks);
}

static void random_ops_match_recount(void **state)
{
	const uint32_t B = 8192;
	struct array *a = new_array(B, 1, 1024);
	uint32_t lba[3] = { 512, 4096, 512 };
	uint64_t size[3] = { 40 * (uint64_t)B + 1536, 32 * (uint64_t)B, 24 * (uint64_t)B };
	struct volume *v[3];
	unsigned char *sh[3];
	for (int i = 0; i < 3; i++) {
		v[i] = volume_create(a, size[i], lba[i]);
		sh[i] = calloc(1, 64 * B);
	}
	/* A small palette of block contents so dedup happens constantly. */
	unsigned char pal[4][8192];
	uint64_t seed = 31337;
	for (int k = 0; k < 4; k++)
		fill_random(pal[k], B, &seed);
	memset(pal[3] + 100, 0, B - 100); /* mostly zero */
	unsigned char *buf = malloc(64 * B);
	for (int it = 0; it < 1500; it++) {
		int i = (int)(rng_next(&seed) % 3), j = (int)(rng_next(&seed) % 3);
		uint64_t L = lba[i], L2 = lba[i] > lba[j] ? lba[i] : lba[j];
		uint64_t len = (rng_next(&seed) % (size[i] / L / 3) + 1) * L;
		uint64_t off = rng_next(&seed) % ((size[i] - len) / L + 1) * L;
		uint64_t mo, moved;
		switch (rng_next(&seed) % 7) {
		case 0: case 1: /* write palette blocks at a random phase */
			for (uint64_t x = 0; x < len; x++)
				buf[x] = pal[(x / B) % 4][(x + off) % B];
			assert_int_equal(wr(v[i], off, buf, len), 0);
			memcpy(sh[i] + off, buf, len);
			break;
		case 2: { /* write same */
			unsigned char pat[4096];
			memcpy(pat, pal[rng_next(&seed) % 4], L);
			if (rng_next(&seed) % 3 == 0)
				memset(pat, 0, L);
			assert_int_equal(volume_write_same(v[i], off, len, pat), 0);
			for (uint64_t x = 0; x < len; x += L)
				memcpy(sh[i] + off + x, pat, L);
			break;
		}
		case 3:
			assert_int_equal(volume_unmap(v[i], off, len), 0);
			memset(sh[i] + off, 0, len);
			break;
		case 4: case 5: { /* copy, often block-aligned phase */
			uint64_t clen = (rng_next(&seed) % (size[j] / L2 / 3) + 1) * L2;
			if (clen > size[i] || clen > size[j])
				break;
			uint64_t so = rng_next(&seed) % ((size[j] - clen) / L2 + 1) * L2;
			uint64_t dof = rng_next(&seed) % ((size[i] - clen) / L2 + 1) * L2;
			if (rng_next(&seed) % 2 && (dof / B * B + so % B) + clen <= size[i])
				dof = dof / B * B + so % B;
			if (dof % L2)
				break;
			assert_int_equal(volume_copy(v[i], dof, v[j], so, clen, &moved), 0);
			memmove(sh[i] + dof, sh[j] + so, clen);
			break;
		}
		case 6: { /* compare and write: succeed or miscompare */
			memcpy(buf, sh[i] + off, len);
			int bad = rng_next(&seed) % 2;
			if (bad)
				buf[len / 2] ^= 0x40;
			unsigned char *nw = malloc(len);
			for (uint64_t x = 0; x < len; x++)
				nw[x] = pal[1][(x + off) % B];
			int r = volume_compare_and_write(v[i], off, len, buf, nw, &mo);
			if (bad) {
				assert_int_equal(r, -EILSEQ);
				assert_int_equal(mo, len / 2);
			} else {
				assert_int_equal(r, 0);
				memcpy(sh[i] + off, nw, len);
			}
			free(nw);
			break;
		}
		}
		if (it % 500 == 250) { /* shrink and regrow volume 0 */
			uint64_t ns = size[0] - 3 * 512 - B;
			assert_int_equal(volume_resize(v[0], ns), 0);
			memset(sh[0] + ns, 0, size[0] - ns);
			assert_int_equal(volume_resize(v[0], size[0]), 0);
		}
		if (it % 100 == 99) {
			for (int k = 0; k < 3; k++) {
				assert_int_equal(rd(v[k], 0, buf, size[k]), 0);
				assert_memory_equal(buf, sh[k], size[k]);
			}
			recount(a, sh, size, 3);
		}
	}
	for (int i = 0; i < 3; i++) {
		volume_destroy(v[i]);
		free(sh[i]);
	}
	assert_int_equal(stats_of(a).unique_blocks, 0);
	free(buf);
	array_put(a);
}

/* A refcount at its ceiling never wraps: further copies and writes of that
 * content get a second block holding the same data. */
static void refcount_saturation(void **state)
{
	const uint32_t B = 8192;
	struct array *a = new_array(B, 1, 512);
	struct volume *v = volume_create(a, 16 * B, 512);
	unsigned char d[8192], got[8192];
	uint64_t seed = 8, moved;
	fill_random(d, B, &seed);
	assert_int_equal(wr(v, 0, d, B), 0);
	uint32_t id = map_get(v, 0);
	struct blk *rec = bs_rec(a->bs, id);
	/* Pretend BLK_REF_MAX - 2 other entries point at it. */
	atomic_store(&rec->ref, BLK_REF_MAX - 1);
	atomic_fetch_sub(&a->bs->shards[rec->shard].single_ref, 1);
	assert_int_equal(volume_copy(v, B, v, 0, B, &moved), 0); /* ref -> MAX - 1 + 1 refused */
	assert_int_equal(moved, 1);
	uint32_t id2 = map_get(v, 1);
	assert_int_not_equal(id2, id);
	assert_int_equal(atomic_load(&rec->ref), BLK_REF_MAX - 1);
	assert_int_equal(wr(v, 2 * B, d, B), 0); /* a write finds the non-full duplicate */
	assert_int_equal(map_get(v, 2), id2);
	assert_int_equal(stats_of(a).unique_blocks, 2);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(rd(v, (uint64_t)i * B, got, B), 0);
		assert_memory_equal(got, d, B);
	}
	/* Undo the pretence so the block is freed normally. */
	atomic_store(&rec->ref, 1);
	atomic_fetch_add(&a->bs->shards[rec->shard].single_ref, 1);
	volume_destroy(v);
	struct array_stats s = stats_of(a);
	assert_int_equal(s.unique_blocks, 0);
	assert_int_equal(s.single_ref_blocks, 0);
	array_put(a);
}

/* ---- the bare block store: backlog and space hooks ---- */

static void block_of(unsigned char *b, uint32_t B, uint64_t seed, int compressible)
{
	if (compressible)
		for (uint32_t i = 0; i < B; i++)
			b[i] = "block store backlog "[i % 20] + (unsigned char)(seed % 7);
	else
		fill_random(b, B, &seed);
}

static struct bs_figures figs(struct block_store *bs)
{
	struct bs_figures f;
	bs_figures(bs, &f);
	return f;
}

/* Account every pending block in this thread, as a worker would. */
static size_t account_all(struct block_store *bs)
{
	struct bs_acct_job jobs[8];
	size_t n, total = 0;
	while ((n = bs_acct_take(bs, jobs, 8)) != 0) {
		for (size_t i = 0; i < n; i++)
			jobs[i].csize = compressed_size(1, 14, jobs[i].data, bs->block);
		bs_acct_done(bs, jobs, n);
		total += n;
	}
	return total;
}

static void backlog_counts_worst_case_until_accounted(void **state)
{
	const uint32_t B = 16384, U = 1024;
	struct block_store *bs = bs_create(B, U);
	unsigned char blk[3][16384];
	uint32_t id[3], again;
	for (int i = 0; i < 3; i++) {
		block_of(blk[i], B, 40 + (uint64_t)i, i != 0);
		assert_int_equal(bs_ref_content(bs, blk[i], &id[i]), 0);
	}
	/* a duplicate is a reference, not a new pending block */
	assert_int_equal(bs_ref_content(bs, blk[1], &again), 0);
	assert_int_equal(again, id[1]);
	struct bs_figures f = figs(bs);
	assert_int_equal(f.unique_blocks, 3);
	assert_int_equal(f.pending_blocks, 3);
	assert_int_equal(bs_backlog(bs), 3);
	assert_int_equal(f.physical_bytes, 0);
	assert_int_equal(f.compressed_bytes, 0);
	assert_int_equal(f.used_bytes, 3 * (uint64_t)B); /* the worst case of rule 5 */
	assert_int_equal(f.single_ref_blocks, 2);
	/* pending blocks read back whole */
	assert_memory_equal(bs_data(bs, id[2]), blk[2], B);

	assert_int_equal(account_all(bs), 3);
	f = figs(bs);
	uint64_t c0 = compressed_size(1, 14, blk[0], B), c1 = compressed_size(1, 14, blk[1], B),
		 c2 = compressed_size(1, 14, blk[2], B);
	assert_true(c0 > B && c1 < 200);
	assert_int_equal(f.pending_blocks, 0);
	assert_int_equal(bs_backlog(bs), 0);
	assert_int_equal(f.compressed_bytes, c0 + c1 + c2);
	assert_int_equal(f.physical_bytes, B + bs_physical_size(bs, (uint32_t)c1) + bs_physical_size(bs, (uint32_t)c2));
	assert_int_equal(f.used_bytes, f.physical_bytes);
	assert_int_equal(bs_physical_size(bs, (uint32_t)c1), U);
	assert_int_equal(bs_wait_drained(bs, 1), 0);
	for (int i = 0; i < 3; i++)
		bs_unref(bs, id[i]);
	bs_unref(bs, again);
	f = figs(bs);
	assert_int_equal(f.unique_blocks, 0);
	assert_int_equal(f.physical_bytes, 0);
	assert_int_equal(f.compressed_bytes, 0);
	assert_int_equal(f.used_bytes, 0);
	bs_destroy(bs);
}

static void freed_before_or_while_accounted(void **state)
{
	const uint32_t B = 8192;
	struct block_store *bs = bs_create(B, 512);
	bs_set_fingerprint(bs, constant_fp); /* one shard: a freed id is the next one handed out */
	unsigned char x[8192], y[8192], z[8192];
	uint32_t ix, iy, iz;
	block_of(x, B, 1, 1);
	block_of(y, B, 2, 1);
	block_of(z, B, 3, 0);

	/* freed while pending: dropped, never counted; its backlog entry goes
	 * stale, and when the id is reused by new content the entry must not
	 * make that content count twice */
	assert_int_equal(bs_ref_content(bs, x, &ix), 0);
	bs_unref(bs, ix);
	assert_int_equal(figs(bs).pending_blocks, 0);
	assert_int_equal(bs_backlog(bs), 0);
	assert_int_equal(bs_ref_content(bs, y, &iy), 0);
	struct bs_acct_job jobs[8];
	assert_int_equal(iy, ix);
	size_t n = bs_acct_take(bs, jobs, 8); /* two entries for the id, one job */
	assert_int_equal(n, 1);
	assert_int_equal(jobs[0].id, iy);
	jobs[0].csize = compressed_size(1, 14, jobs[0].data, B);
	bs_acct_done(bs, jobs, n);
	assert_int_equal(account_all(bs), 0);
	struct bs_figures f = figs(bs);
	assert_int_equal(f.unique_blocks, 1);
	assert_int_equal(f.pending_blocks, 0);
	assert_int_equal(f.compressed_bytes, compressed_size(1, 14, y, B));

	/* freed while an accountant compresses it: its payload stays readable
	 * until the accountant is done, then the block is gone uncounted */
	assert_int_equal(bs_ref_content(bs, z, &iz), 0);
	n = bs_acct_take(bs, jobs, 8);
	assert_int_equal(n, 1);
	assert_int_equal(jobs[0].id, iz);
	bs_unref(bs, iz);
	f = figs(bs);
	assert_int_equal(f.unique_blocks, 1);
	assert_int_equal(f.pending_blocks, 0);
	assert_int_equal(bs_backlog(bs), 0);
	assert_memory_equal(jobs[0].data, z, B);
	jobs[0].csize = compressed_size(1, 14, jobs[0].data, B);
	bs_acct_done(bs, jobs, 1);
	f = figs(bs);
	assert_int_equal(f.unique_blocks, 1);
	assert_int_equal(f.compressed_bytes, compressed_size(1, 14, y, B));
	/* the orphan's id is free again: new content may take it */
	assert_int_equal(bs_ref_content(bs, z, &iz), 0);
	assert_int_equal(account_all(bs), 1);
	assert_int_equal(figs(bs).unique_blocks, 2);
	bs_unref(bs, iz);
	bs_unref(bs, iy);
	assert_int_equal(figs(bs).unique_blocks, 0);
	bs_destroy(bs);
}

/* Blocks freed while pending leave stale backlog entries; overwrites faster
 * than the accounting must not make the list grow without bound. */
static void backlog_stays_bounded_under_churn(void **state)
{
	const uint32_t B = 4096;
	struct block_store *bs = bs_create(B, 512);
	bs_set_fingerprint(bs, constant_fp); /* one shard, one list */
	struct bs_shard *sh = &bs->shards[constant_fp(NULL, 0) >> 58];
	unsigned char blk[4096];
	uint64_t seed = 4;
	uint32_t id, keep[100];
	for (int i = 0; i < 20000; i++) {
		fill_random(blk, B, &seed);
		assert_int_equal(bs_ref_content(bs, blk, &id), 0);
		bs_unref(bs, id); /* freed while pending: its entry goes stale */
	}
	assert_int_equal(bs_backlog(bs), 0);
	assert_true(sh->backlog_cap <= 64);
	for (int i = 0; i < 100; i++) {
		fill_random(blk, B, &seed);
		assert_int_equal(bs_ref_content(bs, blk, &keep[i]), 0);
	}
	for (int i = 0; i < 20000; i++) {
		fill_random(blk, B, &seed);
		assert_int_equal(bs_ref_content(bs, blk, &id), 0);
		bs_unref(bs, id);
	}
	assert_int_equal(bs_backlog(bs), 100);
	assert_true(sh->backlog_cap <= 512);  /* ~2 x pending, not 20000 */
	assert_int_equal(account_all(bs), 100);
	struct bs_figures f = figs(bs);
	assert_int_equal(f.pending_blocks, 0);
	assert_int_equal(f.unique_blocks, 100);
	for (int i = 0; i < 100; i++)
		bs_unref(bs, keep[i]);
	bs_destroy(bs);
}

struct space_log {
	int64_t claimed;                 /* what the hooks say is in use or set aside */
	uint64_t limit;                  /* refuse new blocks beyond it */
	int news, sized, freed, from_resv;
};

static int hook_new(void *ctx, uint32_t id, uint32_t bytes, struct bs_resv *r)
{
	struct space_log *l = ctx;
	(void)id;
	l->news++;
	if (r && r->left >= bytes) { /* set aside before: already claimed */
		r->left -= bytes;
		l->from_resv++;
		return 0;
	}
	if ((uint64_t)l->claimed + bytes > l->limit) {
		l->news--;
		return -ENOSPC;
	}
	l->claimed += bytes;
	return 0;
}

static int hook_reserve(void *ctx, uint64_t bytes)
{
	struct space_log *l = ctx;
	if ((uint64_t)l->claimed + bytes > l->limit)
		return -ENOSPC;
	l->claimed += (int64_t)bytes;
	return 0;
}

static void hook_release(void *ctx, uint64_t bytes)
{
	struct space_log *l = ctx;
	l->claimed -= (int64_t)bytes;
}

static void hook_sized(void *ctx, uint32_t id, uint32_t was, uint32_t now)
{
	struct space_log *l = ctx;
	(void)id;
	l->claimed += (int64_t)now - was;
	l->sized++;
}

static void hook_freed(void *ctx, uint32_t id, uint32_t bytes)
{
	struct space_log *l = ctx;
	(void)id;
	l->claimed -= bytes;
	l->freed++;
}

static void space_hooks_follow_the_claim(void **state)
{
	const uint32_t B = 16384;
	struct block_store *bs = bs_create(B, 1024);
	struct space_log log = { .limit = 2 * (uint64_t)B };
	struct bs_space_hooks h = { &log, hook_new, hook_sized, hook_freed, hook_reserve, hook_release };
	bs_set_space_hooks(bs, &h);
	unsigned char a[16384], b[16384], c[16384];
	uint32_t ia, ib, ic;
	block_of(a, B, 1, 1);
	block_of(b, B, 2, 1);
	block_of(c, B, 3, 1);
	assert_int_equal(bs_ref_content(bs, a, &ia), 0);
	assert_int_equal(bs_ref_content(bs, b, &ib), 0);
	assert_int_equal(log.claimed, 2 * (int64_t)B);
	/* full while both are pending: refused, nothing stored */
	assert_int_equal(bs_ref_content(bs, c, &ic), -ENOSPC);
	assert_int_equal(figs(bs).unique_blocks, 2);
	/* a duplicate needs no space */
	uint32_t dup;
	assert_int_equal(bs_ref_content(bs, a, &dup), 0);
	bs_unref(bs, dup);
	/* accounted, they claim their compressed size: room again */
	assert_int_equal(account_all(bs), 2);
	assert_int_equal(log.sized, 2);
	assert_int_equal(log.claimed, (int64_t)figs(bs).used_bytes);
	assert_int_equal(log.claimed, 2 * 1024);
	assert_int_equal(bs_ref_content(bs, c, &ic), 0);
	assert_int_equal(log.claimed, 2 * 1024 + (int64_t)B);
	assert_int_equal(log.claimed, (int64_t)figs(bs).used_bytes);
	/* freed pending (dedup_block) and accounted (physical) */
	bs_unref(bs, ic);
	bs_unref(bs, ia);
	bs_unref(bs, ib);
	assert_int_equal(log.freed, 3);
	assert_int_equal(log.claimed, 0);
	assert_int_equal(figs(bs).used_bytes, 0);
	/* a reservation: set aside first, then a new block takes its space
	 * from it (no second check); what is left goes back on release */
	struct bs_resv r = { 0, false };
	assert_int_equal(bs_reserve(bs, &r, 2 * (uint64_t)B), 0);
	assert_int_equal(r.left, 2 * B);
	struct bs_resv more = { 0, false };
	assert_int_equal(bs_reserve(bs, &more, 1), -ENOSPC); /* all of it is set aside */
	assert_int_equal(more.left, 0);
	assert_int_equal(bs_ref_content(bs, a, &ia), -ENOSPC); /* not from r: refused */
	assert_int_equal(bs_ref_content_r(bs, a, &ia, &r), 0);
	assert_int_equal(r.left, B);
	assert_int_equal(log.from_resv, 1);
	bs_release(bs, &r);
	assert_int_equal(r.left, 0);
	assert_int_equal(log.claimed, (int64_t)B);
	struct bs_resv free_pass = { 0, true }; /* unchecked: no hook call, never refused by it */
	assert_int_equal(bs_reserve(bs, &free_pass, 1ull << 40), 0);
	assert_int_equal(free_pass.left, 0);
	bs_unref(bs, ia);
	bs_destroy(bs);
	/* a store without hooks: reservations are free and change nothing */
	bs = bs_create(B, 1024);
	struct bs_resv none = { 0, false };
	assert_int_equal(bs_reserve(bs, &none, 1ull << 40), 0);
	assert_int_equal(none.left, 0);
	bs_release(bs, &none);
	bs_destroy(bs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dedup_across_volumes_not_arrays),
		cmocka_unit_test(refcounts_copy_overwrite_unmap),
		cmocka_unit_test(fingerprint_collisions_verified),
		cmocka_unit_test(random_ops_match_recount),
		cmocka_unit_test(refcount_saturation),
		cmocka_unit_test(backlog_counts_worst_case_until_accounted),
		cmocka_unit_test(freed_before_or_while_accounted),
		cmocka_unit_test(space_hooks_follow_the_claim),
		cmocka_unit_test(backlog_stays_bounded_under_churn),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
