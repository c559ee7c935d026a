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
#include "lunlab/size_parse.h"
#include "target/api/xms_common.h"
#include "target/api/xms_resources.h"
#include "target/api/xms_scsi.h"
#include "target/lu/lu_table.h"

#define XMS_VOL_MAX_BYTES (1ull << 50) /* 1 PiB: thin, the machine never holds it */

/* the LU's NAA designator (VPD 83h) as 32 lower-case hex digits: the handler
 * derives it from the unit serial, which is the volume's GUID, with the same
 * function; REX-Ray matches it against /dev/disk/by-id/wwn-0x... */
static struct json_object *naa_name(const char *guid)
{
	uint8_t naa[16];
	char hex[33];

	naa_from_serial(guid, naa);
	for (int i = 0; i < 16; i++)
		snprintf(hex + 2 * i, 3, "%02x", naa[i]);
	return json_object_new_string(hex);
}

/* The snapshots of every volume, found once per list: positions in
 * g_xms.volumes of the volumes that have an ancestor, ordered by ancestor
 * (then position, the order dest-snap-list had when each volume scanned all
 * of them: that scan made a listing of N volumes cost N^2). */
struct xms_kids {
	size_t *pos;
	size_t n;
};

static int kid_cmp(const void *a, const void *b)
{
	size_t pa = *(const size_t *)a, pb = *(const size_t *)b;
	uint64_t aa = g_xms.volumes.v[pa].ancestor, ab = g_xms.volumes.v[pb].ancestor;

	return aa != ab ? (aa < ab ? -1 : 1) : (pa > pb) - (pa < pb);
}

static void kids_build(struct xms_kids *k)
{
	k->n = 0;
	k->pos = malloc((g_xms.volumes.n ? g_xms.volumes.n : 1) * sizeof(*k->pos));
	if (!k->pos)
		return; /* volume_json scans instead */
	for (size_t i = 0; i < g_xms.volumes.n; i++)
		if (g_xms.volumes.v[i].ancestor)
			k->pos[k->n++] = i;
	qsort(k->pos, k->n, sizeof(*k->pos), kid_cmp);
}

/* the first of k's entries whose ancestor is index (k->n when none) */
static size_t kids_first(const struct xms_kids *k, uint64_t index)
{
	size_t lo = 0, hi = k->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g_xms.volumes.v[k->pos[mid]].ancestor < index)
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

/* the properties of volume v as XMS lists them; kids: the list's snapshot
 * index (NULL: scan every volume, for a list of one) */
static struct json_object *volume_json(struct xms_volume *v, const struct lunlab_volume_info *info, uint64_t now_ms,
				       const struct xms_kids *kids)
{
	struct json_object *o = json_object_new_object(), *a;
	const struct xms_cluster *c = xms_cluster_get(&g_xms, v->cluster);
	const struct xms_volume *anc = v->ancestor ? xms_volume_get(&g_xms, v->ancestor) : NULL;
	const struct xms_snapset *ss = v->snapset ? xms_snapset_get(&g_xms, v->snapset) : NULL;
	size_t nmaps = 0, ndest = 0;

	json_object_object_add(o, "name", json_object_new_string(v->name));
	json_object_object_add(o, "index", json_object_new_int64((int64_t)v->index));
	json_object_object_add(o, "guid", json_object_new_string(v->guid));
	json_object_object_add(o, "vol-id", xms_volume_oid(v));
	json_object_object_add(o, "naa-name", naa_name(v->guid));
	if (c)
		json_object_object_add(o, "sys-id", xms_cluster_oid(c));
	json_object_object_add(o, "xms-id", xms_oid(xms_ids_xms_guid(), "xms", 1));
	json_object_object_add(o, "vol-size", xms_kb(v->size));
	json_object_object_add(o, "lb-size", json_object_new_int((int)v->lb_size));
	json_object_object_add(o, "logical-space-in-use", xms_kb(info ? info->logical_bytes : 0));
	json_object_object_add(o, "unique-physical-space", xms_kb(info ? info->single_ref_bytes : 0));
	json_object_object_add(o, "creation-time", xms_time(v->created));
	json_object_object_add(o, "ancestor-vol-id", anc ? xms_volume_oid(anc) : json_object_new_array());
	if (v->snapshot)
		json_object_object_add(o, "snapshot-type", json_object_new_string(v->readonly ? "readonly" : "regular"));
	json_object_object_add(o, "vol-access", json_object_new_string(v->readonly ? "read_access" : "write_access"));
	a = json_object_new_array();
	if (kids && kids->pos) {
		for (size_t k = kids_first(kids, v->index);
		     k < kids->n && g_xms.volumes.v[kids->pos[k]].ancestor == v->index; k++) {
			json_object_array_add(a, xms_volume_oid(&g_xms.volumes.v[kids->pos[k]]));
			ndest++;
		}
	} else {
		for (size_t i = 0; i < g_xms.volumes.n; i++) {
			if (g_xms.volumes.v[i].ancestor == v->index) {
				json_object_array_add(a, xms_volume_oid(&g_xms.volumes.v[i]));
				ndest++;
			}
		}
	}
	json_object_object_add(o, "dest-snap-list", a);
	json_object_object_add(o, "num-of-dest-snaps", json_object_new_int64((int64_t)ndest));
	a = json_object_new_array();
	for (size_t i = 0; i < g_xms.lunmaps.n; i++) {
		const struct xms_lunmap *l = &g_xms.lunmaps.v[i];
		const struct xms_ig *g = xms_ig_get(&g_xms, l->ig);
		struct json_object *m;

		if (l->vol != v->index || !g)
			continue;
		m = json_object_new_array();
		json_object_array_add(m, xms_ig_oid(g));
		json_object_array_add(m, xms_tg_oid());
		json_object_array_add(m, json_object_new_int64((int64_t)l->lun));
		json_object_array_add(a, m);
		nmaps++;
	}
	json_object_object_add(o, "lun-mapping-list", a);
	json_object_object_add(o, "num-of-lun-mappings", json_object_new_int64((int64_t)nmaps));
	a = json_object_new_array();
	if (ss)
		json_object_array_add(a, xms_snapset_oid(ss));
	json_object_object_add(o, "snapset-list", a);
	a = json_object_new_array();
	for (size_t i = 0; i < g_xms.cgs.n; i++)
		if (xms_idlist_has(&g_xms.cgs.v[i].vols, v->index))
			json_object_array_add(a, xms_cg_oid(&g_xms.cgs.v[i]));
	json_object_object_add(o, "related-consistency-groups", a);
	xms_attrs_show(&v->attrs, XMS_ATTR_VOLUME | XMS_ATTR_TAGS, o);
	/* performance: its LU's counters, the ones /metrics serves */
	struct xms_perf_counters pc = { 0 };
	xms_perf_add(&pc, v->lu ? v->lu->stats : NULL);
	xms_perf_show(&v->perf, &pc, now_ms, o);
	return o;
}

/* x's hint (xms_engine.h): the one volume the engine looks for, if any */
static bool wanted(const struct xms_ctx *x, const struct xms_volume *v)
{
	return (!x->want_index || v->index == x->want_index) && (!x->want_name || strcmp(v->name, x->want_name) == 0);
}

/* Every volume (or snapshot), or only the one x wants.  A listing of
 * 10,000 volumes with full=1 must stay under a second (bench/api-list.sh):
 * each volume's array figures are found by binary search in the sorted
 * infos and its snapshots through the kids index, not by scanning. */
static void list_some(struct xms_ctx *x, struct json_object *arr, bool snapshots_only)
{
	uint64_t now_ms = xms_perf_now_ms();
	bool one = x->want_index || x->want_name;
	struct xms_kids kids = { 0 };

	if (!one)
		kids_build(&kids);
	for (size_t ci = 0; ci < g_xms.clusters.n; ci++) {
		const struct xms_cluster *c = &g_xms.clusters.v[ci];
		struct lunlab_volume_info *infos;
		size_t n = xms_scsi_volume_infos(c, &infos);

		if (n > 1)
			qsort(infos, n, sizeof(*infos), info_cmp);
		for (size_t i = 0; i < g_xms.volumes.n; i++) {
			struct xms_volume *v = &g_xms.volumes.v[i];
			struct lunlab_volume_info key;
			const struct lunlab_volume_info *info;

			if (v->cluster != c->index || (snapshots_only && !v->snapshot) || !wanted(x, v))
				continue;
			snprintf(key.name, sizeof(key.name), "%s", v->guid);
			info = n ? bsearch(&key, infos, n, sizeof(*infos), info_cmp) : NULL;
			json_object_array_add(arr, volume_json(v, info, now_ms, one ? NULL : &kids));
		}
		free(infos);
	}
	free(kids.pos);
}

static void list_volumes(struct xms_ctx *x, struct json_object *arr)
{
	list_some(x, arr, false);
}

static void list_snapshots(struct xms_ctx *x, struct json_object *arr)
{
	list_some(x, arr, true);
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
	snprintf(v->name, sizeof(v->name), "%s", name);
	v->cluster = c->index;
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
	if (rn > 0)
		snprintf(v->name, sizeof(v->name), "%s", name);
	v->attrs = attrs;
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
	.post = post_volume,
	.put = put_volume,
	.del = del_volume,
};

const struct xms_type xms_type_snapshots = {
	.name = "snapshots",
	.v1 = true,
	.list = list_snapshots,
	.post = xms_post_snapshots,
	.put = put_volume,
	.del = del_volume,
};

bool xms_volume_is_mapped(uint64_t index)
{
	return mapped(index);
}
