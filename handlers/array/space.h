/* space.h — the physical space of one array: what is in use, what commands
 * in flight have set aside, the capacity, the thin-provisioning soft
 * threshold and the events the SCSI layer turns into unit attentions
 * (docs/accounting.md "Physical capacity").
 *
 * It consumes the block store's space hooks (block_store.h): a new block
 * counts its worst case (dedup_block bytes) and may be refused with -ENOSPC;
 * once its compressed size is known it counts its physical size; a freed
 * block gives back what it counted.  "Used" is thus an upper bound of the
 * physical space at every instant, exact once the accounting backlog is
 * drained.  A command that creates blocks only after it has changed map
 * entries (the read-modify-write of partial blocks) reserves their worst
 * case first (bs_reserve), so a full array refuses it before any entry
 * changes and no acknowledged write is ever half-applied.  Internal to
 * handlers/array (array_internal.h includes it). */
#ifndef LUNLAB_ARRAY_SPACE_H
#define LUNLAB_ARRAY_SPACE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "handlers/array/array_admin.h"

struct array;

struct space {
	_Atomic uint64_t used;      /* bytes counted in use (see above) */
	_Atomic uint64_t held;      /* used + reserved: what a new block is checked against */
	_Atomic uint64_t capacity;  /* bytes; 0 = not set: no limit (arrays made outside a LU) */
	_Atomic uint64_t soft;      /* bytes; 0 = no soft threshold */
	_Atomic uint64_t gen[ARRAY_EVENTS]; /* array_event_gen */
	atomic_bool above;          /* at or over the soft threshold, crossing counted */
	pthread_mutex_t mu;         /* settings: capacity, soft, the pins */
	bool cap_pinned;            /* set by array_capacity= or array_set_capacity */
	bool soft_pinned;           /* set by soft_threshold= or array_set_capacity */
};

void space_init(struct space *s);
/* Bytes array ctx can take before it is full or crosses its soft threshold
 * (UINT64_MAX: no capacity set); block_account.h's headroom. */
uint64_t space_headroom(void *ctx);
void space_fini(struct space *s);
/* Install the array's space hooks in its block store (before the first write). */
void space_attach(struct array *a);

#endif
