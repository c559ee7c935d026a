/* xms_tag_model.h — tags as model data (the `tags` resource is xms_tags.c):
 * the entity types a tag is made for, a tag's full name from its chain of
 * parents, the objects of one entity type that carry tags (their indexes
 * kept in their attrs, xms_attrs.h), and the check of a loaded model's
 * tags and tag references (--state-dir).  Plain model code: callers hold
 * the model lock (xms_lock()). */
#ifndef LUNLAB_XMS_TAG_MODEL_H
#define LUNLAB_XMS_TAG_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "target/api/xms_model.h"

/* The `entity` words of POST tags (the 15 that XtremIO.Utils' and
 * MTSXtremIO's New-XIOTag and PyXtremIO's create_tag list).  A tag's root
 * is "/" + the word ("/Volume", "/X-Brick"), as CoprHD's and XtremIO.Utils'
 * tag names show. */
enum xms_tag_kind {
	XMS_TAG_VOLUME,              /* volumes and snapshots */
	XMS_TAG_IG,
	XMS_TAG_INITIATOR,
	XMS_TAG_CG,
	XMS_TAG_SNAPSET,
	XMS_TAG_MODEL_KINDS,         /* the ones above, and Cluster, tag objects lunlab has */
	XMS_TAG_SCHEDULER = XMS_TAG_MODEL_KINDS,
	XMS_TAG_CLUSTER,
	XMS_TAG_BRICK,
	XMS_TAG_SC,
	XMS_TAG_SSD,
	XMS_TAG_DAE,
	XMS_TAG_BBU,
	XMS_TAG_IB_SWITCH,
	XMS_TAG_DPG,
	XMS_TAG_TARGET,
	XMS_TAG_KINDS
};

#define XMS_TAG_DEPTH_MAX 4          /* levels of a name, the root's included */
#define XMS_TAG_NAME_MAX (XMS_TAG_DEPTH_MAX * (XMS_NAME_MAX + 1))

/* the entity word ("Volume"), and the object-type a tag shows ("SnapSet");
 * -1 from parse for a word that is none of them */
const char *xms_tag_entity(enum xms_tag_kind k);
const char *xms_tag_object_type(enum xms_tag_kind k);
int xms_tag_kind_parse(const char *entity);

/* t's full name ("/Volume/gold/db") into out (XMS_TAG_NAME_MAX + 1 bytes) */
void xms_tag_name(const struct xms_model *m, const struct xms_tag *t, char *out);
/* the tag of that full name; NULL: none */
struct xms_tag *xms_tag_by_name(struct xms_model *m, const char *name);
/* levels of t's name (a root: 1) */
int xms_tag_depth(const struct xms_model *m, const struct xms_tag *t);

/* The objects of a model kind, one by one (i from 0 while it returns true):
 * index, name, guid, cluster (0: none; a cluster's own index for a
 * cluster) and its attrs.  Kinds with no objects in the model (the
 * inventory's, schedulers) have none: false at once. */
struct xms_tag_entity {
	uint64_t index, cluster;
	const char *name, *guid;
	struct xms_attrs *attrs;
};
bool xms_tag_entity_at(struct xms_model *m, enum xms_tag_kind k, size_t i, struct xms_tag_entity *out);
/* the object of kind k and index whose tag list changed: marked for the
 * store (xms_dirty.h) */
void xms_tag_entity_changed(struct xms_model *m, enum xms_tag_kind k, uint64_t index);

/* the kinds whose objects are the inventory's (tagged through its
 * records, xms_model.h's xms_inv_tagged): X-Brick, StorageController, SSD,
 * BatteryBackupUnit, and Target (the ports, xms_ports.c) */
bool xms_tag_kind_inventory(int k);

/* attrs' tag list */
bool xms_attrs_has_tag(const struct xms_attrs *a, uint64_t tag);
void xms_attrs_untag(struct xms_attrs *a, uint64_t tag);

/* Every tag's kind and parent (an older tag of its kind), depth and name
 * unique; every object's tags exist and are of its kind.  0, or -1 with
 * the bad field in err. */
int xms_tags_check(struct xms_model *m, char *err, size_t errlen);

#endif
