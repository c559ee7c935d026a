/* xms_tags.c — see xms_tags.h.  The requests are the public clients':
 * CoprHD's XtremIOV2Client (POST {"entity", "tag-name": "/Volume/P"}, GET
 * tags and read each entry's name, PUT tags?name=T {"entity",
 * "entity-details": NAME, "cluster-id"}, GET/DELETE tags?name=T&cluster-name=C
 * reading num-of-direct-objs), XtremIO.Utils (New-/Set-/Remove-XIOTag,
 * New-/Remove-XIOTagAssignment: "tag-id" and "entity-details" as object
 * ids, PUT {"caption"}, {"color": "#RRGGBB"}; the fields its Tag object
 * reads), MTSXtremIO and PyXtremIO (tag-name without its root: "MyVols"
 * is "/Volume/MyVols").  What an XMS answers to a refusal here is not
 * shown by any of them: the error words are lunlab's (docs/api.md). */
#include "target/api/xms_tags.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "target/api/api_json.h"
#include "target/api/json_text.h"
#include "target/api/xms_common.h"
#include "target/api/xms_inventory.h"

#define COLOR_MAX 15

static struct json_object *tag_oid(const struct xms_tag *t)
{
	char name[XMS_TAG_NAME_MAX + 1];

	xms_tag_name(&g_xms, t, name);
	return xms_oid(t->guid, name, t->index);
}

/* ---- references in bodies ---- */

/* "NAME", an index (a number or digits), or an object id [guid, name,
 * index]: the name (when a string) or the index in *name / *index; false
 * for any other shape */
static bool ref_of(struct json_object *v, const char **name, uint64_t *index)
{
	*name = NULL;
	*index = 0;
	if (v && json_object_is_type(v, json_type_array) && json_object_array_length(v) == 3) {
		struct json_object *n = json_object_array_get_idx(v, 1), *i = json_object_array_get_idx(v, 2);
		if (n && json_object_is_type(n, json_type_string) && json_object_get_string_len(n) > 0)
			v = n;
		else
			v = i;
	}
	if (v && json_object_is_type(v, json_type_int)) {
		int64_t i = json_object_get_int64(v);
		*index = i > 0 ? (uint64_t)i : 0;
		return i > 0;
	}
	if (!v || !json_object_is_type(v, json_type_string) || json_object_get_string_len(v) == 0 ||
	    (size_t)json_object_get_string_len(v) > XMS_TAG_NAME_MAX ||
	    strlen(json_object_get_string(v)) != (size_t)json_object_get_string_len(v))
		return false;
	*name = json_object_get_string(v);
	if (**name >= '1' && **name <= '9' && strspn(*name, "0123456789") == strlen(*name)) {
		errno = 0;
		*index = strtoull(*name, NULL, 10);
		if (errno)
			*index = 0;
	}
	return true;
}

static struct xms_tag *tag_ref(const char *name, uint64_t index)
{
	struct xms_tag *t = name ? xms_tag_by_name(&g_xms, name) : NULL;

	return t ? t : index ? xms_tag_get(&g_xms, index) : NULL;
}

/* the object of kind k the reference names: by name within the request's
 * cluster (when it names one), else by index */
static bool entity_ref(enum xms_tag_kind k, const char *name, uint64_t index, struct xms_tag_entity *out)
{
	struct xms_tag_entity e;

	for (size_t i = 0; name && xms_tag_entity_at(&g_xms, k, i, &e); i++) {
		if ((!g_xms.scope || e.cluster == g_xms.scope) && strcmp(e.name, name) == 0) {
			*out = e;
			return true;
		}
	}
	for (size_t i = 0; index && xms_tag_entity_at(&g_xms, k, i, &e); i++) {
		if (e.index == index) {
			*out = e;
			return true;
		}
	}
	return false;
}

static const char *not_found_of(enum xms_tag_kind k)
{
	return k == XMS_TAG_VOLUME ? XMS_ERR_VOL_NOT_FOUND
	       : k == XMS_TAG_IG   ? XMS_ERR_IG_NOT_FOUND
	       : k == XMS_TAG_CG   ? XMS_ERR_CG_NOT_FOUND
				   : XMS_ERR_NOT_FOUND;
}

/* ---- tag-list of objects ---- */

bool xms_tag_list_field(struct xms_ctx *x, enum xms_tag_kind k, struct xms_attrs *a)
{
	struct json_object *v;
	uint64_t ids[XMS_TAGS_PER_OBJECT];
	size_t n = 0;

	if (!json_object_object_get_ex(x->body, "tag-list", &v) || !v)
		return true;
	if (!json_object_is_type(v, json_type_array) || json_object_array_length(v) > XMS_MAX_LIST)
		return api_errorf(x->rsp, 400, "Command Syntax Error: tag-list: want a list of at most %d tag names or ids",
				  XMS_MAX_LIST);
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		const char *name;
		uint64_t index;
		const struct xms_tag *t;
		char tn[XMS_TAG_NAME_MAX + 1];

		if (!ref_of(json_object_array_get_idx(v, i), &name, &index))
			return api_errorf(x->rsp, 400, "Command Syntax Error: tag-list[%zu]: want a tag name, index or object id",
					  i);
		t = tag_ref(name, index);
		if (!t)
			return api_errorf(x->rsp, 400, "%s: tag-list[%zu]", XMS_ERR_NOT_FOUND, i);
		if (k == XMS_TAG_CG && t->kind == XMS_TAG_VOLUME)
			continue; /* the group's volumes: xms_tag_list_volumes */
		xms_tag_name(&g_xms, t, tn);
		if (t->kind != k)
			return api_errorf(x->rsp, 400, "Command Syntax Error: tag-list[%zu]: %.200s tags %s objects, not %s",
					  i, tn, xms_tag_entity(t->kind), xms_tag_entity(k));
		if (!t->parent)
			return api_errorf(x->rsp, 400, "Command Syntax Error: tag-list[%zu]: %.200s is a root tag", i, tn);
		bool dup = false;
		for (size_t j = 0; j < n; j++)
			dup = dup || ids[j] == t->index;
		if (dup)
			continue;
		if (n == XMS_TAGS_PER_OBJECT)
			return api_errorf(x->rsp, 400, "Command Syntax Error: tag-list: at most %d tags per object",
					  XMS_TAGS_PER_OBJECT);
		ids[n++] = t->index;
	}
	memcpy(a->tags, ids, n * sizeof(ids[0]));
	a->ntags = (uint8_t)n;
	return true;
}

bool xms_tag_list_volumes(struct xms_ctx *x, uint64_t cluster, struct xms_idlist *vols)
{
	struct json_object *v;

	if (!json_object_object_get_ex(x->body, "tag-list", &v) || !v || !json_object_is_type(v, json_type_array))
		return true; /* xms_tag_list_field checked it */
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		const char *name;
		uint64_t index;
		const struct xms_tag *t;
		struct xms_tag_entity e;

		if (!ref_of(json_object_array_get_idx(v, i), &name, &index) || !(t = tag_ref(name, index)) ||
		    t->kind != XMS_TAG_VOLUME)
			continue;
		for (size_t j = 0; xms_tag_entity_at(&g_xms, XMS_TAG_VOLUME, j, &e); j++)
			if ((!cluster || e.cluster == cluster) && xms_attrs_has_tag(e.attrs, t->index) && !xms_idlist_add(vols, e.index))
				return api_error(x->rsp, 500, "out of memory");
	}
	return true;
}

void xms_tag_list_show(const struct xms_attrs *a, struct json_object *o)
{
	struct json_object *l = json_object_new_array();

	for (size_t i = 0; i < a->ntags; i++) {
		const struct xms_tag *t = xms_tag_get(&g_xms, a->tags[i]);
		if (t)
			json_object_array_add(l, tag_oid(t));
	}
	json_object_object_add(o, "tag-list", l);
}

void xms_tag_list_text(const struct xms_attrs *a, struct json_text *w)
{
	char name[XMS_TAG_NAME_MAX + 1];

	jt_key(w, "tag-list");
	jt_arr_open(w);
	for (size_t i = 0; i < a->ntags; i++) {
		const struct xms_tag *t = xms_tag_get(&g_xms, a->tags[i]);
		if (!t)
			continue;
		xms_tag_name(&g_xms, t, name);
		jt_arr_open(w);
		jt_str(w, t->guid);
		jt_str(w, name);
		jt_int(w, (int64_t)t->index);
		jt_arr_close(w);
	}
	jt_arr_close(w);
}

/* ---- the resource ---- */

/* t is u or one of u's ancestors */
static bool under(const struct xms_tag *t, uint64_t ancestor)
{
	for (int hops = 0; t && hops <= XMS_TAG_DEPTH_MAX; hops++) {
		if (t->index == ancestor)
			return true;
		t = t->parent ? xms_tag_get(&g_xms, t->parent) : NULL;
	}
	return false;
}

static struct json_object *tag_json(const struct xms_tag *t)
{
	struct json_object *o = json_object_new_object(), *kids = json_object_new_array(),
			   *direct = json_object_new_array(), *all = json_object_new_array();
	const struct xms_tag *p = t->parent ? xms_tag_get(&g_xms, t->parent) : NULL;
	char name[XMS_TAG_NAME_MAX + 1];
	struct xms_tag_entity e;

	xms_tag_name(&g_xms, t, name);
	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "index", json_object_new_int64((int64_t)t->index));
	json_object_object_add(o, "guid", json_object_new_string(t->guid));
	json_object_object_add(o, "tag-id", xms_oid(t->guid, name, t->index));
	json_object_object_add(o, "caption", json_object_new_string(t->caption));
	json_object_object_add(o, "object-type", json_object_new_string(xms_tag_object_type(t->kind)));
	json_object_object_add(o, "parent-id", p ? tag_oid(p) : json_object_new_array());
	for (size_t i = 0; i < g_xms.tags.n; i++)
		if (g_xms.tags.v[i].parent == t->index)
			json_object_array_add(kids, tag_oid(&g_xms.tags.v[i]));
	/* a root tag's direct objects are its child tags (XtremIO.Utils reads
	 * them so); another's, the objects it tags */
	if (!t->parent)
		for (size_t i = 0; i < json_object_array_length(kids); i++)
			json_object_array_add(direct, json_object_get(json_object_array_get_idx(kids, i)));
	for (size_t i = 0; xms_tag_entity_at(&g_xms, t->kind, i, &e); i++) {
		bool mine = false, below = false;
		for (size_t j = 0; j < e.attrs->ntags; j++) {
			mine = mine || e.attrs->tags[j] == t->index;
			below = below || under(xms_tag_get(&g_xms, e.attrs->tags[j]), t->index);
		}
		if (mine && t->parent)
			json_object_array_add(direct, xms_oid(e.guid, e.name, e.index));
		if (below)
			json_object_array_add(all, xms_oid(e.guid, e.name, e.index));
	}
	json_object_object_add(o, "num-of-children", json_object_new_int64((int64_t)json_object_array_length(kids)));
	json_object_object_add(o, "child-list", kids);
	json_object_object_add(o, "num-of-direct-objs", json_object_new_int64((int64_t)json_object_array_length(direct)));
	json_object_object_add(o, "direct-list", direct);
	json_object_object_add(o, "num-of-items", json_object_new_int64((int64_t)json_object_array_length(all)));
	json_object_object_add(o, "obj-list", all);
	json_object_object_add(o, "color", json_object_new_string(t->color));
	json_object_object_add(o, "creation-time-long", json_object_new_int64(t->created_ms));
	json_object_object_add(o, "obj-severity", json_object_new_string("information"));
	return o;
}

static void list_tags(struct xms_ctx *x, struct json_object *arr)
{
	char name[XMS_TAG_NAME_MAX + 1];

	for (size_t i = 0; i < g_xms.tags.n; i++) {
		const struct xms_tag *t = &g_xms.tags.v[i];
		if (x->want_name) {
			xms_tag_name(&g_xms, t, name);
			if (strcmp(name, x->want_name) != 0)
				continue;
		} else if (!xms_wanted(x, t->index, NULL)) {
			continue;
		}
		json_object_array_add(arr, tag_json(t));
	}
}

static int64_t now_ms(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

/* color: optional, printable, at most COLOR_MAX bytes (XtremIO.Utils sends
 * "#RRGGBB"); 1 given, 0 absent, -1 answered */
static int color_field(struct xms_ctx *x, const char **out)
{
	int rc = xms_field_string(x, "color", COLOR_MAX, out);

	if (rc > 0 && !xms_name_ok(*out)) {
		api_error(x->rsp, 400, "Command Syntax Error: color: want 1..15 printable characters (#RRGGBB)");
		return -1;
	}
	return rc;
}

static bool caption_ok(const char *s, size_t len)
{
	char c[XMS_NAME_MAX + 1];

	if (len == 0 || len > XMS_NAME_MAX)
		return false;
	memcpy(c, s, len);
	c[len] = '\0';
	return xms_name_ok(c) && !strchr(c, '/');
}

static void post_tag(struct xms_ctx *x)
{
	const char *entity, *tname, *color = NULL, *segs[XMS_TAG_DEPTH_MAX + 1];
	size_t lens[XMS_TAG_DEPTH_MAX + 1], nseg = 0;
	int rc, k;
	uint64_t parent = 0;
	struct xms_tag *t = NULL;

	rc = xms_field_string(x, "entity", 32, &entity);
	if (rc < 0)
		return;
	k = rc > 0 ? xms_tag_kind_parse(entity) : -1;
	if (k < 0) {
		api_error(x->rsp, 400, "Command Syntax Error: entity: want Volume, InitiatorGroup, Initiator, "
				       "ConsistencyGroup, SnapshotSet, Scheduler, Cluster, X-Brick, StorageController, SSD, DAE, "
				       "BatteryBackupUnit, InfinibandSwitch, DataProtectionGroup or Target");
		return;
	}
	rc = xms_field_string(x, "tag-name", XMS_TAG_NAME_MAX, &tname);
	if (rc < 0)
		return;
	if (rc == 0 || !*tname) {
		api_error(x->rsp, 400, "Command Syntax Error: tag-name: missing");
		return;
	}
	if (color_field(x, &color) < 0)
		return;
	/* "/Volume/a/b", or "a/b" under the entity's root (XtremIO.Utils,
	 * MTSXtremIO: "MyVols" is "/Volume/MyVols") */
	segs[0] = xms_tag_entity((enum xms_tag_kind)k);
	lens[0] = strlen(segs[0]);
	nseg = 1;
	const char *p = tname;
	if (*p == '/') {
		size_t rl = strcspn(p + 1, "/");
		if (rl != lens[0] || strncmp(p + 1, segs[0], rl) != 0) {
			api_errorf(x->rsp, 400, "Command Syntax Error: tag-name: %.200s is not under /%s (the entity's root)",
				   tname, segs[0]);
			return;
		}
		p += 1 + rl;
		if (*p == '/')
			p++;
		else if (*p == '\0') {
			api_errorf(x->rsp, 400, "Command Syntax Error: tag-name: /%s is the root tag, which exists", segs[0]);
			return;
		}
	}
	for (;;) {
		size_t l = strcspn(p, "/");
		if (nseg == XMS_TAG_DEPTH_MAX) {
			api_errorf(x->rsp, 400, "Command Syntax Error: tag-name: at most %d levels, the root's included",
				   XMS_TAG_DEPTH_MAX);
			return;
		}
		if (!caption_ok(p, l)) {
			api_error(x->rsp, 400, "Command Syntax Error: tag-name: each level 1..128 printable characters");
			return;
		}
		segs[nseg] = p;
		lens[nseg++] = l;
		if (p[l] == '\0')
			break;
		p += l + 1;
	}
	/* the missing levels are made (XtremIO.Utils: no parent needs to exist) */
	size_t have = 0;
	for (size_t i = 0; i < nseg; i++) {
		struct xms_tag *found = NULL;
		for (size_t j = 0; j < g_xms.tags.n; j++) {
			struct xms_tag *c = &g_xms.tags.v[j];
			if (c->parent == parent && c->kind == k && strlen(c->caption) == lens[i] &&
			    strncmp(c->caption, segs[i], lens[i]) == 0)
				found = c;
		}
		if (!found)
			break;
		parent = found->index;
		have++;
	}
	if (have == nseg) {
		api_error(x->rsp, 400, XMS_ERR_OBJ_NAME_NOT_UNIQUE);
		return;
	}
	if (g_xms.tags.n + (nseg - have) > XMS_MAX_OBJECTS) {
		api_error(x->rsp, 400, XMS_ERR_TOO_MANY);
		return;
	}
	for (size_t i = have; i < nseg; i++) {
		t = xms_tag_add(&g_xms);
		if (!t) {
			api_error(x->rsp, 500, "out of memory");
			return;
		}
		memcpy(t->caption, segs[i], lens[i]);
		t->caption[lens[i]] = '\0';
		t->parent = parent;
		t->kind = (uint8_t)k;
		t->created_ms = now_ms();
		parent = t->index;
	}
	if (color)
		snprintf(t->color, sizeof(t->color), "%s", color);
	xms_reply_created(x, "tags", t->index);
}

/* An inventory object (xms_inventory.h) as an entity: its tags are its
 * record in the model, made for a tagging (make) and not for an untagging
 * (a refusal changes nothing).  false after answering. */
static bool inventory_entity(struct xms_ctx *x, enum xms_tag_kind k, const char *name, uint64_t index, bool make,
			     struct xms_tag_entity *e)
{
	static struct xms_inv_ref ref; /* e's name and guid point here (one request at a time: the model lock) */

	if (!(name && xms_inv_lookup(k, g_xms.scope, name, 0, &ref)) && !(index && xms_inv_lookup(k, 0, NULL, index, &ref)))
		return api_error(x->rsp, 400, XMS_ERR_NOT_FOUND);
	e->index = ref.index;
	e->cluster = ref.cluster;
	e->name = ref.name;
	e->guid = ref.guid;
	e->attrs = xms_inv_tags_of(&ref, make);
	if (!e->attrs && make)
		return api_error(x->rsp, 500, "out of memory");
	if (!e->attrs)
		return api_errorf(x->rsp, 400, "%s: %.128s does not carry the tag", XMS_ERR_NOT_FOUND, ref.name);
	return true;
}

/* the entity and entity-details of a (un)tagging of t (make: a tagging):
 * false after answering */
static bool assignment(struct xms_ctx *x, const struct xms_tag *t, bool make, struct xms_tag_entity *e)
{
	const char *entity, *name;
	char tn[XMS_TAG_NAME_MAX + 1];
	struct json_object *d;
	uint64_t index;
	int rc = xms_field_string(x, "entity", 32, &entity), k;

	if (rc < 0)
		return false;
	xms_tag_name(&g_xms, t, tn);
	k = rc > 0 ? xms_tag_kind_parse(entity) : -1;
	if (k < 0)
		return api_error(x->rsp, 400, "Command Syntax Error: entity: missing or not an entity type (Volume, ...)");
	if (k != t->kind)
		return api_errorf(x->rsp, 400, "Command Syntax Error: entity: %.200s tags %s objects, not %s", tn,
				  xms_tag_entity(t->kind), entity);
	if (!t->parent)
		return api_errorf(x->rsp, 400, "Command Syntax Error: %.200s is a root tag: it tags no object itself", tn);
	if (k >= XMS_TAG_MODEL_KINDS && k != XMS_TAG_CLUSTER && !xms_tag_kind_inventory(k))
		return api_errorf(x->rsp, 400,
				  "Command Syntax Error: entity: lunlab tags volumes, snapshots, initiator groups, "
				  "initiators, consistency groups, snapshot sets, clusters, X-Bricks, storage controllers, "
				  "SSDs, BBUs and targets, not %s objects", entity);
	if (!json_object_object_get_ex(x->body, "entity-details", &d) || !ref_of(d, &name, &index))
		return api_error(x->rsp, 400, "Command Syntax Error: entity-details: want the object's name, index or id");
	if (xms_tag_kind_inventory(k))
		return inventory_entity(x, (enum xms_tag_kind)k, name, index, make, e);
	if (!entity_ref((enum xms_tag_kind)k, name, index, e))
		return api_error(x->rsp, 400, not_found_of((enum xms_tag_kind)k));
	return true;
}

static bool wants_assignment(const struct xms_ctx *x)
{
	return json_object_object_get_ex(x->body, "entity", NULL) ||
	       json_object_object_get_ex(x->body, "entity-details", NULL);
}

static void put_tag(struct xms_ctx *x, uint64_t index)
{
	struct xms_tag *t = xms_tag_get(&g_xms, index);
	const char *caption, *color = NULL;
	int rc;

	if (wants_assignment(x)) {
		struct xms_tag_entity e;

		if (!assignment(x, t, true, &e))
			return;
		if (!xms_attrs_has_tag(e.attrs, t->index)) {
			if (e.attrs->ntags == XMS_TAGS_PER_OBJECT) {
				api_errorf(x->rsp, 400, "Command Syntax Error: entity-details: %.128s carries %d tags, the most",
					   e.name, XMS_TAGS_PER_OBJECT);
				return;
			}
			e.attrs->tags[e.attrs->ntags++] = t->index;
			xms_tag_entity_changed(&g_xms, (enum xms_tag_kind)t->kind, e.index);
		}
		xms_reply_ok(x);
		return;
	}
	rc = xms_field_string(x, "caption", XMS_NAME_MAX, &caption);
	if (rc < 0 || color_field(x, &color) < 0)
		return;
	if (rc == 0 && !color) {
		api_error(x->rsp, 400, "Command Syntax Error: give caption or color, or entity and entity-details");
		return;
	}
	if (rc > 0) {
		if (!caption_ok(caption, strlen(caption))) {
			api_error(x->rsp, 400, "Command Syntax Error: caption: want 1..128 printable characters, no '/'");
			return;
		}
		if (!t->parent) {
			api_errorf(x->rsp, 400, "Command Syntax Error: caption: /%s is a root tag: its name is fixed",
				   t->caption);
			return;
		}
		for (size_t j = 0; j < g_xms.tags.n; j++)
			if (g_xms.tags.v[j].parent == t->parent && &g_xms.tags.v[j] != t &&
			    strcmp(g_xms.tags.v[j].caption, caption) == 0) {
				api_error(x->rsp, 400, XMS_ERR_OBJ_NAME_NOT_UNIQUE);
				return;
			}
	}
	if (rc > 0)
		snprintf(t->caption, sizeof(t->caption), "%s", caption);
	if (color)
		snprintf(t->color, sizeof(t->color), "%s", color);
	xms_model_changed(&g_xms, XMS_KIND_TAG, t->index);
	xms_reply_ok(x);
}

static void del_tag(struct xms_ctx *x, uint64_t index)
{
	struct xms_tag *t = xms_tag_get(&g_xms, index);

	if (wants_assignment(x)) {
		struct xms_tag_entity e;

		if (!assignment(x, t, false, &e))
			return;
		if (!xms_attrs_has_tag(e.attrs, t->index)) {
			api_errorf(x->rsp, 400, "%s: %.128s does not carry the tag", XMS_ERR_NOT_FOUND, e.name);
			return;
		}
		xms_attrs_untag(e.attrs, t->index);
		xms_tag_entity_changed(&g_xms, (enum xms_tag_kind)t->kind, e.index);
		xms_inv_tagged_prune(&g_xms); /* an inventory object's record goes with its last tag */
		xms_reply_ok(x);
		return;
	}
	if (!t->parent) {
		api_errorf(x->rsp, 400, "Command Syntax Error: /%s is a root tag: it cannot be removed", t->caption);
		return;
	}
	if (!xms_tag_remove(index)) {
		api_error(x->rsp, 500, "out of memory");
		return;
	}
	xms_reply_ok(x);
}

bool xms_tag_remove(uint64_t index)
{
	uint64_t *gone;
	size_t n = 0;

	/* the tag and every tag under it (Remove-XIOTag: "and any child tags");
	 * their objects keep everything but the tag */
	gone = malloc(g_xms.tags.n * sizeof(*gone));
	if (!gone)
		return false;
	for (size_t i = 0; i < g_xms.tags.n; i++)
		if (under(&g_xms.tags.v[i], index))
			gone[n++] = g_xms.tags.v[i].index;
	for (size_t i = 0; i < n; i++) {
		const struct xms_tag *g = xms_tag_get(&g_xms, gone[i]);
		struct xms_tag_entity e;

		for (size_t j = 0; g && xms_tag_entity_at(&g_xms, g->kind, j, &e); j++) {
			if (xms_attrs_has_tag(e.attrs, gone[i])) {
				xms_attrs_untag(e.attrs, gone[i]);
				xms_tag_entity_changed(&g_xms, (enum xms_tag_kind)g->kind, e.index);
			}
		}
	}
	for (size_t i = 0; i < n; i++)
		xms_tag_del(&g_xms, gone[i]);
	free(gone);
	xms_inv_tagged_prune(&g_xms);
	return true;
}

const struct xms_type xms_type_tags = {
	.name = "tags",
	.v1 = false,
	.list = list_tags,
	.post = post_tag,
	.put = put_tag,
	.del = del_tag,
};
