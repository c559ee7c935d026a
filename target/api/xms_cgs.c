/* xms_cgs.c — `consistency-groups` (a named set of volumes of one cluster,
 * snapshotted together by POST snapshots with consistency-group-id) and
 * `consistency-group-volumes` (the membership: one object per group, named
 * as the group; POST adds vol-id to cg-id, DELETE takes it out). */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/api/api_json.h"
#include "target/api/xms_common.h"
#include "target/api/xms_resources.h"
#include "target/api/xms_tags.h"

static struct json_object *cg_json(const struct xms_cg *g)
{
	struct json_object *o = json_object_new_object(), *vl = json_object_new_array();
	const struct xms_cluster *c = xms_cluster_get(&g_xms, g->cluster);

	json_object_object_add(o, "name", json_object_new_string(g->name));
	json_object_object_add(o, "index", json_object_new_int64((int64_t)g->index));
	json_object_object_add(o, "guid", json_object_new_string(g->guid));
	json_object_object_add(o, "cg-id", xms_cg_oid(g));
	if (c)
		json_object_object_add(o, "sys-id", xms_cluster_oid(c));
	for (size_t j = 0; j < g->vols.n; j++) {
		const struct xms_volume *v = xms_volume_get(&g_xms, g->vols.v[j]);
		if (v)
			json_object_array_add(vl, xms_volume_oid(v));
	}
	json_object_object_add(o, "vol-list", vl);
	json_object_object_add(o, "num-of-vols", json_object_new_int64((int64_t)g->vols.n));
	xms_tag_list_show(&g->attrs, o);
	return o;
}

static void list_cgs(struct xms_ctx *x, struct json_object *arr)
{
	const uint64_t *want;
	size_t nwant;
	bool some = xms_wanted_candidates(x, XMS_NAME_CG, &want, &nwant);

	for (size_t i = 0; i < (some ? nwant : g_xms.cgs.n); i++) {
		const struct xms_cg *g = some ? xms_cg_get(&g_xms, want[i]) : &g_xms.cgs.v[i];
		if (g && xms_wanted(x, g->index, g->name))
			json_object_array_add(arr, cg_json(g));
	}
}

/* the volumes of vol-list, all of cluster c; false after answering */
static bool vol_list(struct xms_ctx *x, const struct xms_cluster *c, struct xms_idlist *out)
{
	const char *names[XMS_MAX_LIST];
	size_t n = 0;
	char err[256];
	struct json_object *jl;
	int rc;

	/* an empty vol-list is a group made empty (docbert's create_cg sends [] by default) */
	if (json_object_object_get_ex(x->body, "vol-list", &jl) && jl && json_object_is_type(jl, json_type_array) &&
	    json_object_array_length(jl) == 0)
		return true;
	rc = api_json_string_list(x->body, "vol-list", XMS_MAX_LIST, XMS_NAME_MAX, names, &n, err, sizeof(err));

	if (rc < 0)
		return api_errorf(x->rsp, 400, "Command Syntax Error: %s", err);
	for (size_t i = 0; i < n; i++) {
		const struct xms_volume *v = xms_volume_ref(&g_xms, names[i]);
		if (!v)
			return api_error(x->rsp, 400, XMS_ERR_VOL_NOT_FOUND);
		if (v->cluster != c->index)
			return api_error(x->rsp, 400, "Command Syntax Error: vol-list: a volume of another cluster");
		if (!xms_idlist_add(out, v->index))
			return api_error(x->rsp, 500, "out of memory");
	}
	return true;
}

static void post_cg(struct xms_ctx *x)
{
	static const char *const fields[] = { "consistency-group-name", "name", NULL };
	struct xms_cluster *c = xms_request_cluster(x);
	struct xms_idlist vols = { NULL, 0 };
	const char *name;
	struct xms_cg *g;
	struct xms_attrs attrs;
	int rc;

	if (!c)
		return;
	memset(&attrs, 0, sizeof(attrs));
	rc = xms_field_any(x, fields, XMS_NAME_MAX, &name, NULL);
	if (rc < 0)
		return;
	if (rc == 0 || !xms_name_ok(name)) {
		api_error(x->rsp, 400, "Command Syntax Error: consistency-group-name: want 1..128 printable characters");
		return;
	}
	if (!xms_attrs_field(x, XMS_ATTR_TAGS, &attrs))
		return;
	if (xms_cg_by_name(&g_xms, name)) {
		api_error(x->rsp, 400, XMS_ERR_OBJ_NAME_NOT_UNIQUE);
		return;
	}
	if (g_xms.cgs.n >= XMS_MAX_OBJECTS) {
		api_error(x->rsp, 400, XMS_ERR_TOO_MANY);
		return;
	}
	/* Volume tags in tag-list name the group's volumes too (XtremIO.Utils'
	 * New-XIOConsistencyGroup -Tag) */
	if (!vol_list(x, c, &vols) || !xms_tag_list_volumes(x, c->index, &vols)) {
		free(vols.v);
		return;
	}
	g = xms_cg_add(&g_xms);
	if (!g) {
		free(vols.v);
		api_error(x->rsp, 500, "out of memory");
		return;
	}
	if (!xms_cg_set_name(&g_xms, g, c->index, name)) {
		xms_cg_del(&g_xms, g->index);
		free(vols.v);
		api_error(x->rsp, 500, "out of memory");
		return;
	}
	g->vols = vols;
	g->attrs = attrs;
	xms_reply_created(x, "consistency-groups", g->index);
}

/* DELETE a group: its volumes stay */
static void del_cg(struct xms_ctx *x, uint64_t index)
{
	xms_cg_del(&g_xms, index);
	xms_reply_ok(x);
}

static void put_cg(struct xms_ctx *x, uint64_t index)
{
	static const char *const fields[] = { "new-name", "consistency-group-name", "name", NULL };
	struct xms_cg *g = xms_cg_get(&g_xms, index);
	const char *name;
	struct xms_attrs attrs = g->attrs;
	int rc = xms_field_any(x, fields, XMS_NAME_MAX, &name, NULL);

	if (rc < 0)
		return;
	/* a new name, or its tags (tag-list) */
	if ((rc == 0 && !json_object_object_get_ex(x->body, "tag-list", NULL)) || (rc > 0 && !xms_name_ok(name))) {
		api_error(x->rsp, 400, "Command Syntax Error: new-name: want 1..128 printable characters");
		return;
	}
	if (rc > 0 && xms_cg_by_name(&g_xms, name) && xms_cg_by_name(&g_xms, name) != g) {
		api_error(x->rsp, 400, XMS_ERR_OBJ_NAME_NOT_UNIQUE);
		return;
	}
	if (!xms_attrs_field(x, XMS_ATTR_TAGS, &attrs))
		return;
	if (rc > 0 && !xms_cg_set_name(&g_xms, g, g->cluster, name)) {
		api_error(x->rsp, 500, "out of memory");
		return;
	}
	g->attrs = attrs;
	xms_model_changed(&g_xms, XMS_KIND_CG, g->index);
	xms_reply_ok(x);
}

const struct xms_type xms_type_cgs = {
	.name = "consistency-groups",
	.v1 = false,
	.list = list_cgs,
	.post = post_cg,
	.put = put_cg,
	.del = del_cg,
};

/* ---- consistency-group-volumes ---- */

static void list_cgv(struct xms_ctx *x, struct json_object *arr)
{
	list_cgs(x, arr);
}

/* vol-id and cg-id of the request (body, or query for a DELETE) */
static bool member(struct xms_ctx *x, struct xms_volume **v, struct xms_cg **g, uint64_t named)
{
	static const char *const vf[] = { "vol-id", NULL }, *const gf[] = { "cg-id", NULL };
	const char *vr, *gr;
	char vbuf[24], gbuf[24];
	int rv = xms_field_ref(x, vf, vbuf, sizeof(vbuf), &vr), rg;

	if (rv == 0)
		rv = xms_field_or_param(x, "vol-id", XMS_NAME_MAX, &vr);

	if (rv < 0)
		return false;
	if (rv == 0)
		return api_error(x->rsp, 400, "Command Syntax Error: vol-id: missing");
	rg = xms_field_ref(x, gf, gbuf, sizeof(gbuf), &gr);
	if (rg == 0)
		rg = xms_field_or_param(x, "cg-id", XMS_NAME_MAX, &gr);
	if (rg < 0)
		return false;
	if (rg == 0 && !named)
		return api_error(x->rsp, 400, "Command Syntax Error: cg-id: missing");
	*g = rg > 0 ? xms_cg_ref(&g_xms, gr) : xms_cg_get(&g_xms, named);
	if (!*g || (named && (*g)->index != named))
		return api_error(x->rsp, 400, XMS_ERR_CG_NOT_FOUND);
	*v = xms_volume_ref(&g_xms, vr);
	if (!*v)
		return api_error(x->rsp, 400, XMS_ERR_VOL_NOT_FOUND);
	return true;
}

static void post_cgv(struct xms_ctx *x)
{
	struct xms_volume *v;
	struct xms_cg *g;

	if (!member(x, &v, &g, 0))
		return;
	if (v->cluster != g->cluster) {
		api_error(x->rsp, 400, "Command Syntax Error: vol-id: a volume of another cluster");
		return;
	}
	if (xms_idlist_has(&g->vols, v->index)) {
		api_error(x->rsp, 400, "vol_already_in_cg");
		return;
	}
	if (!xms_idlist_add(&g->vols, v->index)) {
		api_error(x->rsp, 500, "out of memory");
		return;
	}
	xms_model_changed(&g_xms, XMS_KIND_CG, g->index);
	xms_reply_created(x, "consistency-group-volumes", g->index);
}

static void del_cgv(struct xms_ctx *x, uint64_t index)
{
	struct xms_volume *v;
	struct xms_cg *g;

	if (!member(x, &v, &g, index))
		return;
	if (!xms_idlist_has(&g->vols, v->index)) {
		api_error(x->rsp, 400, XMS_ERR_NOT_FOUND);
		return;
	}
	xms_idlist_remove(&g->vols, v->index);
	xms_model_changed(&g_xms, XMS_KIND_CG, g->index);
	xms_reply_ok(x);
}

const struct xms_type xms_type_cg_volumes = {
	.name = "consistency-group-volumes",
	.v1 = false,
	.list = list_cgv,
	.post = post_cgv,
	.del = del_cgv,
	.del_without_name = true,
};
