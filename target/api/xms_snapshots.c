/* xms_snapshots.c — POST snapshots (XMS v2: a snapshot set of a volume
 * list, a consistency group or another snapshot set, read-only or regular;
 * v1's single snap-vol-name / ancestor-vol-id and its snap-list too) and the `snapshot-sets`
 * resource.  The snapshots are instant: one array_ctl.snapshot() call copies
 * every source's map at one point in time, then each snapshot gets its
 * device.  A failure at any step undoes the steps before it. */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "target/api/api_json.h"
#include "target/api/xms_common.h"
#include "target/api/xms_resources.h"
#include "target/api/xms_scsi.h"
#include "target/api/xms_tags.h"


/* v1's snap-list (goxtremio, REX-Ray): [{"ancestor-vol-id": SRC, "snap-vol-name": NAME}, ...],
 * one snapshot per entry, all at one point in time, in one set */
static bool snap_list(struct xms_ctx *x, struct xms_snap_spec *r, struct json_object *list)
{
	size_t n = json_object_array_length(list);

	if (n == 0 || n > XMS_MAX_LIST)
		return api_errorf(x->rsp, 400, "Command Syntax Error: snap-list: want 1..%d entries", XMS_MAX_LIST);
	r->src = calloc(n, sizeof(*r->src));
	r->names = calloc(n, sizeof(*r->names));
	if (!r->src || !r->names)
		return api_error(x->rsp, 500, "out of memory");
	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(list, i), *a, *nm;
		const struct xms_volume *v = NULL;

		if (!e || !json_object_is_type(e, json_type_object) || !json_object_object_get_ex(e, "ancestor-vol-id", &a) ||
		    !json_object_object_get_ex(e, "snap-vol-name", &nm) || !nm || !json_object_is_type(nm, json_type_string))
			return api_errorf(x->rsp, 400, "Command Syntax Error: snap-list[%zu]: want {ancestor-vol-id, "
					  "snap-vol-name}", i);
		/* the source: a name, an index, or an object id [guid, name, index] */
		if (a && json_object_is_type(a, json_type_array) && json_object_array_length(a) == 3)
			a = json_object_array_get_idx(a, 1);
		if (a && json_object_is_type(a, json_type_string) && json_object_get_string_len(a) <= XMS_NAME_MAX) {
			v = xms_volume_ref(&g_xms, json_object_get_string(a));
		} else if (a && json_object_is_type(a, json_type_int)) {
			v = json_object_get_int64(a) > 0 ? xms_volume_get(&g_xms, (uint64_t)json_object_get_int64(a)) : NULL;
		} else {
			return api_errorf(x->rsp, 400, "Command Syntax Error: snap-list[%zu].ancestor-vol-id: want a volume",
					  i);
		}
		if (!v)
			return api_error(x->rsp, 400, XMS_ERR_VOL_NOT_FOUND);
		r->src[i] = v->index;
		r->names[i] = json_object_get_string(nm);
		for (size_t j = 0; j < i; j++)
			if (strcmp(r->names[j], r->names[i]) == 0)
				return api_errorf(x->rsp, 400, "Command Syntax Error: snap-list: '%.128s' given twice",
						  r->names[i]);
	}
	r->n = n;
	return true;
}

/* the sources: volume-list | consistency-group-id | snapshot-set-id | (v1) ancestor-vol-id */
static bool sources(struct xms_ctx *x, struct xms_snap_spec *r)
{
	static const char *const cgf[] = { "consistency-group-id", NULL }, *const ssf[] = { "snapshot-set-id", NULL },
			  *const anf[] = { "ancestor-vol-id", NULL };
	const char *names[XMS_MAX_LIST], *ref;
	char buf[24];
	size_t n = 0;
	char err[256];
	int given = 0, rc;

	rc = api_json_string_list(x->body, "volume-list", XMS_MAX_LIST, XMS_NAME_MAX, names, &n, err, sizeof(err));
	if (rc < 0)
		return api_errorf(x->rsp, 400, "Command Syntax Error: %s", err);
	if (rc > 0) {
		given++;
		r->src = calloc(n, sizeof(*r->src));
		if (!r->src)
			return api_error(x->rsp, 500, "out of memory");
		for (size_t i = 0; i < n; i++) {
			const struct xms_volume *v = xms_volume_ref(&g_xms, names[i]);
			if (!v)
				return api_error(x->rsp, 400, XMS_ERR_VOL_NOT_FOUND);
			for (size_t j = 0; j < r->n; j++)
				if (r->src[j] == v->index)
					return api_errorf(x->rsp, 400, "Command Syntax Error: volume-list: '%s' given twice",
							  names[i]);
			r->src[r->n++] = v->index;
		}
	}
	if ((rc = xms_field_ref(x, cgf, buf, sizeof(buf), &ref)) < 0)
		return false;
	if (rc > 0) {
		const struct xms_cg *g = xms_cg_ref(&g_xms, ref);
		given++;
		if (!g)
			return api_error(x->rsp, 400, XMS_ERR_CG_NOT_FOUND);
		r->cg = g->index;
		r->src = calloc(g->vols.n ? g->vols.n : 1, sizeof(*r->src));
		if (!r->src)
			return api_error(x->rsp, 500, "out of memory");
		memcpy(r->src, g->vols.v, g->vols.n * sizeof(*r->src));
		r->n = g->vols.n;
	}
	if ((rc = xms_field_ref(x, ssf, buf, sizeof(buf), &ref)) < 0)
		return false;
	if (rc > 0) {
		const struct xms_snapset *s = xms_snapset_ref(&g_xms, ref);
		given++;
		if (!s)
			return api_error(x->rsp, 400, XMS_ERR_NOT_FOUND);
		r->src = calloc(s->vols.n ? s->vols.n : 1, sizeof(*r->src));
		if (!r->src)
			return api_error(x->rsp, 500, "out of memory");
		memcpy(r->src, s->vols.v, s->vols.n * sizeof(*r->src));
		r->n = s->vols.n;
	}
	if ((rc = xms_field_ref(x, anf, buf, sizeof(buf), &ref)) < 0)
		return false;
	if (rc > 0) { /* v1: one snapshot, named by snap-vol-name */
		const struct xms_volume *v = xms_volume_ref(&g_xms, ref);
		given++;
		if (!v)
			return api_error(x->rsp, 400, XMS_ERR_VOL_NOT_FOUND);
		r->src = calloc(1, sizeof(*r->src));
		r->names = calloc(1, sizeof(*r->names));
		if (!r->src || !r->names)
			return api_error(x->rsp, 500, "out of memory");
		if (xms_field_string(x, "snap-vol-name", XMS_NAME_MAX, &r->names[0]) <= 0)
			return x->rsp->status ? false
					      : api_error(x->rsp, 400, "Command Syntax Error: snap-vol-name: missing");
		r->src[0] = v->index;
		r->n = 1;
	}
	/* tag-list: the volumes carrying these Volume tags (PyXtremIO's
	 * create_snapshot_from_taglist, XtremIO.Utils' New-XIOSnapshot -Tag) */
	struct json_object *tl;
	if (json_object_object_get_ex(x->body, "tag-list", &tl) && tl) {
		struct xms_attrs probe = { 0 };
		struct xms_idlist vols = { NULL, 0 };

		given++;
		if (!xms_tag_list_field(x, XMS_TAG_VOLUME, &probe) || !xms_tag_list_volumes(x, g_xms.scope, &vols)) {
			free(vols.v);
			return false;
		}
		free(r->src);
		r->src = vols.v;
		r->n = vols.n;
	}
	struct json_object *sl;
	if (json_object_object_get_ex(x->body, "snap-list", &sl) && sl) {
		given++;
		if (given > 1)
			return api_error(x->rsp, 400, "Command Syntax Error: give exactly one of volume-list, "
					 "consistency-group-id, snapshot-set-id, tag-list, snap-list");
		if (!json_object_is_type(sl, json_type_array))
			return api_error(x->rsp, 400, "Command Syntax Error: snap-list: want a list");
		if (!snap_list(x, r, sl))
			return false;
	}
	if (given != 1)
		return api_error(x->rsp, 400, "Command Syntax Error: give exactly one of volume-list, "
				 "consistency-group-id, snapshot-set-id, tag-list, snap-list");
	if (r->n == 0)
		return api_error(x->rsp, 400, "Command Syntax Error: no volume to snapshot (the group is empty, or "
					      "no volume carries the tags)");
	return true;
}

static bool options(struct xms_ctx *x, struct xms_snap_spec *r)
{
	const char *type;
	int rc;

	if (xms_field_string(x, "snapshot-set-name", XMS_NAME_MAX, &r->set_name) < 0 ||
	    xms_field_string(x, "snap-suffix", 64, &r->suffix) < 0)
		return false;
	if ((rc = xms_field_string(x, "snapshot-type", 16, &type)) < 0)
		return false;
	if (rc > 0 && strcmp(type, "readonly") != 0 && strcmp(type, "regular") != 0)
		return api_error(x->rsp, 400, "Command Syntax Error: snapshot-type: want readonly or regular");
	r->readonly = rc > 0 && strcmp(type, "readonly") == 0;
	if (r->set_name && !xms_name_ok(r->set_name))
		return api_error(x->rsp, 400, "Command Syntax Error: snapshot-set-name: want 1..128 printable characters");
	return true;
}

/* "SRC.SUFFIX" (XMS names snapshots after their source) */
static bool snap_name(char *out, size_t cap, const char *src, const char *suffix, const char *v1_name)
{
	/* lengths checked before any byte is written (snprintf's truncation
	 * would be refused the same way, but gcc -O3 warns on it) */
	const char *a = v1_name ? v1_name : src, *b = v1_name ? "" : suffix;
	const char *dot = !v1_name && suffix[0] != '.' ? "." : "";
	size_t la = strlen(a), ld = strlen(dot), lb = strlen(b), n = la + ld + lb;

	if (n == 0 || n >= cap || n > XMS_NAME_MAX)
		return false;
	memcpy(out, a, la);
	memcpy(out + la, dot, ld);
	memcpy(out + la + ld, b, lb);
	out[n] = '\0';
	return true;
}

/* takes back what a failed snapshot made: devices, array volumes, objects */
static void undo(const struct xms_cluster *c, const uint64_t *dst, size_t made, bool in_array, uint64_t set)
{
	char err[256];

	for (size_t i = 0; i < made; i++) {
		struct xms_volume *v = xms_volume_get(&g_xms, dst[i]);
		if (!v)
			continue;
		xms_scsi_volume_close(v);
		if (in_array)
			xms_scsi_volume_free(c, v, err, sizeof(err));
		xms_volume_del(&g_xms, dst[i]);
	}
	xms_snapset_del(&g_xms, set);
}

/* whether a snapshot of r's sources named with suffix exists already */
static bool default_taken(const struct xms_snap_spec *r, const char *suffix)
{
	char name[XMS_NAME_MAX + 2];

	for (size_t i = 0; i < r->n; i++)
		if (snap_name(name, sizeof(name), xms_volume_get(&g_xms, r->src[i])->name, suffix,
			      r->names ? r->names[i] : NULL) &&
		    xms_volume_by_name(&g_xms, name))
			return true;
	return false;
}

/* Makes the snapshot set r describes in cluster c (every name checked
 * first, then one array_ctl.snapshot() call, then each snapshot's device);
 * on success *dst (malloc'd) holds the r->n new snapshots' indexes and *set
 * the set's.  false after answering the error: nothing is left made. */
bool xms_snapset_make(struct xms_ctx *x, const struct xms_cluster *c, const struct xms_snap_spec *r, uint64_t **dst_out,
		      uint64_t *set_out)
{
	struct xms_snapset *set;
	struct xms_volume **sp = NULL, **dp = NULL;
	uint64_t *dst = NULL, set_index;
	char suffix[64], name[XMS_NAME_MAX + 2], err[320];
	const char *sfx = r->suffix;
	time_t now = time(NULL);
	bool ok = false;

	snprintf(suffix, sizeof(suffix), "snapshot.%lld", (long long)now);
	if (!sfx) {
		/* A default name must not refuse the request: two snapshot sets of one
		 * group within a second (Cinder's group snapshot, then a group made
		 * from that group) would both be SRC.snapshot.SECOND.  The first free
		 * of SRC.snapshot.SECOND, SRC.snapshot.SECOND.1, ... is taken. */
		for (unsigned k = 1; k < 1000 && default_taken(r, suffix); k++)
			snprintf(suffix, sizeof(suffix), "snapshot.%lld.%u", (long long)now, k);
		sfx = suffix;
	}
	/* every name first: nothing is made when one is taken (the set's, then each snapshot's) */
	if (r->set_name && xms_snapset_by_name(&g_xms, r->set_name))
		return api_error(x->rsp, 400, XMS_ERR_OBJ_NAME_NOT_UNIQUE);
	for (size_t i = 0; i < r->n; i++) {
		if (!snap_name(name, sizeof(name), xms_volume_get(&g_xms, r->src[i])->name, sfx,
			       r->names ? r->names[i] : NULL) ||
		    !xms_name_ok(name))
			return api_errorf(x->rsp, 400, "Command Syntax Error: %s: the snapshot's name would be longer "
					  "than 128 characters", r->suffix_field ? r->suffix_field : "snap-suffix");
		if (xms_volume_by_name(&g_xms, name))
			return api_error(x->rsp, 400, XMS_ERR_NAME_NOT_UNIQUE);
	}
	if (g_xms.volumes.n + r->n > XMS_MAX_OBJECTS || g_xms.snapsets.n >= XMS_MAX_OBJECTS ||
	    (c->max_volumes && xms_cluster_volume_count(&g_xms, c->index) + r->n > c->max_volumes))
		return api_error(x->rsp, 400, XMS_ERR_TOO_MANY);
	/* the cluster's max_snapshots_per_volume: each source's family, with
	 * this request's other snapshots of the same family counted too */
	for (size_t i = 0; c->max_snaps_per_vol && i < r->n; i++) {
		size_t more = 0;
		uint64_t root = xms_family_root(&g_xms, r->src[i]);
		for (size_t k = 0; k < r->n; k++)
			more += xms_family_root(&g_xms, r->src[k]) == root;
		if (xms_family_snapshot_count(&g_xms, r->src[i]) + more > c->max_snaps_per_vol)
			return api_error(x->rsp, 400, XMS_ERR_TOO_MANY_SNAPS);
	}
	set = xms_snapset_add(&g_xms);
	dst = calloc(r->n, sizeof(*dst));
	sp = calloc(r->n, sizeof(*sp));
	dp = calloc(r->n, sizeof(*dp));
	if (!set || !dst || !sp || !dp) {
		if (set)
			xms_snapset_del(&g_xms, set->index);
		api_error(x->rsp, 500, "out of memory");
		goto out;
	}
	set_index = set->index;
	if (r->set_name)
		snprintf(name, sizeof(name), "%s", r->set_name);
	else
		snprintf(name, sizeof(name), "SnapshotSet.%lld.%llu", (long long)now, (unsigned long long)set_index);
	if (!xms_snapset_set_name(&g_xms, set, c->index, name)) {
		xms_snapset_del(&g_xms, set_index);
		api_error(x->rsp, 500, "out of memory");
		goto out;
	}
	set->cg = r->cg;
	set->created = (int64_t)now;
	for (size_t i = 0; i < r->n; i++) {
		struct xms_volume *d = xms_volume_add(&g_xms);
		const struct xms_volume *s;
		if (d) {
			s = xms_volume_get(&g_xms, r->src[i]); /* the add may have moved the array */
			snap_name(name, sizeof(name), s->name, sfx, r->names ? r->names[i] : NULL);
			if (!xms_volume_set_name(&g_xms, d, c->index, name)) {
				xms_volume_del(&g_xms, d->index);
				d = NULL;
			}
		}
		if (!d) {
			undo(c, dst, i, false, set_index);
			api_error(x->rsp, 500, "out of memory");
			goto out;
		}
		s = xms_volume_get(&g_xms, r->src[i]);
		d->size = s->size;
		d->lb_size = s->lb_size;
		d->ancestor = s->index;
		d->snapset = set_index;
		d->snapshot = true;
		d->readonly = r->readonly;
		d->created = (int64_t)now;
		dst[i] = d->index;
	}
	for (size_t i = 0; i < r->n; i++) {
		sp[i] = xms_volume_get(&g_xms, r->src[i]);
		dp[i] = xms_volume_get(&g_xms, dst[i]);
	}
	if (xms_scsi_snapshot(c, sp, dp, r->n, r->readonly, err, sizeof(err)) < 0) {
		undo(c, dst, r->n, false, set_index);
		api_errorf(x->rsp, 400, "Command Syntax Error: %s", err);
		goto out;
	}
	for (size_t i = 0; i < r->n; i++) {
		if (xms_scsi_volume_open(c, xms_volume_get(&g_xms, dst[i]), err, sizeof(err)) < 0) {
			undo(c, dst, r->n, true, set_index);
			api_errorf(x->rsp, 400, "Command Syntax Error: %s", err);
			goto out;
		}
	}
	set = xms_snapset_get(&g_xms, set_index);
	for (size_t i = 0; i < r->n; i++) {
		if (!xms_idlist_add(&set->vols, dst[i])) {
			undo(c, dst, r->n, true, set_index);
			api_error(x->rsp, 500, "out of memory");
			goto out;
		}
	}
	*dst_out = dst;
	*set_out = set_index;
	dst = NULL;
	ok = true;
out:
	free(dst);
	free(sp);
	free(dp);
	return ok;
}

void xms_snapset_unmake(const struct xms_cluster *c, const uint64_t *dst, size_t n, uint64_t set)
{
	undo(c, dst, n, true, set);
}

void xms_post_snapshots(struct xms_ctx *x)
{
	struct xms_snap_spec r;
	struct xms_cluster *c;
	uint64_t *dst = NULL, set;

	if (xms_refresh_requested(x)) {
		xms_refresh(x);
		return;
	}
	memset(&r, 0, sizeof(r));
	if (!sources(x, &r) || !options(x, &r))
		goto out;
	c = xms_cluster_get(&g_xms, xms_volume_get(&g_xms, r.src[0])->cluster);
	for (size_t i = 1; i < r.n; i++) {
		if (xms_volume_get(&g_xms, r.src[i])->cluster != c->index) {
			api_error(x->rsp, 400, "Command Syntax Error: the volumes belong to different clusters");
			goto out;
		}
	}
	if (xms_snapset_make(x, c, &r, &dst, &set))
		xms_reply_created_many(x, "snapshots", dst, r.n);
out:
	free(r.src);
	free(r.names);
	free(dst);
}

/* ---- snapshot-sets ---- */

static void list_sets(struct xms_ctx *x, struct json_object *arr)
{
	const uint64_t *want;
	size_t nwant;
	bool some = xms_wanted_candidates(x, XMS_NAME_SNAPSET, &want, &nwant);

	for (size_t i = 0; i < (some ? nwant : g_xms.snapsets.n); i++) {
		const struct xms_snapset *s = some ? xms_snapset_get(&g_xms, want[i]) : &g_xms.snapsets.v[i];
		if (!s || !xms_wanted(x, s->index, s->name))
			continue;
		const struct xms_cluster *c = xms_cluster_get(&g_xms, s->cluster);
		const struct xms_cg *g = s->cg ? xms_cg_get(&g_xms, s->cg) : NULL;
		struct json_object *o = json_object_new_object(), *vl = json_object_new_array();

		json_object_object_add(o, "name", json_object_new_string(s->name));
		json_object_object_add(o, "index", json_object_new_int64((int64_t)s->index));
		json_object_object_add(o, "guid", json_object_new_string(s->guid));
		json_object_object_add(o, "snapset-id", xms_snapset_oid(s));
		if (c)
			json_object_object_add(o, "sys-id", xms_cluster_oid(c));
		for (size_t j = 0; j < s->vols.n; j++) {
			const struct xms_volume *v = xms_volume_get(&g_xms, s->vols.v[j]);
			if (v)
				json_object_array_add(vl, xms_volume_oid(v));
		}
		json_object_object_add(o, "vol-list", vl);
		json_object_object_add(o, "num-of-vols", json_object_new_int64((int64_t)json_object_array_length(vl)));
		json_object_object_add(o, "cg-id", g ? xms_cg_oid(g) : json_object_new_array());
		json_object_object_add(o, "cg-name", json_object_new_string(g ? g->name : ""));
		json_object_object_add(o, "creation-time", xms_time(s->created));
		xms_tag_list_show(&s->attrs, o);
		json_object_array_add(arr, o);
	}
}

/* DELETE a snapshot set: its snapshots go with it (none may be mapped) */
static void del_set(struct xms_ctx *x, uint64_t index)
{
	struct xms_snapset *s = xms_snapset_get(&g_xms, index);
	struct xms_idlist vols = { NULL, 0 };

	if (!s) {
		api_error(x->rsp, 400, XMS_ERR_NOT_FOUND);
		return;
	}
	for (size_t i = 0; i < s->vols.n; i++) {
		if (xms_volume_is_mapped(s->vols.v[i])) {
			api_error(x->rsp, 400, XMS_ERR_VOL_MAPPED);
			return;
		}
	}
	for (size_t i = 0; i < s->vols.n; i++)
		if (!xms_idlist_add(&vols, s->vols.v[i])) {
			free(vols.v);
			api_error(x->rsp, 500, "out of memory");
			return;
		}
	for (size_t i = 0; i < vols.n; i++) {
		if (!xms_volume_remove(x, vols.v[i])) {
			free(vols.v);
			return;
		}
	}
	free(vols.v);
	xms_snapset_del(&g_xms, index);
	xms_reply_ok(x);
}

/* PUT: a new name */
static void put_set(struct xms_ctx *x, uint64_t index)
{
	struct xms_snapset *s = xms_snapset_get(&g_xms, index);
	const char *name;
	static const char *const fields[] = { "new-name", "snapshot-set-name", "name", NULL };
	int rc;

	if (!s) {
		api_error(x->rsp, 400, XMS_ERR_NOT_FOUND);
		return;
	}
	rc = xms_field_any(x, fields, XMS_NAME_MAX, &name, NULL);
	if (rc < 0)
		return;
	if (rc == 0 || !xms_name_ok(name)) {
		api_error(x->rsp, 400, "Command Syntax Error: snapshot-set-name: want 1..128 printable characters");
		return;
	}
	if (xms_snapset_by_name(&g_xms, name) && xms_snapset_by_name(&g_xms, name) != s) {
		api_error(x->rsp, 400, XMS_ERR_OBJ_NAME_NOT_UNIQUE);
		return;
	}
	if (!xms_snapset_set_name(&g_xms, s, s->cluster, name)) {
		api_error(x->rsp, 500, "out of memory");
		return;
	}
	xms_model_changed(&g_xms, XMS_KIND_SNAPSET, index);
	xms_reply_ok(x);
}

const struct xms_type xms_type_snapsets = {
	.name = "snapshot-sets",
	.v1 = false,
	.list = list_sets,
	.put = put_set,
	.del = del_set,
};
