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

/* Entries [i0, i1) of the copy, one by one, in the copy's direction. */
static int copy_each(struct volume *dst, uint64_t db0, struct volume *src, uint64_t sb0, uint64_t i0, uint64_t i1,
		     int backward, int64_t *delta)
{
	int r = 0;
	for (uint64_t k = i0; k < i1 && !r; k++) {
		uint64_t i = backward ? i1 - 1 - (k - i0) : k;
		uint32_t id = map_get(src, sb0 + i);
		if (id && (r = bs_ref_more(src->bs, id, &id)) != 0) /* src entry holds it: lock-free */
			break;
		r = vio_set_block(dst, db0 + i, id, delta);
	}
	return r;
}

/* Copy n map entries.  When source and destination sit at the same offset
 * within a map chunk, the whole chunks between share the source's chunk
 * (one pointer and one count, no block reference per entry: see
 * volume_map.c); the partial chunks at the edges, and every entry of a copy
 * whose offsets differ within a chunk, are copied entry by entry.  Pieces
 * go in the copy's direction, so an overlapping copy within one volume
 * still behaves like memmove (two chunks of one copy are never the same). */
static int copy_entries(struct volume *dst, uint64_t db0, struct volume *src, uint64_t sb0, uint64_t n)
{
	int64_t delta = 0;
	int r = 0;
	int backward = dst == src && db0 > sb0;
	if (dst == src && db0 == sb0)
		return 0;
	/* [m0, m1): the entries (relative to the copy) covering whole chunks */
	uint64_t m0 = n, m1 = n;
	if (!((db0 ^ sb0) & (MAP_CHUNK_ENTRIES - 1))) {
		uint64_t head = (MAP_CHUNK_ENTRIES - (db0 & (MAP_CHUNK_ENTRIES - 1))) & (MAP_CHUNK_ENTRIES - 1);
		if (head < n) {
			m0 = head;
			m1 = head + ((n - head) & ~(uint64_t)(MAP_CHUNK_ENTRIES - 1));
		}
	}
	uint64_t nch = (m1 - m0) >> MAP_CHUNK_SHIFT;
	if (!backward)
		r = copy_each(dst, db0, src, sb0, 0, m0, backward, &delta);
	else
		r = copy_each(dst, db0, src, sb0, m1, n, backward, &delta);
	for (uint64_t k = 0; k < nch && !r; k++) {
		uint64_t j = backward ? nch - 1 - k : k;
		uint64_t at = m0 + (j << MAP_CHUNK_SHIFT);
		r = map_share_chunk(dst, (db0 + at) >> MAP_CHUNK_SHIFT, src, (sb0 + at) >> MAP_CHUNK_SHIFT, &delta);
		if (r == -EOVERFLOW) /* a saturated block: this chunk entry by entry */
			r = copy_each(dst, db0, src, sb0, at, at + MAP_CHUNK_ENTRIES, backward, &delta);
	}
	if (!r && !backward)
		r = copy_each(dst, db0, src, sb0, m1, n, backward, &delta);
	else if (!r)
		r = copy_each(dst, db0, src, sb0, 0, m0, backward, &delta);
	/* A chunk filled by several smaller copies (a datamover moving 256 KiB
	 * at a time) that now equals its source chunk shares it instead: the
	 * copy that completes it checks, once per chunk. */
	if (!r && m0 == n && !((db0 ^ sb0) & (MAP_CHUNK_ENTRIES - 1))) {
		uint64_t last = backward ? db0 : db0 + n - 1, slast = backward ? sb0 : sb0 + n - 1;
		int edge = backward ? !(db0 & (MAP_CHUNK_ENTRIES - 1))
				    : !((db0 + n) & (MAP_CHUNK_ENTRIES - 1));
		struct map_chunk *dc = map_chunk_at(dst, last >> MAP_CHUNK_SHIFT);
		struct map_chunk *sc = map_chunk_at(src, slast >> MAP_CHUNK_SHIFT);
		if (edge && dc && sc && dc != sc && !memcmp(dc->ids, sc->ids, sizeof(dc->ids)) &&
		    map_share_chunk(dst, last >> MAP_CHUNK_SHIFT, src, slast >> MAP_CHUNK_SHIFT, &delta) != 0)
			r = 0; /* not shared (a saturated count): the entries stay, which is as right */
	}
	/* Offsets that differ within a chunk: each destination chunk whose last
	 * entry this copy wrote is complete as far as a forward clone goes, and
	 * equal to the same chunk of every other clone at that offset: it shares
	 * one published before, or is published (volume_map.c map_dedup_chunk).
	 * So is one whose first entry it wrote when its last is mapped already
	 * (the clone's next piece ran first: commands in flight together). */
	if (!r && ((db0 ^ sb0) & (MAP_CHUNK_ENTRIES - 1))) {
		for (uint64_t c = db0 >> MAP_CHUNK_SHIFT; c <= (db0 + n - 1) >> MAP_CHUNK_SHIFT; c++) {
			uint64_t first = c << MAP_CHUNK_SHIFT, last = first + MAP_CHUNK_ENTRIES - 1;
			if (last < db0 + n || (first >= db0 && last < dst->nblocks && map_get(dst, last)))
				map_dedup_chunk(dst, c);
		}
	}
	vio_commit_delta(dst, delta);
	return r;
}

/* Copy src's whole map into dst, empty and of the same size (a snapshot):
 * no data moves; every chunk is shared (volume_map.c).  The caller holds
 * src's writes (vol_hold) and keeps dst to itself. */
int vol_copy_map(struct volume *dst, struct volume *src, uint64_t *entries)
{
	uint64_t nchunks = (src->nblocks + MAP_CHUNK_ENTRIES - 1) >> MAP_CHUNK_SHIFT;
	int64_t delta = 0;
	int rc = 0;

	for (uint64_t ci = 0; ci < nchunks && !rc; ci++) {
		if (!map_chunk_at(src, ci))
			continue;
		rc = map_share_chunk(dst, ci, src, ci, &delta);
		/* a saturated count: this chunk entry by entry, which stores the
		 * content again (the only way a snapshot can need space) */
		if (rc == -EOVERFLOW)
			rc = copy_each(dst, 0, src, 0, ci << MAP_CHUNK_SHIFT, (ci + 1) << MAP_CHUNK_SHIFT, 0, &delta);
	}
	vio_commit_delta(dst, delta); /* exact even on failure: vol_fini drops them */
	*entries += (uint64_t)delta;
	return rc;
}

int vol_copy_pieces(struct volume *dst, struct volume *src, const struct vol_piece *p, size_t n,
		    uint64_t *entries)
{
	unsigned sh = src->bshift;
	struct lockset ls;
	int r = 0;

	*entries = 0;
	if (dst->bs != src->bs)
		return -EXDEV;
	for (size_t i = 0; i < n; i++)
		if (p[i].src_off + p[i].len < p[i].src_off)
			return -ERANGE;
	memset(&ls, 0, sizeof(ls));
	for (size_t i = 0; i < n; i++)
		if (p[i].len)
			lockset_add(&ls, src, p[i].src_off >> sh,
				    ((p[i].src_off + p[i].len - 1) >> sh) - (p[i].src_off >> sh) + 1);
	lockset_add(&ls, src, 0, 0);
	lockset_add(&ls, dst, 0, dst->nblocks);
	bs_mutation_begin(dst->bs);
	lockset_lock(&ls, 1);
	/* checked under the locks: a resize cannot move the end meanwhile */
	for (size_t i = 0; i < n && !r; i++) {
		r = vio_check_range(src, p[i].src_off, p[i].len);
		if (!r && p[i].len) {
			uint64_t b0 = p[i].src_off >> sh, b1 = (p[i].src_off + p[i].len + (1ull << sh) - 1) >> sh;
			if (((b0 ^ p[i].dst_block) & (MAP_CHUNK_ENTRIES - 1)) || p[i].dst_block + (b1 - b0) > dst->nblocks)
				r = -EINVAL;
		}
	}
	int64_t before = (int64_t)atomic_load(&dst->mapped);
	for (size_t i = 0; i < n && !r; i++) {
		if (!p[i].len)
			continue;
		uint64_t b0 = p[i].src_off >> sh, b1 = (p[i].src_off + p[i].len + (1ull << sh) - 1) >> sh;
		r = copy_entries(dst, p[i].dst_block, src, b0, b1 - b0);
	}
	*entries = (uint64_t)((int64_t)atomic_load(&dst->mapped) - before);
	lockset_unlock(&ls);
	bs_mutation_end(dst->bs);
	return r;
}

/* Replace dst's whole map by src's (a refresh: dst's data becomes src's in
 * place, no data moves): each of dst's chunks is let go and src's shared
 * instead (volume_map.c), so unique and physical space do not move and
 * logical space becomes src's.  *entries counts, as before chunks were
 * shared, the blocks src maps that dst did not map to the same block.  Same
 * number of blocks; the caller holds both volumes (vol_hold), so no command
 * runs on either meanwhile.  Chunks neither volume has are skipped. */
int vol_replace_map(struct volume *dst, struct volume *src, uint64_t *entries)
{
	int64_t delta = 0;
	uint64_t n = 0, nchunks = (dst->nblocks + MAP_CHUNK_ENTRIES - 1) >> MAP_CHUNK_SHIFT;
	int rc = 0;

	if (dst->nblocks != src->nblocks || dst->bs != src->bs)
		return -EINVAL;
	for (uint64_t ci = 0; ci < nchunks && !rc; ci++) {
		if (!(ci % MAP_LEAF_CHUNKS) && !atomic_load(&dst->leaves[ci / MAP_LEAF_CHUNKS]) &&
		    !atomic_load(&src->leaves[ci / MAP_LEAF_CHUNKS])) {
			ci += MAP_LEAF_CHUNKS - 1;
			continue;
		}
		struct map_chunk *sc = map_chunk_at(src, ci), *dc = map_chunk_at(dst, ci);
		if (sc == dc)
			continue; /* shared already (dst was a snapshot of src, or the reverse) */
		uint64_t differ = 0;
		for (unsigned i = 0; i < MAP_CHUNK_ENTRIES; i++) {
			uint32_t id = sc ? sc->ids[i] : 0;
			differ += id && id != (dc ? dc->ids[i] : 0);
		}
		rc = map_share_chunk(dst, ci, src, ci, &delta);
		if (rc == -EOVERFLOW) /* a saturated count: this chunk entry by entry */
			rc = copy_each(dst, 0, src, 0, ci << MAP_CHUNK_SHIFT, (ci + 1) << MAP_CHUNK_SHIFT, 0, &delta);
		if (!rc)
			n += differ;
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
