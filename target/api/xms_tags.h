/* xms_tags.h — the `tags` resource (v2 and v3: /api/json/v2/types/tags) and
 * the `tag-list` of the objects it tags.  A tag is XMS-wide (lists and
 * lookups take no cluster; a cluster-name= is accepted and does not narrow
 * them), is made for one entity type, and sits under that type's root tag
 * ("/Volume", "/InitiatorGroup", ...): POST {"entity", "tag-name"} makes
 * it (missing parents with it, up to 4 levels), PUT with {"entity",
 * "entity-details"} tags an object and DELETE with them untags it, PUT
 * {"caption"} / {"color"} changes it and DELETE without them removes it
 * with its children, untagging their objects.  docs/api.md "Tags". */
#ifndef LUNLAB_XMS_TAGS_H
#define LUNLAB_XMS_TAGS_H

#include <stdbool.h>
#include <stdint.h>

#include "target/api/xms_engine.h"
#include "target/api/xms_model.h"
#include "target/api/xms_tag_model.h"

struct json_object;
struct json_text;

extern const struct xms_type xms_type_tags;

/* The body's tag-list (names, indexes or object ids of tags of kind k)
 * into a's tags, replacing them; absent: a unchanged.  For a consistency
 * group (k XMS_TAG_CG) Volume tags are skipped here: they name the group's
 * volumes (xms_tag_list_volumes).  false after answering 400. */
bool xms_tag_list_field(struct xms_ctx *x, enum xms_tag_kind k, struct xms_attrs *a);
/* the volumes of cluster (0: any) that carry a Volume tag of the body's tag-list,
 * added to vols; false after answering (500: out of memory) */
bool xms_tag_list_volumes(struct xms_ctx *x, uint64_t cluster, struct xms_idlist *vols);

/* "tag-list": [[guid, name, index], ...] of a's tags */
void xms_tag_list_show(const struct xms_attrs *a, struct json_object *content);
void xms_tag_list_text(const struct xms_attrs *a, struct json_text *w);

/* removes tag index and every tag under it, untagging their objects (a
 * root too: the caller refuses roots); false: out of memory, nothing done */
bool xms_tag_remove(uint64_t index);

#endif
