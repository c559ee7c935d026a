/* block_store.c — the content-addressed block store of one array: block
 * records (data, refcount, compressed size) addressed by 32-bit id, and the
 * fingerprint index that finds a block by content.  The index is split in
 * NSHARDS shards by hash, each with its own mutex; refcounts are atomics, and
 * only the 1 -> 0 transition takes the shard lock (so a concurrent lookup
 * can never resurrect a block being freed). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "handlers/array/array_internal.h"

#define SHARD_BITS 6u
#define INITIAL_CAP 64u
#define ID_BATCH 16u /* small: ids reserved but unused cost record pages */

uint64_t bs_default_fingerprint(const void *data, size_t len)
{
	XXH128_hash_t h = XXH3_128bits(data, len);
	return h.low64;
}

static unsigned shard_of(uint64_t h) { return (unsigned)(h >> (64 - SHARD_BITS)); }

static int table_alloc(struct array *a, struct shard *s, uint32_t cap)
{
	s->hash = calloc(cap, sizeof(*s->hash));
	s->id = calloc(cap, sizeof(*s->id));
	if (!s->hash || !s->id) {
		free(s->hash);
		free(s->id);
		return -ENOMEM;
	}
	s->cap = cap;
	atomic_fetch_add(&a->meta_bytes, (uint64_t)cap * (sizeof(uint64_t) + sizeof(uint32_t)));
	return 0;
}

int bs_init(struct array *a)
{
	a->fp = bs_default_fingerprint;
	atomic_init(&a->next_id, 1); /* id 0 means "zeros / unmapped" */
	for (unsigned i = 0; i < NSHARDS; i++) {
		struct shard *s = &a->shards[i];
		pthread_mutex_init(&s->mu, NULL);
		if (table_alloc(a, s, INITIAL_CAP))
			return -ENOMEM;
	}
	atomic_fetch_add(&a->meta_bytes, sizeof(*a));
	return 0;
}

void bs_fini(struct array *a)
{
	for (unsigned i = 0; i < NSHARDS; i++) {
		struct shard *s = &a->shards[i];
		for (uint32_t j = 0; j < s->cap; j++)
			if (s->id && s->id[j])
				free(bs_rec(a, s->id[j])->data);
		free(s->hash);
		free(s->id);
		pthread_mutex_destroy(&s->mu);
	}
	for (unsigned t = 0; t < BLK_TOP_ENTRIES; t++) {
		blk_leaf_ptr *mid = atomic_load(&a->blk_top[t]);
		if (!mid)
			continue;
		for (unsigned m = 0; m < (1u << BLK_MID_SHIFT); m++)
			free(atomic_load(&mid[m]));
		free(mid);
	}
}

struct blk *bs_rec(const struct array *a, uint32_t id)
{
	blk_leaf_ptr *mid = atomic_load_explicit(&((struct array *)a)->blk_top[id >> (BLK_MID_SHIFT + BLK_LEAF_SHIFT)],
						 memory_order_acquire);
	struct blk *leaf = atomic_load_explicit(&mid[(id >> BLK_LEAF_SHIFT) & ((1u << BLK_MID_SHIFT) - 1)],
						memory_order_acquire);
	return &leaf[id & ((1u << BLK_LEAF_SHIFT) - 1)];
}

/* Make sure the record pages for ids [first, first+n) exist. Pages are
 * installed by CAS so shards reserving neighbouring batches never race. */
static int ensure_records(struct array *a, uint32_t first, uint32_t n)
{
	for (uint32_t id = first & ~((1u << BLK_LEAF_SHIFT) - 1); id < first + n; id += 1u << BLK_LEAF_SHIFT) {
		_Atomic(blk_leaf_ptr *) *tp = &a->blk_top[id >> (BLK_MID_SHIFT + BLK_LEAF_SHIFT)];
		blk_leaf_ptr *mid = atomic_load(tp);
		if (!mid) {
			blk_leaf_ptr *fresh = calloc(1u << BLK_MID_SHIFT, sizeof(*fresh));
			if (!fresh)
				return -ENOMEM;
			if (atomic_compare_exchange_strong(tp, &mid, fresh)) {
				mid = fresh;
				atomic_fetch_add(&a->meta_bytes, (sizeof(*fresh)) << BLK_MID_SHIFT);
			} else {
				free(fresh);
			}
		}
		blk_leaf_ptr *lp = &mid[(id >> BLK_LEAF_SHIFT) & ((1u << BLK_MID_SHIFT) - 1)];
		struct blk *leaf = atomic_load(lp);
		if (!leaf) {
			struct blk *fresh = calloc(1u << BLK_LEAF_SHIFT, sizeof(*fresh));
			if (!fresh)
				return -ENOMEM;
			if (atomic_compare_exchange_strong(lp, &leaf, fresh))
				atomic_fetch_add(&a->meta_bytes, sizeof(struct blk) << BLK_LEAF_SHIFT);
			else
				free(fresh);
		}
	}
	return 0;
}

/* Under s->mu. */
static int alloc_id(struct array *a, struct shard *s, uint32_t *id)
{
	if (s->free_head) {
		*id = s->free_head;
		s->free_head = atomic_load_explicit(&bs_rec(a, *id)->ref, memory_order_relaxed);
		return 0;
	}
	if (s->fresh_next == s->fresh_end) {
		uint32_t first = atomic_fetch_add(&a->next_id, ID_BATCH);
		if (first >= BLK_MAX_IDS - ID_BATCH)
			return -ENOSPC;
		int r = ensure_records(a, first, ID_BATCH);
		if (r)
			return r;
		s->fresh_next = first;
		s->fresh_end = first + ID_BATCH;
	}
	*id = s->fresh_next++;
	return 0;
}

/* Find data in the shard (under s->mu); returns the slot or -1 and, in
 * *empty, the first empty slot of the probe sequence. */
static long probe(struct array *a, struct shard *s, uint64_t h, const void *data, uint32_t *empty)
{
	uint32_t mask = s->cap - 1, i = (uint32_t)h & mask;
	size_t bsz = a->p.dedup_block;
	for (;;) {
		uint32_t id = s->id[i];
		if (!id) {
			*empty = i;
			return -1;
		}
		/* The fragment only narrows the search: memcmp decides.  A block
		 * whose refcount is near its limit takes no more references;
		 * the same content is then stored again as a second block. */
		if (s->hash[i] == h && memcmp(bs_rec(a, id)->data, data, bsz) == 0 &&
		    atomic_load_explicit(&bs_rec(a, id)->ref, memory_order_relaxed) < BLK_REF_MAX - 1)
			return i;
		i = (i + 1) & mask;
	}
}

static int grow(struct array *a, struct shard *s)
{
	uint64_t *oh = s->hash;
	uint32_t *oi = s->id, ocap = s->cap;
	if (table_alloc(a, s, ocap * 2)) {
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
	free(oh);
	free(oi);
	atomic_fetch_sub(&a->meta_bytes, (uint64_t)ocap * (sizeof(uint64_t) + sizeof(uint32_t)));
	return 0;
}

static void take_ref(struct shard *s, struct blk *r)
{
	if (atomic_fetch_add(&r->ref, 1) == 1)
		atomic_fetch_sub(&s->single_ref, 1);
}

int bs_ref_content(struct array *a, const void *data, uint32_t *idp)
{
	return bs_ref_content_r(a, data, idp, NULL);
}

int bs_ref_content_r(struct array *a, const void *data, uint32_t *idp, struct space_resv *resv)
{
	uint64_t h = a->fp(data, a->p.dedup_block);
	struct shard *s = &a->shards[shard_of(h)];
	uint32_t empty;

	pthread_mutex_lock(&s->mu);
	long slot = probe(a, s, h, data, &empty);
	if (slot >= 0) {
		*idp = s->id[slot];
		take_ref(s, bs_rec(a, *idp));
		pthread_mutex_unlock(&s->mu);
		return 0;
	}
	pthread_mutex_unlock(&s->mu);

	/* New content: compress and copy outside the lock (the slow part), then
	 * look again, since another writer may have stored it meanwhile. */
	uint32_t csize = compressed_size(&a->p, data);
	void *copy = malloc(a->p.dedup_block);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, data, a->p.dedup_block);

	pthread_mutex_lock(&s->mu);
	slot = probe(a, s, h, data, &empty);
	if (slot >= 0) {
		*idp = s->id[slot];
		take_ref(s, bs_rec(a, *idp));
		pthread_mutex_unlock(&s->mu);
		free(copy);
		return 0;
	}
	if ((uint64_t)(s->count + 1) * 4 > (uint64_t)s->cap * 3) {
		if (grow(a, s)) {
			pthread_mutex_unlock(&s->mu);
			free(copy);
			return -ENOMEM;
		}
		(void)probe(a, s, h, data, &empty);
	}
	/* space hook: a new block (may refuse: the array is full) */
	int r = space_block_created(a, resv);
	if (r) {
		pthread_mutex_unlock(&s->mu);
		free(copy);
		return r;
	}
	uint32_t id;
	r = alloc_id(a, s, &id);
	if (r) {
		pthread_mutex_unlock(&s->mu);
		space_block_freed(a, a->p.dedup_block);
		free(copy);
		return r;
	}
	struct blk *rec = bs_rec(a, id);
	rec->data = copy;
	rec->csize = (uint16_t)csize;
	rec->shard = (uint8_t)(s - a->shards);
	atomic_store(&rec->ref, 1);
	s->id[empty] = id;
	s->hash[empty] = h;
	s->count++;
	s->unique_blocks++;
	s->compressed_bytes += csize;
	s->physical_bytes += physical_size(&a->p, csize);
	atomic_fetch_add(&s->single_ref, 1);
	space_block_accounted(a, physical_size(&a->p, csize)); /* space hook: size known (inline) */
	pthread_mutex_unlock(&s->mu);
	*idp = id;
	return 0;
}

int bs_incref(struct array *a, uint32_t id, uint32_t n)
{
	/* The caller holds a map entry referencing id, so ref >= 1 and the
	 * block cannot be freed under us: no shard lock needed. */
	struct blk *r = bs_rec(a, id);
	uint32_t old = atomic_load(&r->ref);
	do {
		if (old >= BLK_REF_MAX - n)
			return -EOVERFLOW;
	} while (!atomic_compare_exchange_weak(&r->ref, &old, old + n));
	if (old == 1)
		atomic_fetch_sub(&a->shards[r->shard].single_ref, 1);
	return 0;
}

int bs_ref_more(struct array *a, uint32_t id, uint32_t *out)
{
	*out = id;
	if (bs_incref(a, id, 1) == 0)
		return 0;
	/* Saturated: reference (or create) another block with this content. */
	return bs_ref_content(a, bs_data(a, id), out);
}

/* Remove id (hash h) from the index with backward-shift deletion. */
static void index_remove(struct shard *s, uint64_t h, uint32_t id)
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

void bs_unref(struct array *a, uint32_t id)
{
	struct blk *r = bs_rec(a, id);
	struct shard *s = &a->shards[r->shard];
	uint32_t old = atomic_load(&r->ref);
	while (old > 1) {
		if (atomic_compare_exchange_weak(&r->ref, &old, old - 1)) {
			if (old == 2)
				atomic_fetch_add(&s->single_ref, 1);
			return;
		}
	}
	/* Possibly the last reference: decide under the shard lock, where
	 * lookups that could take a new reference also run. */
	pthread_mutex_lock(&s->mu);
	old = atomic_fetch_sub(&r->ref, 1);
	if (old == 2) {
		atomic_fetch_add(&s->single_ref, 1);
	} else if (old == 1) {
		atomic_fetch_sub(&s->single_ref, 1);
		index_remove(s, a->fp(r->data, a->p.dedup_block), id);
		s->unique_blocks--;
		s->compressed_bytes -= r->csize;
		s->physical_bytes -= physical_size(&a->p, r->csize);
		space_block_freed(a, physical_size(&a->p, r->csize)); /* space hook */
		free(r->data);
		r->data = NULL;
		atomic_store(&r->ref, s->free_head);
		s->free_head = id;
	}
	pthread_mutex_unlock(&s->mu);
}

uint64_t bs_count_fragment(struct array *a, uint64_t h)
{
	struct shard *s = &a->shards[shard_of(h)];
	uint64_t n = 0;
	pthread_mutex_lock(&s->mu);
	for (uint32_t i = 0; i < s->cap; i++)
		n += s->id[i] && s->hash[i] == h;
	pthread_mutex_unlock(&s->mu);
	return n;
}
