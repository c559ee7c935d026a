/* lunlab_api.h — the lunlab namespace of the management API (fault rules,
 * portals, ALUA states at run time; lunlab_api.c lists the routes,
 * docs/faults.md documents them).  main() registers it before api_start(). */
#ifndef LUNLAB_API_LUNLAB_API_H
#define LUNLAB_API_LUNLAB_API_H

#include <stddef.h>

#include "target/api/api_router.h"

/* 0, or -1 with a reason in err (a route already taken).  Registers
 * /api/lunlab/luns and /api/lunlab/hardware too. */
int lunlab_api_register(char *err, size_t errlen);
/* /api/lunlab/arrays: capacity and soft threshold at run time (lunlab_arrays.c) */
int lunlab_arrays_register(char *err, size_t errlen);
/* GET /api/lunlab/luns: the --lun LUs (lunlab_luns.c) */
int lunlab_luns_register(char *err, size_t errlen);
/* GET, PUT /api/lunlab/hardware: SSDs and storage controllers failed (lunlab_hardware.c) */
int lunlab_hardware_register(char *err, size_t errlen);
/* GET /api/lunlab/model-check: the name index against a scan (lunlab_model_check.c) */
int lunlab_model_check_register(char *err, size_t errlen);

#endif
