/* xms_volumes.c — the `volumes` and `snapshots` resources.  A snapshot is a
 * volume with an ancestor: /volumes lists every volume, snapshots included
 * (as XMS does; clients delete snapshots through it), /snapshots only the
 * snapshots.  POST volumes creates a volume and its device; PUT grows it
 * (06/2A/09 to every nexus that sees it) or renames it; DELETE refuses a
 * mapped volume, else closes its device and frees its blocks.  POST
 * snapshots (xms_snapshots.c) makes snapshot sets. */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "handlers/scsi/naa.h"
#include "target/api/api_json.h"
#include "target/api/json_text.h"
#include "lunlab/size_parse.h"
#include "target/api/xms_common.h"
#include "target/api/xms_resources.h"
#include "target/api/xms_scsi.h"
#include "target/api/xms_tags.h"
#include "target/lu/lu_table.h"

#define XMS_VOL_MAX_BYTES (1ull << 50) /* 1 PiB: thin, the machine never holds it */

/* the LU's NAA designator (VPD 83h) as 32 lower-case hex digits: the handler
 * derives it from the unit serial, which is the volume's GUID, with the same
 * function; REX-Ray matches it against /dev/disk/by-id/wwn-0x... */
static void naa_name(const char *guid, char hex[33])
{
	static const char digits[] = "0123456789abcdef";
	uint8_t naa[16];

	naa_from_serial(guid, naa);
	for (int i = 0; i < 16; i++) {
		hex[2 * i] = digits[naa[i] >> 4];
		hex[2 * i + 1] = digits[naa[i] & 15];
	}
	hex[32] = '\0';
}

/* What a listing needs of the other objects, found once per list instead
 * of by every volume: the positions of the snapshots (volumes with an
 * ancestor) ordered by ancestor, of the LUN maps ordered by volume and of
 * the (volume, consistency group) memberships ordered by volume, each in
 * the order the model holds them within one volume (the order the lists
 * had when each volume scanned everything: that scan made a listing of N
 * volumes cost N^2, and N x maps).  A position array left NULL (out of
 * memory) makes volume_text scan instead. */
struct vol_index {
	size_t *kids, nkids;          /* positions in g_xms.volumes */
	size_t *maps, nmaps;          /* positions in g_xms.lunmaps */
	struct cg_of { uint64_t vol; size_t cg; } *cgs;
	size_t ncgs;
};

static int kid_cmp(const void *a, const void *b)
{
	size_t pa = *(const size_t *)a, pb = *(const size_t *)b;
	uint64_t aa = g_xms.volumes.v[pa].ancestor, ab = g_xms.volumes.v[pb].ancestor;

	return aa != ab ? (aa < ab ? -1 : 1) : (pa > pb) - (pa < pb);
}

static int map_cmp(const void *a, const void *b)
{
	size_t pa = *(const size_t *)a, pb = *(const size_t *)b;
	uint64_t va = g_xms.lunmaps.v[pa].vol, vb = g_xms.lunmaps.v[pb].vol;

	return va != vb ? (va < vb ? -1 : 1) : (pa > pb) - (pa < pb);
}

static int cg_cmp(const void *a, const void *b)
{
	const struct cg_of *x = a, *y = b;

	return x->vol != y->vol ? (x->vol < y->vol ? -1 : 1) : (x->cg > y->cg) - (x->cg < y->cg);
}

static void index_build(struct vol_index *k)
{
	size_t ncg = 0;

	memset(k, 0, sizeof(*k));
	k->kids = malloc((g_xms.volumes.n ? g_xms.volumes.n : 1) * sizeof(*k->kids));
	if (k->kids) {
		for (size_t i = 0; i < g_xms.volumes.n; i++)
			if (g_xms.volumes.v[i].ancestor)
				k->kids[k->nkids++] = i;
		qsort(k->kids, k->nkids, sizeof(*k->kids), kid_cmp);
	}
	k->maps = malloc((g_xms.lunmaps.n ? g_xms.lunmaps.n : 1) * sizeof(*k->maps));
	if (k->maps) {
		for (size_t i = 0; i < g_xms.lunmaps.n; i++)
			k->maps[k->nmaps++] = i;
		qsort(k->maps, k->nmaps, sizeof(*k->maps), map_cmp);
	}
	for (size_t i = 0; i < g_xms.cgs.n; i++)
		ncg += g_xms.cgs.v[i].vols.n;
	k->cgs = malloc((ncg ? ncg : 1) * sizeof(*k->cgs));
	if (k->cgs) {
		/* a volume listed twice in one group shows the group once, as the scan did */
		for (size_t i = 0; i < g_xms.cgs.n; i++)
			for (size_t j = 0; j < g_xms.cgs.v[i].vols.n; j++)
				k->cgs[k->ncgs++] = (struct cg_of){ g_xms.cgs.v[i].vols.v[j], i };
		qsort(k->cgs, k->ncgs, sizeof(*k->cgs), cg_cmp);
	}
}

static void index_free(struct vol_index *k)
{
	free(k->kids);
	free(k->maps);
	free(k->cgs);
}

/* binary searches in the index: the first entry for volume `vol` (n when none) */
static uint64_t kid_key(const struct vol_index *k, size_t i) { return g_xms.volumes.v[k->kids[i]].ancestor; }
static uint64_t map_key(const struct vol_index *k, size_t i) { return g_xms.lunmaps.v[k->maps[i]].vol; }
static uint64_t cg_key(const struct vol_index *k, size_t i) { return k->cgs[i].vol; }

static size_t first_of(const struct vol_index *k, size_t n, uint64_t (*key)(const struct vol_index *, size_t),
		       uint64_t vol)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (key(k, mid) < vol)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int info_cmp(const void *a, const void *b)
{
	return strcmp(((const struct lunlab_volume_info *)a)->name, ((const struct lunlab_volume_info *)b)->name);
}

static void oid_text(struct json_text *w, const char *guid, const char *name, uint64_t index)
{
	jt_arr_open(w);
	jt_str(w, guid);
	jt_str(w, name);
	jt_int(w, (int64_t)index);
	jt_arr_close(w);
}

static void map_text(struct json_text *w, const struct xms_lunmap *l, size_t *nmaps)
{
	const struct xms_ig *g = xms_ig_get(&g_xms, l->ig);

	if (!g)
		return;
	jt_arr_open(w);
	oid_text(w, g->guid, g->name, g->index);
	oid_text(w, "00000000000000000000000000000001", "Default", 1); /* xms_tg_oid() */
	jt_int(w, (int64_t)l->lun);
	jt_arr_close(w);
	(*nmaps)++;
}

static void time_text(struct json_text *w, int64_t t)
{
	char s[32];
	struct tm tm;
	time_t tt = (time_t)t;

	gmtime_r(&tt, &tm);
	strftime(s, sizeof(s), "%Y-%m-%d %H:%M:%S", &tm); /* as xms_time() */
	jt_str(w, s);
}

/* The properties of volume v as XMS lists them, written as one JSON object
 * (with sys-name, which the engine would add: the same bytes json-c would
 * send for the object xms_engine.c builds).  idx: the list's index (NULL:
 * scan, for a list of one). */
static void volume_text(struct json_text *w, struct xms_volume *v, const struct lunlab_volume_info *info,
			uint64_t now_ms, const struct vol_index *idx)
{
	const struct xms_cluster *c = xms_cluster_get(&g_xms, v->cluster);
	const struct xms_volume *anc = v->ancestor ? xms_volume_get(&g_xms, v->ancestor) : NULL;
	const struct xms_snapset *ss = v->snapset ? xms_snapset_get(&g_xms, v->snapset) : NULL;
	size_t nmaps = 0, ndest = 0;
	char naa[33];

	jt_obj_open(w);
	jt_kstr(w, "name", v->name);
	jt_kint(w, "index", (int64_t)v->index);
	jt_kstr(w, "guid", v->guid);
	jt_key(w, "vol-id");
	oid_text(w, v->guid, v->name, v->index);
	if (jt_wants(w, "naa-name")) { /* not when ?prop= leaves it out (json_text.h jt_keep) */
		naa_name(v->guid, naa);
		jt_kstr(w, "naa-name", naa);
	}
	if (c) {
		jt_key(w, "sys-id");
		oid_text(w, c->guid, c->name, c->index);
	}
	jt_key(w, "xms-id");
	oid_text(w, xms_ids_xms_guid(), "xms", 1);
	jt_kuint_str(w, "vol-size", (v->size + 1023) / 1024); /* xms_kb() */
	jt_kint(w, "lb-size", (int)v->lb_size);
	jt_kuint_str(w, "logical-space-in-use", ((info ? info->logical_bytes : 0) + 1023) / 1024);
	jt_kuint_str(w, "unique-physical-space", ((info ? info->single_ref_bytes : 0) + 1023) / 1024);
	if (jt_wants(w, "creation-time")) {
		jt_key(w, "creation-time");
		time_text(w, v->created);
	}
	jt_key(w, "ancestor-vol-id");
	if (anc) {
		oid_text(w, anc->guid, anc->name, anc->index);
	} else {
		jt_arr_open(w);
		jt_arr_close(w);
	}
	if (v->snapshot)
		jt_kstr(w, "snapshot-type", v->readonly ? "readonly" : "regular");
	/* one vol-access: the one set through the API (xms_attrs.h) where json-c's
	 * object_add replaced the value in place, else the snapshot's */
	jt_kstr(w, "vol-access", v->attrs.access[0] ? v->attrs.access : v->readonly ? "read_access" : "write_access");
	jt_key(w, "dest-snap-list");
	jt_arr_open(w);
	if (idx && idx->kids) {
		for (size_t k = first_of(idx, idx->nkids, kid_key, v->index);
		     k < idx->nkids && g_xms.volumes.v[idx->kids[k]].ancestor == v->index; k++) {
			const struct xms_volume *d = &g_xms.volumes.v[idx->kids[k]];
			oid_text(w, d->guid, d->name, d->index);
			ndest++;
		}
	} else {
		for (size_t i = 0; i < g_xms.volumes.n; i++) {
			const struct xms_volume *d = &g_xms.volumes.v[i];
			if (d->ancestor == v->index) {
				oid_text(w, d->guid, d->name, d->index);
				ndest++;
			}
		}
	}
	jt_arr_close(w);
	jt_kint(w, "num-of-dest-snaps", (int64_t)ndest);
	jt_key(w, "lun-mapping-list");
	jt_arr_open(w);
	if (idx && idx->maps) {
		for (size_t k = first_of(idx, idx->nmaps, map_key, v->index);
		     k < idx->nmaps && g_xms.lunmaps.v[idx->maps[k]].vol == v->index; k++)
			map_text(w, &g_xms.lunmaps.v[idx->maps[k]], &nmaps);
	} else {
		for (size_t i = 0; i < g_xms.lunmaps.n; i++)
			if (g_xms.lunmaps.v[i].vol == v->index)
				map_text(w, &g_xms.lunmaps.v[i], &nmaps);
	}
	jt_arr_close(w);
	jt_kint(w, "num-of-lun-mappings", (int64_t)nmaps);
	jt_key(w, "snapset-list");
	jt_arr_open(w);
	if (ss)
		oid_text(w, ss->guid, ss->name, ss->index);
	jt_arr_close(w);
	jt_key(w, "related-consistency-groups");
	jt_arr_open(w);
	if (idx && idx->cgs) {
		size_t last = (size_t)-1;
		for (size_t k = first_of(idx, idx->ncgs, cg_key, v->index);
		     k < idx->ncgs && idx->cgs[k].vol == v->index; k++) {
			const struct xms_cg *g = &g_xms.cgs.v[idx->cgs[k].cg];
			if (idx->cgs[k].cg == last)
				continue;
			last = idx->cgs[k].cg;
			oid_text(w, g->guid, g->name, g->index);
		}
	} else {
		for (size_t i = 0; i < g_xms.cgs.n; i++)
			if (xms_idlist_has(&g_xms.cgs.v[i].vols, v->index))
				oid_text(w, g_xms.cgs.v[i].guid, g_xms.cgs.v[i].name, g_xms.cgs.v[i].index);
	}
	jt_arr_close(w);
	struct xms_attrs shown = v->attrs;
	shown.access[0] = '\0'; /* written above */
	xms_attrs_text(&shown, XMS_ATTR_VOLUME, w);
	xms_tag_list_text(&v->attrs, w);
	/* performance: its LU's counters, the ones /metrics serves */
	struct xms_perf_counters pc = { 0 };
	xms_perf_add(&pc, v->lu ? v->lu->stats : NULL);
	xms_perf_text(&v->perf, &pc, now_ms, w);
	if (c)
		jt_kstr(w, "sys-name", c->name); /* what the engine's add_sys_name adds */
	jt_obj_close(w);
}

/* x's hint (xms_engine.h): the one volume the engine looks for, if any */
static bool wanted(const struct xms_ctx *x, const struct xms_volume *v)
{
	return xms_wanted(x, v->index, v->name);
}

/* The volume the engine wants (x->want_index or want_name), in cluster
 * order as the walk below lists them: found by index or through the name
 * index per cluster, with that volume's array figures alone */
static void text_wanted(struct xms_ctx *x, struct json_text *w, bool snapshots_only, uint64_t now_ms)
{
	for (size_t ci = 0; ci < g_xms.clusters.n; ci++) {
		const struct xms_cluster *c = &g_xms.clusters.v[ci];
		const uint64_t *want = &x->want_index;
		size_t nwant = 1;

		if (g_xms.scope && c->index != g_xms.scope)
			continue;
		if (!x->want_index)
			want = xms_names_find(&g_xms.names, XMS_NAME_VOLUME, c->index, x->want_name, &nwant);
		for (size_t k = 0; k < nwant; k++) {
			struct xms_volume *v = xms_volume_get(&g_xms, want[k]);
			struct lunlab_volume_info mine;

			if (!v || v->cluster != c->index || (snapshots_only && !v->snapshot) || !wanted(x, v))
				continue;
			volume_text(w, v, xms_scsi_volume_info(c, v, &mine) ? &mine : NULL, now_ms, NULL);
		}
	}
}

/* Every volume (or snapshot) in scope, or only the one x wants, as JSON
 * objects one after another in w (the members of the list).  A listing of
 * 10,000 volumes with full=1 must stay under a second (bench/api-10k.sh):
 * each volume's array figures are found by binary search in the sorted
 * infos, its snapshots, maps and groups through the list's index, and its
 * JSON written as text (json_text.h), not built as json-c objects. */
static void text_some(struct xms_ctx *x, struct json_text *w, bool snapshots_only)
{
	uint64_t now_ms = xms_perf_now_ms();
	bool one = x->want_index || x->want_name;
	struct vol_index idx;

	if (one) {
		text_wanted(x, w, snapshots_only, now_ms);
		return;
	}
	if (!x->refs)
		index_build(&idx);
	for (size_t ci = 0; ci < g_xms.clusters.n; ci++) {
		const struct xms_cluster *c = &g_xms.clusters.v[ci];
		struct lunlab_volume_info *infos = NULL;
		size_t n = 0;
		bool any = false, space;

		/* the engine keeps only the request's cluster's objects */
		if (g_xms.scope && c->index != g_xms.scope)
			continue;
		/* the array's figures only when a volume of this cluster is listed */
		for (size_t i = 0; i < g_xms.volumes.n && !any; i++) {
			const struct xms_volume *v = &g_xms.volumes.v[i];
			any = v->cluster == c->index && (!snapshots_only || v->snapshot) && wanted(x, v);
		}
		if (!any)
			continue;
		/* the array's figures: for whole objects only; not when ?prop=
		 * leaves out the two members they fill (a poll of figures then
		 * walks no volume's block map) */
		space = jt_keeps(w, "logical-space-in-use") || jt_keeps(w, "unique-physical-space");
		n = x->refs || !space ? 0 : xms_scsi_volume_infos(c, &infos);
		/* sorted for many lookups */
		if (n > 1)
			qsort(infos, n, sizeof(*infos), info_cmp);
		for (size_t i = 0; i < g_xms.volumes.n; i++) {
			struct xms_volume *v = &g_xms.volumes.v[i];
			struct lunlab_volume_info key;
			const struct lunlab_volume_info *info;

			if (v->cluster != c->index || (snapshots_only && !v->snapshot) || !wanted(x, v))
				continue;
			if (x->refs) { /* the engine's list entry (xms_engine.c get) */
				char href[512];

				snprintf(href, sizeof(href), "%s/%s/%llu", x->base, x->type->name,
					 (unsigned long long)v->index);
				jt_obj_open(w);
				jt_kstr(w, "href", href);
				jt_kstr(w, "name", v->name);
				if (x->version == 3)
					jt_kstr(w, "sys-name", c->name);
				jt_obj_close(w);
				continue;
			}
			info = NULL;
			if (n) {
				snprintf(key.name, sizeof(key.name), "%s", v->guid);
				info = bsearch(&key, infos, n, sizeof(*infos), info_cmp);
			}
			volume_text(w, v, info, now_ms, &idx);
		}
		free(infos);
	}
	if (!x->refs)
		index_free(&idx);
}

/* the same objects as json-c objects, for the engine's general path (one
 * object, filter=, ?name=): parsed back from the one writer, so both paths
 * send the same fields */
static void list_some(struct xms_ctx *x, struct json_object *arr, bool snapshots_only)
{
	struct json_text w;
	struct json_object *all;
	char *text;
	size_t len;

	jt_init(&w);
	jt_arr_open(&w);
	text_some(x, &w, snapshots_only);
	jt_arr_close(&w);
	text = jt_take(&w, &len);
	all = text ? json_tokener_parse(text) : NULL;
	free(text);
	for (size_t i = 0; all && i < json_object_array_length(all); i++)
		json_object_array_add(arr, json_object_get(json_object_array_get_idx(all, i)));
	json_object_put(all);
}

static void list_volumes(struct xms_ctx *x, struct json_object *arr)
{
	list_some(x, arr, false);
}

static void list_snapshots(struct xms_ctx *x, struct json_object *arr)
{
	list_some(x, arr, true);
}

static void text_volumes(struct xms_ctx *x, struct json_text *w)
{
	text_some(x, w, false);
}

static void text_snapshots(struct xms_ctx *x, struct json_text *w)
{
	text_some(x, w, true);
}

/* a size from the body: bytes, a positive multiple of lb, at most 1 PiB */
static int size_field(struct xms_ctx *x, uint32_t lb, uint64_t *bytes)
{
	const char *s;
	uint64_t kb;
	char num[32];
	struct json_object *jv = NULL;
	int rc;

	/* a JSON number is KiB (goxtremio, docbert's modules send integers) */
	if (json_object_object_get_ex(x->body, "vol-size", &jv) && jv && json_object_is_type(jv, json_type_int))
		rc = 0;
	else
		rc = xms_field_string(x, "vol-size", 32, &s);
	if (rc == 0) { /* also a plain number of KiB */
		rc = xms_field_uint(x, "vol-size", XMS_VOL_MAX_BYTES / 1024, &kb);
		if (rc <= 0)
			return rc;
		snprintf(num, sizeof(num), "%llu", (unsigned long long)kb);
		s = num;
	} else if (rc < 0) {
		return -1;
	}
	if (!ll_size_parse(s, 10, bytes) || *bytes == 0 || *bytes > XMS_VOL_MAX_BYTES) {
		api_errorf(x->rsp, 400, "Command Syntax Error: vol-size: '%.32s': want a size like 10g (k, m, g, t, p; "
			   "a number alone is KiB), at most 1p", s);
		return -1;
	}
	if (*bytes % lb) {
		api_errorf(x->rsp, 400, "%s: vol-size is not a multiple of the %u-byte block", XMS_ERR_INVALID_SIZE, lb);
		return -1;
	}
	return 1;
}

static const char *const name_fields[] = { "vol-name", "name", NULL };

static void post_volume(struct xms_ctx *x)
{
	struct xms_cluster *c = xms_request_cluster(x);
	const char *name;
	uint64_t size, lb64 = 0;
	struct xms_volume *v;
	struct xms_attrs attrs;
	char err[320];
	int rc;

	if (!c)
		return;
	rc = xms_field_any(x, name_fields, XMS_NAME_MAX, &name, NULL);
	if (rc < 0)
		return;
	if (rc == 0 || !xms_name_ok(name)) {
		api_error(x->rsp, 400, "Command Syntax Error: vol-name: want a name of 1..128 printable characters");
		return;
	}
	if (xms_field_uint(x, "lb-size", 4096, &lb64) < 0)
		return;
	if (lb64 == 0)
		lb64 = c->lb_size;
	if (lb64 != 512 && lb64 != 4096) {
		api_error(x->rsp, 400, "Command Syntax Error: lb-size: want 512 or 4096");
		return;
	}
	rc = size_field(x, (uint32_t)lb64, &size);
	if (rc < 0)
		return;
	if (rc == 0) {
		api_error(x->rsp, 400, "Command Syntax Error: vol-size: missing");
		return;
	}
	memset(&attrs, 0, sizeof(attrs));
	if (!xms_attrs_field(x, XMS_ATTR_VOLUME | XMS_ATTR_TAGS, &attrs))
		return;
	if (xms_volume_by_name(&g_xms, name)) {
		api_error(x->rsp, 400, XMS_ERR_NAME_NOT_UNIQUE);
		return;
	}
	/* lunlab's own bound, and the cluster's max_volumes (xms_cluster_spec.h) */
	if (g_xms.volumes.n >= XMS_MAX_OBJECTS ||
	    (c->max_volumes && xms_cluster_volume_count(&g_xms, c->index) >= c->max_volumes)) {
		api_error(x->rsp, 400, XMS_ERR_TOO_MANY);
		return;
	}
	v = xms_volume_add(&g_xms);
	if (!v) {
		api_error(x->rsp, 500, "out of memory");
		return;
	}
	if (!xms_volume_set_name(&g_xms, v, c->index, name)) {
		xms_volume_del(&g_xms, v->index);
		api_error(x->rsp, 500, "out of memory");
		return;
	}
	v->size = size;
	v->lb_size = (uint32_t)lb64;
	v->created = (int64_t)time(NULL);
	v->attrs = attrs;
	if (xms_scsi_volume_open(c, v, err, sizeof(err)) < 0) {
		xms_volume_del(&g_xms, v->index);
		api_errorf(x->rsp, 400, "Command Syntax Error: %s", err);
		return;
	}
	xms_reply_created(x, "volumes", v->index);
}

/* the body sets one of the kept settings (perhaps to what it is) */
static bool has_attr(struct xms_ctx *x)
{
	static const char *const f[] = { "small-io-alerts", "unaligned-io-alerts", "vaai-tp-alerts",
					 "management-locked", "vol-access", "tag-list" };

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (json_object_object_get_ex(x->body, f[i], NULL))
			return true;
	return false;
}

static bool mapped(uint64_t vol)
{
	for (size_t i = 0; i < g_xms.lunmaps.n; i++)
		if (g_xms.lunmaps.v[i].vol == vol)
			return true;
	return false;
}

/* PUT volumes|snapshots: vol-size (grow), vol-name / name (rename), and
 * the kept settings (xms_attrs.h) */
static void put_volume(struct xms_ctx *x, uint64_t index)
{
	struct xms_volume *v = xms_volume_get(&g_xms, index);
	const char *name = NULL;
	uint64_t size = 0;
	struct xms_attrs attrs;
	char err[320];
	int rn, rs;

	if (!v) {
		api_error(x->rsp, 400, XMS_ERR_NOT_FOUND);
		return;
	}
	rn = xms_field_any(x, name_fields, XMS_NAME_MAX, &name, NULL);
	if (rn < 0)
		return;
	if (rn > 0 && !xms_name_ok(name)) {
		api_error(x->rsp, 400, "Command Syntax Error: vol-name: want a name of 1..128 printable characters");
		return;
	}
	rs = size_field(x, v->lb_size, &size);
	if (rs < 0)
		return;
	attrs = v->attrs;
	if (!xms_attrs_field(x, XMS_ATTR_VOLUME | XMS_ATTR_TAGS, &attrs))
		return;
	if (rn == 0 && rs == 0 && memcmp(&attrs, &v->attrs, sizeof(attrs)) == 0 && !has_attr(x)) {
		api_error(x->rsp, 400, "Command Syntax Error: nothing to change (vol-size, vol-name)");
		return;
	}
	if (rn > 0) {
		const struct xms_volume *other = xms_volume_by_name(&g_xms, name);
		if (other && other != v) {
			api_error(x->rsp, 400, XMS_ERR_NAME_NOT_UNIQUE);
			return;
		}
	}
	if (rs > 0 && size < v->size) {
		api_error(x->rsp, 400, XMS_ERR_SIZE_DECREASE);
		return;
	}
	if (rs > 0 && size != v->size && xms_scsi_volume_resize(v, size, err, sizeof(err)) < 0) {
		api_errorf(x->rsp, 400, "Command Syntax Error: %s", err);
		return;
	}
	if (rn > 0 && !xms_volume_set_name(&g_xms, v, v->cluster, name)) {
		api_error(x->rsp, 500, "out of memory");
		return;
	}
	v->attrs = attrs;
	xms_model_changed(&g_xms, XMS_KIND_VOLUME, v->index); /* its size, name or settings: stored */
	xms_reply_ok(x);
}

/* one volume out: device, blocks, model (not mapped: checked by callers) */
bool xms_volume_remove(struct xms_ctx *x, uint64_t index)
{
	struct xms_volume *v = xms_volume_get(&g_xms, index);
	const struct xms_cluster *c = v ? xms_cluster_get(&g_xms, v->cluster) : NULL;
	char err[320];

	if (!v)
		return true;
	xms_scsi_volume_close(v);
	if (c && xms_scsi_volume_free(c, v, err, sizeof(err)) < 0) {
		/* the device is closed; the volume stays listed so the delete can be retried */
		return api_errorf(x->rsp, 500, "internal error: %s", err);
	}
	xms_volume_del(&g_xms, index);
	return true;
}

static void del_volume(struct xms_ctx *x, uint64_t index)
{
	if (mapped(index)) {
		api_error(x->rsp, 400, XMS_ERR_VOL_MAPPED);
		return;
	}
	if (xms_volume_remove(x, index))
		xms_reply_ok(x);
}

const struct xms_type xms_type_volumes = {
	.name = "volumes",
	.v1 = true,
	.list = list_volumes,
	.list_text = text_volumes,
	.post = post_volume,
	.put = put_volume,
	.del = del_volume,
};

const struct xms_type xms_type_snapshots = {
	.name = "snapshots",
	.v1 = true,
	.list = list_snapshots,
	.list_text = text_snapshots,
	.post = xms_post_snapshots,
	.put = put_volume,
	.del = del_volume,
};

bool xms_volume_is_mapped(uint64_t index)
{
	return mapped(index);
}
