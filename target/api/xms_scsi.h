/* xms_scsi.h — how the XMS model reaches the SCSI side: every volume and
 * snapshot is a tcmu device of handler_lunlab.so attached to the array's
 * named volume (cfgstring `volume=GUID`, `readonly=1` for a read-only
 * snapshot) and an LU of the LU table; LUN maps and initiator groups become
 * the LU table's per-initiator maps; initiators' CHAP credentials become
 * the login's (auth_dyn.h); snapshots, deletions and capacity figures go
 * through the array-control interface (include/lunlab/array_ctl.h), the
 * only way the API reaches the array.  Callers hold the model lock. */
#ifndef LUNLAB_XMS_SCSI_H
#define LUNLAB_XMS_SCSI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lunlab/array_ctl.h"
#include "target/api/xms_model.h"

#define XMS_HANDLER "lunlab"   /* the handler subtype the API's volumes use */

/* The handler's array-control table; NULL when the handler has none. */
const struct lunlab_array_ctl *xms_scsi_ctl(void);

/* Opens a short-lived LU of the cluster's array: checks its keys with the
 * handler (the line that refuses them names the key) and learns the
 * array's physical capacity before any volume exists.  0 or -1 with err. */
int xms_scsi_cluster_probe(struct xms_cluster *c, char *err, size_t errlen);
/* The same, and every volume the array holds while the probe's LU has it
 * open (*vols malloc'd, *nvols of them; an error to list them is -1). */
int xms_scsi_cluster_probe_volumes(struct xms_cluster *c, struct lunlab_volume_info **vols, size_t *nvols, char *err,
				   size_t errlen);
/* The capacity the probe saw (bytes; 0: unknown). */
uint64_t xms_scsi_cluster_probed_capacity(const struct xms_cluster *c);

/* Creates v's device and LU (not mapped to anyone yet). */
int xms_scsi_volume_open(const struct xms_cluster *c, struct xms_volume *v, char *err, size_t errlen);
/* A new size: the device's reconfig, then 06/2A/09 for every nexus. */
int xms_scsi_volume_resize(struct xms_volume *v, uint64_t size, char *err, size_t errlen);
/* Closes v's device and frees its LU.  The maps must no longer name it
 * (xms_scsi_publish_maps ran without it). */
void xms_scsi_volume_close(struct xms_volume *v);
/* Frees v's blocks in the array (after close). */
int xms_scsi_volume_free(const struct xms_cluster *c, const struct xms_volume *v, char *err, size_t errlen);
/* Instant snapshot of n volumes of cluster c at one point in time into
 * the (not yet opened) volumes dst[]. */
int xms_scsi_snapshot(const struct xms_cluster *c, struct xms_volume *const *src, struct xms_volume *const *dst,
		      size_t n, bool readonly, char *err, size_t errlen);

/* Refresh: the data of each dst[i] (its device stays open) becomes src[i]'s
 * in place, at one point in time (array_ctl.refresh), then 06/28/00 MEDIUM
 * MAY HAVE CHANGED for every nexus of each dst[i]'s LU.  Sizes must match. */
int xms_scsi_refresh(const struct xms_cluster *c, struct xms_volume *const *src, struct xms_volume *const *dst,
		     size_t n, char *err, size_t errlen);

/* The LU table's maps and the logins' CHAP credentials from the model. */
int xms_scsi_publish_maps(struct xms_model *m, char *err, size_t errlen);
int xms_scsi_publish_chap(struct xms_model *m, char *err, size_t errlen);

/* The number of --lun LUs (LUNs 0..n-1 every initiator sees). */
uint64_t xms_scsi_global_luns(void);

/* Capacity figures of c's array (exact: accounting finished); -ENOENT
 * when no LU of the array is open (the figures are then zero and
 * capacity_bytes is the probed capacity). */
int xms_scsi_cluster_figures(const struct xms_cluster *c, struct lunlab_array_figures *f);
/* Every volume of c's array (malloc'd, *out; the count returned; 0 and
 * NULL when none or no array).  Match them to XMS volumes by name = GUID. */
size_t xms_scsi_volume_infos(const struct xms_cluster *c, struct lunlab_volume_info **out);
/* Volume v's entry alone (the array's volume_info; a handler without it:
 * picked from volume_list's).  true with *out, false when the array has
 * no such volume. */
bool xms_scsi_volume_info(const struct xms_cluster *c, const struct xms_volume *v, struct lunlab_volume_info *out);
const struct lunlab_volume_info *xms_scsi_info_of(const struct lunlab_volume_info *infos, size_t n,
						  const struct xms_volume *v);

/* Realises a model loaded from its stored form (xms_model_from_json; the
 * arrays already hold the named volumes): opens every volume's device,
 * then publishes the maps and the CHAP credentials.  -1 with err naming
 * the volume that failed (the devices opened so far stay open: close them
 * with xms_scsi_close_all). */
int xms_scsi_open_all(struct xms_model *m, char *err, size_t errlen);

/* --state-dir: every device of the API's volumes keeps its array in dir
 * (cfgstring state_dir=); NULL or "": in memory.  Before any cluster. */
void xms_scsi_set_state_dir(const char *dir);
/* Every change so far of every cluster's array durable (array_sync of the
 * array-control interface): 0, at once without a state directory; -1 with
 * err naming the cluster. */
int xms_scsi_sync_all(const struct xms_model *m, char *err, size_t errlen);

/* Closes every volume's device (shutdown): the LU table is reset after. */
void xms_scsi_close_all(struct xms_model *m);

#endif
