/* block_store.c — the content-addressed block store of one array (see
 * block_store.h): block records addressed by 32-bit id, the fingerprint
 * index that finds a block by content, reference counts, the capacity
 * figures and the accounting backlog.  Payload bytes live in the payload
 * layer (payload.h); compressed sizes come from the backlog's consumer. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "handlers/array/block_store.h"
#include "handlers/array/payload.h"

#define SHARD_BITS 6u
#define INITIAL_CAP 64u
#define ID_BATCH 16u /* small: ids reserved but unused cost record pages */
/* A shard's backlog list starts this small, doubles as needed, and is given
 * back once worked off, so an idle array keeps no list memory. */
#define BACKLOG_MIN 16u

uint64_t bs_default_fingerprint(const void *data, size_t len)
{
	XXH128_hash_t h = XXH3_128bits(data, len);
	return h.low64;
}

static unsigned shard_of(uint64_t h) { return (unsigned)(h >> (64 - SHARD_BITS)); }

uint32_t bs_physical_size(const struct block_store *bs, uint32_t csize)
{
	uint64_t u = bs->alloc_unit;
	uint64_t rounded = (csize + u - 1) / u * u;
	return rounded > bs->block ? bs->block : (uint32_t)rounded;
}

void *bs_meta_calloc(size_t n, size_t size)
{
	payload_mapping_begin();
	void *p = calloc(n, size);
	payload_mapping_end();
	return p;
}

void *bs_meta_realloc(void *p, size_t size)
{
	payload_mapping_begin();
	void *q = realloc(p, size);
	payload_mapping_end();
	return q;
}

void bs_meta_free(void *p)
{
	payload_mapping_begin();
	free(p);
	payload_mapping_end();
}

static int table_alloc(struct block_store *bs, struct bs_shard *s, uint32_t cap)
{
	s->hash = bs_meta_calloc(cap, sizeof(*s->hash));
	s->id = bs_meta_calloc(cap, sizeof(*s->id));
	if (!s->hash || !s->id) {
		free(s->hash);
		free(s->id);
		return -ENOMEM;
	}
	s->cap = cap;
	atomic_fetch_add(&bs->meta_bytes, (uint64_t)cap * (sizeof(uint64_t) + sizeof(uint32_t)));
	return 0;
}

struct block_store *bs_create(uint32_t block, uint32_t alloc_unit)
{
	struct block_store *bs = calloc(1, sizeof(*bs));

	if (!bs)
		return NULL;
	bs->block = block;
	bs->bshift = (unsigned)__builtin_ctz(block);
	bs->alloc_unit = alloc_unit;
	bs->fp = bs_default_fingerprint;
	atomic_init(&bs->next_id, 1); /* id 0 means "zeros / unmapped" */
	pthread_mutex_init(&bs->drain_mu, NULL);
	pthread_mutex_init(&bs->map_index_mu, NULL);
	pthread_cond_init(&bs->drained, NULL);
	/* writer-preferring: a commit's cut must not starve behind a steady
	 * stream of writes (no mutation ever nests the shared lock) */
	pthread_rwlockattr_t ga;
	pthread_rwlockattr_init(&ga);
	pthread_rwlockattr_setkind_np(&ga, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&bs->gate, &ga);
	pthread_rwlockattr_destroy(&ga);
	for (unsigned i = 0; i < BS_NSHARDS; i++)
		pthread_mutex_init(&bs->shards[i].mu, NULL);
	bs->payloads = payload_open(block);
	if (!bs->payloads)
		goto fail;
	for (unsigned i = 0; i < BS_NSHARDS; i++)
		if (table_alloc(bs, &bs->shards[i], INITIAL_CAP))
			goto fail;
	atomic_fetch_add(&bs->meta_bytes, sizeof(*bs));
	return bs;
fail:
	bs_destroy(bs);
	return NULL;
}

void bs_destroy(struct block_store *bs)
{
	if (!bs)
		return;
	for (unsigned i = 0; i < BS_NSHARDS; i++) {
		struct bs_shard *s = &bs->shards[i];
		for (uint32_t j = 0; j < s->cap; j++)
			if (s->id && s->id[j])
				payload_free(bs->payloads, s->id[j], bs_rec(bs, s->id[j])->data);
		free(s->hash);
		free(s->id);
		free(s->backlog);
		pthread_mutex_destroy(&s->mu);
	}
	for (unsigned t = 0; t < BLK_TOP_ENTRIES; t++) {
		blk_leaf_ptr *mid = atomic_load(&bs->top[t]);
		if (!mid)
			continue;
		for (unsigned m = 0; m < (1u << BLK_MID_SHIFT); m++)
			free(atomic_load(&mid[m]));
		free(mid);
	}
	if (bs->payloads)
		payload_close(bs->payloads);
	if (bs->ptop) {
		for (uint32_t i = 0; i < BLK_MAX_IDS >> BLK_LEAF_SHIFT; i++)
			free(atomic_load(&bs->ptop[i]));
		free(bs->ptop);
	}
	pthread_rwlock_destroy(&bs->gate);
	pthread_mutex_destroy(&bs->drain_mu);
	pthread_mutex_destroy(&bs->map_index_mu);
	free(bs->map_index); /* empty by now: every chunk went with its volume */
	pthread_cond_destroy(&bs->drained);
	free(bs);
}

void bs_set_fingerprint(struct block_store *bs, bs_fingerprint_fn fn)
{
	bs->fp = fn ? fn : bs_default_fingerprint;
}

void bs_set_space_hooks(struct block_store *bs, const struct bs_space_hooks *h)
{
	if (h)
		bs->space = *h;
	else
		memset(&bs->space, 0, sizeof(bs->space));
}

void bs_set_backlog_notify(struct block_store *bs, void (*fn)(void *ctx), void *ctx)
{
	bs->on_backlog_ctx = ctx;
	bs->on_backlog = fn;
}

/* Make sure the record pages for ids [first, first+n) exist. Pages are
 * installed by CAS so shards reserving neighbouring batches never race. */
static int ensure_records(struct block_store *bs, uint32_t first, uint32_t n)
{
	for (uint32_t id = first & ~((1u << BLK_LEAF_SHIFT) - 1); id < first + n; id += 1u << BLK_LEAF_SHIFT) {
		_Atomic(blk_leaf_ptr *) *tp = &bs->top[id >> (BLK_MID_SHIFT + BLK_LEAF_SHIFT)];
		blk_leaf_ptr *mid = atomic_load(tp);
		if (!mid) {
			blk_leaf_ptr *fresh = bs_meta_calloc(1u << BLK_MID_SHIFT, sizeof(*fresh));
			if (!fresh)
				return -ENOMEM;
			if (atomic_compare_exchange_strong(tp, &mid, fresh)) {
				mid = fresh;
				atomic_fetch_add(&bs->meta_bytes, (sizeof(*fresh)) << BLK_MID_SHIFT);
			} else {
				free(fresh);
			}
		}
		blk_leaf_ptr *lp = &mid[(id >> BLK_LEAF_SHIFT) & ((1u << BLK_MID_SHIFT) - 1)];
		struct blk *leaf = atomic_load(lp);
		if (!leaf) {
			struct blk *fresh = bs_meta_calloc(1u << BLK_LEAF_SHIFT, sizeof(*fresh));
			if (!fresh)
				return -ENOMEM;
			if (atomic_compare_exchange_strong(lp, &leaf, fresh))
				atomic_fetch_add(&bs->meta_bytes, sizeof(struct blk) << BLK_LEAF_SHIFT);
			else
				free(fresh);
		}
		if (bs->persistent) {
			bs_pleaf_ptr *pp = &bs->ptop[id >> BLK_LEAF_SHIFT];
			struct bs_pleaf *pl = atomic_load(pp);
			if (!pl) {
				struct bs_pleaf *fresh = bs_meta_calloc(1, sizeof(*fresh));
				if (!fresh)
					return -ENOMEM;
				if (atomic_compare_exchange_strong(pp, &pl, fresh))
					atomic_fetch_add(&bs->meta_bytes, sizeof(*fresh));
				else
					free(fresh);
			}
		}
	}
	return 0;
}

static struct bs_pleaf *pleaf(const struct block_store *bs, uint32_t id)
{
	return atomic_load_explicit(&bs->ptop[id >> BLK_LEAF_SHIFT], memory_order_acquire);
}

/* id changed since the last cut (persistent stores only) */
static inline void mark(struct block_store *bs, uint32_t id)
{
	if (!bs->persistent)
		return;
	struct bs_pleaf *pl = pleaf(bs, id);
	uint32_t i = id & ((1u << BLK_LEAF_SHIFT) - 1);
	uint64_t bit = 1ull << (i % 64);

	if (!(atomic_load_explicit(&pl->dirty[i / 64], memory_order_relaxed) & bit) &&
	    !(atomic_fetch_or_explicit(&pl->dirty[i / 64], bit, memory_order_relaxed) & bit))
		atomic_fetch_add_explicit(&bs->dirty_count, 1, memory_order_relaxed);
}

/* Under s->mu. */
static int alloc_id(struct block_store *bs, struct bs_shard *s, uint32_t *id)
{
	if (s->free_head) {
		*id = s->free_head;
		s->free_head = atomic_load_explicit(&bs_rec(bs, *id)->ref, memory_order_relaxed);
		return 0;
	}
	if (s->fresh_next == s->fresh_end) {
		uint32_t first = atomic_fetch_add(&bs->next_id, ID_BATCH);
		if (first >= BLK_MAX_IDS - ID_BATCH)
			return -ENOSPC;
		int r = ensure_records(bs, first, ID_BATCH);
		if (r)
			return r;
		s->fresh_next = first;
		s->fresh_end = first + ID_BATCH;
	}
	*id = s->fresh_next++;
	return 0;
}

/* Under s->mu: an id that never held a visible block goes back at once. */
static void release_id(struct block_store *bs, struct bs_shard *s, uint32_t id)
{
	struct blk *r = bs_rec(bs, id);

	r->data = NULL;
	r->acct = BLK_FREE;
	atomic_store(&r->ref, s->free_head);
	s->free_head = id;
}

/* Under s->mu: a freed block's id.  A persistent store holds it in the
 * limbo until its free is durable (the committed state may still reference
 * its slot); otherwise it is free at once. */
static void retire_id(struct block_store *bs, struct bs_shard *s, uint32_t id)
{
	struct blk *r = bs_rec(bs, id);

	if (!bs->persistent) {
		release_id(bs, s, id);
		return;
	}
	r->data = NULL;
	r->acct = BLK_FREE;
	atomic_store(&r->ref, s->limbo_head);
	s->limbo_head = id;
	mark(bs, id);
}

/* Find data in the shard (under s->mu); returns the slot or -1 and, in
 * *empty, the first empty slot of the probe sequence. */
static long probe(struct block_store *bs, struct bs_shard *s, uint64_t h, const void *data, uint32_t *empty)
{
	uint32_t mask = s->cap - 1, i = (uint32_t)h & mask;
	for (;;) {
		uint32_t id = s->id[i];
		if (!id) {
			*empty = i;
			return -1;
		}
		/* The fragment only narrows the search: memcmp decides.  A block
		 * whose refcount is near its limit takes no more references;
		 * the same content is then stored again as a second block. */
		if (s->hash[i] == h && memcmp(bs_rec(bs, id)->data, data, bs->block) == 0 &&
		    atomic_load_explicit(&bs_rec(bs, id)->ref, memory_order_relaxed) < BLK_REF_MAX - 1)
			return i;
		i = (i + 1) & mask;
	}
}

static int grow(struct block_store *bs, struct bs_shard *s)
{
	uint64_t *oh = s->hash;
	uint32_t *oi = s->id, ocap = s->cap;
	if (table_alloc(bs, s, ocap * 2)) {
		s->hash = oh;
		s->id = oi;
		return -ENOMEM;
	}
	uint32_t mask = s->cap - 1;
	for (uint32_t j = 0; j < ocap; j++) {
		if (!oi[j])
			continue;
		uint32_t i = (uint32_t)oh[j] & mask;
		while (s->id[i])
			i = (i + 1) & mask;
		s->id[i] = oi[j];
		s->hash[i] = oh[j];
	}
	bs_meta_free(oh);
	bs_meta_free(oi);
	atomic_fetch_sub(&bs->meta_bytes, (uint64_t)ocap * (sizeof(uint64_t) + sizeof(uint32_t)));
	return 0;
}

/* Room for one more backlog entry (under s->mu).  A block freed while
 * pending leaves a stale entry behind; when the list would grow and at most
 * half of it is still pending, it is compacted instead, so under sustained
 * overwrites faster than the accounting the list stays within about twice
 * the shard's pending blocks rather than growing with every overwrite. */
static int backlog_reserve(struct block_store *bs, struct bs_shard *s)
{
	if (s->backlog_len < s->backlog_cap)
		return 0;
	if (s->backlog_len >= 2 * s->pending_blocks + BACKLOG_MIN) {
		uint32_t keep = 0;
		for (uint32_t i = 0; i < s->backlog_len; i++)
			if (bs_rec(bs, s->backlog[i])->acct == BLK_PENDING)
				s->backlog[keep++] = s->backlog[i];
		s->backlog_len = keep;
		if (keep < s->backlog_cap)
			return 0;
	}
	uint32_t ncap = s->backlog_cap ? s->backlog_cap * 2 : BACKLOG_MIN;
	uint32_t *nb = bs_meta_realloc(s->backlog, ncap * sizeof(*nb));
	if (!nb)
		return -ENOMEM;
	atomic_fetch_add(&bs->meta_bytes, (uint64_t)(ncap - s->backlog_cap) * sizeof(*nb));
	s->backlog = nb;
	s->backlog_cap = ncap;
	return 0;
}

static void take_ref(struct bs_shard *s, struct blk *r)
{
	if (atomic_fetch_add(&r->ref, 1) == 1)
		atomic_fetch_sub(&s->single_ref, 1);
}

static void notify_backlog(struct block_store *bs)
{
	if (bs->on_backlog && !atomic_load_explicit(&bs->kicked, memory_order_relaxed) &&
	    !atomic_exchange(&bs->kicked, 1))
		bs->on_backlog(bs->on_backlog_ctx);
}

int bs_ref_content(struct block_store *bs, const void *data, uint32_t *idp)
{
	return bs_ref_content_r(bs, data, idp, NULL);
}

int bs_reserve(struct block_store *bs, struct bs_resv *r, uint64_t bytes)
{
	if (r->unchecked || !bytes || !bs->space.reserve)
		return 0;
	int rc = bs->space.reserve(bs->space.ctx, bytes);
	if (rc == 0)
		r->left += bytes;
	return rc;
}

void bs_release(struct block_store *bs, struct bs_resv *r)
{
	if (r->left && bs->space.release)
		bs->space.release(bs->space.ctx, r->left);
	r->left = 0;
}

int bs_ref_content_r(struct block_store *bs, const void *data, uint32_t *idp, struct bs_resv *resv)
{
	uint64_t h = bs->fp(data, bs->block);
	struct bs_shard *s = &bs->shards[shard_of(h)];
	uint32_t empty, id;

	pthread_mutex_lock(&s->mu);
	long slot = probe(bs, s, h, data, &empty);
	if (slot >= 0) {
		*idp = s->id[slot];
		take_ref(s, bs_rec(bs, *idp));
		mark(bs, *idp);
		pthread_mutex_unlock(&s->mu);
		return 0;
	}
	/* New content: reserve an id, copy the payload outside the lock (the
	 * slow part), then look again, since another writer may have stored
	 * the same content meanwhile. */
	int r = alloc_id(bs, s, &id);
	pthread_mutex_unlock(&s->mu);
	if (r)
		return r;
	void *copy = payload_put(bs->payloads, id, data);

	pthread_mutex_lock(&s->mu);
	if (!copy) {
		release_id(bs, s, id);
		pthread_mutex_unlock(&s->mu);
		return -ENOMEM;
	}
	slot = probe(bs, s, h, data, &empty);
	if (slot >= 0) {
		*idp = s->id[slot];
		take_ref(s, bs_rec(bs, *idp));
		mark(bs, *idp);
		pthread_mutex_unlock(&s->mu);
		r = 0;
		goto drop_copy;
	}
	if ((uint64_t)(s->count + 1) * 4 > (uint64_t)s->cap * 3) {
		if ((r = grow(bs, s)) != 0)
			goto unlock_drop;
		(void)probe(bs, s, h, data, &empty);
	}
	if ((r = backlog_reserve(bs, s)) != 0)
		goto unlock_drop;
	if (bs->space.block_new && (r = bs->space.block_new(bs->space.ctx, id, bs->block, resv)) != 0)
		goto unlock_drop;
	struct blk *rec = bs_rec(bs, id);
	rec->data = copy;
	rec->fp = h;
	rec->csize = 0;
	rec->shard = (uint8_t)(s - bs->shards);
	rec->acct = BLK_PENDING;
	atomic_store(&rec->ref, 1);
	s->id[empty] = id;
	s->hash[empty] = h;
	s->count++;
	s->unique_blocks++;
	s->pending_blocks++;
	s->backlog[s->backlog_len++] = id;
	atomic_fetch_add(&s->single_ref, 1);
	atomic_fetch_add_explicit(&bs->backlog, 1, memory_order_release);
	atomic_fetch_add_explicit(&bs->arrivals, 1, memory_order_relaxed);
	mark(bs, id);
	pthread_mutex_unlock(&s->mu);
	notify_backlog(bs);
	*idp = id;
	return 0;

unlock_drop:
	pthread_mutex_unlock(&s->mu);
drop_copy:
	/* the payload goes before its id can be handed out again */
	payload_free(bs->payloads, id, copy);
	pthread_mutex_lock(&s->mu);
	release_id(bs, s, id);
	pthread_mutex_unlock(&s->mu);
	return r;
}

int bs_incref(struct block_store *bs, uint32_t id, uint32_t n)
{
	/* The caller holds a map entry referencing id, so ref >= 1 and the
	 * block cannot be freed under us: no shard lock needed. */
	struct blk *r = bs_rec(bs, id);
	uint32_t old = atomic_load(&r->ref);
	do {
		if (old >= BLK_REF_MAX - n)
			return -EOVERFLOW;
	} while (!atomic_compare_exchange_weak(&r->ref, &old, old + n));
	if (old == 1)
		atomic_fetch_sub(&bs->shards[r->shard].single_ref, 1);
	mark(bs, id);
	return 0;
}

int bs_ref_more(struct block_store *bs, uint32_t id, uint32_t *out)
{
	*out = id;
	if (bs_incref(bs, id, 1) == 0)
		return 0;
	/* Saturated: reference (or create) another block with this content. */
	int v = bs_verify(bs, id);
	return v ? v : bs_ref_content(bs, bs_data(bs, id), out);
}

/* Remove id (hash h) from the index with backward-shift deletion. */
static void index_remove(struct bs_shard *s, uint64_t h, uint32_t id)
{
	uint32_t mask = s->cap - 1, i = (uint32_t)h & mask;
	while (s->id[i] != id)
		i = (i + 1) & mask;
	uint32_t j = i;
	for (;;) {
		j = (j + 1) & mask;
		if (!s->id[j])
			break;
		uint32_t k = (uint32_t)s->hash[j] & mask;
		/* Move j back to i unless its home k lies cyclically in (i, j]. */
		int stays = (i <= j) ? (i < k && k <= j) : (i < k || k <= j);
		if (!stays) {
			s->id[i] = s->id[j];
			s->hash[i] = s->hash[j];
			i = j;
		}
	}
	s->id[i] = 0;
	s->count--;
}

/* One fewer block in the backlog (under the shard lock of the block). */
static void backlog_done(struct block_store *bs, struct bs_shard *s)
{
	s->pending_blocks--;
	if (atomic_fetch_sub_explicit(&bs->backlog, 1, memory_order_acq_rel) == 1) {
		pthread_mutex_lock(&bs->drain_mu);
		pthread_cond_broadcast(&bs->drained);
		pthread_mutex_unlock(&bs->drain_mu);
	}
}

void bs_unref(struct block_store *bs, uint32_t id)
{
	struct blk *r = bs_rec(bs, id);
	struct bs_shard *s = &bs->shards[r->shard];
	uint32_t old = atomic_load(&r->ref);
	while (old > 1) {
		if (atomic_compare_exchange_weak(&r->ref, &old, old - 1)) {
			if (old == 2)
				atomic_fetch_add(&s->single_ref, 1);
			mark(bs, id);
			return;
		}
	}
	/* Possibly the last reference: decide under the shard lock, where
	 * lookups that could take a new reference also run. */
	pthread_mutex_lock(&s->mu);
	old = atomic_fetch_sub(&r->ref, 1);
	mark(bs, id);
	if (old == 2) {
		atomic_fetch_add(&s->single_ref, 1);
	} else if (old == 1) {
		uint32_t claimed = bs->block;
		atomic_fetch_sub(&s->single_ref, 1);
		index_remove(s, r->fp, id);
		s->unique_blocks--;
		switch (r->acct) {
		case BLK_ACCOUNTED:
			claimed = bs_physical_size(bs, r->csize);
			s->compressed_bytes -= r->csize;
			s->physical_bytes -= claimed;
			break;
		case BLK_WORKING:
			/* an accountant is reading the payload: it frees it */
			r->acct = BLK_ORPHAN;
			backlog_done(bs, s);
			break;
		default: /* BLK_PENDING: dropped unaccounted, its entry goes stale */
			backlog_done(bs, s);
			break;
		}
		if (bs->space.block_freed)
			bs->space.block_freed(bs->space.ctx, id, claimed);
		if (r->acct != BLK_ORPHAN) {
			payload_free(bs->payloads, id, r->data);
			retire_id(bs, s, id);
		}
	}
	pthread_mutex_unlock(&s->mu);
}

void bs_figures(struct block_store *bs, struct bs_figures *out)
{
	int64_t single = 0;

	memset(out, 0, sizeof(*out));
	for (unsigned i = 0; i < BS_NSHARDS; i++) {
		struct bs_shard *s = &bs->shards[i];
		pthread_mutex_lock(&s->mu);
		out->unique_blocks += s->unique_blocks;
		out->pending_blocks += s->pending_blocks;
		out->physical_bytes += s->physical_bytes;
		out->compressed_bytes += s->compressed_bytes;
		single += atomic_load(&s->single_ref);
		pthread_mutex_unlock(&s->mu);
	}
	out->single_ref_blocks = single > 0 ? (uint64_t)single : 0;
	out->used_bytes = out->physical_bytes + out->pending_blocks * bs->block;
	out->meta_bytes = atomic_load(&bs->meta_bytes);
}

/* ---- the accounting backlog ---- */

void bs_acct_rearm(struct block_store *bs)
{
	atomic_store(&bs->kicked, 0);
}

size_t bs_acct_take(struct block_store *bs, struct bs_acct_job *jobs, size_t max)
{
	unsigned start = atomic_fetch_add_explicit(&bs->take_cursor, 1, memory_order_relaxed);

	if (!max || !bs_backlog(bs))
		return 0;
	for (unsigned k = 0; k < BS_NSHARDS; k++) {
		struct bs_shard *s = &bs->shards[(start + k) % BS_NSHARDS];
		size_t n = 0;

		if (!__atomic_load_n(&s->backlog_len, __ATOMIC_RELAXED))
			continue;
		pthread_mutex_lock(&s->mu);
		while (n < max && s->backlog_len) {
			uint32_t id = s->backlog[--s->backlog_len];
			struct blk *r = bs_rec(bs, id);
			if (r->acct != BLK_PENDING)
				continue; /* freed, or its id reused and already taken: stale */
			r->acct = BLK_WORKING;
			jobs[n++] = (struct bs_acct_job){ .id = id, .data = r->data };
		}
		if (!s->backlog_len && s->backlog_cap > BACKLOG_MIN) {
			free(s->backlog);
			atomic_fetch_sub(&bs->meta_bytes, (uint64_t)s->backlog_cap * sizeof(*s->backlog));
			s->backlog = NULL;
			s->backlog_cap = 0;
		}
		pthread_mutex_unlock(&s->mu);
		if (n)
			return n;
	}
	return 0;
}

static void acct_done(struct block_store *bs, const struct bs_acct_job *jobs, size_t n);

void bs_acct_done(struct block_store *bs, const struct bs_acct_job *jobs, size_t n)
{
	if (!n)
		return;
	/* a compressed size is state a commit records: not inside a cut */
	bs_mutation_begin(bs);
	acct_done(bs, jobs, n);
	bs_mutation_end(bs);
}

static void acct_done(struct block_store *bs, const struct bs_acct_job *jobs, size_t n)
{
	struct bs_shard *s = &bs->shards[bs_rec(bs, jobs[0].id)->shard];
	void *orphans[64];
	uint32_t orphan_ids[64];
	size_t norph = 0;

	pthread_mutex_lock(&s->mu);
	for (size_t i = 0; i < n; i++) {
		struct blk *r = bs_rec(bs, jobs[i].id);
		if (r->acct == BLK_ORPHAN) {
			/* freed while we compressed it: nothing to count */
			if (norph < sizeof(orphans) / sizeof(orphans[0])) {
				orphans[norph] = r->data;
				orphan_ids[norph++] = jobs[i].id;
				r->data = NULL;
			} else {
				payload_free(bs->payloads, jobs[i].id, r->data);
				retire_id(bs, s, jobs[i].id);
			}
			continue;
		}
		uint32_t phys = bs_physical_size(bs, jobs[i].csize);
		r->csize = (uint16_t)jobs[i].csize;
		r->acct = BLK_ACCOUNTED;
		mark(bs, jobs[i].id);
		s->compressed_bytes += jobs[i].csize;
		s->physical_bytes += phys;
		if (bs->space.block_sized)
			bs->space.block_sized(bs->space.ctx, jobs[i].id, bs->block, phys);
		backlog_done(bs, s);
	}
	pthread_mutex_unlock(&s->mu);
	if (!norph)
		return;
	/* payloads go before their ids can be handed out again */
	for (size_t i = 0; i < norph; i++)
		payload_free(bs->payloads, orphan_ids[i], orphans[i]);
	pthread_mutex_lock(&s->mu);
	for (size_t i = 0; i < norph; i++)
		retire_id(bs, s, orphan_ids[i]);
	pthread_mutex_unlock(&s->mu);
}

uint64_t bs_wait_drained(struct block_store *bs, unsigned timeout_ms)
{
	struct timespec ts;
	uint64_t left;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += timeout_ms / 1000;
	ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&bs->drain_mu);
	while ((left = bs_backlog(bs)) != 0)
		if (pthread_cond_timedwait(&bs->drained, &bs->drain_mu, &ts) != 0)
			break;
	pthread_mutex_unlock(&bs->drain_mu);
	return bs_backlog(bs);
}

uint64_t bs_count_fragment(struct block_store *bs, uint64_t h)
{
	struct bs_shard *s = &bs->shards[shard_of(h)];
	uint64_t n = 0;
	pthread_mutex_lock(&s->mu);
	for (uint32_t i = 0; i < s->cap; i++)
		n += s->id[i] && s->hash[i] == h;
	pthread_mutex_unlock(&s->mu);
	return n;
}

/* ---- persistence (block_store.h "persistence") ---- */

__thread struct block_store *bs_gate_held;
__thread unsigned bs_gate_depth;

int bs_persist_enable(struct block_store *bs)
{
	bs->ptop = calloc(BLK_MAX_IDS >> BLK_LEAF_SHIFT, sizeof(*bs->ptop));
	if (!bs->ptop)
		return -ENOMEM;
	atomic_fetch_add(&bs->meta_bytes, (BLK_MAX_IDS >> BLK_LEAF_SHIFT) * sizeof(*bs->ptop));
	bs->persistent = true;
	bs->gated = true;
	return 0;
}

void bs_persist_detach(struct block_store *bs)
{
	pthread_rwlock_wrlock(&bs->gate);
	bs->persistent = false;
	pthread_rwlock_unlock(&bs->gate);
}

void bs_use_payloads(struct block_store *bs, struct payload_store *ps)
{
	if (bs->payloads)
		payload_close(bs->payloads);
	bs->payloads = ps;
}

void bs_persist_freeze(struct block_store *bs)
{
	pthread_rwlock_wrlock(&bs->gate);
}

void bs_persist_thaw(struct block_store *bs)
{
	pthread_rwlock_unlock(&bs->gate);
}

void bs_persist_remark(struct block_store *bs, uint32_t id)
{
	mark(bs, id);
}

/* the state a row records, read under the block's shard lock (an
 * accountant may be taking it from PENDING to WORKING meanwhile) */
static void rec_state(struct block_store *bs, uint32_t id, struct bs_rec_state *st)
{
	struct blk *r = bs_rec(bs, id);
	struct bs_shard *s = &bs->shards[r->shard];

	pthread_mutex_lock(&s->mu);
	st->id = id;
	st->live = r->acct != BLK_FREE && r->acct != BLK_ORPHAN;
	st->refs = st->live ? atomic_load(&r->ref) : 0;
	st->csize = r->acct == BLK_ACCOUNTED ? r->csize : -1;
	st->fp = r->fp;
	pthread_mutex_unlock(&s->mu);
}

int bs_persist_collect(struct block_store *bs, int (*fn)(void *ctx, const struct bs_rec_state *st), void *ctx)
{
	uint32_t top = atomic_load(&bs->next_id);

	atomic_store(&bs->dirty_count, 0);
	for (uint32_t l = 0; l <= (top >> BLK_LEAF_SHIFT) && l < (BLK_MAX_IDS >> BLK_LEAF_SHIFT); l++) {
		struct bs_pleaf *pl = atomic_load(&bs->ptop[l]);

		if (!pl)
			continue;
		for (unsigned w = 0; w < (1u << BLK_LEAF_SHIFT) / 64; w++) {
			uint64_t bits = atomic_exchange_explicit(&pl->dirty[w], 0, memory_order_relaxed);

			for (uint64_t m = bits; m; m &= m - 1) {
				uint32_t id = (l << BLK_LEAF_SHIFT) | (w * 64) | (uint32_t)__builtin_ctzll(m);
				struct bs_rec_state st;
				int rc;

				rec_state(bs, id, &st);
				if ((rc = fn(ctx, &st)) != 0) {
					/* not recorded: this id and the rest of the word stay marked */
					atomic_fetch_or(&pl->dirty[w], m);
					return rc;
				}
			}
		}
	}
	return 0;
}

void bs_persist_seal(struct block_store *bs)
{
	for (unsigned i = 0; i < BS_NSHARDS; i++) {
		struct bs_shard *s = &bs->shards[i];

		pthread_mutex_lock(&s->mu);
		/* one commit at a time: the previous seal was settled */
		s->sealed_head = s->limbo_head;
		s->limbo_head = 0;
		pthread_mutex_unlock(&s->mu);
	}
}

void bs_persist_sealed_done(struct block_store *bs, bool ok)
{
	for (unsigned i = 0; i < BS_NSHARDS; i++) {
		struct bs_shard *s = &bs->shards[i];

		pthread_mutex_lock(&s->mu);
		while (s->sealed_head) {
			uint32_t id = s->sealed_head;
			struct blk *r = bs_rec(bs, id);

			s->sealed_head = atomic_load_explicit(&r->ref, memory_order_relaxed);
			if (ok) {
				atomic_store(&r->ref, s->free_head);
				s->free_head = id;
			} else {
				atomic_store(&r->ref, s->limbo_head);
				s->limbo_head = id;
			}
		}
		pthread_mutex_unlock(&s->mu);
	}
}

int bs_load_block(struct block_store *bs, uint32_t id, uint64_t fp, uint32_t refs, int32_t csize, void *data)
{
	struct bs_shard *s = &bs->shards[shard_of(fp)];
	uint32_t empty;
	int r;

	if (id == 0 || id >= BLK_MAX_IDS - ID_BATCH)
		return -ERANGE;
	if (refs == 0 || refs >= BLK_REF_MAX)
		return -EINVAL;
	if ((r = ensure_records(bs, id, 1)) != 0)
		return r;
	struct blk *rec = bs_rec(bs, id);
	if (rec->acct != BLK_FREE)
		return -EEXIST;
	if ((uint64_t)(s->count + 1) * 4 > (uint64_t)s->cap * 3 && (r = grow(bs, s)) != 0)
		return r;
	/* the slot: the first empty one of the fingerprint's probe sequence
	 * (two blocks of one content may coexist: a saturated refcount) */
	uint32_t mask = s->cap - 1;
	for (empty = (uint32_t)fp & mask; s->id[empty]; empty = (empty + 1) & mask)
		;
	if (csize < 0 && (r = backlog_reserve(bs, s)) != 0)
		return r;
	rec->data = data;
	rec->fp = fp;
	rec->shard = (uint8_t)(s - bs->shards);
	atomic_store(&rec->ref, refs);
	s->id[empty] = id;
	s->hash[empty] = fp;
	s->count++;
	s->unique_blocks++;
	if (refs == 1)
		atomic_fetch_add(&s->single_ref, 1);
	if (csize < 0) {
		rec->csize = 0;
		rec->acct = BLK_PENDING;
		s->pending_blocks++;
		s->backlog[s->backlog_len++] = id;
		atomic_fetch_add(&bs->backlog, 1);
	} else {
		rec->csize = (uint16_t)csize;
		rec->acct = BLK_ACCOUNTED;
		s->compressed_bytes += (uint64_t)csize;
		s->physical_bytes += bs_physical_size(bs, (uint32_t)csize);
	}
	/* the block claims its space as if it had just been written (a stored
	 * block is never refused: unchecked), then its physical size */
	if (bs->space.block_new) {
		struct bs_resv loaded = { 0, true };

		(void)bs->space.block_new(bs->space.ctx, id, bs->block, &loaded);
		if (csize >= 0 && bs->space.block_sized)
			bs->space.block_sized(bs->space.ctx, id, bs->block, bs_physical_size(bs, (uint32_t)csize));
	}
	return 0;
}

int bs_load_done(struct block_store *bs, uint32_t limit)
{
	int r;

	if (limit < 1)
		limit = 1;
	if (limit > 1 && (r = ensure_records(bs, 1, limit - 1)) != 0)
		return r;
	/* the ids in between are free: each to some shard's free list */
	for (uint32_t id = limit - 1; id >= 1; id--) {
		struct blk *rec = bs_rec(bs, id);
		struct bs_shard *s = &bs->shards[id % BS_NSHARDS];

		if (rec->acct != BLK_FREE)
			continue;
		atomic_store(&rec->ref, s->free_head);
		s->free_head = id;
	}
	atomic_store(&bs->next_id, limit);
	if (bs_backlog(bs))
		notify_backlog(bs);
	return 0;
}

int bs_verify(struct block_store *bs, uint32_t id)
{
	return payload_verify(bs->payloads, id);
}
