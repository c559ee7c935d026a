/* xms_common.h — what the XMS resource files share: the cluster a request
 * addresses, request fields read with XMS's error answers, the object ids
 * and number formats XMS uses in its JSON, and the SCSI-side refresh after
 * a change of maps or initiators. */
#ifndef LUNLAB_XMS_COMMON_H
#define LUNLAB_XMS_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include "target/api/xms_engine.h"
#include "target/api/xms_model.h"

struct json_object;

/* XMS's error tokens (the message of a 400) */
#define XMS_ERR_NOT_FOUND "obj_not_found"
#define XMS_ERR_VOL_NOT_FOUND "vol_obj_not_found"
#define XMS_ERR_NAME_NOT_UNIQUE "vol_obj_name_not_unique"
#define XMS_ERR_OBJ_NAME_NOT_UNIQUE "obj_name_not_unique"
#define XMS_ERR_ALREADY_MAPPED "vol_already_mapped"
#define XMS_ERR_VOL_MAPPED "vol_is_mapped"
#define XMS_ERR_LUN_IN_USE "lun_already_in_use"
#define XMS_ERR_IG_NOT_FOUND "ig_obj_not_found"
#define XMS_ERR_CG_NOT_FOUND "cg_obj_not_found"
#define XMS_ERR_INITIATOR_EXISTS "initiator_already_exists"
#define XMS_ERR_IG_NOT_EMPTY "ig_has_lun_mappings"
#define XMS_ERR_SIZE_DECREASE "vol_size_decrease_not_supported"
#define XMS_ERR_INVALID_SIZE "invalid_vol_size"
#define XMS_ERR_TOO_MANY "too_many_objs"
#define XMS_ERR_TOO_MANY_SNAPS "too_many_snapshots_per_vol" /* Cinder's TOO_MANY_SNAPSHOTS_PER_VOL */

#define XMS_MAX_OBJECTS 65536   /* per type: more is too_many_objs */
#define XMS_MAX_LIST 4096       /* names in one request (volume-list, vol-list) */

/* The cluster the request names (cluster-name / cluster-id: a name or an
 * index), else the first one.  NULL after answering obj_not_found. */
struct xms_cluster *xms_request_cluster(struct xms_ctx *x);

/* The engine's hint (want_index, want_name: xms_engine.h) as candidates:
 * true when it wants one object, with the indexes that may be it in *v
 * (*n of them, ascending: by index, or kind k's name index in the
 * request's scope; xms_wanted still decides); false when it wants every
 * object (the list walks them all). */
bool xms_wanted_candidates(const struct xms_ctx *x, enum xms_name_kind k, const uint64_t **v, size_t *n);

/* Body fields, answering 400 "Command Syntax Error: FIELD: ..." when bad.
 * Return 1 present and good, 0 absent, -1 answered. */
int xms_field_string(struct xms_ctx *x, const char *field, size_t maxlen, const char **out);
int xms_field_uint(struct xms_ctx *x, const char *field, uint64_t max, uint64_t *out);
/* a field that may come as a query parameter too (DELETE carries them) */
int xms_field_or_param(struct xms_ctx *x, const char *field, size_t maxlen, const char **out);
/* the first of several spellings (XMS v1 and v2 differ: vol-name / name) */
int xms_field_any(struct xms_ctx *x, const char *const *fields, size_t maxlen, const char **out,
		  const char **which);
/* an object reference (vol-id, ig-id, cg-id, ...): a name, or an index as a
 * number or a string; numbers are written into buf */
int xms_field_ref(struct xms_ctx *x, const char *const *fields, char *buf, size_t buflen, const char **out);
/* the kept settings of xms_attrs.h in set, read from the body over *a;
 * false after answering 400 naming the field */
bool xms_attrs_field(struct xms_ctx *x, unsigned set, struct xms_attrs *a);
/* a name a client may give: printable, no leading/trailing space */
bool xms_name_ok(const char *s);

/* JSON of XMS numbers: sizes in KiB as a decimal string ("1048576"),
 * ratios as numbers with 3 decimals */
struct json_object *xms_kb(uint64_t bytes);
struct json_object *xms_ratio(uint64_t num, uint64_t den);

/* object ids [guid, name, index] of model objects */
struct json_object *xms_cluster_oid(const struct xms_cluster *c);
struct json_object *xms_volume_oid(const struct xms_volume *v);
struct json_object *xms_ig_oid(const struct xms_ig *g);
struct json_object *xms_cg_oid(const struct xms_cg *g);
struct json_object *xms_snapset_oid(const struct xms_snapset *s);
struct json_object *xms_tg_oid(void);   /* the one target group, "Default" */

/* After maps, initiators or CHAP settings changed: the LU table and the
 * logins follow the model.  false after answering 500. */
bool xms_republish(struct xms_ctx *x);

/* ISO-like creation time XMS shows: "2026-11-30 12:00:00" */
struct json_object *xms_time(int64_t t);

#endif
