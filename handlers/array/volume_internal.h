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

/* ---- per-volume thin map and range locks ---- */
#define MAP_LEAF_SHIFT 12u               /* 4096 ids (16 KiB) per leaf */
#define MAP_LEAF_ENTRIES (1u << MAP_LEAF_SHIFT)
#define LOCK_REGION_SHIFT 4u             /* 16 blocks per lock region */
#define NSTRIPES 256u
/* An operation needing more stripes of one volume takes the volume instead. */
#define MAX_STRIPES_HELD 16
/* READ/WRITE lock and work in chunks of 2^IO_CHUNK_SHIFT aligned blocks:
 * exactly MAX_STRIPES_HELD regions, so they never take a whole volume. */
#define IO_CHUNK_SHIFT (LOCK_REGION_SHIFT + 4u)

struct volume {
	struct block_store *bs;          /* the array's store: the only layer below */
	void *owner;                     /* the array; set and read by array_core.c only */
	uint32_t lba_size;
	uint32_t bshift;                 /* log2(dedup_block) */
	pthread_rwlock_t resize_lock;    /* data path: read; resize/destroy/huge ranges: write */
	uint64_t size;
	uint64_t nblocks;                /* ceil(size / dedup_block) */
	_Atomic(uint32_t *) *leaves;     /* nleaves pointers, each NULL until written */
	uint64_t nleaves;
	_Atomic uint64_t mapped;         /* non-zero map entries */
	_Atomic uint64_t meta_bytes;     /* leaves + leaf pointer table */
	pthread_rwlock_t stripes[NSTRIPES];
	struct volume *next;             /* the array's volume list (array_core.c) */
	/* named volumes: the array's (volume_names.c, snapshot.c), read and
	 * set under its vol_mu only; the volume layer never looks at them */
	char *name;                      /* NULL: anonymous, dies with its device */
	char *snapshot_of;               /* source's name if made by a snapshot, else NULL */
	bool attached;                   /* a device uses it now */
	bool readonly;                   /* a read-only snapshot: devices get readonly=1 */
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

/* map entries per persisted chunk (store_db.h STORE_CHUNK) */
#define VOL_PCHUNK_SHIFT 8u
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
/* VOL_PCHUNK entries of chunk idx into ids (zeros past the end) */
void map_chunk_get(const struct volume *v, uint64_t idx, uint32_t *ids);
/* Loading: chunk idx from the state (no reference is taken: the block
 * store's counts come with the blocks).  -ERANGE for a chunk past the end
 * holding ids, -ENOMEM. */
int map_load_chunk(struct volume *v, uint64_t idx, const uint32_t *ids);
/* Sets entry b to id (caller holds b's stripe lock); returns the old id. */
int map_set(struct volume *v, uint64_t b, uint32_t id, uint32_t *old);
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
