/* xms_hw_store.h — the failed SSDs and storage controllers kept across
 * restarts (--state-dir; docs/api.md "The X-Brick inventory").  One record
 * per failed component in namespace XMS_LOG_NS_HARDWARE of the log store
 * (xms_log_store.h: one small transaction each, as events and alerts are
 * kept), put when it fails (PUT /api/lunlab/hardware, --fault hw=) and
 * deleted when it is restored:
 *     key   the 20-digit id (cluster index << 32 | component << 24 | number)
 *     value {"cluster": NAME, "component": "ssd" | "storage-controller",
 *            "number": N}
 * Without a store nothing is kept (every component starts healthy).
 * Every function expects the model lock. */
#ifndef LUNLAB_XMS_HW_STORE_H
#define LUNLAB_XMS_HW_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "target/api/xms_inventory.h"

#define XMS_LOG_NS_HARDWARE "api-hardware"

/* component n of cluster (index, name) failed (a record put) or restored
 * (deleted); a store's failure is logged, as for events */
void xms_hw_store_put(const char *cluster_name, uint64_t cluster, enum xms_inv_component kind, unsigned n,
		      bool failed);

/* At a restart, once the clusters are set up and the alerts loaded: every
 * stored failed component failed again (xms_inv_restore_failed; a record
 * naming a cluster or component that is no longer there is dropped with a
 * line on stderr).  0, or -1 with err naming the bad record and field. */
int xms_hw_store_load(char *err, size_t errlen);

#endif
