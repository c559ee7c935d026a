/* volume_io.c — volumes and their data path: read, write (read-modify-write
 * of partial blocks), WRITE SAME, UNMAP, COMPARE AND WRITE, GET LBA STATUS,
 * resize, and a volume's own setup and teardown (array_core.c creates volumes and
 * keeps their list).  Blocks go to and come from the block store only.
 * Each operation holds its volume's resize lock for reading and the stripe
 * locks of the blocks it touches (read or write), never one lock for all. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/array/iov_cursor.h"
#include "handlers/array/split_work.h"
#include "handlers/array/volume_internal.h"

/* ---- block helpers (caller holds the block's stripe lock for writing) ---- */

/* Point block b at id (a reference the caller already owns, or 0). */
int vio_set_block(struct volume *v, uint64_t b, uint32_t id, int64_t *delta)
{
	uint32_t old;
	int r = map_set(v, b, id, &old);
	if (r) {
		if (id)
			bs_unref(v->bs, id);
		return r;
	}
	if (old)
		bs_unref(v->bs, old);
	*delta += (id != 0) - (old != 0);
	return 0;
}

static int store_block(struct volume *v, uint64_t b, const void *content, int64_t *delta, struct bs_resv *resv)
{
	uint32_t id = 0;
	if (!is_zero(content, v->bs->block)) {
		int r = bs_ref_content_r(v->bs, content, &id, resv);
		if (r)
			return r;
	}
	return vio_set_block(v, b, id, delta);
}

static int load_block(struct volume *v, uint64_t b, void *buf)
{
	uint32_t id = map_get(v, b);
	int r;
	if (id && (r = bs_verify(v->bs, id)) != 0) /* a damaged payload is never used */
		return r;
	if (id)
		memcpy(buf, bs_data(v->bs, id), v->bs->block);
	else
		memset(buf, 0, v->bs->block);
	return 0;
}

void vio_commit_delta(struct volume *v, int64_t delta)
{
	if (delta)
		atomic_fetch_add(&v->mapped, (uint64_t)delta);
}

/* ---- locked bodies ---- */

static int read_cur(struct volume *v, uint64_t off, uint64_t len, struct iovcur *cp)
{
	uint64_t B = v->bs->block;
	for (uint64_t pos = off; pos < off + len;) {
		uint64_t b = pos >> v->bshift, bstart = b << v->bshift;
		uint64_t e = bstart + B < off + len ? bstart + B : off + len;
		uint32_t id = map_get(v, b);
		int r = id ? bs_verify(v->bs, id) : 0; /* a damaged payload is never served */
		if (!r)
			r = cur_scatter(cp, id ? (const char *)bs_data(v->bs, id) + (pos - bstart) : NULL, e - pos);
		if (r)
			return r;
		pos = e;
	}
	return 0;
}

int vio_read_locked(struct volume *v, uint64_t off, uint64_t len, const struct iovec *iov, size_t iovcnt)
{
	struct iovcur c;
	cur_init(&c, iov, iovcnt);
	return read_cur(v, off, len, &c);
}

/* Write [off, off+len).  pre, if not NULL, holds references already taken
 * (outside the locks) for the whole blocks first_full .. first_full+n-1: they
 * are installed as they are; every other block is stored here, its space
 * taken from resv. */
static int write_cur(struct volume *v, uint64_t off, uint64_t len, struct iovcur *cp, uint32_t *pre,
		     uint64_t first_full, uint64_t nfull, struct bs_resv *resv)
{
	uint64_t B = v->bs->block;
	unsigned char buf[MAX_BLOCK] __attribute__((aligned(64)));
	int64_t delta = 0;
	int r = 0;
	for (uint64_t pos = off; pos < off + len && !r;) {
		uint64_t b = pos >> v->bshift, bstart = b << v->bshift;
		uint64_t e = bstart + B < off + len ? bstart + B : off + len;
		const void *content;
		if (pre && b >= first_full && b < first_full + nfull) {
			cur_skip(cp, B);
			r = vio_set_block(v, b, pre[b - first_full], &delta);
			pre[b - first_full] = 0; /* handed over (or released on error) */
			pos = e;
			continue;
		}
		if (pos == bstart && e - bstart == B) {
			/* Whole block: hash the caller's buffer in place if it is
			 * contiguous there. */
			content = cur_peek(cp, B);
			if (content)
				cur_skip(cp, B);
			else if ((r = cur_gather(cp, buf, B)) == 0)
				content = buf;
		} else {
			/* Partial block: read-modify-write. */
			r = load_block(v, b, buf);
			if (!r)
				r = cur_gather(cp, buf + (pos - bstart), e - pos);
			content = buf;
		}
		if (!r)
			r = store_block(v, b, content, &delta, resv);
		pos = e;
	}
	vio_commit_delta(v, delta);
	return r;
}

int vio_write_locked(struct volume *v, uint64_t off, uint64_t len, const struct iovec *iov, size_t iovcnt,
		     struct bs_resv *r)
{
	struct iovcur c;
	cur_init(&c, iov, iovcnt);
	return write_cur(v, off, len, &c, NULL, 0, 0, r);
}

uint64_t vio_blocks_touched(const struct volume *v, uint64_t off, uint64_t len)
{
	if (!len || off + len < off)
		return 0;
	return ((off + len - 1) >> v->bshift) - (off >> v->bshift) + 1;
}

/* End of the lock chunk holding byte pos: reads and writes lock and process
 * at most 2^IO_CHUNK_SHIFT aligned blocks at a time, so a large transfer
 * never needs more than MAX_STRIPES_HELD stripes nor the whole volume.
 * (SCSI promises no atomicity across a large READ or WRITE; each block, and
 * each chunk, is still updated atomically.) */
static uint64_t chunk_end(const struct volume *v, uint64_t pos, uint64_t end)
{
	unsigned sh = v->bshift + IO_CHUNK_SHIFT;
	uint64_t ce = ((pos >> sh) + 1) << sh;
	return ce < end && ce > pos ? ce : end;
}

/* A large prestore in pieces of at least PRESTORE_PIECE bytes, run on
 * several cores (split_work.h): at queue depth 1 a 4 MiB write of unique
 * data otherwise keeps one core busy while the others idle. */
#define PRESTORE_PIECE (256u << 10)
#define PRESTORE_MAX_PIECES 8u

struct prestore_split {
	struct volume *v;
	uint64_t off;
	const struct iovec *iov;
	size_t iovcnt;
	uint32_t *ids;
	uint64_t first_full, nfull;
	unsigned pieces;
	int err[PRESTORE_MAX_PIECES];
};

static void prestore_piece(void *arg, unsigned piece)
{
	struct prestore_split *ps = arg;
	uint64_t from = ps->nfull * piece / ps->pieces, to = ps->nfull * (piece + 1) / ps->pieces;
	ps->err[piece] = vio_store_range(ps->v->bs, ps->v->bshift, ps->off, ps->iov, ps->iovcnt, ps->ids,
					 ps->first_full, from, to);
	if (ps->err[piece]) /* the failed piece released its own; the caller the others' */
		for (uint64_t i = from; i < to; i++)
			ps->ids[i] = 0;
}

/* Store the whole blocks of a write before taking any range lock: hashing,
 * verifying and compressing new content is the slow part, and it needs no
 * lock of the volume.  Installing the ids later, under the range locks, is
 * what makes the write visible, so ordering and atomicity are unchanged. */
static int prestore(struct volume *v, uint64_t off, const struct iovec *iov, size_t iovcnt, uint32_t *ids,
		    uint64_t first_full, uint64_t nfull)
{
	uint64_t pieces = (nfull << v->bshift) / PRESTORE_PIECE;
	if (pieces < 2 || split_width() < 2)
		return vio_store_range(v->bs, v->bshift, off, iov, iovcnt, ids, first_full, 0, nfull);
	unsigned most = 2 * split_width();
	if (most > PRESTORE_MAX_PIECES)
		most = PRESTORE_MAX_PIECES;
	struct prestore_split ps = { v, off, iov, iovcnt, ids, first_full, nfull,
				     (unsigned)(pieces < most ? pieces : most), { 0 } };
	split_run(ps.pieces, prestore_piece, &ps);
	int r = 0;
	for (unsigned p = 0; p < ps.pieces && !r; p++)
		r = ps.err[p];
	if (r)
		for (uint64_t i = 0; i < nfull; i++)
			if (ids[i]) {
				bs_unref(v->bs, ids[i]);
				ids[i] = 0;
			}
	return r;
}

/* Fill [off, off+len) with pattern (lba_size bytes; NULL = zeros); new
 * blocks take their space from resv. */
static int write_same_locked(struct volume *v, uint64_t off, uint64_t len, const unsigned char *pattern,
			     struct bs_resv *resv)
{
	uint64_t B = v->bs->block, L = v->lba_size;
	unsigned char buf[MAX_BLOCK] __attribute__((aligned(64)));
	int64_t delta = 0;
	int r = 0;
	uint32_t full_id = 0; /* reference reused for every whole block when B >= L */
	int have_full = 0;
	for (uint64_t pos = off; pos < off + len && !r;) {
		uint64_t b = pos >> v->bshift, bstart = b << v->bshift;
		uint64_t e = bstart + B < off + len ? bstart + B : off + len;
		int whole = pos == bstart && e - bstart == B;
		if (!pattern && !atomic_load(&v->leaves[b >> MAP_LEAF_SHIFT])) {
			/* Zeroing a never-written leaf: nothing to do for any of its
			 * blocks (keeps UNMAP of a whole thin 2 TiB LU cheap). */
			uint64_t leaf_end = ((b >> MAP_LEAF_SHIFT) + 1) << (MAP_LEAF_SHIFT + v->bshift);
			pos = leaf_end < off + len ? leaf_end : off + len;
			continue;
		}
		if (whole && !pattern && !(b & (MAP_CHUNK_ENTRIES - 1)) &&
		    off + len - pos >= ((uint64_t)MAP_CHUNK_ENTRIES << v->bshift)) {
			/* a whole chunk: let go of it (a shared one is not copied first) */
			map_drop_chunk(v, b >> MAP_CHUNK_SHIFT, &delta);
			pos += (uint64_t)MAP_CHUNK_ENTRIES << v->bshift;
			continue;
		} else if (whole && !pattern) {
			r = vio_set_block(v, b, 0, &delta);
		} else if (whole && B >= L && have_full) {
			uint32_t id = 0;
			if (full_id && (r = bs_ref_more(v->bs, full_id, &id)) != 0)
				break;
			r = vio_set_block(v, b, id, &delta);
		} else {
			if (!whole && (r = load_block(v, b, buf)) != 0)
				break;
			/* Offsets are lba-aligned, so byte x holds pattern[x % L]. */
			for (uint64_t x = pos; x < e;) {
				uint64_t ph = x % L, k = L - ph < e - x ? L - ph : e - x;
				if (pattern)
					memcpy(buf + (x - bstart), pattern + ph, k);
				else
					memset(buf + (x - bstart), 0, k);
				x += k;
			}
			uint32_t id = 0;
			if (!is_zero(buf, B) && (r = bs_ref_content_r(v->bs, buf, &id, resv)) != 0)
				break;
			if (whole && B >= L && (!id || bs_incref(v->bs, id, 1) == 0)) {
				full_id = id; /* keep one reference for the next blocks */
				have_full = 1;
			}
			r = vio_set_block(v, b, id, &delta);
		}
		pos = e;
	}
	if (have_full && full_id)
		bs_unref(v->bs, full_id);
	vio_commit_delta(v, delta);
	return r;
}

/* ---- locking wrappers ---- */

static void range_lock(struct volume *v, struct lockset *ls, uint64_t off, uint64_t len, int write)
{
	memset(ls, 0, sizeof(*ls));
	uint64_t b0 = off >> v->bshift;
	/* (a wrapping range is refused by vio_check_range after locking) */
	uint64_t nb = len && off + len > off ? ((off + len - 1) >> v->bshift) - b0 + 1 : 0;
	lockset_add(ls, v, b0, nb);
	lockset_lock(ls, write);
}

int volume_read(struct volume *v, uint64_t off, uint64_t len, const struct iovec *iov, size_t iovcnt)
{
	struct lockset ls;
	struct iovcur c;
	if (off % v->lba_size || len % v->lba_size || iov_total(iov, iovcnt) < len)
		return -EINVAL;
	if (off + len < off)
		return -ERANGE;
	cur_init(&c, iov, iovcnt);
	int r = 0;
	uint64_t pos = off;
	do {
		uint64_t ce = chunk_end(v, pos, off + len);
		range_lock(v, &ls, pos, ce - pos, 0);
		r = vio_check_range(v, off, len);
		if (!r)
			r = read_cur(v, pos, ce - pos, &c);
		lockset_unlock(&ls);
		pos = ce;
	} while (!r && pos < off + len);
	return r;
}

/* The write itself; partial: len need not be a multiple of lba_size (the
 * bytes of the last logical block beyond len keep their content). */
static int write_range(struct volume *v, uint64_t off, uint64_t len, const struct iovec *iov, size_t iovcnt,
		       bool partial, struct vio_early *early)
{
	struct lockset ls;
	uint32_t local[64], *ids = local;
	if (off % v->lba_size || (!partial && len % v->lba_size) || iov_total(iov, iovcnt) < len)
		return -EINVAL;
	if (off + len < off)
		return -ERANGE;
	/* the range check counts the last logical block whole */
	uint64_t check_len = (len + v->lba_size - 1) / v->lba_size * v->lba_size;
	uint64_t B = v->bs->block;
	uint64_t first_full = (off + B - 1) >> v->bshift, end_full = (off + len) >> v->bshift;
	uint64_t nfull = end_full > first_full ? end_full - first_full : 0;
	/* blocks stored while the data arrived (volume_early.c): the first
	 * `have` of ids, which the write now owns */
	uint64_t have = early ? vio_early_take(early, v->bs, off, len, nfull, &ids) : 0;
	if (ids == local && nfull > sizeof(local) / sizeof(local[0]) && !(ids = malloc(nfull * sizeof(*ids))))
		return -ENOMEM;
	/* one command, one piece of a commit (block_store.h "persistence") */
	bs_mutation_begin(v->bs);
	int r = prestore(v, off, iov, iovcnt, ids + have, first_full + have, nfull - have);
	if (r) {
		/* prestore released its own; these are the early ones */
		for (uint64_t i = 0; i < have; i++)
			if (ids[i])
				bs_unref(v->bs, ids[i]);
		goto out;
	}
	/* Partial blocks are read-modify-written under the locks, after other
	 * blocks are installed: set their worst case aside now, so a full array
	 * refuses the whole write before any map entry changes. */
	struct bs_resv resv = { 0, false };
	uint64_t npart = vio_blocks_touched(v, off, len) - nfull;
	if (npart && (r = bs_reserve(v->bs, &resv, npart * B)) != 0)
		goto release;
	struct iovcur c;
	cur_init(&c, iov, iovcnt);
	uint64_t pos = off;
	do {
		uint64_t ce = chunk_end(v, pos, off + len);
		range_lock(v, &ls, pos, ce - pos, 1);
		r = vio_check_range(v, off, check_len);
		if (!r)
			r = write_cur(v, pos, ce - pos, &c, ids, first_full, nfull, &resv);
		lockset_unlock(&ls);
		pos = ce;
	} while (!r && pos < off + len);
	bs_release(v->bs, &resv);
release:
	/* Release what was not installed (range error or failure midway). */
	for (uint64_t i = 0; i < nfull; i++)
		if (ids[i])
			bs_unref(v->bs, ids[i]);
out:
	bs_mutation_end(v->bs);
	if (ids != local)
		free(ids);
	return r;
}

/* Deallocation (UNMAP, zeros, shrinking) is never refused for space: its
 * partial blocks need new content, but it frees at least as many blocks as
 * it makes, and a full array must still be able to free space. */
static struct bs_resv dealloc_resv(void)
{
	struct bs_resv r = { 0, true };
	return r;
}

/* The most blocks a WRITE SAME of a non-zero pattern may create: one for
 * all its whole blocks and one per partial edge when a block holds whole
 * logical blocks (B >= L); one per distinct slice of the pattern otherwise
 * (then blocks are never partial: offsets are L-aligned and B divides L). */
static uint64_t write_same_worst_blocks(const struct volume *v, uint64_t off, uint64_t len)
{
	uint64_t B = v->bs->block, L = v->lba_size, n = vio_blocks_touched(v, off, len);
	uint64_t most = B >= L ? 3 : L / B;
	return n < most ? n : most;
}

int volume_write(struct volume *v, uint64_t off, uint64_t len, const struct iovec *iov, size_t iovcnt)
{
	return write_range(v, off, len, iov, iovcnt, false, NULL);
}

int volume_write_early(struct volume *v, uint64_t off, uint64_t len, const struct iovec *iov, size_t iovcnt,
		       struct vio_early *early)
{
	return write_range(v, off, len, iov, iovcnt, false, early);
}

int volume_write_partial(struct volume *v, uint64_t off, uint64_t len, const struct iovec *iov, size_t iovcnt)
{
	return write_range(v, off, len, iov, iovcnt, true, NULL);
}

int volume_write_same(struct volume *v, uint64_t off, uint64_t len, const void *pattern)
{
	struct lockset ls;
	if (!pattern)
		return -EINVAL;
	bs_mutation_begin(v->bs);
	bool zero = is_zero(pattern, v->lba_size);
	struct bs_resv resv = zero ? dealloc_resv() : (struct bs_resv){ 0, false };
	range_lock(v, &ls, off, len, 1);
	int r = vio_check_range(v, off, len);
	if (!r && !zero)
		r = bs_reserve(v->bs, &resv, write_same_worst_blocks(v, off, len) * v->bs->block);
	if (!r)
		r = write_same_locked(v, off, len, zero ? NULL : pattern, &resv);
	bs_release(v->bs, &resv);
	lockset_unlock(&ls);
	bs_mutation_end(v->bs);
	return r;
}

int volume_unmap(struct volume *v, uint64_t off, uint64_t len)
{
	struct lockset ls;
	bs_mutation_begin(v->bs);
	struct bs_resv resv = dealloc_resv();
	range_lock(v, &ls, off, len, 1);
	int r = vio_check_range(v, off, len);
	if (!r)
		r = write_same_locked(v, off, len, NULL, &resv);
	lockset_unlock(&ls);
	bs_mutation_end(v->bs);
	return r;
}

int volume_compare_and_write(struct volume *v, uint64_t off, uint64_t len, const void *cmp, const void *wr,
			     uint64_t *miscompare_off)
{
	struct lockset ls;
	unsigned char *cur = NULL;
	/* Write-locking the range makes compare+write one step for every
	 * other reader and writer of these blocks. */
	bs_mutation_begin(v->bs);
	range_lock(v, &ls, off, len, 1);
	int r = vio_check_range(v, off, len);
	if (!r && !(cur = malloc(len ? len : 1)))
		r = -ENOMEM;
	if (!r) {
		struct iovec io = { cur, len };
		r = vio_read_locked(v, off, len, &io, 1);
		if (!r && memcmp(cur, cmp, len)) {
			const unsigned char *c = cmp;
			uint64_t i = 0;
			while (cur[i] == c[i])
				i++;
			if (miscompare_off)
				*miscompare_off = i;
			r = -EILSEQ;
		} else if (!r) {
			/* every block it touches may be new: decided before any changes */
			struct bs_resv resv = { 0, false };
			struct iovec w = { (void *)wr, len };
			r = bs_reserve(v->bs, &resv, vio_blocks_touched(v, off, len) * v->bs->block);
			if (!r)
				r = vio_write_locked(v, off, len, &w, 1, &resv);
			bs_release(v->bs, &resv);
		}
	}
	lockset_unlock(&ls);
	bs_mutation_end(v->bs);
	free(cur);
	return r;
}

int volume_get_status(struct volume *v, uint64_t off, bool *mapped, uint64_t *run_len)
{
	pthread_rwlock_rdlock(&v->resize_lock);
	if (off % v->lba_size || off >= v->size) {
		pthread_rwlock_unlock(&v->resize_lock);
		return off % v->lba_size ? -EINVAL : -ERANGE;
	}
	uint64_t b = off >> v->bshift, nb = b;
	int state = -1;
	/* chunk by chunk under its stripe: a writer may replace a chunk */
	while (nb < v->nblocks) {
		uint64_t ci = nb >> MAP_CHUNK_SHIFT, cend = (ci + 1) << MAP_CHUNK_SHIFT;
		if (cend > v->nblocks)
			cend = v->nblocks;
		if (state == 0 && !(ci % MAP_LEAF_CHUNKS) && !atomic_load(&v->leaves[ci / MAP_LEAF_CHUNKS])) {
			nb += MAP_LEAF_ENTRIES; /* an unwritten leaf: all unmapped */
			continue;
		}
		pthread_rwlock_t *st = &v->stripes[(nb >> LOCK_REGION_SHIFT) % NSTRIPES];
		pthread_rwlock_rdlock(st);
		struct map_chunk *c = map_chunk_at(v, ci);
		bool differs = false;
		for (; nb < cend; nb++) {
			int m = c && __atomic_load_n(&c->ids[nb & (MAP_CHUNK_ENTRIES - 1)], __ATOMIC_RELAXED) != 0;
			if (state < 0)
				state = m;
			if (m != state) {
				differs = true;
				break;
			}
		}
		pthread_rwlock_unlock(st);
		if (differs)
			break;
	}
	uint64_t end = nb << v->bshift;
	if (end > v->size)
		end = v->size;
	*mapped = state;
	*run_len = end - off;
	pthread_rwlock_unlock(&v->resize_lock);
	return 0;
}

uint64_t volume_mapped_bytes(struct volume *v)
{
	return atomic_load(&v->mapped) * v->bs->block;
}

/* ---- lifecycle ---- */

int vol_init(struct volume *v, struct block_store *bs, uint64_t size_bytes, uint32_t lba_size)
{
	if ((lba_size != 512 && lba_size != 4096) || size_bytes % lba_size)
		return -EINVAL;
	v->bs = bs;
	v->lba_size = lba_size;
	v->bshift = bs->bshift;
	/* Writer-preferring: a huge-range operation or resize must not starve
	 * behind a steady stream of small ones. */
	pthread_rwlockattr_t attr;
	pthread_rwlockattr_init(&attr);
	pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&v->resize_lock, &attr);
	pthread_rwlockattr_destroy(&attr);
	for (unsigned i = 0; i < NSTRIPES; i++)
		pthread_rwlock_init(&v->stripes[i], NULL);
	atomic_init(&v->meta_bytes, sizeof(*v));
	if (map_resize(v, (size_bytes + bs->block - 1) >> v->bshift)) {
		pthread_rwlock_destroy(&v->resize_lock);
		for (unsigned i = 0; i < NSTRIPES; i++)
			pthread_rwlock_destroy(&v->stripes[i]);
		return -ENOMEM;
	}
	v->size = size_bytes;
	return 0;
}

/* Drop every map entry from block b on; caller holds resize_lock for writing. */
static void unmap_from(struct volume *v, uint64_t b)
{
	int64_t delta = 0;
	for (uint64_t i = b; i < v->nblocks;) {
		if (!(i & (MAP_CHUNK_ENTRIES - 1))) {
			map_drop_chunk(v, i >> MAP_CHUNK_SHIFT, &delta); /* whole chunks: let go */
			i += MAP_CHUNK_ENTRIES;
			continue;
		}
		if (map_get(v, i))
			(void)vio_set_block(v, i, 0, &delta);
		i++;
	}
	vio_commit_delta(v, delta);
}

void vol_fini(struct volume *v)
{
	pthread_rwlock_wrlock(&v->resize_lock);
	unmap_from(v, 0);
	map_free(v);
	pthread_rwlock_unlock(&v->resize_lock);
	pthread_rwlock_destroy(&v->resize_lock);
	for (unsigned i = 0; i < NSTRIPES; i++)
		pthread_rwlock_destroy(&v->stripes[i]);
}

void vol_hold(struct volume *v) { pthread_rwlock_wrlock(&v->resize_lock); }
void vol_unhold(struct volume *v) { pthread_rwlock_unlock(&v->resize_lock); }

uint64_t volume_size(const struct volume *v) { return v->size; }

int volume_resize(struct volume *v, uint64_t new_size)
{
	if (new_size % v->lba_size)
		return -EINVAL;
	uint64_t B = v->bs->block;
	bs_mutation_begin(v->bs);
	pthread_rwlock_wrlock(&v->resize_lock);
	int r = 0;
	if (new_size < v->size) {
		/* Bytes past the end must read as zeros if the volume grows
		 * again: zero the tail of the last partial block. */
		uint64_t tail_end = (new_size + B - 1) / B * B;
		if (tail_end > v->size)
			tail_end = v->size;
		struct bs_resv resv = dealloc_resv();
		if (tail_end > new_size)
			r = write_same_locked(v, new_size, tail_end - new_size, NULL, &resv);
		if (!r)
			unmap_from(v, (new_size + B - 1) >> v->bshift);
	}
	if (!r)
		r = map_resize(v, (new_size + B - 1) >> v->bshift);
	if (!r)
		v->size = new_size;
	/* the size is in the volume's state record; marked inside the gate,
	 * so the cut sees the new size and its mark together */
	vol_record_mark(v);
	pthread_rwlock_unlock(&v->resize_lock);
	bs_mutation_end(v->bs);
	return r;
}
