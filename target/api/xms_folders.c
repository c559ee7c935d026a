/* xms_folders.c — see xms_folders.h.  The requests and fields are the
 * public clients': goxtremio (GET volume-folders / ig-folders, list key
 * "folders", ?name=/Ubuntu, a folder's name, index, folder-id,
 * parent-folder-id, subfolder-list, num-of-subfolders, direct-list,
 * num-of-direct-objs, num-of-vols, vol-size as a string, caption),
 * XtremIO.Utils (New-XIOVolumeFolder / New-XIOInitiatorGroupFolder POST
 * {"caption", "parent-folder-id": "/..."}, Set-... PUT {"caption"},
 * Remove-... DELETE {"folder-name" | "ig-folder-name", "folder-type"},
 * whose folder-name the path already names; the VolumeFolder and IgFolder
 * objects it builds).  What an XMS answers to a refusal here no public
 * client shows: the error words are lunlab's, those of tags (docs/api.md). */
#include "target/api/xms_folders.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "target/api/api_json.h"
#include "target/api/xms_common.h"
#include "target/api/xms_tags.h"

#define FOLDER_NAME_MAX XMS_TAG_NAME_MAX

static enum xms_tag_kind kind_of(const struct xms_ctx *x)
{
	return x->type == &xms_type_ig_folders ? XMS_TAG_IG : XMS_TAG_VOLUME;
}

static int64_t now_ms(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

/* the kind's root tag; NULL: not made yet */
static struct xms_tag *root_find(enum xms_tag_kind k)
{
	for (size_t i = 0; i < g_xms.tags.n; i++)
		if (!g_xms.tags.v[i].parent && g_xms.tags.v[i].kind == k)
			return &g_xms.tags.v[i];
	return NULL;
}

/* The kind's root tag, made when first needed (as POST tags makes it): an
 * XMS always has its root folder "/", so a GET may make it; a refused
 * request does not (it changes nothing).  NULL: out of memory. */
static struct xms_tag *root_of(enum xms_tag_kind k)
{
	struct xms_tag *t = root_find(k);

	if (t)
		return t;
	t = xms_tag_add(&g_xms);
	if (!t)
		return NULL;
	snprintf(t->caption, sizeof(t->caption), "%s", xms_tag_entity(k));
	t->kind = (uint8_t)k;
	t->created_ms = now_ms();
	return t;
}

/* t's folder name: its tag name without the root ("/Volume/a" is "/a",
 * "/Volume" is "/") */
static void folder_name(const struct xms_tag *t, char *out)
{
	char tn[XMS_TAG_NAME_MAX + 1];
	size_t rl = 1 + strlen(xms_tag_entity((enum xms_tag_kind)t->kind));

	xms_tag_name(&g_xms, t, tn);
	snprintf(out, FOLDER_NAME_MAX + 1, "%s", tn[rl] ? tn + rl : "/");
}

static struct json_object *folder_oid(const struct xms_tag *t)
{
	char name[FOLDER_NAME_MAX + 1];

	folder_name(t, name);
	return xms_oid(t->guid, name, t->index);
}

/* the folder of kind k a reference names: "/a/b" (a folder name), an
 * index as digits or a JSON number; NULL: none.  *root: it names "/"
 * (NULL then when the root tag is not made yet). */
static struct xms_tag *folder_ref(enum xms_tag_kind k, struct json_object *v, bool *root)
{
	struct xms_tag *t = NULL;
	uint64_t index = 0;

	*root = false;

	if (v && json_object_is_type(v, json_type_int)) {
		int64_t i = json_object_get_int64(v);
		index = i > 0 ? (uint64_t)i : 0;
	} else if (v && json_object_is_type(v, json_type_string)) {
		const char *s = json_object_get_string(v);
		size_t len = (size_t)json_object_get_string_len(v);
		char tn[XMS_TAG_NAME_MAX + 2];

		if (len == 0 || len > FOLDER_NAME_MAX || strlen(s) != len)
			return NULL;
		if (*s == '/') {
			if (strcmp(s, "/") == 0) {
				*root = true;
				return root_find(k);
			}
			snprintf(tn, sizeof(tn), "/%s%s", xms_tag_entity(k), s);
			t = xms_tag_by_name(&g_xms, tn);
		} else if (strspn(s, "0123456789") == len && len < 20) {
			errno = 0;
			index = strtoull(s, NULL, 10);
		}
	}
	if (!t && index)
		t = xms_tag_get(&g_xms, index);
	if (!t || t->kind != k)
		return NULL;
	*root = !t->parent;
	return t;
}

/* ---- objects in folders ---- */

bool xms_folder_field(struct xms_ctx *x, enum xms_tag_kind k, struct xms_attrs *a)
{
	struct json_object *v;
	const struct xms_tag *t;
	bool root;

	if (!json_object_object_get_ex(x->body, "parent-folder-id", &v) || !v)
		return true;
	if (!json_object_is_type(v, json_type_string) && !json_object_is_type(v, json_type_int))
		return api_error(x->rsp, 400, "Command Syntax Error: parent-folder-id: want a folder name (\"/a\") or index");
	t = folder_ref(k, v, &root);
	if (root)
		return true; /* "/": in no folder */
	if (!t)
		return api_errorf(x->rsp, 400, "%s: parent-folder-id", XMS_ERR_NOT_FOUND);
	if (xms_attrs_has_tag(a, t->index))
		return true;
	if (a->ntags == XMS_TAGS_PER_OBJECT)
		return api_errorf(x->rsp, 400, "Command Syntax Error: tag-list: at most %d tags per object",
				  XMS_TAGS_PER_OBJECT);
	a->tags[a->ntags++] = t->index;
	return true;
}

/* ---- the resource ---- */

static struct json_object *folder_json(const struct xms_tag *t)
{
	struct json_object *o = json_object_new_object(), *subs = json_object_new_array(),
			   *direct = json_object_new_array();
	const struct xms_tag *p = t->parent ? xms_tag_get(&g_xms, t->parent) : NULL;
	char name[FOLDER_NAME_MAX + 1];
	struct xms_tag_entity e;
	uint64_t objs = 0, bytes = 0;

	folder_name(t, name);
	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "caption", json_object_new_string(t->parent ? t->caption : "/"));
	json_object_object_add(o, "index", json_object_new_int64((int64_t)t->index));
	json_object_object_add(o, "guid", json_object_new_string(t->guid));
	json_object_object_add(o, "folder-id", folder_oid(t));
	json_object_object_add(o, "parent-folder-id", p ? folder_oid(p) : json_object_new_array());
	json_object_object_add(o, "object-type", json_object_new_string(xms_tag_object_type((enum xms_tag_kind)t->kind)));
	/* direct-list: the subfolders, then the objects directly in it
	 * (XtremIO.Utils takes the objects as direct-list less subfolder-list);
	 * the root holds the objects in no folder of its kind */
	for (size_t i = 0; i < g_xms.tags.n; i++)
		if (g_xms.tags.v[i].parent == t->index) {
			json_object_array_add(subs, folder_oid(&g_xms.tags.v[i]));
			json_object_array_add(direct, folder_oid(&g_xms.tags.v[i]));
		}
	for (size_t i = 0; xms_tag_entity_at(&g_xms, (enum xms_tag_kind)t->kind, i, &e); i++) {
		if (t->parent ? !xms_attrs_has_tag(e.attrs, t->index) : e.attrs->ntags != 0)
			continue;
		json_object_array_add(direct, xms_oid(e.guid, e.name, e.index));
		objs++;
		if (t->kind == XMS_TAG_VOLUME) {
			const struct xms_volume *vol = xms_volume_get(&g_xms, e.index);
			bytes += vol ? vol->size : 0;
		}
	}
	json_object_object_add(o, "num-of-subfolders", json_object_new_int64((int64_t)json_object_array_length(subs)));
	json_object_object_add(o, "subfolder-list", subs);
	json_object_object_add(o, "num-of-direct-objs", json_object_new_int64((int64_t)json_object_array_length(direct)));
	json_object_object_add(o, "direct-list", direct);
	if (t->kind == XMS_TAG_VOLUME) {
		/* goxtremio: num-of-vols an int, vol-size a string (KB, as
		 * XtremIO.Utils divides it by 1GB for TB) */
		json_object_object_add(o, "num-of-vols", json_object_new_int64((int64_t)objs));
		json_object_object_add(o, "vol-size", xms_kb(bytes));
	}
	json_object_object_add(o, "color", json_object_new_string(t->color));
	json_object_object_add(o, "creation-time-long", json_object_new_int64(t->created_ms));
	json_object_object_add(o, "obj-severity", json_object_new_string("information"));
	return o;
}

static void list_folders(struct xms_ctx *x, struct json_object *arr)
{
	enum xms_tag_kind k = kind_of(x);
	char name[FOLDER_NAME_MAX + 1];

	if (!root_of(k))
		return; /* out of memory: no folders to show */
	for (size_t i = 0; i < g_xms.tags.n; i++) {
		const struct xms_tag *t = &g_xms.tags.v[i];
		if (t->kind != k)
			continue;
		if (x->want_name) {
			folder_name(t, name);
			if (strcmp(name, x->want_name) != 0)
				continue;
		} else if (!xms_wanted(x, t->index, NULL)) {
			continue;
		}
		json_object_array_add(arr, folder_json(t));
	}
}

static bool caption_ok(const char *c)
{
	return *c && strlen(c) <= XMS_NAME_MAX && xms_name_ok(c) && !strchr(c, '/');
}

static bool sibling_named(uint64_t parent, const char *caption, const struct xms_tag *self)
{
	for (size_t j = 0; j < g_xms.tags.n; j++)
		if (g_xms.tags.v[j].parent == parent && &g_xms.tags.v[j] != self &&
		    strcmp(g_xms.tags.v[j].caption, caption) == 0)
			return true;
	return false;
}

static void post_folder(struct xms_ctx *x)
{
	enum xms_tag_kind k = kind_of(x);
	const char *caption;
	struct json_object *pv = NULL;
	struct xms_tag *parent, *t;
	uint64_t pindex;
	bool root;
	int rc = xms_field_string(x, "caption", XMS_NAME_MAX, &caption);

	if (rc < 0)
		return;
	if (rc == 0 || !caption_ok(caption)) {
		api_error(x->rsp, 400, "Command Syntax Error: caption: want 1..128 printable characters, no '/'");
		return;
	}
	/* XtremIO.Utils: the parent defaults to "/" */
	if (json_object_object_get_ex(x->body, "parent-folder-id", &pv) && pv &&
	    !json_object_is_type(pv, json_type_string) && !json_object_is_type(pv, json_type_int)) {
		api_error(x->rsp, 400, "Command Syntax Error: parent-folder-id: want a folder name (\"/a\") or index");
		return;
	}
	if (pv) {
		parent = folder_ref(k, pv, &root);
	} else {
		parent = root_find(k);
		root = true;
	}
	if (!parent && !root) {
		api_errorf(x->rsp, 400, "%s: parent-folder-id", XMS_ERR_NOT_FOUND);
		return;
	}
	if (parent && xms_tag_depth(&g_xms, parent) >= XMS_TAG_DEPTH_MAX) {
		api_errorf(x->rsp, 400, "Command Syntax Error: parent-folder-id: at most %d levels below \"/\"",
			   XMS_TAG_DEPTH_MAX - 1);
		return;
	}
	if (parent && sibling_named(parent->index, caption, NULL)) {
		api_error(x->rsp, 400, XMS_ERR_OBJ_NAME_NOT_UNIQUE);
		return;
	}
	if (g_xms.tags.n + 2 > XMS_MAX_OBJECTS) {
		api_error(x->rsp, 400, XMS_ERR_TOO_MANY);
		return;
	}
	/* the root made now, when nothing can refuse the request any more */
	if (!parent && !(parent = root_of(k))) {
		api_error(x->rsp, 500, "out of memory");
		return;
	}
	pindex = parent->index; /* xms_tag_add may move the tags */
	t = xms_tag_add(&g_xms);
	if (!t) {
		api_error(x->rsp, 500, "out of memory");
		return;
	}
	snprintf(t->caption, sizeof(t->caption), "%s", caption);
	t->parent = pindex;
	t->kind = (uint8_t)k;
	t->created_ms = now_ms();
	xms_reply_created(x, x->type->name, t->index);
}

static void put_folder(struct xms_ctx *x, uint64_t index)
{
	struct xms_tag *t = xms_tag_get(&g_xms, index);
	const char *caption;
	int rc = xms_field_string(x, "caption", XMS_NAME_MAX, &caption);

	if (rc < 0)
		return;
	if (rc == 0 || !caption_ok(caption)) {
		api_error(x->rsp, 400, "Command Syntax Error: caption: want 1..128 printable characters, no '/'");
		return;
	}
	if (!t->parent) {
		api_error(x->rsp, 400, "Command Syntax Error: caption: \"/\" is the root folder: its name is fixed");
		return;
	}
	if (sibling_named(t->parent, caption, t)) {
		api_error(x->rsp, 400, XMS_ERR_OBJ_NAME_NOT_UNIQUE);
		return;
	}
	snprintf(t->caption, sizeof(t->caption), "%s", caption);
	xms_model_changed(&g_xms, XMS_KIND_TAG, t->index);
	xms_reply_ok(x);
}

/* the body's folder-name / ig-folder-name and folder-type (XtremIO.Utils)
 * are not read: the path names the folder */
static void del_folder(struct xms_ctx *x, uint64_t index)
{
	const struct xms_tag *t = xms_tag_get(&g_xms, index);

	if (!t->parent) {
		api_error(x->rsp, 400, "Command Syntax Error: \"/\" is the root folder: it cannot be removed");
		return;
	}
	if (!xms_tag_remove(index)) {
		api_error(x->rsp, 500, "out of memory");
		return;
	}
	xms_reply_ok(x);
}

/* both lists under "folders" (goxtremio's and XtremIO.Utils' key) */
const struct xms_type xms_type_volume_folders = {
	.name = "volume-folders",
	.list_key = "folders",
	.v1 = true,
	.list = list_folders,
	.post = post_folder,
	.put = put_folder,
	.del = del_folder,
};

const struct xms_type xms_type_ig_folders = {
	.name = "ig-folders",
	.list_key = "folders",
	.v1 = true,
	.list = list_folders,
	.post = post_folder,
	.put = put_folder,
	.del = del_folder,
};
