/* xms_model.h — the XMS object model: clusters, volumes (snapshots are
 * volumes with an ancestor), snapshot sets, consistency groups, initiator
 * groups, initiators and LUN maps, with their indexes, GUIDs and names, and
 * their (de)serialisation as one JSON document (xms_model_to_json /
 * xms_model_from_json), so the whole management state can be stored and
 * loaded (issue 11's --state-dir).
 *
 * The model is plain data: it knows nothing of devices or the LU table
 * (xms_scsi.c realises it on the SCSI side; the xms_*.c resources change
 * both).  Every function expects the caller to hold the model lock
 * (xms_lock(), xms_engine.h).  Indexes are per type, start at 1 and are
 * never reused, so a stale href never names a new object.  Object pointers
 * stay valid until the next add or delete of that type. */
#ifndef LUNLAB_XMS_MODEL_H
#define LUNLAB_XMS_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "target/api/xms_attrs.h"
#include "target/api/xms_dirty.h"
#include "target/api/xms_ids.h"
#include "target/api/xms_names.h"
#include "target/api/xms_perf.h"

struct json_object;
struct lu_backend;
struct lu_entry;

#define XMS_NAME_MAX 128        /* bytes of a name, without the NUL */
#define XMS_IQN_MAX 223
#define XMS_CHAP_MAX 255
#define XMS_CLUSTER_KEYS_MAX 512

enum xms_chap_mode { XMS_CHAP_DISABLED, XMS_CHAP_INITIATOR, XMS_CHAP_MUTUAL };

struct xms_idlist {              /* a list of object indexes */
	uint64_t *v;
	size_t n;
};

struct xms_cluster {
	uint64_t index;
	char guid[XMS_GUID_LEN + 1];
	char name[64];               /* the cluster's name = its array's name */
	char keys[XMS_CLUSTER_KEYS_MAX]; /* handler cfgstring keys of its volumes: model=x2;array_capacity=... */
	uint32_t lb_size;            /* default logical block size of new volumes */
	enum xms_chap_mode chap_auth, chap_discovery;
	char serial[32];             /* sys-psnt-serial-number */
	struct xms_attrs attrs;      /* its Cluster tags */
	struct xms_perf_sample perf; /* runtime only: the last readings of its volumes' counters */
	/* runtime only, from --cluster at every start (xms_cluster_spec.h):
	 * 0 no limit */
	uint32_t max_volumes, max_snaps_per_vol;
};

struct xms_volume {
	uint64_t index;
	char guid[XMS_GUID_LEN + 1]; /* also the array's name for the volume (volume=GUID): names change, this does not */
	char name[XMS_NAME_MAX + 1];
	uint64_t cluster;            /* its cluster's index */
	uint64_t size;               /* bytes */
	uint32_t lb_size;            /* 512 or 4096 */
	uint64_t ancestor;           /* the volume it is a snapshot of (0: none) */
	uint64_t snapset;            /* the snapshot set that created it (0: none) */
	bool snapshot;               /* made by a snapshot */
	bool readonly;               /* a read-only snapshot */
	int64_t created;             /* seconds since the epoch */
	struct xms_attrs attrs;      /* alerts, management-locked, vol-access, tag-list as set */
	/* runtime only (never serialised): the device and LU that realise it */
	struct lu_backend *be;
	struct lu_entry *lu;
	struct xms_perf_sample perf;  /* the last readings of its counters (xms_perf.h) */
};

struct xms_snapset {
	uint64_t index;
	char guid[XMS_GUID_LEN + 1];
	char name[XMS_NAME_MAX + 1];
	uint64_t cluster;
	uint64_t cg;                 /* the consistency group it was taken of (0: a volume list) */
	struct xms_idlist vols;      /* its snapshots */
	int64_t created;
	struct xms_attrs attrs;      /* its tags */
};

struct xms_cg {
	uint64_t index;
	char guid[XMS_GUID_LEN + 1];
	char name[XMS_NAME_MAX + 1];
	uint64_t cluster;
	struct xms_idlist vols;
	struct xms_attrs attrs;      /* tag-list */
};

struct xms_ig {
	uint64_t index;
	char guid[XMS_GUID_LEN + 1];
	char name[XMS_NAME_MAX + 1];
	uint64_t cluster;
	struct xms_attrs attrs;      /* operating-system, tag-list */
	struct xms_perf_sample perf; /* runtime only: the last readings of its initiators' counters */
};

struct xms_initiator {
	uint64_t index;
	char guid[XMS_GUID_LEN + 1];
	char name[XMS_NAME_MAX + 1];
	char port_address[XMS_IQN_MAX + 1]; /* the iSCSI name */
	uint64_t ig;
	uint64_t cluster;
	char auth_user[XMS_CHAP_MAX + 1], auth_pass[XMS_CHAP_MAX + 1];   /* "" when unset */
	char disc_user[XMS_CHAP_MAX + 1], disc_pass[XMS_CHAP_MAX + 1];
	struct xms_attrs attrs;      /* operating-system */
	struct xms_perf_sample perf; /* runtime only: the last readings of its counters */
};

struct xms_lunmap {
	uint64_t index;
	char guid[XMS_GUID_LEN + 1];
	uint64_t vol, ig;
	uint64_t lun;
	uint64_t cluster;
};

/* A tag (xms_tags.h): XMS-wide, not a cluster's.  Its name is the path
 * of captions from its root ("/Volume/gold/db"); the objects it tags keep
 * its index in their attrs. */
struct xms_tag {
	uint64_t index;
	char guid[XMS_GUID_LEN + 1];
	char caption[XMS_NAME_MAX + 1];
	uint64_t parent;             /* 0: a root tag ("/Volume") */
	uint8_t kind;                /* enum xms_tag_kind (xms_tags.h): the entity type it tags */
	char color[16];              /* as given ("#FF0000"); "" unset */
	int64_t created_ms;          /* milliseconds since the epoch */
};

/* Tags on an inventory object (a brick, storage controller, SSD or BBU:
 * xms_inventory.h).  The inventory is not model data (it follows from each
 * cluster's profile), so what tags an object is kept here, under the
 * object's identity in its cluster (kind and number, stable across
 * restarts), with its name, guid and index as the inventory last showed
 * them.  A record lives while the object carries a tag. */
struct xms_inv_tagged {
	uint64_t index;
	char guid[XMS_GUID_LEN + 1]; /* the record's */
	char name[XMS_NAME_MAX + 1]; /* the object's: "X1-SC1", "wwn-0x..." */
	char obj_guid[XMS_GUID_LEN + 1];
	uint64_t obj_index;
	uint64_t cluster;
	uint8_t kind;                /* enum xms_tag_kind: XMS_TAG_BRICK, _SC, _SSD, _BBU */
	uint32_t n;                  /* its number in the cluster, from 1 */
	struct xms_attrs attrs;      /* its tags */
};

/* one dynamic array per type */
#define XMS_ARRAY(T) struct { T *v; size_t n, cap; uint64_t next; }

struct xms_model {
	XMS_ARRAY(struct xms_cluster) clusters;
	XMS_ARRAY(struct xms_volume) volumes;
	XMS_ARRAY(struct xms_snapset) snapsets;
	XMS_ARRAY(struct xms_cg) cgs;
	XMS_ARRAY(struct xms_ig) igs;
	XMS_ARRAY(struct xms_initiator) initiators;
	XMS_ARRAY(struct xms_lunmap) lunmaps;
	XMS_ARRAY(struct xms_tag) tags;
	XMS_ARRAY(struct xms_inv_tagged) inv_tagged;
	/* The cluster the operation under way addresses (0: every cluster).
	 * Names and initiator IQNs are unique per cluster, as on an XMS that
	 * manages several: lookups by name (and so by a name-or-index ref) and
	 * by IQN see only this cluster's objects.  Set by the API engine under
	 * the model lock for each request; never stored. */
	uint64_t scope;
	/* runtime only: the objects by (kind, cluster, name) (xms_names.h),
	 * built on load and kept by the setters below */
	struct xms_names names;
	/* what changed since the last save (xms_dirty.h: whoever changes a
	 * stored field marks the object); never stored */
	struct xms_dirty dirty;
};

/* the process's one model */
extern struct xms_model g_xms;

void xms_model_free(struct xms_model *m);

/* New objects: zeroed, with the next index and a fresh GUID; NULL when out
 * of memory.  The caller fills the rest. */
struct xms_cluster *xms_cluster_add(struct xms_model *m);
struct xms_volume *xms_volume_add(struct xms_model *m);
struct xms_snapset *xms_snapset_add(struct xms_model *m);
struct xms_cg *xms_cg_add(struct xms_model *m);
struct xms_ig *xms_ig_add(struct xms_model *m);
struct xms_initiator *xms_initiator_add(struct xms_model *m);
struct xms_lunmap *xms_lunmap_add(struct xms_model *m);
struct xms_tag *xms_tag_add(struct xms_model *m);
struct xms_inv_tagged *xms_inv_tagged_add(struct xms_model *m);

/* Names and clusters: an object's name, cluster (and an initiator's
 * port-address, a map's volume and group) are set through these and only
 * these, so the name index follows every add, rename, move and delete.
 * A new object is indexed by its first call.  name/port NULL: unchanged.
 * false: out of memory, nothing changed. */
bool xms_volume_set_name(struct xms_model *m, struct xms_volume *v, uint64_t cluster, const char *name);
bool xms_snapset_set_name(struct xms_model *m, struct xms_snapset *s, uint64_t cluster, const char *name);
bool xms_cg_set_name(struct xms_model *m, struct xms_cg *g, uint64_t cluster, const char *name);
bool xms_ig_set_name(struct xms_model *m, struct xms_ig *g, uint64_t cluster, const char *name);
bool xms_initiator_set_name(struct xms_model *m, struct xms_initiator *n, uint64_t cluster, const char *name,
			    const char *port);
bool xms_lunmap_set(struct xms_model *m, struct xms_lunmap *l, uint64_t vol, uint64_t ig, uint64_t cluster);
/* XMS's name of a map: "VOL_IG_TG" (one target group: 1) */
void xms_lunmap_name(const struct xms_lunmap *l, char *out, size_t cap);
/* The name index against a scan of every object: 0 when each object is
 * found under its keys and nothing else is held, else -1 with the first
 * difference in why (tests and GET /api/lunlab/model-check). */
int xms_model_names_check(const struct xms_model *m, char *why, size_t len);

/* Removals by index (no-op when absent).  A volume leaves every
 * consistency group and snapshot set it is in; a snapshot set or group
 * keeps no volume.  Adds and removals mark what they change (xms_dirty.h). */
void xms_volume_del(struct xms_model *m, uint64_t index);
void xms_snapset_del(struct xms_model *m, uint64_t index);
void xms_cg_del(struct xms_model *m, uint64_t index);
void xms_ig_del(struct xms_model *m, uint64_t index);
void xms_initiator_del(struct xms_model *m, uint64_t index);
void xms_lunmap_del(struct xms_model *m, uint64_t index);
void xms_tag_del(struct xms_model *m, uint64_t index);  /* the tag only: xms_tags.c untags */
void xms_inv_tagged_prune(struct xms_model *m);  /* the records whose object carries no tag */

/* Lookups by index or by name (NULL when absent).  By name and by port:
 * within m->scope (see there); by index: any cluster. */
struct xms_cluster *xms_cluster_get(struct xms_model *m, uint64_t index);
struct xms_cluster *xms_cluster_by_name(struct xms_model *m, const char *name);
struct xms_volume *xms_volume_get(struct xms_model *m, uint64_t index);
struct xms_volume *xms_volume_by_name(struct xms_model *m, const char *name);
struct xms_snapset *xms_snapset_get(struct xms_model *m, uint64_t index);
struct xms_snapset *xms_snapset_by_name(struct xms_model *m, const char *name);
struct xms_cg *xms_cg_get(struct xms_model *m, uint64_t index);
struct xms_cg *xms_cg_by_name(struct xms_model *m, const char *name);
struct xms_ig *xms_ig_get(struct xms_model *m, uint64_t index);
struct xms_tag *xms_tag_get(struct xms_model *m, uint64_t index);

/* Volumes and snapshots of cluster `cluster` (what max_volumes counts). */
size_t xms_cluster_volume_count(const struct xms_model *m, uint64_t cluster);
/* Snapshots in the family of volume `index`: every volume whose chain of
 * ancestors reaches the same root volume, the root excluded (what
 * max_snapshots_per_volume counts). */
size_t xms_family_snapshot_count(struct xms_model *m, uint64_t index);
/* the root volume of index's chain of ancestors (index itself when none) */
uint64_t xms_family_root(struct xms_model *m, uint64_t index);
struct xms_ig *xms_ig_by_name(struct xms_model *m, const char *name);
struct xms_initiator *xms_initiator_get(struct xms_model *m, uint64_t index);
struct xms_initiator *xms_initiator_by_name(struct xms_model *m, const char *name);
struct xms_initiator *xms_initiator_by_port(struct xms_model *m, const char *port_address);
struct xms_lunmap *xms_lunmap_get(struct xms_model *m, uint64_t index);
struct xms_lunmap *xms_lunmap_find(struct xms_model *m, uint64_t vol, uint64_t ig);

/* A name of a volume, IG, ... given as "NAME" or as a decimal index:
 * XMS clients use both for *-id fields. */
struct xms_cluster *xms_cluster_ref(struct xms_model *m, const char *ref);
struct xms_volume *xms_volume_ref(struct xms_model *m, const char *ref);
struct xms_ig *xms_ig_ref(struct xms_model *m, const char *ref);
struct xms_cg *xms_cg_ref(struct xms_model *m, const char *ref);
struct xms_snapset *xms_snapset_ref(struct xms_model *m, const char *ref);

/* index lists */
bool xms_idlist_has(const struct xms_idlist *l, uint64_t v);
bool xms_idlist_add(struct xms_idlist *l, uint64_t v);   /* false: out of memory */
void xms_idlist_remove(struct xms_idlist *l, uint64_t v);

/* The model as one JSON object (every type, the next indexes, no runtime
 * fields); NULL when out of memory. */
struct json_object *xms_model_to_json(const struct xms_model *m);
/* One object of the document alone (its "objects" entry), NULL when there
 * is none of that index (or out of memory); the document without its
 * objects (every "objects" list empty).  What xms_model_to_json writes is
 * made of these, so a record of one object has the same text either way. */
struct json_object *xms_model_object_json(const struct xms_model *m, enum xms_kind k, uint64_t index);
struct json_object *xms_model_head_json(const struct xms_model *m);
/* Loads a document xms_model_to_json wrote into an empty model: 0, or -1
 * with a reason naming the bad field in err (the model is left empty). */
int xms_model_from_json(struct xms_model *m, struct json_object *doc, char *err, size_t errlen);

const char *xms_chap_mode_name(enum xms_chap_mode m);
/* "disabled" / "initiator" / "mutual"; false for anything else */
bool xms_chap_mode_parse(const char *s, enum xms_chap_mode *out);

#endif
