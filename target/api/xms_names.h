/* xms_names.h — the model's name index: which objects of a kind carry a
 * name in a cluster, found in O(log n) (a red-black tree: glibc's tsearch,
 * <search.h>) instead of by comparing every object's name.
 *
 * Each key is (kind, cluster, name) and holds the ascending indexes of the
 * objects it names: one, unless a stored model brought duplicates (the
 * lookups then answer the lowest index, as the scan of the index-ordered
 * arrays did).  An object of cluster C is kept under (kind, C, name) and
 * under (kind, 0, name): cluster 0 is the every-cluster scope, so a lookup
 * without a cluster is one search too.  Initiators' iSCSI names
 * (XMS_NAME_PORT) compare without case, as iSCSI names do.
 *
 * The model (xms_model.c) keeps it: every add, rename, move between
 * clusters and delete goes through it.  Plain data; the caller holds the
 * model lock. */
#ifndef LUNLAB_XMS_NAMES_H
#define LUNLAB_XMS_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum xms_name_kind {
	XMS_NAME_VOLUME,     /* volumes and snapshots: one namespace */
	XMS_NAME_SNAPSET,
	XMS_NAME_CG,
	XMS_NAME_IG,
	XMS_NAME_INITIATOR,
	XMS_NAME_PORT,       /* an initiator's port-address, without case */
	XMS_NAME_LUNMAP,     /* "VOL_IG_TG", the name XMS gives a map */
	XMS_NAME_KINDS
};

struct xms_names {
	void *root;          /* tsearch's tree of keys */
	size_t pairs;        /* (key, object index) pairs held */
};

/* Object `index` of kind k is now called new_name in new_cluster (NULL: it
 * leaves the index), and was called old_name in old_cluster (NULL: it was
 * not indexed).  The new keys are added before the old ones go, so on
 * false (out of memory) nothing changed. */
bool xms_names_move(struct xms_names *t, enum xms_name_kind k, uint64_t index, uint64_t old_cluster,
		    const char *old_name, uint64_t new_cluster, const char *new_name);

/* Several such moves at once (an initiator's name and port-address): all
 * or none (false: out of memory, nothing changed).  At most
 * XMS_NAMES_CHANGES_MAX. */
#define XMS_NAMES_CHANGES_MAX 4
struct xms_name_change {
	enum xms_name_kind kind;
	uint64_t index;
	uint64_t old_cluster;
	const char *old_name;   /* NULL: not indexed before */
	uint64_t new_cluster;
	const char *new_name;   /* NULL: leaves the index */
};
bool xms_names_apply(struct xms_names *t, const struct xms_name_change *c, size_t n);

/* The indexes of kind k's objects called name in cluster (0: in any
 * cluster), ascending, and their count in *n; NULL (and 0) when none.
 * Valid until the next change of the index. */
const uint64_t *xms_names_find(const struct xms_names *t, enum xms_name_kind k, uint64_t cluster, const char *name,
			       size_t *n);
/* the lowest of them, 0 when none */
uint64_t xms_names_first(const struct xms_names *t, enum xms_name_kind k, uint64_t cluster, const char *name);

void xms_names_free(struct xms_names *t);

#endif
