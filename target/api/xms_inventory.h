/* xms_inventory.h — the hardware of each cluster's X-Brick as XMS lists
 * it: bricks, storage-controllers, xenvs, local-disks, bbus,
 * dae-controllers, dae-psus, ssds (and the brick and controller of each
 * target, xms_ports.c).  lunlab has no hardware: the inventory is the brick
 * the cluster's profile describes (its SSD count, capacity.ssds), with
 * names as XMS gives them (X1-SC1, X1-SC1-E1, wwn-0x...), and guids and
 * serial numbers derived from the cluster's name, so they are the same
 * after every restart (with or without --state-dir).
 *
 * An SSD or a storage controller can be failed and restored at run time
 * (PUT /api/lunlab/hardware, docs/faults.md): the inventory then shows it
 * failed and an alert is raised (xms_alerts.h); a failed storage
 * controller also takes its targets' portals down, as the ports of a
 * stopped controller go dark, and brings them back when restored.
 * With --state-dir a failed component stays failed across restarts until
 * it is restored (xms_hw_store.h).
 * Every function expects the model lock. */
#ifndef LUNLAB_XMS_INVENTORY_H
#define LUNLAB_XMS_INVENTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "target/api/xms_engine.h"
#include "target/api/xms_ids.h"
#include "target/api/xms_model.h"
#include "target/api/xms_tag_model.h"

#define XMS_INV_SCS 2            /* storage controllers per brick */
#define XMS_INV_XENVS_PER_SC 2
#define XMS_INV_LOCAL_DISKS_PER_SC 2
#define XMS_INV_BBUS 2
#define XMS_INV_DAE_LCCS 2
#define XMS_INV_DAE_PSUS 2
#define XMS_INV_FAILED_MAX 256   /* components failed at once */

enum xms_inv_component { XMS_INV_SSD, XMS_INV_SC };

/* The storage controller (1, 2) target N (from 0) is on, and its name
 * "X1-SC1-iscsi1": targets alternate between the two controllers. */
int xms_inv_target_sc(int target);
void xms_inv_target_name(int target, char *out, size_t cap);
struct json_object;
struct xms_cluster;
/* adds a target's brick-id and node-id (its controller) in cluster c to o */
void xms_inv_target_ids(const struct xms_cluster *c, int target, struct json_object *o);

/* Fails or restores component number `n` (from 1: SSD slot, controller)
 * of cluster index `cluster`.  0; -1 with the reason (no such component,
 * too many failed). */
int xms_inv_set_failed(uint64_t cluster, enum xms_inv_component kind, unsigned n, bool failed, char *err,
		       size_t errlen);
/* --state-dir: component n of cluster failed again at a restart
 * (xms_hw_store.h): failed as xms_inv_set_failed fails it, with no new
 * event and its alert raised only if none is outstanding. */
int xms_inv_restore_failed(uint64_t cluster, enum xms_inv_component kind, unsigned n, char *err, size_t errlen);
/* Resolves a component by name ("X1-SC2", "wwn-0x...") or number in the
 * cluster: its number, or 0. */
unsigned xms_inv_find(uint64_t cluster, enum xms_inv_component kind, const char *name);
bool xms_inv_is_failed(uint64_t cluster, enum xms_inv_component kind, unsigned n);
/* Every failed component as JSON [{"cluster", "component", "name", "index"}] */
struct json_object *xms_inv_failed_json(void);
/* The XEnvs and SSDs of every cluster's brick as the performance history
 * reads them (xms_perf_history.h): malloc'd, *out NULL when there are none
 * or memory ran out. */
struct xms_inv_unit {
	bool ssd;                    /* else an XEnv */
	uint64_t cluster, index;
	char guid[XMS_GUID_LEN + 1];
	char name[40];
	bool failed;                 /* the SSD, or the XEnv's storage controller */
	unsigned working;            /* SSDs: the working SSDs of its brick */
};
size_t xms_inv_units(struct xms_inv_unit **out);
/* Tests: every component healthy. */
void xms_inv_reset(void);

/* Tags on the inventory (xms_tags.c): a brick, storage controller, SSD or
 * BBU by its name in cluster (0: any) or by its index (name NULL); a
 * target (every cluster's: cluster 0) by its name or index. */
struct xms_inv_ref {
	uint64_t cluster, index;
	enum xms_tag_kind kind;
	unsigned n;                  /* its number in the cluster */
	char name[XMS_NAME_MAX + 1];
	char guid[XMS_GUID_LEN + 1];
};
bool xms_inv_lookup(enum xms_tag_kind k, uint64_t cluster, const char *name, uint64_t index, struct xms_inv_ref *out);
/* r's tags (its record in the model); make: a record made when it has none
 * (NULL: out of memory); else NULL when it carries no tag */
struct xms_attrs *xms_inv_tags_of(const struct xms_inv_ref *r, bool make);
/* target t's (from 0) "tag-list" added to o */
void xms_inv_target_tags(int target, struct json_object *o);

extern const struct xms_type xms_type_bricks;
extern const struct xms_type xms_type_scs;
extern const struct xms_type xms_type_xenvs;
extern const struct xms_type xms_type_local_disks;
extern const struct xms_type xms_type_bbus;
extern const struct xms_type xms_type_dae_lccs;
extern const struct xms_type xms_type_dae_psus;
extern const struct xms_type xms_type_ssds;

#endif
