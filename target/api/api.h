/* api.h — lunlab-target's management plane as main() sees it: register the
 * XMS resources' routes and start the HTTPS server (--api), stop it at
 * shutdown.  Other parts of the target add their routes (api_router.h)
 * before api_start(). */
#ifndef LUNLAB_API_H
#define LUNLAB_API_H

#include <stddef.h>

#include "target/api/api_server.h"
#include "target/api/xms_log_store.h"
#include "target/api/xms_store.h"

/* --state-dir: the API's volumes keep their arrays in state_dir (absolute),
 * its model is kept through ops (xms_store.h), its events and alerts
 * through log (xms_log_store.h).  Before api_clusters_setup; NULL, NULL,
 * NULL: everything in memory (the default). */
void api_set_store(const char *state_dir, const struct xms_store_ops *ops, const struct xms_log_store_ops *log);

/* The clusters the API manages (--cluster SPECs; none: one default
 * cluster, name=xbrick1), each checked with the handler.  With a store
 * (api_set_store) the stored model comes back first, its volumes' devices
 * opened and its maps published; a --cluster it already has is skipped.  0, or -1 with a
 * one-line reason naming the spec and key in err.  Before api_start. */
int api_clusters_setup(const char *const *specs, int n, char *err, size_t errlen);

/* --fault hw=SPEC (xms_hw_fault_spec.h): the component failed now, as PUT
 * /api/lunlab/hardware fails it (inventory, alert, event; a storage
 * controller's portals down).  After api_clusters_setup.  0, or -1 with a
 * one-line reason (no such cluster or component). */
int api_hw_fault_apply(const char *spec, char *err, size_t errlen);

/* Registers every XMS route, then api_server_start(cfg) (the default
 * cluster when api_clusters_setup did not run).  0, or -1 with a one-line
 * reason in err. */
int api_start(const struct api_server_cfg *cfg, char *err, size_t errlen);
/* Stops the server (no request runs afterwards), forgets the routes, and
 * closes every volume's device (the array keeps their data until the
 * handler's shutdown). */
void api_stop(void);

#endif
