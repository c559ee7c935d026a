/* volume_map.c — a volume's thin map: block index -> 32-bit block id, in
 * leaves of MAP_LEAF_ENTRIES ids allocated on first write, so an unwritten
 * 2 TiB volume costs one pointer per 64 MiB (x2) of address space.
 * Entries change only under the block's stripe lock; the leaf pointer is
 * installed by CAS because two stripes share a leaf. */
#include <errno.h>
#include <stdlib.h>

#include "handlers/array/volume_internal.h"

uint32_t map_get(const struct volume *v, uint64_t b)
{
	uint32_t *leaf = atomic_load_explicit(&v->leaves[b >> MAP_LEAF_SHIFT], memory_order_acquire);
	if (!leaf)
		return 0;
	return __atomic_load_n(&leaf[b & (MAP_LEAF_ENTRIES - 1)], __ATOMIC_RELAXED);
}

int map_set(struct volume *v, uint64_t b, uint32_t id, uint32_t *old)
{
	_Atomic(uint32_t *) *lp = &v->leaves[b >> MAP_LEAF_SHIFT];
	uint32_t *leaf = atomic_load_explicit(lp, memory_order_acquire);
	if (!leaf) {
		if (!id) {
			*old = 0;
			return 0; /* unmapping an unwritten leaf: nothing to do */
		}
		uint32_t *fresh = calloc(MAP_LEAF_ENTRIES, sizeof(uint32_t));
		if (!fresh)
			return -ENOMEM;
		if (atomic_compare_exchange_strong(lp, &leaf, fresh)) {
			leaf = fresh;
			atomic_fetch_add(&v->meta_bytes, MAP_LEAF_ENTRIES * sizeof(uint32_t));
		} else {
			free(fresh);
		}
	}
	uint32_t *e = &leaf[b & (MAP_LEAF_ENTRIES - 1)];
	*old = __atomic_load_n(e, __ATOMIC_RELAXED);
	__atomic_store_n(e, id, __ATOMIC_RELAXED);
	if (v->pdirty && *old != id) {
		uint64_t c = b >> VOL_PCHUNK_SHIFT, bit = 1ull << (c % 64);

		if (!(atomic_load_explicit(&v->pdirty[c / 64], memory_order_relaxed) & bit))
			atomic_fetch_or_explicit(&v->pdirty[c / 64], bit, memory_order_relaxed);
	}
	return 0;
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
	_Atomic uint64_t *nb = realloc(v->pdirty, (n ? n : 1) * sizeof(*nb));
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

	for (uint64_t w = 0; w < v->pdirty_words; w++) {
		uint64_t bits = atomic_exchange_explicit(&v->pdirty[w], 0, memory_order_relaxed);

		for (uint64_t m = bits; m; m &= m - 1) {
			uint64_t idx = w * 64 + (uint64_t)__builtin_ctzll(m);
			int rc;

			if (idx >= nchunks)
				continue;
			if ((rc = fn(ctx, idx)) != 0) {
				atomic_fetch_or(&v->pdirty[w], m);
				return rc;
			}
		}
	}
	return 0;
}

void map_persist_remark(struct volume *v, uint64_t idx)
{
	if (v->pdirty && idx / 64 < v->pdirty_words)
		atomic_fetch_or(&v->pdirty[idx / 64], 1ull << (idx % 64));
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
 * entry at or beyond new_nblocks. */
int map_resize(struct volume *v, uint64_t new_nblocks)
{
	uint64_t n = (new_nblocks + MAP_LEAF_ENTRIES - 1) >> MAP_LEAF_SHIFT;
	if (n < 1)
		n = 1;
	if (n < v->nleaves) {
		for (uint64_t i = n; i < v->nleaves; i++) {
			uint32_t *leaf = atomic_load(&v->leaves[i]);
			if (leaf) {
				free(leaf);
				atomic_fetch_sub(&v->meta_bytes, MAP_LEAF_ENTRIES * sizeof(uint32_t));
			}
		}
	}
	if (n != v->nleaves) {
		_Atomic(uint32_t *) *nl = realloc(v->leaves, n * sizeof(*nl));
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
	uint64_t n = 0;

	pthread_rwlock_rdlock(&v->resize_lock); /* the map stays in place */
	for (uint64_t l = 0; l < v->nleaves; l++) {
		uint32_t *leaf = atomic_load(&v->leaves[l]);
		if (!leaf)
			continue;
		for (uint32_t i = 0; i < MAP_LEAF_ENTRIES; i++) {
			uint32_t id = __atomic_load_n(&leaf[i], __ATOMIC_RELAXED);
			if (id && atomic_load_explicit(&bs_rec(v->bs, id)->ref, memory_order_relaxed) == 1)
				n++;
		}
	}
	pthread_rwlock_unlock(&v->resize_lock);
	return n;
}
