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
	struct array_state *state;       /* kept in a state directory (array_state.c); NULL: memory */
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

/* array_state.c, for array.c: open/close the state of a new/last array */
struct array_state;
int array_state_attach(struct array *a, const char *state_dir, const char *profile, char **err);
void array_state_detach(struct array *a);
const char *array_state_dir(const struct array *a);
/* array.c, under a->vol_mu: a volume joins the array's list (it gets its id
 * in the state), or leaves it for good (its rows go at the next commit) */
void array_state_vol_new(struct array *a, struct volume *v);
void array_state_vol_gone(struct array *a, struct volume *v);
/* array.c, for array_state_check: an array outside the registry and
 * without accounting workers, to load a state into and throw away */
struct array *array_check_new(const char *name, const struct array_params *p, char **err);
void array_check_free(struct array *a);

#endif
