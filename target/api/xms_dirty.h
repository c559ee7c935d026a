/* xms_dirty.h — what changed in the XMS model since it was last stored
 * (--state-dir): the objects added, changed and removed, by type and
 * index.  A save writes the records of those objects alone (xms_store.c),
 * so its cost follows the change, not the model's size (issue 21: finding
 * the changes by serialising every object made each POST's CPU grow with
 * the volumes).
 *
 * The rule: whoever changes a stored field of an object (any field of
 * xms_model.h but the runtime ones: be, lu, perf, the limits) marks it with
 * xms_model_changed.  The model's own adds, deletes and name setters
 * (xms_*_set_name, xms_lunmap_set) mark themselves, and a delete marks
 * what it changes in other objects (a volume leaving a consistency
 * group or a snapshot set, a snapshot set's snapshots forgetting it).  A
 * removed object's mark is what deletes its record: the save finds it
 * gone.  Marks outlive a request that fails halfway (what it changed is
 * still written, by the next save that succeeds).  Tests check the rule:
 * LUNLAB_XMS_STORE_CHECK=1 compares every stored record with the whole
 * model after each save (xms_store.h). */
#ifndef LUNLAB_XMS_DIRTY_H
#define LUNLAB_XMS_DIRTY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* the model's object types, in the order of its stored document */
enum xms_kind {
	XMS_KIND_CLUSTER,
	XMS_KIND_VOLUME,
	XMS_KIND_SNAPSET,
	XMS_KIND_CG,
	XMS_KIND_IG,
	XMS_KIND_INITIATOR,
	XMS_KIND_LUNMAP,
	XMS_KIND_TAG,
	XMS_KIND_INV_TAGGED,         /* tags on inventory objects (xms_model.h) */
	XMS_KINDS
};

struct xms_dirty {
	struct {
		uint64_t *v;
		size_t n, cap;
	} of[XMS_KINDS];  /* marked indexes, in marking order, repeats allowed */
	bool all;         /* every object (a mark that found no memory; a model stored whole) */
};

struct xms_model;

/* the type's key in the stored document and its records ("volumes", ...) */
const char *xms_kind_name(enum xms_kind k);

/* index of kind k was added, changed or removed.  Never fails: out of
 * memory it marks everything (the next save writes the whole model). */
void xms_model_changed(struct xms_model *m, enum xms_kind k, uint64_t index);
/* every object: the next save writes the whole model */
void xms_model_changed_all(struct xms_model *m);

bool xms_dirty_all(const struct xms_model *m);
/* the marked indexes of kind k, sorted, each once (the pointer is valid
 * until the next mark or clear) */
const uint64_t *xms_dirty_of(struct xms_model *m, enum xms_kind k, size_t *n);
/* how many marks in all (repeats counted) */
size_t xms_dirty_count(const struct xms_model *m);
/* after a save that stored them */
void xms_dirty_clear(struct xms_model *m);
void xms_dirty_free(struct xms_dirty *d);

#endif
