/* xms_alerts.h — XMS's alerts and alert-definitions: conditions of the
 * array that are raised and later cleared (alert-state "outstanding", then
 * "cleared"), as XtremIO.Utils' Get-XIOAlert and the Prometheus exporter's
 * alert_definitions collector read them.
 *
 * Raised and cleared by:
 *   - the SCSI side, through the happenings feed (target/lu/happenings.h):
 *     a soft threshold crossed or space exhausted (cleared when the
 *     cluster's figures are back under the line), a portal set down
 *     (cleared when it is up again); fault rules firing and ALUA changes
 *     are events only (xms_feed_sync turns every happening into an event);
 *   - the inventory (xms_inventory.c): an SSD or a storage controller
 *     failed by /api/lunlab/hardware, cleared when it is restored.
 * Kept across restarts with --state-dir (xms_alerts_load).
 * Every function expects the model lock (xms_lock). */
#ifndef LUNLAB_XMS_ALERTS_H
#define LUNLAB_XMS_ALERTS_H

#include <stdbool.h>
#include <stdint.h>

#include "target/api/xms_engine.h"

#define XMS_ALERTS_MAX 1024   /* kept; when full the oldest cleared one goes first */

enum xms_alert_kind {
	XMS_ALERT_SOFT_THRESHOLD,
	XMS_ALERT_OUT_OF_SPACE,
	XMS_ALERT_PORT_DOWN,
	XMS_ALERT_SSD_FAILED,
	XMS_ALERT_SC_FAILED,
	XMS_ALERT_KINDS
};

/* The object an alert is about (assoc-obj-*). */
struct xms_alert_obj {
	uint64_t cluster;          /* the cluster's index (0: the first) */
	const char *class_name;    /* "Cluster", "Target", "SSD", "StorageController" */
	const char *name;
	uint64_t index;
	const char *guid;
};

/* Raises kind for obj unless one is outstanding for it already. */
void xms_alert_raise(enum xms_alert_kind kind, const struct xms_alert_obj *obj, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Clears the outstanding alert of kind for the object of that class and
 * name in that cluster; false when there is none. */
bool xms_alert_clear(enum xms_alert_kind kind, uint64_t cluster, const char *name);
bool xms_alert_outstanding(enum xms_alert_kind kind, uint64_t cluster, const char *name);

/* Reads what the SCSI side posted since the last call (happenings.h) into
 * events and alerts, and clears capacity alerts whose condition is over. */
void xms_feed_sync(void);

/* --state-dir (xms_log_store.h): the stored alerts, outstanding and
 * cleared, with their indexes and times; each alert is stored when it is
 * raised or cleared and deleted when the bound pushes it out.  0, or -1
 * with err naming the bad record and field.  Before the API starts. */
int xms_alerts_load(char *err, size_t errlen);
/* After a restart's hardware faults are back (xms_hw_store_load): an
 * outstanding ssd_failed / storage_controller_failed alert of a component
 * that is not failed is cleared, with an event LL0003. */
void xms_alerts_hw_sync(void);

/* Tests: forget every alert and the feed's cursor (the store is not
 * touched). */
void xms_alerts_reset(void);

extern const struct xms_type xms_type_alerts;
extern const struct xms_type xms_type_alert_defs;

#endif
