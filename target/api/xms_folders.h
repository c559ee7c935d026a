/* xms_folders.h — `volume-folders` and `ig-folders` (XMS 3's folders, on
 * v1, v2 and v3 paths), served as views of the Volume and InitiatorGroup
 * tag trees, not as a second bookkeeping: a folder is a tag (same index,
 * guid, caption, color, creation time), "/" is the kind's root tag and
 * "/a/b" is the tag "/Volume/a/b".  XtremIO.Utils reads a folder's
 * `color`, `creation-time-long` and `object-type` on XMS 4, fields only a
 * tag has, and its New-XIOVolume calls `parent-folder-id` "obsolete in
 * XIOS API v2.0": the folders became the tags.  POST {"caption",
 * "parent-folder-id"} makes one, PUT {"caption"} renames it, DELETE
 * removes it with its subfolders (their objects stay, untagged); an object
 * in no folder of its kind is in "/".  docs/api.md "volume-folders,
 * ig-folders". */
#ifndef LUNLAB_XMS_FOLDERS_H
#define LUNLAB_XMS_FOLDERS_H

#include <stdbool.h>

#include "target/api/xms_engine.h"
#include "target/api/xms_model.h"
#include "target/api/xms_tag_model.h"

extern const struct xms_type xms_type_volume_folders;
extern const struct xms_type xms_type_ig_folders;

/* A POST's `parent-folder-id` (goxtremio's and XtremIO.Utils' volume and
 * initiator group POSTs): the folder ("/a", its index, or "/" for none)
 * whose tag a gets, beside its tag-list; absent or "/": a unchanged.
 * false after answering 400. */
bool xms_folder_field(struct xms_ctx *x, enum xms_tag_kind k, struct xms_attrs *a);

#endif
