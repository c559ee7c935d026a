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
/* target t's guid (from 0), as `targets` lists it (the performance
 * history names it so too) */
void xms_target_guid(char *out, int t); /* out: XMS_GUID_LEN + 1 bytes */
extern const struct xms_type xms_type_tgs;          /* xms_ports.c */

/* the v3 session commands login and logout (xms_commands.c) */
int xms_commands_register(char *err, size_t errlen);

/* POST snapshots (xms_snapshots.c); a body with from-*-id / to-*-id is a
 * refresh (xms_refresh.c) */
void xms_post_snapshots(struct xms_ctx *x);

/* A snapshot set to make (xms_snapshots.c) */
struct xms_snap_spec {
	uint64_t *src;            /* source volume indexes */
	size_t n;
	uint64_t cg;              /* when taken of a consistency group */
	const char *set_name;     /* NULL: SnapshotSet.TIME.INDEX */
	const char *suffix;       /* each snapshot is SRC.SUFFIX; NULL: snapshot.TIME */
	const char *suffix_field; /* the body field that gave suffix (for errors); NULL: snap-suffix */
	bool readonly;
	const char **names;       /* v1: each snapshot's own name (snap-vol-name); NULL: SRC.SUFFIX */
};
struct xms_cluster;
/* Makes it in c: *dst (malloc'd) the r->n snapshots, *set the set; false
 * after answering the error (nothing left made). */
bool xms_snapset_make(struct xms_ctx *x, const struct xms_cluster *c, const struct xms_snap_spec *r, uint64_t **dst,
		      uint64_t *set);
/* Takes a made set back (devices, blocks, objects). */
void xms_snapset_unmake(const struct xms_cluster *c, const uint64_t *dst, size_t n, uint64_t set);

/* refresh (xms_refresh.c): the body names a from-* or to-* field */
bool xms_refresh_requested(const struct xms_ctx *x);
void xms_refresh(struct xms_ctx *x);
/* a volume out of everything: device, blocks, model (xms_volumes.c); false
 * after answering 500 */
bool xms_volume_remove(struct xms_ctx *x, uint64_t index);
bool xms_volume_is_mapped(uint64_t index);

#endif
