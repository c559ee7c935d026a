/* volume_internal.h — the volume layer's private structures, shared by its
 * modules (volume_map.c thin maps, range_lock.c, volume_io.c data path and
 * lifecycle, volume_early.c and range_store.c below it, volume_copy.c).  A volume maps its blocks onto the ids of one
 * block store and calls nothing but that store (block_store.h); the array
 * (array_core.c) creates volumes, keeps their list and sums their figures.
 * Nothing outside handlers/array/ includes this. */
#ifndef LUNLAB_ARRAY_VOLUME_INTERNAL_H
#define LUNLAB_ARRAY_VOLUME_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "handlers/array/block_store.h"
#include "handlers/array/volume.h"

/* ---- per-volume thin map and range locks ----
 * A volume's map is a table of leaves, each MAP_LEAF_CHUNKS pointers to map
 * chunks of MAP_CHUNK_ENTRIES block ids (volume_map.c).  A chunk may be
 * shared by several map slots (EXTENDED COPY and snapshots point a slot at
 * the source's chunk instead of copying its entries); a shared chunk is
 * never changed, a writer copies it first (copy-on-write). */
#define MAP_CHUNK_SHIFT 8u               /* 256 ids per chunk: 4 MiB at x2 */
#define MAP_CHUNK_ENTRIES (1u << MAP_CHUNK_SHIFT)
#define MAP_LEAF_SHIFT 12u               /* 4096 ids (16 chunks) per leaf */
#define MAP_LEAF_ENTRIES (1u << MAP_LEAF_SHIFT)
#define MAP_LEAF_CHUNKS (MAP_LEAF_ENTRIES / MAP_CHUNK_ENTRIES)
/* A lock region is one map chunk: whoever changes a chunk's slot or entries
 * (copy-on-write replaces the whole chunk) holds its stripe, so no reader
 * of the same volume is inside the chunk meanwhile. */
#define LOCK_REGION_SHIFT MAP_CHUNK_SHIFT
#define NSTRIPES 256u
/* An operation needing more stripes of one volume takes the volume instead. */
#define MAX_STRIPES_HELD 16
/* READ/WRITE lock and work in pieces of 2^IO_CHUNK_SHIFT aligned blocks:
 * one region, so a large transfer holds one stripe at a time. */
#define IO_CHUNK_SHIFT LOCK_REGION_SHIFT

/* A map chunk: ids of MAP_CHUNK_ENTRIES consecutive blocks.  shares counts
 * the map slots pointing at it.  Block references count chunk holdings: a
 * chunk holds one reference per non-zero entry, and while it is shared
 * (shares >= 2) one more, so a block's count is 1 exactly when one map
 * entry of one volume refers to it (single_ref_blocks stays exact). */
struct map_chunk {
	_Atomic uint32_t shares;
	/* persistence (array_state.c, under the freeze): the chunk's row in
	 * meta.db's shared table (0: none; recorded inline in its one slot's
	 * row), whether its entries changed since that row was written, and
	 * the graveyard's link once it is freed with a row to delete */
	bool pchanged;
	/* recorded in the shared table even with one holder: it was published
	 * (below), so a later share through the index does not mark its slot */
	bool precord;
	uint16_t pmapped;            /* while loading: its map entries, counted once */
	uint64_t pcid;
	struct map_chunk *pnext;
	/* published in the store's index by content (map_dedup_chunk): its
	 * hash and the bucket's chain, under bs->map_index_mu */
	_Atomic bool indexed;
	uint64_t ihash;
	struct map_chunk *inext;
	uint32_t ids[MAP_CHUNK_ENTRIES];
};
typedef _Atomic(struct map_chunk *) map_slot;

struct volume {
	struct block_store *bs;          /* the array's store: the only layer below */
	void *owner;                     /* the array; set and read by array_core.c only */
	uint32_t lba_size;
	uint32_t bshift;                 /* log2(dedup_block) */
	pthread_rwlock_t resize_lock;    /* data path: read; resize/destroy/huge ranges: write */
	uint64_t size;
	uint64_t nblocks;                /* ceil(size / dedup_block) */
	_Atomic(map_slot *) *leaves;     /* nleaves pointers to MAP_LEAF_CHUNKS slots, NULL until written */
	uint64_t nleaves;
	_Atomic uint64_t mapped;         /* non-zero map entries */
	_Atomic uint64_t meta_bytes;     /* leaves + leaf pointer table (chunks: bs->map_chunk_bytes) */
	pthread_rwlock_t stripes[NSTRIPES];
	struct volume *next;             /* the array's volume list (array_core.c) */
	struct volume **pprev;           /* the link that points at this one (NULL: not linked), so
					  * a volume leaves in O(1): 10,000 volumes stopped in 27 s
					  * when each leave walked the list */
	/* persistence marks a commit's cut reads for every volume, beside the
	 * list's link so a cut's walk of the list touches one line per volume
	 * for them (see the persistence fields below) */
	/* its record (array_state.c vol_rec: key, size, block size, flags,
	 * snapshot_of) may differ from pcommitted: set by every change of a
	 * field the record holds (vol_record_mark), cleared by the cut that
	 * records it, so a commit formats the changed volumes' records only */
	_Atomic bool precmark;
	/* a bit of pdirty was set since the last collect (set after the bit):
	 * a cut skips the bitmap of a volume nothing wrote, so a commit does
	 * not read every volume's bitmap (a 1 TiB volume's is 1,024 words) */
	_Atomic bool pany;
	/* named volumes: the array's (volume_names.c, snapshot.c), read and
	 * set under its vol_mu only; the volume layer never looks at them */
	char *name;                      /* NULL: anonymous, dies with its device */
	char *snapshot_of;               /* source's name if made by a snapshot, else NULL */
	bool attached;                   /* a device uses it now */
	bool readonly;                   /* a read-only snapshot: devices get readonly=1 */
	/* an ODX hold's volume (vol_hold.c): on the array's list so a state
	 * directory records its references consistently, but no device, name
	 * or figure of logical space sees it, and a state's loader drops it */
	bool hidden;
	/* persistence (--state-dir; array_state.c): a bit per VOL_PCHUNK map
	 * entries changed since the last commit's cut (NULL: not persistent),
	 * and the volume's id in the state; the rest is the array's, under its
	 * vol_mu: the key of a LU's own volume ("lu:SERIAL"; NULL for named and
	 * anonymous ones), the saved mode page flags, and the record meta.db
	 * holds (NULL: none yet) */
	_Atomic uint64_t *pdirty;
	uint64_t pdirty_words;
	uint64_t pvid;
	char *pkey;
	uint32_t pflags;
	struct store_vol_rec *pcommitted;
};

/* map entries per persisted chunk (store_db.h STORE_CHUNK): one map chunk */
#define VOL_PCHUNK_SHIFT MAP_CHUNK_SHIFT
#define VOL_PCHUNK (1u << VOL_PCHUNK_SHIFT)

/* volume_io.c: lifecycle.  vol_init: size in bytes, a multiple of
 * lba_size (512 or 4096); -EINVAL / -ENOMEM.  vol_fini drops every map
 * entry (and so the blocks' references). */
int vol_init(struct volume *v, struct block_store *bs, uint64_t size_bytes, uint32_t lba_size);
void vol_fini(struct volume *v);

/* volume_map.c */
uint32_t map_get(const struct volume *v, uint64_t b);
/* persistence: track changed chunks from now on (-ENOMEM) */
int map_persist_enable(struct volume *v);
/* Under the block store's freeze: each chunk changed since the last cut,
 * its marks cleared; fn returns 0 to go on (else the chunk stays marked and
 * the walk stops with that value).  A chunk past the end of a shrunk
 * volume is not visited. */
int map_persist_collect(struct volume *v, int (*fn)(void *ctx, uint64_t idx), void *ctx);
void map_persist_remark(struct volume *v, uint64_t idx);
/* v's record changed (a new volume, a resize, its flags; a failed commit's
 * records): its precmark and the store's recs_marked are set.  Call it
 * where the change is made, inside the gate or under the array's vol_mu,
 * so a cut sees the change and its mark together. */
void vol_record_mark(struct volume *v);
/* VOL_PCHUNK entries of chunk idx into ids (zeros past the end) */
void map_chunk_get(const struct volume *v, uint64_t idx, uint32_t *ids);
/* Loading: chunk idx from the state (no reference is taken: the block
 * store's counts come with the blocks).  -ERANGE for a chunk past the end
 * holding ids, -ENOMEM. */
int map_load_chunk(struct volume *v, uint64_t idx, const uint32_t *ids);
/* Sets entry b to id (caller holds b's stripe lock); returns the old id.
 * A shared chunk is copied first (its copy takes its own references). */
int map_set(struct volume *v, uint64_t b, uint32_t id, uint32_t *old);
/* Point chunk slot dc of dst at src's chunk sc (caller holds both chunks'
 * stripes for writing, or the volumes); dst's previous chunk is let go.
 * *delta gets the change in dst's mapped entries (apply with
 * vio_commit_delta).  -EOVERFLOW/-ENOMEM: nothing changed. */
int map_share_chunk(struct volume *dst, uint64_t dc, struct volume *src, uint64_t sc, int64_t *delta);
/* A copy whose source and destination offsets differ within a chunk has
 * filled chunk slot c of v (the caller holds its stripe or the volume): an
 * equal chunk published before (another clone at the same offset) takes the
 * slot's place, shared; else this one is published.  Mapped entries do not
 * change.  Nothing happens on a failure (out of memory, a saturated count):
 * the slot's own chunk is as right. */
void map_dedup_chunk(struct volume *v, uint64_t c);
/* Let go of chunk slot c (whole chunk unmapped; caller holds its stripe or
 * the volume); *delta as above. */
void map_drop_chunk(struct volume *v, uint64_t c, int64_t *delta);
/* Chunk slot c of v, NULL when never written (caller holds its stripe or
 * the volume, so it is not replaced meanwhile). */
struct map_chunk *map_chunk_at(const struct volume *v, uint64_t c);

/* Persistence of shared chunks (array_state.c).  A chunk with one holder
 * and no shared row is recorded inline in its slot's row, as before; any
 * other in the shared table, the slots naming its cid.  The first share of
 * a chunk marks the source's slot changed too, so that at every commit
 * each chunk held twice or more is named by all its holders' rows, and the
 * loader's count of references (one per entry per chunk, one more per
 * entry of a chunk with two or more holders) is the store's.
 *
 * Under the freeze: how chunk idx of v is recorded.  0: inline, ids filled;
 * 1: a reference to *cid (a new cid taken from *next_cid if the chunk has
 * none), and *content says whether its ids (filled) must be written to the
 * shared table (changed since, or `all`). */
int map_persist_chunk(struct volume *v, uint64_t idx, uint32_t *ids, uint64_t *cid, bool *content,
		      uint64_t *next_cid, bool all);
/* Under the freeze, after map_persist_chunk met every marked slot: the
 * slots first .. first+n-1 of v that name a shared chunk (a chunk with a
 * cid), in order, as cid[i] for slot first+off[i]; returns how many (at
 * most n).  Slots past the volume's end are not looked at. */
unsigned map_persist_refs(const struct volume *v, uint64_t first, unsigned n, uint16_t *off, uint64_t *cid);
/* Under the freeze: the cids of shared chunks freed since the last call, to
 * fn (their rows go); the chunks' memory is released. */
int map_persist_gone(struct block_store *bs, int (*fn)(void *ctx, uint64_t cid), void *ctx);
/* Loading: a shared chunk (no references taken; no holder yet). */
struct map_chunk *map_load_shared(struct block_store *bs, uint64_t cid, const uint32_t *ids);
/* Loading: slot idx of v holds c (-ERANGE past the end, -EEXIST taken). */
int map_load_ref(struct volume *v, uint64_t idx, struct map_chunk *c);
/* Loading: c has all its holders (none: freed, returns false); what the
 * store's excess counter needs is added. */
bool map_load_shared_done(struct block_store *bs, struct map_chunk *c);
/* map entries of c */
uint32_t map_chunk_mapped(const struct map_chunk *c);
int map_resize(struct volume *v, uint64_t new_nblocks);
void map_free(struct volume *v);

/* range_lock.c: the locks an operation needs in one or two volumes (resize
 * locks, then stripes), taken in one global order.  lockset_lock includes the
 * volumes' resize locks: callers must not hold them. */
struct lockset {
	struct volume *v[2];
	uint64_t bits[2][NSTRIPES / 64];
	int excl[2];              /* volume taken exclusively instead of by stripes */
	int nv;
	int write;
};
void lockset_add(struct lockset *ls, struct volume *v, uint64_t b0, uint64_t nb);
void lockset_lock(struct lockset *ls, int write);
void lockset_unlock(struct lockset *ls);

/* volume_io.c: hold every command of v (and wait for those in flight) until
 * vol_unhold: a snapshot copies its map meanwhile.  Take several volumes'
 * holds in address order (the lock order of range_lock.c). */
void vol_hold(struct volume *v);
void vol_unhold(struct volume *v);

/* volume_map.c: map entries of v whose block nothing else references (the
 * volume's "unique" space in XMS's sense); reads every entry. */
uint64_t vol_single_ref_entries(struct volume *v);

/* volume_copy.c: a snapshot's map (see there). */
int vol_copy_map(struct volume *dst, struct volume *src, uint64_t *entries);
/* volume_copy.c: an ODX hold's fill (vol_hold.c).  Piece i covers bytes
 * [src_off, src_off+len) of src (whole logical blocks, inside src: else
 * -EINVAL / -ERANGE, nothing changed); the whole dedup blocks around it are
 * copied as map entries to dst from block dst_block on, which must sit at
 * the same offset within a map chunk as src's first block (so whole chunks
 * are shared: a hold costs a pointer per 4 MiB).  No data is copied, no
 * block is made.  All pieces under one set of src's range locks (one point
 * in time); dst is the caller's alone.  *entries: map entries dst gained. */
struct vol_piece { uint64_t src_off, len, dst_block; };
int vol_copy_pieces(struct volume *dst, struct volume *src, const struct vol_piece *p, size_t n,
		    uint64_t *entries);
/* volume_copy.c: a refresh (dst's map replaced by src's; see there). */
int vol_replace_map(struct volume *dst, struct volume *src, uint64_t *entries);

/* volume_io.c: internals used by volume_copy.c (caller holds the range locks).
 * vio_write_locked's new blocks take their space from r (NULL: checked each). */
int vio_read_locked(struct volume *v, uint64_t off, uint64_t len, const struct iovec *iov, size_t iovcnt);
int vio_write_locked(struct volume *v, uint64_t off, uint64_t len, const struct iovec *iov, size_t iovcnt,
		     struct bs_resv *r);
/* Dedup blocks [off, off+len) touches (0 for len 0). */
uint64_t vio_blocks_touched(const struct volume *v, uint64_t off, uint64_t len);
/* Point block b at id (a reference the caller owns, or 0); *delta counts
 * the change in mapped entries, applied later by vio_commit_delta. */
int vio_set_block(struct volume *v, uint64_t b, uint32_t id, int64_t *delta);
void vio_commit_delta(struct volume *v, int64_t delta);

/* The data path's range check, for every module of the volume layer: off and
 * len whole logical blocks (-EINVAL), [off, off+len) inside the volume
 * (-ERANGE). */
static inline int vio_check_range(const struct volume *v, uint64_t off, uint64_t len)
{
	if (off % v->lba_size || len % v->lba_size)
		return -EINVAL;
	if (off > v->size || len > v->size - off)
		return -ERANGE;
	return 0;
}

/* The largest dedup block (array_core.c refuses larger): a block's bounce
 * buffer on the stack. */
#define MAX_BLOCK 32768u

/* range_store.c: is n bytes at p all zero? */
int is_zero(const void *p, size_t n);
/* range_store.c: store whole blocks [from, to) of a write at byte off of a
 * volume whose blocks are 1 << bshift bytes (ids[i] for block first_full +
 * i; iov holds the write's data from off on); on failure releases the ones
 * it stored and returns the error. */
int vio_store_range(struct block_store *bs, unsigned bshift, uint64_t off, const struct iovec *iov,
		    size_t iovcnt, uint32_t *ids, uint64_t first_full, uint64_t from, uint64_t to);
/* volume_early.c, for volume_io.c: the write at [off, off+len) of a volume on bs takes what e stored early:
 * returns how many of its nfull whole blocks, from the first, e holds
 * references for, and hands e's id array (nfull entries) to the caller in
 * *ids, who then owns both; 0 and *ids untouched when e was for another
 * write or stored nothing usable (e then keeps and later drops its own). */
uint64_t vio_early_take(struct vio_early *e, struct block_store *bs, uint64_t off, uint64_t len, uint64_t nfull,
			uint32_t **ids);

#endif
