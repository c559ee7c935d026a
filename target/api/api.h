/* api.h — lunlab-target's management plane as main() sees it: register the
 * XMS resources' routes and start the HTTPS server (--api), stop it at
 * shutdown.  Other parts of the target add their routes (api_router.h)
 * before api_start(). */
#ifndef LUNLAB_API_H
#define LUNLAB_API_H

#include <stddef.h>

#include "target/api/api_server.h"

/* Registers every XMS route, then api_server_start(cfg).  0, or -1 with a
 * one-line reason in err. */
int api_start(const struct api_server_cfg *cfg, char *err, size_t errlen);
/* Stops the server (no request runs afterwards) and forgets the routes. */
void api_stop(void);

#endif
