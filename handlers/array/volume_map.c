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
