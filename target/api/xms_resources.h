/* xms_resources.h — the XMS resource types lunlab serves, one file per
 * family (xms_*.c), registered together by api.c. */
#ifndef LUNLAB_XMS_RESOURCES_H
#define LUNLAB_XMS_RESOURCES_H

#include <stdbool.h>
#include <stdint.h>

#include "target/api/xms_engine.h"

extern const struct xms_type xms_type_xms;          /* xms_system.c */
extern const struct xms_type xms_type_clusters;     /* xms_clusters.c */
extern const struct xms_type xms_type_volumes;      /* xms_volumes.c */
extern const struct xms_type xms_type_snapshots;    /* xms_volumes.c (POST: xms_snapshots.c) */
extern const struct xms_type xms_type_snapsets;     /* xms_snapshots.c */
extern const struct xms_type xms_type_cgs;          /* xms_cgs.c */
extern const struct xms_type xms_type_cg_volumes;   /* xms_cgs.c */
extern const struct xms_type xms_type_igs;          /* xms_initiators.c */
extern const struct xms_type xms_type_initiators;   /* xms_initiators.c */
extern const struct xms_type xms_type_lunmaps;      /* xms_lunmaps.c */
extern const struct xms_type xms_type_portals;      /* xms_ports.c */
extern const struct xms_type xms_type_targets;      /* xms_ports.c */
extern const struct xms_type xms_type_tgs;          /* xms_ports.c */

/* the v3 session commands login and logout (xms_commands.c) */
int xms_commands_register(char *err, size_t errlen);

/* POST snapshots (xms_snapshots.c) */
void xms_post_snapshots(struct xms_ctx *x);
/* a volume out of everything: device, blocks, model (xms_volumes.c); false
 * after answering 500 */
bool xms_volume_remove(struct xms_ctx *x, uint64_t index);
bool xms_volume_is_mapped(uint64_t index);

#endif
