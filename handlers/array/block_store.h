/* block_store.h — the content-addressed block store of one array: the layer
 * between the volumes and the payloads.
 *
 *   volumes (volume_*.c) -> block store (block_store.c) -> payloads (payload_*.c)
 *
 * A block is dedup_block bytes of non-zero content, stored once per array
 * and addressed by a 32-bit id (0 = zeros / unmapped) that volumes keep in
 * their maps.  The store counts references and keeps the capacity figures of
 * docs/accounting.md.  It never compresses: a new block enters the
 * accounting backlog, and a consumer above the store (block_account.c, or
 * anyone calling bs_acct_take/bs_acct_done) computes its compressed size off
 * the write path.  Until then the block counts dedup_block bytes of physical
 * space (its worst case, rule 5), so "used" space is an upper bound at every
 * instant and exact once the backlog is drained.
 *
 * Thread safety: every function may run concurrently.  The index is split in
 * BS_NSHARDS shards by fingerprint, each with its own mutex; refcounts are
 * atomics and only a possible 1 -> 0 transition takes the shard lock, so a
 * concurrent lookup can never revive a block being freed. */
#ifndef LUNLAB_ARRAY_BLOCK_STORE_H
#define LUNLAB_ARRAY_BLOCK_STORE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct payload_store;
struct map_chunk;

/* ---- block records: id -> {data, refcount, compressed size} ----
 * Records live in a three-level paged table so an almost empty store costs a
 * few KiB and a record never moves (reading one takes no lock). */
#define BLK_LEAF_SHIFT 10u                 /* 1024 records (16 KiB) per leaf page */
#define BLK_MID_SHIFT 9u                   /* 512 leaf pointers per mid page */
#define BLK_TOP_ENTRIES 512u
#define BLK_MAX_IDS (BLK_TOP_ENTRIES << (BLK_MID_SHIFT + BLK_LEAF_SHIFT)) /* 2^28 */

/* Accounting state of a record (blk.acct), changed under its shard lock. */
enum blk_acct {
	BLK_FREE = 0,      /* no block (id on the free list, or never used) */
	BLK_PENDING,       /* stored; compressed size not known yet (in the backlog) */
	BLK_WORKING,       /* an accountant is compressing it, outside any lock */
	BLK_ORPHAN,        /* freed while WORKING: the accountant releases it */
	BLK_ACCOUNTED,     /* csize is exact and counted in the figures */
};

struct blk {
	void *data;               /* dedup_block bytes (payload); NULL while free */
	uint64_t fp;              /* its fingerprint: freeing finds its index slot without hashing again */
	_Atomic uint32_t ref;     /* map entries pointing here; next free id while free */
	uint16_t csize;           /* exact compressed size once BLK_ACCOUNTED */
	uint8_t shard;            /* index shard (hash-derived), for per-shard counters */
	uint8_t acct;             /* enum blk_acct */
};                                /* 24 bytes */

#define BS_NSHARDS 64u
/* Refcount ceiling: beyond it the same content is stored as another block
 * (needs > 64 TiB of one x2 block mapped; kept so a count can never wrap). */
#define BLK_REF_MAX 0xFFFFFF00u

struct bs_shard {
	pthread_mutex_t mu;
	/* index: open addressing, linear probing; only a 64-bit fingerprint
	 * fragment is kept, every match is verified by memcmp */
	uint64_t *hash;
	uint32_t *id;             /* block id per slot, 0 = empty */
	uint32_t cap;             /* power of two */
	uint32_t count;
	uint32_t free_head;       /* freed ids, chained through blk.ref */
	uint32_t fresh_next, fresh_end; /* ids reserved from the store's counter */
	/* accounting backlog: ids of new blocks, taken from the end; an entry
	 * whose block is no longer PENDING is stale and skipped */
	uint32_t *backlog;
	uint32_t backlog_len, backlog_cap;
	/* figures of the blocks of this shard (under mu) */
	uint64_t unique_blocks, pending_blocks, physical_bytes, compressed_bytes;
	_Atomic int64_t single_ref;     /* lock-free refcount transitions touch it */
	/* persistence (bs_persist_*): ids freed since the last commit began
	 * (limbo) and those freed before it, whose commit is under way
	 * (sealed); chained through blk.ref like the free list.  Neither may
	 * be handed out again before a commit that records the free is
	 * durable: their slots hold what the state on disk still references. */
	uint32_t limbo_head, sealed_head;
	char pad[64];
};

typedef _Atomic(struct blk *) blk_leaf_ptr;
typedef uint64_t (*bs_fingerprint_fn)(const void *data, size_t len);

/* Persistence side of one leaf of records (only with bs_persist_enable):
 * a bit per id that changed since the last commit (a row's fingerprint is
 * the record's). */
struct bs_pleaf {
	_Atomic uint64_t dirty[(1u << BLK_LEAF_SHIFT) / 64];
};
typedef _Atomic(struct bs_pleaf *) bs_pleaf_ptr;

/* Space one command sets aside for the blocks it may create after it has
 * begun to change map entries (the read-modify-write of partial blocks), so
 * that a full array refuses it before any change (bs_reserve).  unchecked:
 * its blocks are never refused (deallocation, which frees more than it
 * makes).  Starts zeroed; bs_release gives back what was not used. */
struct bs_resv {
	uint64_t left;
	bool unchecked;
};

/* The points where a block's claim on physical space changes, for the
 * array's capacity (thin provisioning, out of space).  Each is called with
 * the block's shard lock held (reserve/release with none): keep them to a
 * few atomics, never call the store from them.  Space a block claims:
 * dedup_block bytes from block_new until it is accounted, its physical size
 * (rule 5) afterwards. */
struct bs_space_hooks {
	void *ctx;
	/* A new unique block (id) is about to be stored and will claim `bytes`
	 * (= dedup_block), taken from r when the writer reserved it (r may be
	 * NULL).  A negative errno refuses it: nothing is stored and the write
	 * that needed it fails with that error (-ENOSPC: 07/27/07). */
	int (*block_new)(void *ctx, uint32_t id, uint32_t bytes, struct bs_resv *r);
	/* The compressed size of block id is known: its claim goes from `was`
	 * (dedup_block) to `now` (its physical size). */
	void (*block_sized)(void *ctx, uint32_t id, uint32_t was, uint32_t now);
	/* Block id was freed; it claimed `bytes` (dedup_block if it was still
	 * pending, else its physical size). */
	void (*block_freed)(void *ctx, uint32_t id, uint32_t bytes);
	/* Set `bytes` aside for a command (-ENOSPC when they are not there);
	 * give back what it did not use. */
	int (*reserve)(void *ctx, uint64_t bytes);
	void (*release)(void *ctx, uint64_t bytes);
};

struct block_store {
	uint32_t block;                  /* dedup_block, bytes */
	unsigned bshift;                 /* log2(block) */
	uint32_t alloc_unit;             /* physical allocation unit (rule 5) */
	bs_fingerprint_fn fp;
	struct payload_store *payloads;
	struct bs_shard shards[BS_NSHARDS];
	_Atomic(blk_leaf_ptr *) top[BLK_TOP_ENTRIES]; /* -> mid pages, installed by CAS */
	_Atomic uint32_t next_id;        /* fresh ids handed to shards in batches */
	_Atomic uint64_t meta_bytes;     /* record pages + index tables + backlogs */
	/* memory of the volumes' map chunks, kept here (not per volume) because
	 * a chunk may be shared by several volumes and outlive the one that
	 * made it; the store itself never touches it (volume_map.c does) */
	_Atomic uint64_t map_chunk_bytes;
	/* also the volumes': map entries beyond the store's references (a
	 * chunk held by s >= 3 slots counts its entries s - 2 times: references
	 * = map entries - this), and the persistent store's freed shared
	 * chunks whose rows the next commit deletes */
	_Atomic uint64_t map_excess;
	_Atomic(struct map_chunk *) map_graveyard;
	/* also the volumes': map chunks published by content (volume_map.c
	 * map_dedup_chunk: a copy whose offsets differ within a chunk makes
	 * chunks equal to another clone's), a chained hash table under
	 * map_index_mu; the store only makes the lock and frees the table */
	pthread_mutex_t map_index_mu;
	struct map_chunk **map_index;
	uint64_t map_index_cap, map_index_n;
	_Atomic uint64_t map_index_bytes;
	_Atomic uint64_t backlog;        /* blocks PENDING or WORKING, all shards */
	_Atomic uint64_t arrivals;       /* blocks that ever entered the backlog */
	_Atomic unsigned take_cursor;    /* shard where the next bs_acct_take looks first */
	/* backlog notification: on_backlog(ctx) runs when a block enters the
	 * backlog while `kicked` is clear (the consumer clears it before it
	 * looks for work), so a busy write path pays one atomic per block */
	void (*on_backlog)(void *ctx);
	void *on_backlog_ctx;
	_Atomic int kicked;
	struct bs_space_hooks space;     /* all NULL: no capacity accounting */
	pthread_mutex_t drain_mu;        /* bs_wait_drained sleeps here */
	pthread_cond_t drained;
	/* persistence (--state-dir): off unless bs_persist_enable ran before
	 * the first write; see "persistence" below */
	bool persistent;                 /* marks, fingerprints and the limbo are kept */
	bool gated;                      /* mutations take the gate (stays set once enabled) */
	pthread_rwlock_t gate;           /* mutations: shared; a commit's cut: exclusive */
	bs_pleaf_ptr *ptop;              /* BLK_MAX_IDS >> BLK_LEAF_SHIFT leaf pointers */
	_Atomic uint64_t dirty_count;    /* ids marked since the last cut (an estimate) */
	/* a volume's record was marked since the last cut (volume_internal.h
	 * precmark): the committer's test for "nothing changed" */
	_Atomic bool recs_marked;
};

/* Aggregated figures (docs/accounting.md), bytes unless named otherwise. */
struct bs_figures {
	uint64_t unique_blocks;
	uint64_t pending_blocks;     /* unique blocks whose csize is not known yet */
	uint64_t physical_bytes;     /* accounted blocks only */
	uint64_t compressed_bytes;   /* accounted blocks only */
	uint64_t single_ref_blocks;
	uint64_t used_bytes;         /* physical_bytes + pending_blocks x dedup_block */
	uint64_t meta_bytes;
};

/* block is a power of two (512..32768), alloc_unit in 1..block.  NULL when
 * out of memory. */
struct block_store *bs_create(uint32_t block, uint32_t alloc_unit);
/* calloc and realloc for the store's metadata that grows on the write path
 * (dedup tables, block records, backlogs, volume maps): bracketed so that
 * the payload filler does not hold up the mprotect or mmap they may make
 * (payload_mapping_begin in payload.h) */
void *bs_meta_calloc(size_t n, size_t size);
void *bs_meta_realloc(void *p, size_t size);
void bs_meta_free(void *p); /* a large block's free is a munmap */
/* Frees every block still stored; nothing may use the store any more
 * (an accountant must have let go of it). */
void bs_destroy(struct block_store *bs);
void bs_set_fingerprint(struct block_store *bs, bs_fingerprint_fn fn);
/* Install before the first write. */
void bs_set_space_hooks(struct block_store *bs, const struct bs_space_hooks *h);
void bs_set_backlog_notify(struct block_store *bs, void (*fn)(void *ctx), void *ctx);

/* Take a reference to the block holding data (block bytes, not all zero),
 * storing it if new.  *id receives the block id.  A new block's space comes
 * from r (bs_ref_content_r) or is checked on its own (-ENOSPC: full). */
int bs_ref_content(struct block_store *bs, const void *data, uint32_t *id);
int bs_ref_content_r(struct block_store *bs, const void *data, uint32_t *id, struct bs_resv *r);
/* Set bytes aside in r for the blocks a command may create (space hooks;
 * 0 when the store has none); -ENOSPC when the array has not that much. */
int bs_reserve(struct block_store *bs, struct bs_resv *r, uint64_t bytes);
void bs_release(struct block_store *bs, struct bs_resv *r);
/* Add n references to id (the caller holds one, so it cannot be freed);
 * -EOVERFLOW if that would pass BLK_REF_MAX. */
int bs_incref(struct block_store *bs, uint32_t id, uint32_t n);
/* One more reference to id's content: id itself, or, if id's refcount is
 * saturated, a duplicate block of the same content (*out). */
int bs_ref_more(struct block_store *bs, uint32_t id, uint32_t *out);
void bs_unref(struct block_store *bs, uint32_t id);

static inline struct blk *bs_rec(const struct block_store *bs, uint32_t id)
{
	blk_leaf_ptr *mid = atomic_load_explicit(&((struct block_store *)bs)->top[id >> (BLK_MID_SHIFT + BLK_LEAF_SHIFT)],
						 memory_order_acquire);
	struct blk *leaf = atomic_load_explicit(&mid[(id >> BLK_LEAF_SHIFT) & ((1u << BLK_MID_SHIFT) - 1)],
						memory_order_acquire);
	return &leaf[id & ((1u << BLK_LEAF_SHIFT) - 1)];
}

/* The block's bytes; valid while the caller holds a reference (a map entry
 * under its stripe lock). */
static inline const void *bs_data(const struct block_store *bs, uint32_t id) { return bs_rec(bs, id)->data; }

void bs_figures(struct block_store *bs, struct bs_figures *out);

/* ---- the accounting backlog, for its consumer ---- */
struct bs_acct_job {
	uint32_t id;
	const void *data;         /* readable until bs_acct_done */
	uint32_t csize;           /* filled in by the consumer */
};
/* Take up to max PENDING blocks of one shard (they become WORKING: their
 * data stays readable even if they are freed meanwhile); returns how many. */
size_t bs_acct_take(struct block_store *bs, struct bs_acct_job *jobs, size_t max);
/* Record the compressed sizes of jobs taken by one bs_acct_take. */
void bs_acct_done(struct block_store *bs, const struct bs_acct_job *jobs, size_t n);
/* Clear the notification flag before looking for work (see on_backlog). */
void bs_acct_rearm(struct block_store *bs);
static inline uint64_t bs_backlog(const struct block_store *bs)
{
	return atomic_load_explicit(&((struct block_store *)bs)->backlog, memory_order_acquire);
}
/* How many new blocks ever entered the backlog: a consumer sees from it
 * whether writes of new data are arriving (block_account.c yields to them). */
static inline uint64_t bs_arrivals(const struct block_store *bs)
{
	return atomic_load_explicit(&((struct block_store *)bs)->arrivals, memory_order_relaxed);
}
/* Sleep until the backlog is empty or timeout_ms passed; returns the backlog. */
uint64_t bs_wait_drained(struct block_store *bs, unsigned timeout_ms);

/* ---- persistence (--state-dir; the array's commit, array_state.c) ----
 * A persistent store tracks which ids changed (created, referenced,
 * unreferenced, accounted, freed) since the last commit's cut, keeps each
 * block's fingerprint, holds freed ids back until their free is durable, and
 * lets a committer take a cut at command granularity: every mutation of the
 * volumes runs between bs_mutation_begin/end (shared), the cut takes the
 * gate exclusively, so a cut never splits a command (a WRITE, UNMAP, WRITE
 * SAME, COMPARE AND WRITE or EXTENDED COPY is in it whole or not at all).
 * In a store that is not persistent every call here costs one branch. */

/* Before the first write.  0 or -ENOMEM. */
int bs_persist_enable(struct block_store *bs);

/* A mutation may nest (a command spanning several volume calls brackets
 * them all, array_cmd_begin): the thread counts how deep it is in one
 * store's gate, since a writer-preferring lock taken twice for reading can
 * deadlock behind a waiting committer. */
extern __thread struct block_store *bs_gate_held;
extern __thread unsigned bs_gate_depth;

static inline void bs_mutation_begin(struct block_store *bs)
{
	if (!bs->gated)
		return;
	if (bs_gate_held == bs) {
		bs_gate_depth++;
		return;
	}
	pthread_rwlock_rdlock(&bs->gate);
	if (!bs_gate_held) {
		bs_gate_held = bs;
		bs_gate_depth = 1;
	}
}

static inline void bs_mutation_end(struct block_store *bs)
{
	if (!bs->gated)
		return;
	if (bs_gate_held == bs && --bs_gate_depth > 0)
		return;
	if (bs_gate_held == bs)
		bs_gate_held = NULL;
	pthread_rwlock_unlock(&bs->gate);
}

/* After the last commit (closing the array): changes are no longer marked
 * and freed ids are free at once; what follows is never recorded. */
void bs_persist_detach(struct block_store *bs);

/* Use ps for the payloads (before the first write; the store owns it). */
void bs_use_payloads(struct block_store *bs, struct payload_store *ps);

/* The cut: no mutation runs between freeze and thaw. */
void bs_persist_freeze(struct block_store *bs);
void bs_persist_thaw(struct block_store *bs);

/* What a committed block row holds. */
struct bs_rec_state {
	uint32_t id;
	bool live;               /* false: freed (its rows go) */
	uint64_t fp;
	uint32_t refs;
	int32_t csize;           /* -1 while pending */
};
/* Under freeze: every id changed since the last cut, its state, the marks
 * cleared.  fn returns 0 to go on; a non-zero return stops the walk (the
 * ids not visited stay marked) and is returned. */
int bs_persist_collect(struct block_store *bs, int (*fn)(void *ctx, const struct bs_rec_state *st), void *ctx);
/* A commit failed: mark id changed again (it goes in the next one). */
void bs_persist_remark(struct block_store *bs, uint32_t id);
/* Under freeze: the ids freed so far are sealed into this commit. */
void bs_persist_seal(struct block_store *bs);
/* The commit is durable: sealed ids may be handed out again (ok), or it
 * failed: they go back to the limbo for the next one (!ok). */
void bs_persist_sealed_done(struct block_store *bs, bool ok);
/* Ids marked since the last cut (for a committer deciding when to cut). */
static inline uint64_t bs_persist_dirty(const struct block_store *bs)
{
	return atomic_load_explicit(&((struct block_store *)bs)->dirty_count, memory_order_relaxed);
}

/* Loading a state (before any I/O, one thread): block id with fingerprint
 * fp, refs references, compressed size csize (-1: pending, it goes to the
 * backlog), its payload at data.  -EEXIST for an id or fingerprint+content
 * seen twice, -EINVAL for refs 0. */
int bs_load_block(struct block_store *bs, uint32_t id, uint64_t fp, uint32_t refs, int32_t csize, void *data);
/* After the last bs_load_block: every id below limit that was not loaded
 * is free, fresh ids start at limit. */
int bs_load_done(struct block_store *bs, uint32_t limit);

/* 0 when block id's bytes may be served (payload_verify); -EIO when they
 * were damaged on disk.  Readers call it before they copy a block out. */
int bs_verify(struct block_store *bs, uint32_t id);

/* Physical size of a block of compressed size csize (rule 5). */
uint32_t bs_physical_size(const struct block_store *bs, uint32_t csize);
/* The default fingerprint: low 64 bits of XXH3-128. */
uint64_t bs_default_fingerprint(const void *data, size_t len);
/* Test hook: the number of index entries sharing fragment h. */
uint64_t bs_count_fragment(struct block_store *bs, uint64_t h);

#endif
