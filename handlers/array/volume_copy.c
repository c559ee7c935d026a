/* volume_copy.c — EXTENDED COPY as a metadata copy: whole dedup blocks are
 * copied by moving map entries and taking references, never data; only the
 * partial blocks at unaligned edges go through read-modify-write.  When the
 * source and destination sit at different offsets within a block (no block
 * lines up with another), the copy falls back to reading and writing data.
 * Same-volume overlap behaves like memmove. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/array/volume_internal.h"

#define DATA_CHUNK (1u << 20)

static int copy_data(struct volume *dst, uint64_t doff, struct volume *src, uint64_t soff, uint64_t len,
		     struct bs_resv *resv)
{
	unsigned char *buf = malloc(len < DATA_CHUNK ? len : DATA_CHUNK);
	if (!buf)
		return -ENOMEM;
	/* Walk backwards when the destination lies above an overlapping
	 * source, so no source byte is overwritten before it is read. */
	int backward = dst == src && doff > soff;
	int r = 0;
	for (uint64_t done = 0; done < len && !r;) {
		uint64_t n = len - done < DATA_CHUNK ? len - done : DATA_CHUNK;
		uint64_t at = backward ? len - done - n : done;
		struct iovec io = { buf, n };
		r = vio_read_locked(src, soff + at, n, &io, 1);
		if (!r)
			r = vio_write_locked(dst, doff + at, n, &io, 1, resv);
		done += n;
	}
	free(buf);
	return r;
}

static int copy_entries(struct volume *dst, uint64_t db0, struct volume *src, uint64_t sb0, uint64_t n)
{
	int64_t delta = 0;
	int r = 0;
	int backward = dst == src && db0 > sb0;
	if (dst == src && db0 == sb0)
		return 0;
	for (uint64_t k = 0; k < n && !r; k++) {
		uint64_t i = backward ? n - 1 - k : k;
		uint32_t id = map_get(src, sb0 + i);
		if (id && (r = bs_ref_more(src->bs, id, &id)) != 0) /* src entry holds it: lock-free */
			break;
		r = vio_set_block(dst, db0 + i, id, &delta);
	}
	vio_commit_delta(dst, delta);
	return r;
}

/* Copy src's whole map into dst, empty and of the same size (a snapshot):
 * every mapped block gets one more reference, no data moves.  The caller
 * holds src's writes (vol_hold) and keeps dst to itself. */
int vol_copy_map(struct volume *dst, struct volume *src, uint64_t *entries)
{
	uint64_t n = 0;
	int rc = 0;

	for (uint64_t l = 0; l < src->nleaves && !rc; l++) {
		uint32_t *leaf = atomic_load(&src->leaves[l]);
		if (!leaf)
			continue;
		for (uint32_t i = 0; i < MAP_LEAF_ENTRIES; i++) {
			uint32_t id = __atomic_load_n(&leaf[i], __ATOMIC_RELAXED), nid, old;
			if (!id)
				continue;
			/* src's entry holds id; a saturated count stores the content
			 * again (the only way a snapshot can need space) */
			if ((rc = bs_ref_more(src->bs, id, &nid)) != 0)
				break;
			if ((rc = map_set(dst, (l << MAP_LEAF_SHIFT) + i, nid, &old)) != 0) {
				bs_unref(src->bs, nid);
				break;
			}
			n++;
		}
	}
	atomic_store(&dst->mapped, n); /* exact even on failure: vol_fini unmaps them */
	*entries += n;
	return rc;
}

/* Replace dst's whole map by src's (a refresh: dst's data becomes src's in
 * place, no data moves): every block src maps gets one more reference, every
 * block dst mapped loses dst's.  Same number of blocks; the caller holds
 * both volumes (vol_hold), so no command runs on either meanwhile.  Leaves
 * neither volume has are skipped: the walk costs what is mapped. */
int vol_replace_map(struct volume *dst, struct volume *src, uint64_t *entries)
{
	int64_t delta = 0;
	uint64_t n = 0;
	int rc = 0;

	if (dst->nblocks != src->nblocks || dst->bs != src->bs)
		return -EINVAL;
	for (uint64_t l = 0; l < dst->nleaves && !rc; l++) {
		if (!atomic_load(&dst->leaves[l]) && !atomic_load(&src->leaves[l]))
			continue;
		uint64_t b0 = l << MAP_LEAF_SHIFT;
		for (uint64_t b = b0; b < b0 + MAP_LEAF_ENTRIES && b < dst->nblocks && !rc; b++) {
			uint32_t id = map_get(src, b), nid = 0;
			if (id == map_get(dst, b))
				continue; /* shared already (dst was a snapshot of src, or the reverse) */
			if (id && (rc = bs_ref_more(src->bs, id, &nid)) != 0)
				break;
			rc = vio_set_block(dst, b, nid, &delta);
			n += id != 0;
		}
	}
	vio_commit_delta(dst, delta);
	*entries += n;
	return rc;
}

int volume_copy(struct volume *dst, uint64_t dst_off, struct volume *src, uint64_t src_off, uint64_t len,
		uint64_t *blocks_moved)
{
	if (blocks_moved)
		*blocks_moved = 0;
	if (dst->bs != src->bs)
		return -EXDEV;
	/* Refuse wrapping ranges before computing locks from them. */
	if (src_off + len < src_off || dst_off + len < dst_off)
		return -ERANGE;
	uint64_t B = src->bs->block;
	unsigned sh = src->bshift;
	struct lockset ls;
	memset(&ls, 0, sizeof(ls));
	if (len) {
		lockset_add(&ls, src, src_off >> sh, ((src_off + len - 1) >> sh) - (src_off >> sh) + 1);
		lockset_add(&ls, dst, dst_off >> sh, ((dst_off + len - 1) >> sh) - (dst_off >> sh) + 1);
	} else {
		lockset_add(&ls, src, 0, 0);
		lockset_add(&ls, dst, 0, 0);
	}
	/* the whole copy in one commit or none (block_store.h "persistence") */
	bs_mutation_begin(dst->bs);
	lockset_lock(&ls, 1);

	int r = vio_check_range(src, src_off, len);
	if (!r)
		r = vio_check_range(dst, dst_off, len);
	/* Blocks the copy may have to create (data copies and partial edges)
	 * are set aside before anything changes: a full array refuses the
	 * whole copy.  Whole blocks moved as map entries need no space. */
	struct bs_resv resv = { 0, false };
	int unaligned = ((src_off ^ dst_off) & (B - 1)) != 0;
	if (!r && len) {
		uint64_t n = vio_blocks_touched(dst, dst_off, len);
		if (!unaligned) {
			uint64_t edges = (uint64_t)((dst_off & (B - 1)) != 0) + (((dst_off + len) & (B - 1)) != 0);
			n = edges < n ? edges : n;
		}
		r = bs_reserve(dst->bs, &resv, n * B);
	}
	if (!r && len) {

		if (unaligned) {
			r = copy_data(dst, dst_off, src, src_off, len, &resv);
		} else {
			uint64_t head = (B - (dst_off & (B - 1))) & (B - 1);
			if (head > len)
				head = len;
			uint64_t nblk = (len - head) >> sh;
			uint64_t tail = len - head - (nblk << sh);
			/* Read both partial edges before any entry moves, so an
			 * overlapping source is seen as it was (memmove). */
			unsigned char *hb = NULL, *tb = NULL;
			if ((head && !(hb = malloc(head))) || (tail && !(tb = malloc(tail))))
				r = -ENOMEM;
			struct iovec hio = { hb, head }, tio = { tb, tail };
			uint64_t tail_src = src_off + head + (nblk << sh), tail_dst = dst_off + head + (nblk << sh);
			if (!r && head)
				r = vio_read_locked(src, src_off, head, &hio, 1);
			if (!r && tail)
				r = vio_read_locked(src, tail_src, tail, &tio, 1);
			if (!r && nblk) {
				r = copy_entries(dst, (dst_off + head) >> sh, src, (src_off + head) >> sh, nblk);
				if (!r && blocks_moved)
					*blocks_moved = nblk;
			}
			if (!r && head)
				r = vio_write_locked(dst, dst_off, head, &hio, 1, &resv);
			if (!r && tail)
				r = vio_write_locked(dst, tail_dst, tail, &tio, 1, &resv);
			free(hb);
			free(tb);
		}
	}
	bs_release(dst->bs, &resv);
	lockset_unlock(&ls);
	bs_mutation_end(dst->bs);
	return r;
}
