/* space.h — the physical space of one array: what is in use, what commands
 * in flight have set aside, the capacity, the thin-provisioning soft
 * threshold and the events the SCSI layer turns into unit attentions
 * (docs/accounting.md "Physical capacity").
 *
 * The block store calls three hook points, nothing else:
 *   space_block_created()   a new unique block is about to be stored: it
 *                           counts its worst case (dedup_block bytes) and may
 *                           refuse with -ENOSPC;
 *   space_block_accounted() its compressed size is known: it now counts its
 *                           physical size (docs/accounting.md rule 5);
 *   space_block_freed()     its last reference is gone: what it counted is
 *                           given back (worst case if it was never accounted).
 * "Used" is thus an exact upper bound of the physical space at every instant.
 *
 * A command that may create blocks only after it has changed map entries (the
 * read-modify-write of partial blocks) reserves their worst case first
 * (space_reserve), so the decision to refuse it is taken before any entry
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

/* Space set aside by one command.  unchecked: blocks created through it are
 * never refused (deallocation: UNMAP, WRITE SAME of zeros, shrinking, whose
 * partial blocks need new content but the command frees more than it takes). */
struct space_resv {
	uint64_t left;
	bool unchecked;
};

void space_init(struct space *s);
void space_fini(struct space *s);

/* The hook points (struct array's dedup_block is the worst case). */
int space_block_created(struct array *a, struct space_resv *r);
void space_block_accounted(struct array *a, uint32_t physical);
void space_block_freed(struct array *a, uint32_t counted);

/* Set aside bytes for r (-ENOSPC when used + reserved + bytes > capacity);
 * space_release gives back what r did not use. */
int space_reserve(struct array *a, struct space_resv *r, uint64_t bytes);
void space_release(struct array *a, struct space_resv *r);

#endif
