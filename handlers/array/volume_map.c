/* volume_map.c — a volume's thin map: block index -> 32-bit block id.  The
 * map is a table of leaves (MAP_LEAF_CHUNKS slots each, allocated on first
 * write, so an unwritten 2 TiB volume costs one pointer per 64 MiB at x2),
 * each slot pointing at a map chunk of MAP_CHUNK_ENTRIES ids or NULL.
 *
 * Chunks are shared: an aligned EXTENDED COPY or a snapshot points the
 * destination's slot at the source's chunk (map_share_chunk), so a clone
 * costs a pointer per 4 MiB, not 4 B per block.  A shared chunk never
 * changes; the first write through one slot copies it (copy-on-write,
 * map_set).  That test is safe without more locking: a chunk gains a share
 * only by a copy from a slot that holds it, under that slot's stripe, and a
 * writer holds the stripe of the slot it writes through; a chunk that drops
 * to one share is only reachable through that one slot.  Readers of a
 * volume hold the stripe of the chunk they read, and a writer replaces a
 * chunk only under the same stripe, so no reader sees a chunk go.
 *
 * Block references count chunk holdings (volume_internal.h struct
 * map_chunk): a chunk holds one per non-zero entry, plus one more per
 * entry while it is shared, taken when its second share comes and dropped
 * when it goes back to one.  So a block's count is 1 exactly when one
 * entry of one volume maps it, as before sharing; unique and physical
 * space never move on a copy, and logical space is each volume's count of
 * mapped entries (a shared chunk's entries count in every volume holding
 * it). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/array/volume_internal.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

static map_slot *slot_of(const struct volume *v, uint64_t c)
{
	map_slot *leaf = atomic_load_explicit(&v->leaves[c / MAP_LEAF_CHUNKS], memory_order_acquire);
	return leaf ? &leaf[c % MAP_LEAF_CHUNKS] : NULL;
}

struct map_chunk *map_chunk_at(const struct volume *v, uint64_t c)
{
	map_slot *sl = slot_of(v, c);
	return sl ? atomic_load_explicit(sl, memory_order_acquire) : NULL;
}

uint32_t map_get(const struct volume *v, uint64_t b)
{
	struct map_chunk *c = map_chunk_at(v, b >> MAP_CHUNK_SHIFT);
	if (!c)
		return 0;
	return __atomic_load_n(&c->ids[b & (MAP_CHUNK_ENTRIES - 1)], __ATOMIC_RELAXED);
}

uint32_t map_chunk_mapped(const struct map_chunk *c)
{
	uint32_t n = 0;
	for (unsigned i = 0; i < MAP_CHUNK_ENTRIES; i++)
		n += __atomic_load_n(&c->ids[i], __ATOMIC_RELAXED) != 0;
	return n;
}

static struct map_chunk *chunk_new(struct block_store *bs)
{
	struct map_chunk *c = bs_meta_calloc(1, sizeof(*c));
	if (c) {
		atomic_init(&c->shares, 1);
		atomic_fetch_add(&bs->map_chunk_bytes, sizeof(*c));
	}
	return c;
}

static void chunk_unref_all(struct block_store *bs, const struct map_chunk *c)
{
	for (unsigned i = 0; i < MAP_CHUNK_ENTRIES; i++)
		if (c->ids[i])
			bs_unref(bs, c->ids[i]);
}

static void chunk_free(struct block_store *bs, struct map_chunk *c)
{
	free(c);
	atomic_fetch_sub(&bs->map_chunk_bytes, sizeof(*c));
}

/* ---- the index of chunks by content ----
 * A copy whose source and destination offsets differ within a chunk cannot
 * point a destination slot at one source chunk: each destination chunk is
 * made of the tail of one source chunk and the head of the next.  But every
 * clone of one template at the same offset within a chunk makes the same
 * chunks (seed 000's template is 1.5625 MiB off the 4 MiB grid: its clones
 * fall at 64 offsets), so a completed one is published here by its ids'
 * hash, and the next clone's equal chunk is replaced by a share of it
 * (map_dedup_chunk).  A published chunk with one holder is only written in
 * place once it is off the index (map_set takes it off first), and a chunk
 * found here gains its share under the index's lock, so a sharer never
 * takes references on ids that change; chunk_put takes a chunk off before
 * it lets go, so nothing found here is being freed. */
static int index_grow(struct block_store *bs)
{
	uint64_t cap = bs->map_index_cap, ncap = cap ? cap * 2 : 1024;
	struct map_chunk **nt = bs_meta_calloc(ncap, sizeof(*nt));

	if (!nt)
		return -ENOMEM;
	for (uint64_t i = 0; i < cap; i++) {
		for (struct map_chunk *m = bs->map_index[i], *next; m; m = next) {
			next = m->inext;
			m->inext = nt[m->ihash & (ncap - 1)];
			nt[m->ihash & (ncap - 1)] = m;
		}
	}
	bs_meta_free(bs->map_index);
	bs->map_index = nt;
	bs->map_index_cap = ncap;
	atomic_fetch_add(&bs->map_index_bytes, (ncap - cap) * sizeof(*nt));
	return 0;
}

/* under map_index_mu: the published chunk equal to ids (hash h), or NULL */
static struct map_chunk *index_find(struct block_store *bs, uint64_t h, const uint32_t *ids)
{
	if (!bs->map_index_cap)
		return NULL;
	for (struct map_chunk *m = bs->map_index[h & (bs->map_index_cap - 1)]; m; m = m->inext)
		if (m->ihash == h && !memcmp(m->ids, ids, sizeof(m->ids)))
			return m;
	return NULL;
}

/* under map_index_mu: publish c (hash h); -ENOMEM leaves it off */
static int index_insert(struct block_store *bs, struct map_chunk *c, uint64_t h)
{
	if ((bs->map_index_n + 1) * 4 > bs->map_index_cap * 3 && index_grow(bs) != 0)
		return -ENOMEM;
	c->ihash = h;
	c->inext = bs->map_index[h & (bs->map_index_cap - 1)];
	bs->map_index[h & (bs->map_index_cap - 1)] = c;
	bs->map_index_n++;
	c->precord = bs->persistent;
	atomic_store(&c->indexed, true);
	return 0;
}

/* Take c off the index (it is about to change or go); an empty index gives
 * its table back, so a store that no longer has such clones holds none. */
static void chunk_unpublish(struct block_store *bs, struct map_chunk *c)
{
	pthread_mutex_lock(&bs->map_index_mu);
	if (atomic_load(&c->indexed)) {
		struct map_chunk **pp = &bs->map_index[c->ihash & (bs->map_index_cap - 1)];

		while (*pp != c)
			pp = &(*pp)->inext;
		*pp = c->inext;
		atomic_store(&c->indexed, false);
		if (--bs->map_index_n == 0) {
			free(bs->map_index);
			bs->map_index = NULL;
			atomic_fetch_sub(&bs->map_index_bytes, bs->map_index_cap * sizeof(*bs->map_index));
			bs->map_index_cap = 0;
		}
	}
	pthread_mutex_unlock(&bs->map_index_mu);
}

/* One slot lets go of c (the caller holds that slot's stripe): the last
 * frees it with its references; the one that leaves a single holder drops
 * the extra reference of sharing.  The entries are read before the count
 * drops: once it is 1 the remaining holder may write in place at once (and
 * release the blocks it replaces), so what the extra references were taken
 * on must be known first.  While c has another holder its entries cannot
 * change (no writer writes in place into a shared chunk); while it has none
 * nobody else writes it.  counted: c's non-zero entries if the caller
 * counted them while holding it, else -1. */
static void chunk_put_counted(struct block_store *bs, struct map_chunk *c, int64_t counted)
{
	uint32_t ids[MAP_CHUNK_ENTRIES], mapped = 0;

	if (atomic_load(&c->indexed)) /* first: nobody may find it from now on */
		chunk_unpublish(bs, c);
	bool shared = atomic_load(&c->shares) >= 2; /* stays so until we let go */

	if (shared) {
		memcpy(ids, c->ids, sizeof(ids));
		if (counted >= 0)
			mapped = (uint32_t)counted;
		else
			for (unsigned i = 0; i < MAP_CHUNK_ENTRIES; i++)
				mapped += ids[i] != 0;
	}
	uint32_t was = atomic_fetch_sub(&c->shares, 1);
	if (was >= 3) {
		atomic_fetch_sub(&bs->map_excess, mapped);
	} else if (was == 2) {
		for (unsigned i = 0; i < MAP_CHUNK_ENTRIES; i++)
			if (ids[i])
				bs_unref(bs, ids[i]);
	} else if (was == 1) {
		chunk_unref_all(bs, c);
		if (c->pcid && bs->persistent) {
			/* its row goes with the next commit (map_persist_gone) */
			struct map_chunk *h = atomic_load(&bs->map_graveyard);
			do
				c->pnext = h;
			while (!atomic_compare_exchange_weak(&bs->map_graveyard, &h, c));
		} else {
			chunk_free(bs, c);
		}
	}
}

static void chunk_put(struct block_store *bs, struct map_chunk *c)
{
	chunk_put_counted(bs, c, -1);
}

/* One more slot holds c (the caller holds it through another slot); the
 * second share takes the extra reference of each block.  *first: this was
 * the second share. */
static int chunk_get(struct block_store *bs, struct map_chunk *c, bool *first)
{
	uint32_t was = atomic_fetch_add(&c->shares, 1);
	*first = was == 1;
	if (was >= 2) {
		atomic_fetch_add(&bs->map_excess, map_chunk_mapped(c));
		return 0;
	}
	for (unsigned i = 0; i < MAP_CHUNK_ENTRIES; i++) {
		if (c->ids[i] && bs_incref(bs, c->ids[i], 1) != 0) {
			/* a saturated count (> 64 TiB of one block): do not share */
			while (i-- > 0)
				if (c->ids[i])
					bs_unref(bs, c->ids[i]);
			atomic_fetch_sub(&c->shares, 1);
			return -EOVERFLOW;
		}
	}
	return 0;
}

/* c's own private copy, each block one more reference (a saturated count
 * stores the content again, as any copy would). */
static struct map_chunk *chunk_copy(struct block_store *bs, const struct map_chunk *c, int *err)
{
	struct map_chunk *n = chunk_new(bs);
	if (!n) {
		*err = -ENOMEM;
		return NULL;
	}
	for (unsigned i = 0; i < MAP_CHUNK_ENTRIES; i++) {
		if (c->ids[i] && (*err = bs_ref_more(bs, c->ids[i], &n->ids[i])) != 0) {
			n->ids[i] = 0;
			chunk_put(bs, n);
			return NULL;
		}
	}
	return n;
}

static void mark_dirty(struct volume *v, uint64_t c)
{
	if (!v->pdirty)
		return;
	uint64_t bit = 1ull << (c % 64);

	if (!(atomic_load_explicit(&v->pdirty[c / 64], memory_order_relaxed) & bit)) {
		atomic_fetch_or_explicit(&v->pdirty[c / 64], bit, memory_order_relaxed);
		atomic_store_explicit(&v->pany, true, memory_order_relaxed);
	}
}

/* The slot of chunk c, its leaf made if needed (leaves are installed by CAS:
 * the stripes of a leaf's 16 chunks differ). */
static map_slot *slot_make(struct volume *v, uint64_t c)
{
	_Atomic(map_slot *) *lp = &v->leaves[c / MAP_LEAF_CHUNKS];
	map_slot *leaf = atomic_load_explicit(lp, memory_order_acquire);
	if (!leaf) {
		map_slot *fresh = bs_meta_calloc(MAP_LEAF_CHUNKS, sizeof(*fresh));
		if (!fresh)
			return NULL;
		if (atomic_compare_exchange_strong(lp, &leaf, fresh)) {
			leaf = fresh;
			atomic_fetch_add(&v->meta_bytes, MAP_LEAF_CHUNKS * sizeof(*fresh));
		} else {
			free(fresh);
		}
	}
	return &leaf[c % MAP_LEAF_CHUNKS];
}

int map_set(struct volume *v, uint64_t b, uint32_t id, uint32_t *old)
{
	uint64_t ci = b >> MAP_CHUNK_SHIFT;
	map_slot *sl = id ? slot_make(v, ci) : slot_of(v, ci);
	struct map_chunk *c = sl ? atomic_load_explicit(sl, memory_order_acquire) : NULL;

	if (!sl && id)
		return -ENOMEM;
	if (!c) {
		if (!id) {
			*old = 0;
			return 0; /* unmapping an unwritten chunk: nothing to do */
		}
		if (!(c = chunk_new(v->bs)))
			return -ENOMEM;
		atomic_store_explicit(sl, c, memory_order_release);
	} else {
		uint32_t *e = &c->ids[b & (MAP_CHUNK_ENTRIES - 1)];
		bool shared = atomic_load_explicit(&c->shares, memory_order_acquire) > 1;

		if (!shared && atomic_load(&c->indexed) && *e != id) {
			/* off the index before it changes in place; a share taken
			 * through it meanwhile is seen below */
			chunk_unpublish(v->bs, c);
			shared = atomic_load(&c->shares) > 1;
		}
		if (shared) {
			int err = 0;
			if (*e == id) {
				*old = id; /* nothing changes: keep sharing */
				return 0;
			}
			struct map_chunk *n = chunk_copy(v->bs, c, &err);
			if (!n)
				return err;
			atomic_store_explicit(sl, n, memory_order_release);
			chunk_put(v->bs, c);
			c = n;
		}
	}
	uint32_t *e = &c->ids[b & (MAP_CHUNK_ENTRIES - 1)];
	*old = __atomic_load_n(e, __ATOMIC_RELAXED);
	__atomic_store_n(e, id, __ATOMIC_RELAXED);
	if (*old != id) {
		c->pchanged = true;
		mark_dirty(v, b >> VOL_PCHUNK_SHIFT);
	}
	return 0;
}

int map_share_chunk(struct volume *dst, uint64_t dc, struct volume *src, uint64_t sc, int64_t *delta)
{
	struct map_chunk *c = map_chunk_at(src, sc);
	uint32_t n = c ? map_chunk_mapped(c) : 0;
	if (!n) {
		map_drop_chunk(dst, dc, delta);
		return 0;
	}
	map_slot *sl = slot_make(dst, dc);
	if (!sl)
		return -ENOMEM;
	bool first;
	int r = chunk_get(src->bs, c, &first);
	if (r)
		return r;
	if (first)
		mark_dirty(src, sc); /* its row must name the shared chunk now */
	struct map_chunk *old = atomic_load_explicit(sl, memory_order_acquire);
	atomic_store_explicit(sl, c, memory_order_release);
	*delta += n;
	if (old) {
		*delta -= map_chunk_mapped(old);
		chunk_put(dst->bs, old);
	}
	mark_dirty(dst, dc);
	return 0;
}

void map_dedup_chunk(struct volume *v, uint64_t ci)
{
	struct block_store *bs = v->bs;
	map_slot *sl = slot_of(v, ci);
	struct map_chunk *c = sl ? atomic_load_explicit(sl, memory_order_acquire) : NULL, *m;

	/* a shared chunk is someone's already; an all-zero one costs nothing to keep */
	if (!c || atomic_load(&c->indexed) || atomic_load(&c->shares) != 1 || !map_chunk_mapped(c))
		return;
	uint64_t h = XXH3_64bits(c->ids, sizeof(c->ids));
	pthread_mutex_lock(&bs->map_index_mu);
	if ((m = index_find(bs, h, c->ids)) != NULL) {
		bool first;
		int r = chunk_get(bs, m, &first); /* under the lock: m is not changing nor going */

		pthread_mutex_unlock(&bs->map_index_mu);
		if (r)
			return; /* a saturated count: keep the own copy */
		atomic_store_explicit(sl, m, memory_order_release);
		chunk_put(bs, c);
		mark_dirty(v, ci);
		return;
	}
	(void)index_insert(bs, c, h);
	pthread_mutex_unlock(&bs->map_index_mu);
	mark_dirty(v, ci); /* its row names it by cid from now on (precord) */
}

void map_drop_chunk(struct volume *v, uint64_t c, int64_t *delta)
{
	map_slot *sl = slot_of(v, c);
	struct map_chunk *old = sl ? atomic_load_explicit(sl, memory_order_acquire) : NULL;
	if (!old)
		return;
	atomic_store_explicit(sl, NULL, memory_order_release);
	/* counted once: while we still hold it its entries are as chunk_put
	 * would count them (shared: nobody writes them; ours alone: only we
	 * would); dropping every chunk of thousands of clones (vol_fini, the
	 * end of --check-state) counted each slot's 256 entries twice */
	uint32_t ids[MAP_CHUNK_ENTRIES], n = 0;
	memcpy(ids, old->ids, sizeof(ids)); /* no writer: plain reads, counted in vector */
	for (unsigned i = 0; i < MAP_CHUNK_ENTRIES; i++)
		n += ids[i] != 0;
	*delta -= n;
	chunk_put_counted(v->bs, old, n);
	mark_dirty(v, c);
}

int map_persist_chunk(struct volume *v, uint64_t idx, uint32_t *ids, uint64_t *cid, bool *content,
		      uint64_t *next_cid, bool all)
{
	struct map_chunk *c = idx < ((v->nblocks + MAP_CHUNK_ENTRIES - 1) >> MAP_CHUNK_SHIFT) ? map_chunk_at(v, idx) : NULL;

	if (!c || (atomic_load(&c->shares) == 1 && !c->pcid && !c->precord)) {
		map_chunk_get(v, idx, ids);
		return 0;
	}
	if (!c->pcid) {
		c->pcid = ++*next_cid;
		c->pchanged = true;
	}
	*cid = c->pcid;
	*content = c->pchanged || all;
	if (*content)
		memcpy(ids, c->ids, sizeof(c->ids));
	c->pchanged = false;
	return 1;
}

unsigned map_persist_refs(const struct volume *v, uint64_t first, unsigned n, uint16_t *off, uint64_t *cid)
{
	uint64_t nchunks = (v->nblocks + MAP_CHUNK_ENTRIES - 1) >> MAP_CHUNK_SHIFT;
	unsigned k = 0;

	for (unsigned i = 0; i < n && first + i < nchunks; i++) {
		struct map_chunk *c = map_chunk_at(v, first + i);

		if (c && c->pcid) {
			off[k] = (uint16_t)i;
			cid[k++] = c->pcid;
		}
	}
	return k;
}

int map_persist_gone(struct block_store *bs, int (*fn)(void *ctx, uint64_t cid), void *ctx)
{
	struct map_chunk *c = atomic_exchange(&bs->map_graveyard, NULL);
	int rc = 0;

	while (c) {
		struct map_chunk *next = c->pnext;

		if (!rc)
			rc = fn(ctx, c->pcid);
		if (rc) { /* back for the next commit */
			struct map_chunk *h = atomic_load(&bs->map_graveyard);
			do
				c->pnext = h;
			while (!atomic_compare_exchange_weak(&bs->map_graveyard, &h, c));
		} else {
			chunk_free(bs, c);
		}
		c = next;
	}
	return rc;
}

struct map_chunk *map_load_shared(struct block_store *bs, uint64_t cid, const uint32_t *ids)
{
	struct map_chunk *c = chunk_new(bs);

	if (c) {
		atomic_store(&c->shares, 0);
		c->pcid = cid;
		memcpy(c->ids, ids, sizeof(c->ids));
		c->pmapped = (uint16_t)map_chunk_mapped(c);
	}
	return c;
}

int map_load_ref(struct volume *v, uint64_t idx, struct map_chunk *c)
{
	if (idx >= ((v->nblocks + MAP_CHUNK_ENTRIES - 1) >> MAP_CHUNK_SHIFT))
		return -ERANGE;
	map_slot *sl = slot_make(v, idx);
	if (!sl)
		return -ENOMEM;
	if (atomic_load(sl))
		return -EEXIST;
	atomic_store(sl, c);
	atomic_fetch_add(&c->shares, 1);
	atomic_fetch_add(&v->mapped, c->pmapped);
	return 0;
}

bool map_load_shared_done(struct block_store *bs, struct map_chunk *c)
{
	uint32_t s = atomic_load(&c->shares);

	if (!s) {
		chunk_free(bs, c);
		return false;
	}
	if (s >= 3)
		atomic_fetch_add(&bs->map_excess, (uint64_t)c->pmapped * (s - 2));
	/* published again, so clones made after a restart share it too */
	uint64_t h = XXH3_64bits(c->ids, sizeof(c->ids));
	pthread_mutex_lock(&bs->map_index_mu);
	if (c->pmapped && !index_find(bs, h, c->ids))
		(void)index_insert(bs, c, h);
	pthread_mutex_unlock(&bs->map_index_mu);
	return true;
}

static uint64_t pwords(uint64_t nblocks)
{
	return ((nblocks + VOL_PCHUNK - 1) / VOL_PCHUNK + 63) / 64;
}

/* the bitmap for nblocks, kept marks and new words clear (caller: resize
 * lock for writing, or before the volume is used) */
static int pdirty_fit(struct volume *v, uint64_t nblocks)
{
	uint64_t n = pwords(nblocks);

	if (n == v->pdirty_words)
		return 0;
	_Atomic uint64_t *nb = bs_meta_realloc(v->pdirty, (n ? n : 1) * sizeof(*nb));
	if (!nb)
		return -ENOMEM;
	for (uint64_t i = v->pdirty_words; i < n; i++)
		atomic_init(&nb[i], 0);
	v->pdirty = nb;
	v->pdirty_words = n;
	return 0;
}

int map_persist_enable(struct volume *v)
{
	return pdirty_fit(v, v->nblocks);
}

int map_persist_collect(struct volume *v, int (*fn)(void *ctx, uint64_t idx), void *ctx)
{
	uint64_t nchunks = (v->nblocks + VOL_PCHUNK - 1) / VOL_PCHUNK;

	/* (a bit set from here on sets pany again after it: the next cut) */
	if (!atomic_load_explicit(&v->pany, memory_order_relaxed) ||
	    !atomic_exchange_explicit(&v->pany, false, memory_order_relaxed))
		return 0;
	for (uint64_t w = 0; w < v->pdirty_words; w++) {
		/* most words of most volumes are clear at a cut: a plain load
		 * skips them (no mutation runs during the cut, so nothing sets a
		 * bit between the load and the exchange) */
		if (!atomic_load_explicit(&v->pdirty[w], memory_order_relaxed))
			continue;
		uint64_t bits = atomic_exchange_explicit(&v->pdirty[w], 0, memory_order_relaxed);

		for (uint64_t m = bits; m; m &= m - 1) {
			uint64_t idx = w * 64 + (uint64_t)__builtin_ctzll(m);
			int rc;

			if (idx >= nchunks)
				continue;
			if ((rc = fn(ctx, idx)) != 0) {
				atomic_fetch_or(&v->pdirty[w], m);
				atomic_store(&v->pany, true);
				return rc;
			}
		}
	}
	return 0;
}

void map_persist_remark(struct volume *v, uint64_t idx)
{
	if (v->pdirty && idx / 64 < v->pdirty_words) {
		atomic_fetch_or(&v->pdirty[idx / 64], 1ull << (idx % 64));
		atomic_store(&v->pany, true);
	}
}

void vol_record_mark(struct volume *v)
{
	atomic_store(&v->precmark, true);
	atomic_store(&v->bs->recs_marked, true);
}

void map_chunk_get(const struct volume *v, uint64_t idx, uint32_t *ids)
{
	for (unsigned i = 0; i < VOL_PCHUNK; i++) {
		uint64_t b = idx * VOL_PCHUNK + i;

		ids[i] = b < v->nblocks ? map_get(v, b) : 0;
	}
}

int map_load_chunk(struct volume *v, uint64_t idx, const uint32_t *ids)
{
	int64_t mapped = 0;

	for (unsigned i = 0; i < VOL_PCHUNK; i++) {
		uint64_t b = idx * VOL_PCHUNK + i;
		uint32_t old;
		int r;

		if (!ids[i])
			continue;
		if (b >= v->nblocks)
			return -ERANGE;
		if ((r = map_set(v, b, ids[i], &old)) != 0)
			return r;
		mapped += old == 0;
	}
	atomic_fetch_add(&v->mapped, (uint64_t)mapped);
	return 0;
}

/* Caller holds resize_lock for writing and has already unmapped every
 * entry at or beyond new_nblocks (so the leaves past the end hold no chunk). */
int map_resize(struct volume *v, uint64_t new_nblocks)
{
	uint64_t n = (new_nblocks + MAP_LEAF_ENTRIES - 1) >> MAP_LEAF_SHIFT;
	if (n < 1)
		n = 1;
	if (n < v->nleaves) {
		for (uint64_t i = n; i < v->nleaves; i++) {
			map_slot *leaf = atomic_load(&v->leaves[i]);
			if (leaf) {
				free(leaf);
				atomic_fetch_sub(&v->meta_bytes, MAP_LEAF_CHUNKS * sizeof(*leaf));
			}
		}
	}
	if (n != v->nleaves) {
		_Atomic(map_slot *) *nl = bs_meta_realloc(v->leaves, n * sizeof(*nl));
		if (!nl)
			return -ENOMEM;
		for (uint64_t i = v->nleaves; i < n; i++)
			atomic_init(&nl[i], NULL);
		atomic_fetch_add(&v->meta_bytes, (n - v->nleaves) * sizeof(*nl)); /* wraps down on shrink */
		v->leaves = nl;
		v->nleaves = n;
	}
	if (v->pdirty && pdirty_fit(v, new_nblocks) != 0)
		return -ENOMEM;
	v->nblocks = new_nblocks;
	return 0;
}

/* After every chunk was dropped (vol_fini). */
void map_free(struct volume *v)
{
	for (uint64_t i = 0; i < v->nleaves; i++)
		free(atomic_load(&v->leaves[i]));
	free(v->leaves);
	v->leaves = NULL;
	v->nleaves = 0;
	free(v->pdirty);
	v->pdirty = NULL;
	v->pdirty_words = 0;
}

uint64_t vol_single_ref_entries(struct volume *v)
{
	uint64_t n = 0, nchunks = (v->nblocks + MAP_CHUNK_ENTRIES - 1) >> MAP_CHUNK_SHIFT;

	pthread_rwlock_rdlock(&v->resize_lock); /* the map stays in place */
	for (uint64_t ci = 0; ci < nchunks; ci++) {
		if (!(ci % MAP_LEAF_CHUNKS) && !atomic_load(&v->leaves[ci / MAP_LEAF_CHUNKS])) {
			ci += MAP_LEAF_CHUNKS - 1;
			continue;
		}
		/* the chunk's stripe: a writer may replace the chunk */
		pthread_rwlock_t *st = &v->stripes[(ci >> (LOCK_REGION_SHIFT - MAP_CHUNK_SHIFT)) % NSTRIPES];
		pthread_rwlock_rdlock(st);
		struct map_chunk *c = map_chunk_at(v, ci);
		for (uint32_t i = 0; c && i < MAP_CHUNK_ENTRIES; i++) {
			uint32_t id = __atomic_load_n(&c->ids[i], __ATOMIC_RELAXED);
			if (id && atomic_load_explicit(&bs_rec(v->bs, id)->ref, memory_order_relaxed) == 1)
				n++;
		}
		pthread_rwlock_unlock(st);
	}
	pthread_rwlock_unlock(&v->resize_lock);
	return n;
}
