/* api.h — lunlab-target's management plane as main() sees it: register the
 * XMS resources' routes and start the HTTPS server (--api), stop it at
 * shutdown.  Other parts of the target add their routes (api_router.h)
 * before api_start(). */
#ifndef LUNLAB_API_H
#define LUNLAB_API_H

#include <stddef.h>

#include "target/api/api_server.h"

/* The clusters the API manages (--cluster SPECs; none: one default
 * cluster, name=xbrick1), each checked with the handler.  0, or -1 with a
 * one-line reason naming the spec and key in err.  Before api_start. */
int api_clusters_setup(const char *const *specs, int n, char *err, size_t errlen);

/* Registers every XMS route, then api_server_start(cfg) (the default
 * cluster when api_clusters_setup did not run).  0, or -1 with a one-line
 * reason in err. */
int api_start(const struct api_server_cfg *cfg, char *err, size_t errlen);
/* Stops the server (no request runs afterwards), forgets the routes, and
 * closes every volume's device (the array keeps their data until the
 * handler's shutdown). */
void api_stop(void);

#endif
