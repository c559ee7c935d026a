/* vol_hold.c — ODX holds (volume.h "ODX holds"): what a ROD token stands
 * for in the array.  A hold is a hidden volume of the array that took the
 * map entries of the token's ranges by the metadata copy EXTENDED COPY and
 * snapshots use (volume_copy.c, vol_copy_pieces): whole 4 MiB map chunks
 * are shared with the source where they line up (volume_map.c), the edge
 * chunks copied entry by entry, every block one more reference.  No data
 * is read or copied and no block is made, so POPULATE TOKEN costs map
 * pointers, and a later write to the source replaces its own entries
 * (copy-on-write of a shared chunk) while the hold keeps the old blocks.
 * WRITE USING TOKEN is volume_copy from the hidden volume.
 *
 * Layout of the hidden volume: each range's whole dedup blocks, placed at
 * the same offset within a map chunk as in the source (so whole chunks are
 * shared, not copied entry by entry), one range after the other; a range
 * starting inside a dedup block holds that whole block (a reference), not a
 * zero-padded copy, so a hold never makes a block.  The hold's segment
 * table maps its concatenated bytes onto the hidden volume.
 *
 * The hidden volume is on the array's list (so a state directory records
 * its references consistently at every commit and a crash leaves a state
 * that loads) but flagged hidden: the figures of logical space, the volume
 * lists and names ignore it, and a state's loader drops it (array_state.c):
 * holds do not survive a restart.  Same layer as snapshot.c: it takes an
 * array reference (array.c) and makes a volume (array_core.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/array/array_internal.h"

/* Bytes [hold_off, hold_off + len) of the hold are bytes [vol_off,
 * vol_off + len) of the hidden volume. */
struct hold_seg {
	uint64_t hold_off, vol_off, len;
};

struct vol_hold {
	struct array *a;        /* one array reference: the hidden volume needs its store */
	struct volume *v;       /* hidden (struct volume.hidden) */
	uint64_t bytes;         /* sum of the segments' lengths */
	size_t nseg;
	struct hold_seg seg[];  /* in hold order, zero-length ranges left out */
};

int volume_hold_create(struct volume *src, const struct vol_range *r, size_t n, struct vol_hold **out)
{
	*out = NULL;
	if (!src || !r || !n)
		return -EINVAL;
	struct array *a = src->owner;
	unsigned sh = src->bshift;
	uint64_t B = 1ull << sh, size = volume_size(src), total = 0, nb = 0;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (r[i].off % src->lba_size || r[i].len % src->lba_size)
			return -EINVAL;
		/* (checked again under the source's locks: a resize may come) */
		if (r[i].off > size || r[i].len > size - r[i].off)
			return -ERANGE;
		if (total + r[i].len < total)
			return -ERANGE;
		total += r[i].len;
	}
	if (!total)
		return -EINVAL; /* nothing to hold */
	struct vol_hold *h = calloc(1, sizeof(*h) + n * sizeof(h->seg[0]));
	struct vol_piece *p = calloc(n, sizeof(*p));
	if (!h || !p) {
		free(h);
		free(p);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		if (!r[i].len)
			continue;
		uint64_t b0 = r[i].off >> sh, b1 = (r[i].off + r[i].len + B - 1) >> sh;
		/* the next block at b0's offset within a map chunk */
		uint64_t db = nb + ((b0 - nb) & (MAP_CHUNK_ENTRIES - 1));
		p[k] = (struct vol_piece){ r[i].off, r[i].len, db };
		h->seg[k] = (struct hold_seg){ h->bytes, (db << sh) + (r[i].off & (B - 1)), r[i].len };
		h->bytes += r[i].len;
		nb = db + (b1 - b0);
		k++;
	}
	h->nseg = k;
	h->a = a;

	/* the hold appears whole in one commit or not at all */
	bs_mutation_begin(a->bs);
	/* 512-byte logical blocks: every segment offset is a multiple */
	struct volume *v = array_vol_alloc(a, nb << sh, 512);
	uint64_t entries = 0;
	int rc = v ? 0 : -ENOMEM;
	if (!rc) {
		v->hidden = true;
		rc = vol_copy_pieces(v, src, p, k, &entries);
	}
	if (!rc) {
		pthread_mutex_lock(&a->vol_mu);
		array_vol_link(a, v);
		pthread_mutex_unlock(&a->vol_mu);
		array_ref(a);
		h->v = v;
	} else if (v) {
		volume_destroy(v); /* not linked: drops what the copy took */
	}
	bs_mutation_end(a->bs);
	free(p);
	if (rc) {
		free(h);
		return rc;
	}
	*out = h;
	return 0;
}

uint64_t vol_hold_bytes(const struct vol_hold *h)
{
	return h->bytes;
}

uint64_t vol_hold_mem(const struct vol_hold *h)
{
	struct volume *v = h->v;
	/* meta_bytes: the volume's structure (its 256 stripe locks are most
	 * of a small hold's cost), leaf pointers and leaves */
	uint64_t mem = sizeof(*h) + h->nseg * sizeof(h->seg[0]) + atomic_load(&v->meta_bytes) +
		       v->pdirty_words * sizeof(uint64_t);
	uint64_t nchunks = (v->nblocks + MAP_CHUNK_ENTRIES - 1) >> MAP_CHUNK_SHIFT;

	/* The hidden volume's slots do not change after create (it is only
	 * ever copied from), so they are read without its locks; a chunk
	 * nobody else holds is the hold's, one another volume shares costs
	 * the hold nothing more. */
	for (uint64_t ci = 0; ci < nchunks; ci++) {
		if (!(ci % MAP_LEAF_CHUNKS) && !atomic_load(&v->leaves[ci / MAP_LEAF_CHUNKS])) {
			ci += MAP_LEAF_CHUNKS - 1;
			continue;
		}
		struct map_chunk *c = map_chunk_at(v, ci);
		if (c && atomic_load(&c->shares) == 1)
			mem += sizeof(*c);
	}
	return mem;
}

int vol_hold_write(struct vol_hold *h, uint64_t hold_off, struct volume *dst, uint64_t dst_off, uint64_t len,
		   uint64_t *blocks_moved, uint64_t *done_bytes)
{
	uint64_t moved = 0, done = 0;
	int rc = 0;

	if (blocks_moved)
		*blocks_moved = 0;
	if (done_bytes)
		*done_bytes = 0;
	if (dst->bs != h->v->bs)
		return -EXDEV;
	if (hold_off > h->bytes || len > h->bytes - hold_off)
		return -ERANGE;
	uint32_t lba = dst->lba_size;
	if (hold_off % lba || len % lba || dst_off % lba)
		return -EINVAL;
	if (dst_off > volume_size(dst) || len > volume_size(dst) - dst_off)
		return -ERANGE;
	/* the first segment, and every segment boundary the write crosses on a
	 * whole block of dst (a hold of 512-byte ranges written to a 4096-byte
	 * LU), before anything changes */
	size_t s0 = 0;
	while (s0 + 1 < h->nseg && h->seg[s0 + 1].hold_off <= hold_off)
		s0++;
	for (size_t s = s0 + 1; s < h->nseg && h->seg[s].hold_off < hold_off + len; s++)
		if ((h->seg[s].hold_off - hold_off) % lba)
			return -EINVAL;

	/* Pieces end at segment boundaries, and where the data must be copied
	 * (dst at another offset within a block than the held bytes) at dst's
	 * map-chunk boundaries too: a full array stops the copy at the last
	 * whole piece (volume_copy sets a piece's space aside before it
	 * changes anything), which is the transfer count a partial WRITE USING
	 * TOKEN reports.  A piece that moves map entries needs space only for
	 * its two edge blocks, so it stays whole: one volume_copy per range,
	 * as fast as an EXTENDED COPY of it (per-chunk pieces cost 20 times
	 * that on 10 GiB). */
	uint64_t B = 1ull << dst->bshift, CH = (uint64_t)MAP_CHUNK_ENTRIES << dst->bshift;
	bs_mutation_begin(dst->bs);
	for (size_t s = s0; done < len && !rc; s++) {
		uint64_t at = hold_off + done - h->seg[s].hold_off; /* into segment s */
		while (at < h->seg[s].len && done < len && !rc) {
			uint64_t d = dst_off + done, n = h->seg[s].len - at;
			uint64_t m = 0;
			if (n > len - done)
				n = len - done;
			if (((h->seg[s].vol_off + at) ^ d) & (B - 1) && n > CH - d % CH)
				n = CH - d % CH;
			rc = volume_copy(dst, d, h->v, h->seg[s].vol_off + at, n, &m);
			if (!rc) {
				moved += m;
				done += n;
				at += n;
			}
		}
	}
	bs_mutation_end(dst->bs);
	if (blocks_moved)
		*blocks_moved = moved;
	if (done_bytes)
		*done_bytes = done;
	return rc;
}

void vol_hold_free(struct vol_hold *h)
{
	if (!h)
		return;
	struct array *a = h->a;
	volume_destroy(h->v); /* its references go, its rows with the next commit */
	free(h);
	array_put(a);
}
