/* array_internal.h — one emulated array as the registry (array.c) holds it:
 * its parameters, its block store and its volumes.  The array is the top of
 * the store's layers:
 *
 *   array (array.c: registry, volume list, figures)
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
#include "handlers/array/volume_internal.h"

struct array {
	char *name;
	struct array_params p;
	int users;                       /* registry refcount, under registry lock */
	struct array *next;              /* registry list */
	struct block_store *bs;
	pthread_mutex_t vol_mu;          /* volume list (create/destroy/stats) */
	struct volume *vols;
	struct array_state *state;       /* kept in a state directory (array_state.c); NULL: memory */
};

/* array_state.c, for array.c: open/close the state of a new/last array */
struct array_state;
int array_state_attach(struct array *a, const char *state_dir, const char *profile, char **err);
void array_state_detach(struct array *a);
const char *array_state_dir(const struct array *a);
/* array.c, for array_state_check: an array outside the registry and
 * without accounting workers, to load a state into and throw away */
struct array *array_check_new(const char *name, const struct array_params *p, char **err);
void array_check_free(struct array *a);

#endif
