/* array_internal.h — the store's private structures, shared by its modules
 * (array.c registry+stats, block_store.c content index, block_compress.c
 * accounting, space.c physical space, volume_map.c thin maps, range_lock.c,
 * volume_io.c, volume_copy.c, volume_names.c named volumes, snapshot.c).
 * Nothing outside handlers/array/ includes this. */
#ifndef LUNLAB_ARRAY_INTERNAL_H
#define LUNLAB_ARRAY_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "handlers/array/volume.h"
#include "handlers/array/array_admin.h"
#include "handlers/array/space.h"

/* ---- block records: id -> {data, refcount, compressed size} ----
 * Ids are 32-bit (0 = "unmapped / zeros") so a map entry costs 4 bytes.
 * Records live in a three-level paged table so an almost empty array costs
 * a few KiB and record addresses never move (no lock to read one). */
#define BLK_LEAF_SHIFT 10u                 /* 1024 records (16 KiB) per leaf page */
#define BLK_MID_SHIFT 9u                   /* 512 leaf pointers per mid page */
#define BLK_TOP_ENTRIES 512u
#define BLK_MAX_IDS (BLK_TOP_ENTRIES << (BLK_MID_SHIFT + BLK_LEAF_SHIFT)) /* 2^28 */

struct blk {
	void *data;               /* dedup_block bytes, uncompressed; NULL while free */
	_Atomic uint32_t ref;     /* map entries pointing here; next free id while free */
	uint16_t csize;           /* exact compressed size (accounting) */
	uint8_t shard;            /* index shard (hash-derived), for per-shard counters */
	uint8_t pad;
};                                /* 16 bytes */

/* ---- content index: N shards by hash, each its own mutex ----
 * Open addressing, linear probing; parallel arrays keep a slot at 12 bytes.
 * Only a 64-bit hash fragment is kept: every match is verified by memcmp, so
 * equal fragments of different data are simply two entries. */
#define NSHARDS 64u
/* Refcount ceiling: beyond it the same content is stored as another block
 * (needs > 64 TiB of one x2 block mapped; kept so a count can never wrap). */
#define BLK_REF_MAX 0xFFFFFF00u

struct shard {
	pthread_mutex_t mu;
	uint64_t *hash;           /* fragment per slot */
	uint32_t *id;             /* block id per slot, 0 = empty */
	uint32_t cap;             /* power of two */
	uint32_t count;
	uint32_t free_head;       /* freed ids, chained through blk.ref */
	uint32_t fresh_next, fresh_end; /* ids reserved from the array's counter */
	/* accounting owned by this shard (under mu) */
	uint64_t unique_blocks, physical_bytes, compressed_bytes;
	_Atomic int64_t single_ref;     /* lock-free refcount transitions touch it */
	char pad[64];
};

typedef _Atomic(struct blk *) blk_leaf_ptr;

typedef uint64_t (*fingerprint_fn)(const void *data, size_t len);

struct array {
	char *name;
	struct array_params p;
	int users;                       /* registry refcount, under registry lock */
	struct array *next;              /* registry list */

	fingerprint_fn fp;
	struct shard shards[NSHARDS];

	_Atomic(blk_leaf_ptr *) blk_top[BLK_TOP_ENTRIES]; /* -> mid pages, installed by CAS */
	_Atomic uint32_t next_id;        /* fresh ids handed to shards in batches */
	_Atomic uint64_t meta_bytes;     /* record pages + index tables */

	pthread_mutex_t vol_mu;          /* volume list (create/destroy/stats), names, attached */
	struct volume *vols;

	struct space space;              /* physical capacity and use (space.c) */
	char profile[32];                /* profile of the LU that created it ("" if none said) */
};

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
	struct array *a;
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
	struct volume *next;             /* array's volume list */
	/* named volumes (volume_names.c), under the array's vol_mu: */
	char *name;                      /* NULL: anonymous, dies with its device */
	char *snapshot_of;               /* source's name if made by a snapshot, else NULL */
	bool attached;                   /* a device uses it now */
	bool readonly;                   /* a read-only snapshot: devices get readonly=1 */
};

/* block_store.c */
int bs_init(struct array *a);
void bs_fini(struct array *a);
/* Take a reference to the block holding data (dedup_block bytes, not all
 * zero), storing it if new.  *id receives the block id.  A new block takes
 * its space from r when r is given (space.h), else is checked against the
 * capacity itself: -ENOSPC when the array is full. */
int bs_ref_content_r(struct array *a, const void *data, uint32_t *id, struct space_resv *r);
int bs_ref_content(struct array *a, const void *data, uint32_t *id);
/* Add n references to id (the caller holds one, so it cannot be freed);
 * -EOVERFLOW if that would pass BLK_REF_MAX. */
int bs_incref(struct array *a, uint32_t id, uint32_t n);
/* One more reference to id's content: id itself, or, if id's refcount is
 * saturated, a duplicate block of the same content (*out). */
int bs_ref_more(struct array *a, uint32_t id, uint32_t *out);
void bs_unref(struct array *a, uint32_t id);
struct blk *bs_rec(const struct array *a, uint32_t id);
static inline const void *bs_data(const struct array *a, uint32_t id) { return bs_rec(a, id)->data; }
uint64_t bs_default_fingerprint(const void *data, size_t len);
/* Test hook: the number of index entries sharing h (fragment collisions). */
uint64_t bs_count_fragment(struct array *a, uint64_t h);

/* block_compress.c: exact compressed size under the accounting rules. */
uint32_t compressed_size(const struct array_params *p, const void *data);
uint32_t physical_size(const struct array_params *p, uint32_t csize);

/* volume_map.c */
uint32_t map_get(const struct volume *v, uint64_t b);
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

/* volume_io.c: internals used by volume_copy.c (caller holds the range locks).
 * vio_write_locked's new blocks take their space from r (NULL: checked each). */
int vio_read_locked(struct volume *v, uint64_t off, uint64_t len, const struct iovec *iov, size_t iovcnt);
int vio_write_locked(struct volume *v, uint64_t off, uint64_t len, const struct iovec *iov, size_t iovcnt,
		     struct space_resv *r);
/* Dedup blocks [off, off+len) touches (0 for len 0). */
uint64_t vio_blocks_touched(const struct volume *v, uint64_t off, uint64_t len);
/* A volume not yet on the array's list (volume_create = alloc + link). */
struct volume *vio_alloc(struct array *a, uint64_t size_bytes, uint32_t lba_size);
void vio_link(struct volume *v);          /* caller holds a->vol_mu */

/* volume_names.c: the named volume called name, or NULL (caller holds a->vol_mu). */
struct volume *vn_find(struct array *a, const char *name);
/* Point block b at id (a reference the caller owns, or 0); *delta counts
 * the change in mapped entries, applied later by vio_commit_delta. */
int vio_set_block(struct volume *v, uint64_t b, uint32_t id, int64_t *delta);
void vio_commit_delta(struct volume *v, int64_t delta);
int vio_check_range(const struct volume *v, uint64_t off, uint64_t len);
int is_zero(const void *p, size_t n);

#endif
