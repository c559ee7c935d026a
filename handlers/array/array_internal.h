/* array_internal.h — one emulated array as the registry (array.c) holds it:
 * its parameters, its block store and its volumes.  The array is the top of
 * the store's layers:
 *
 *   array (array.c: registry, volume list, figures; space.c: capacity, through
 *          the block store's space hooks; volume_names.c, snapshot.c: named volumes)
 *     -> volumes (volume_*.c) -> block store (block_store.c) -> payloads (payload_*.c)
 *   accounting (block_account.c) consumes the block store's backlog
 *
 * Nothing outside handlers/array/ includes this (but tests and bench/array). */
#ifndef LUNLAB_ARRAY_INTERNAL_H
#define LUNLAB_ARRAY_INTERNAL_H

#include <pthread.h>

#include "handlers/array/array_admin.h"
#include "handlers/array/block_store.h"
#include "handlers/array/volume.h"
#include "handlers/array/space.h"
#include "handlers/array/volume_internal.h"

struct array {
	char *name;
	struct array_params p;
	int users;                       /* registry refcount, under registry lock */
	struct array *next;              /* registry list */
	struct block_store *bs;
	pthread_mutex_t vol_mu;          /* volume list (create/destroy/stats), names, attached */
	struct volume *vols;
	struct space space;              /* physical capacity and use (space.c) */
	char profile[32];                /* profile of the LU that created it ("" if none said) */
};

/* array.c: a volume of a not on its list yet (volume_create = alloc + link;
 * link under a->vol_mu). */
struct volume *array_vol_alloc(struct array *a, uint64_t size_bytes, uint32_t lba_size);
void array_vol_link(struct array *a, struct volume *v);

/* array.c: a malloc'd one-line message (NULL when out of memory), for the
 * *err of the array layer's functions. */
char *array_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* volume_names.c: the named volume called name, or NULL (caller holds a->vol_mu). */
struct volume *vn_find(struct array *a, const char *name);

#endif
