/* array_internal.h — one emulated array as the registry (array.c) holds it:
 * its parameters, its block store and its volumes.  The store's layers, each
 * calling only those below it (tests/unit/array/layer_graph.py derives the
 * graph from the objects and fails the array-layers test on a circle):
 *
 *   named volumes (volume_names.c: attach/release, a LU's own volume;
 *                  snapshot.c; vol_hold.c: ODX holds, hidden volumes)
 *     -> registry (array.c)
 *       -> state directory (array_state.c: load, commit, sync, check)
 *         -> one array (array_core.c: its store, space, volume list, figures)
 *           -> space (space.c: capacity, through the block store's space hooks)
 *           -> volumes (volume_io.c -> volume_early.c -> range_store.c;
 *                       volume_copy.c, volume_map.c, range_lock.c)
 *             -> block store (block_store.c) -> payloads (payload_*.c)
 *   accounting (block_account.c) consumes the block store's backlog
 *   split_work.c calls nothing; the layer's *err messages come from
 *   ll_strf (include/lunlab/errf.h)
 *
 * A lower layer serves an upper one through hooks it installs (the block
 * store's space hooks, the volume list's hooks below), never by name.
 * Nothing outside handlers/array/ includes this (but tests and bench/array). */
#ifndef LUNLAB_ARRAY_INTERNAL_H
#define LUNLAB_ARRAY_INTERNAL_H

#include <pthread.h>

#include "handlers/array/array_admin.h"
#include "handlers/array/block_store.h"
#include "handlers/array/volume.h"
#include "handlers/array/space.h"
#include "handlers/array/volume_internal.h"

struct array;
struct volume;

/* What a state directory records of an array's volume list: a volume
 * joined it (it gets its id in the state) or left it for good (its rows go
 * at the next commit).  array_state.c installs them when it takes the
 * array; array_core.c calls them under a->vol_mu, so the array names no
 * layer above it.  Each does nothing while a->state is NULL. */
struct array_vol_hooks {
	void (*joined)(struct array *a, struct volume *v);
	void (*left)(struct array *a, struct volume *v);
};

struct array {
	char *name;
	struct array_params p;
	int users;                       /* registry refcount, under registry lock */
	struct array *next;              /* registry list */
	struct block_store *bs;
	pthread_mutex_t vol_mu;          /* volume list (create/destroy/stats), names, attached */
	struct volume *vols;
	/* the named volumes of vols by name (under vol_mu): a tsearch tree of
	 * &v->name, so vn_find is O(log n), not a walk of the list.  A name
	 * twice (a damaged state) is found as the list finds it, the newest;
	 * name_dups counts such links, names_partial says the tree missed one
	 * (out of memory): vn_find walks the list then. */
	void *by_name;
	size_t name_dups;
	bool names_partial;
	struct space space;              /* physical capacity and use (space.c) */
	char profile[32];                /* profile of the LU that created it ("" if none said) */
	struct array_state *state;       /* kept in a state directory (array_state.c); NULL: memory */
	const struct array_vol_hooks *vol_hooks; /* array_state.c's, once it kept a state; NULL: none */
};

/* array_core.c: one array, outside the registry and without accounting
 * workers (the registry adds both; array_state_check loads a state into one
 * and throws it away).  array_new validates p (NULL with *err). */
char *array_params_check(const struct array_params *p); /* NULL: good; else a message */
struct array *array_new(const char *name, const struct array_params *p, char **err);
void array_free(struct array *a);
/* array_core.c: a volume of a not on its list yet (volume_create = alloc +
 * link; link under a->vol_mu). */
struct volume *array_vol_alloc(struct array *a, uint64_t size_bytes, uint32_t lba_size);
void array_vol_link(struct array *a, struct volume *v);

/* array_core.c: the volume list's name index (a->by_name), kept by
 * array_vol_link and volume_destroy; the named volume called name, or NULL
 * (caller holds a->vol_mu) */
struct volume *array_vol_by_name(struct array *a, const char *name);
/* volume_names.c: the named volume called name, or NULL (caller holds a->vol_mu). */
struct volume *vn_find(struct array *a, const char *name);

/* array_state.c, for array.c and volume_names.c: open/close the state of a
 * new/last array */
struct array_state;
int array_state_attach(struct array *a, const char *state_dir, const char *profile, char **err);
void array_state_detach(struct array *a);
const char *array_state_dir(const struct array *a);

#endif
