/* xms_clusters.c — the `clusters` resource: one cluster per emulated array
 * (docs/api.md "Clusters"), with the capacity figures XMS reports computed
 * from the array's accounting (docs/accounting.md), and its CHAP modes,
 * which a PUT changes as on an XMS. */
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "target/api/api_json.h"
#include "target/api/xms_common.h"
#include "target/api/xms_resources.h"
#include "target/api/xms_scsi.h"
#include "target/api/xms_tags.h"
#include "target/lu/lu_table.h"

/* XMS's hardware-platform names the brick generation: "X1" or "X2" for the
 * XtremIO profiles; another profile says its own name */
static const char *hardware_platform(const char *profile)
{
	static _Thread_local char up[32];
	size_t i = 0;

	for (; profile[i] && i + 1 < sizeof(up); i++)
		up[i] = profile[i] >= 'a' && profile[i] <= 'z' ? (char)(profile[i] - 32) : profile[i];
	up[i] = '\0';
	return up;
}

/* a license id that stays with the cluster (its serial): XMS shows one per
 * cluster; its real form is not public */
static const char *license_id(const struct xms_cluster *c, char *buf, size_t len)
{
	snprintf(buf, len, "LL-%s", c->serial);
	return buf;
}

/* percent of the usable capacity not in use, rounded down, as an integer
 * (Telegraf decodes it as a Go int) */
static int free_percent(uint64_t capacity, uint64_t used)
{
	if (!capacity || used >= capacity)
		return 0;
	return (int)((capacity - used) * 100 / capacity);
}

static void one(struct json_object *arr, struct xms_cluster *c, uint64_t now_ms)
{
	struct json_object *o = json_object_new_object();
	struct lunlab_array_figures f;
	size_t nvol = 0;
	char lic[40];

	xms_scsi_cluster_figures(c, &f);
	for (size_t i = 0; i < g_xms.volumes.n; i++)
		if (g_xms.volumes.v[i].cluster == c->index)
			nvol++;
	json_object_object_add(o, "name", json_object_new_string(c->name));
	json_object_object_add(o, "index", json_object_new_int64((int64_t)c->index));
	json_object_object_add(o, "guid", json_object_new_string(c->guid));
	json_object_object_add(o, "sys-id", xms_cluster_oid(c));
	xms_tag_list_show(&c->attrs, o); /* its Cluster tags */
	json_object_object_add(o, "xms-id", xms_oid(xms_ids_xms_guid(), "xms", 1));
	json_object_object_add(o, "sys-sw-version", json_object_new_string(XMS_SYS_SW_VERSION));
	json_object_object_add(o, "sys-psnt-serial-number", json_object_new_string(c->serial));
	json_object_object_add(o, "sys-state", json_object_new_string("healthy"));
	json_object_object_add(o, "size-and-capacity", json_object_new_string("1X"));
	json_object_object_add(o, "hardware-platform", json_object_new_string(hardware_platform(f.profile)));
	json_object_object_add(o, "license-id", json_object_new_string(license_id(c, lic, sizeof(lic))));
	/* capacity, KiB: the array's usable physical space and what it uses */
	json_object_object_add(o, "ud-ssd-space", xms_kb(f.capacity_bytes));
	json_object_object_add(o, "ud-ssd-space-in-use", xms_kb(f.used_bytes));
	json_object_object_add(o, "vol-size", xms_kb(f.provisioned_bytes));
	json_object_object_add(o, "logical-space-in-use", xms_kb(f.logical_bytes));
	json_object_object_add(o, "free-ud-ssd-space-in-percent",
			       json_object_new_int(free_percent(f.capacity_bytes, f.used_bytes)));
	json_object_object_add(o, "dedup-ratio", xms_ratio(f.logical_bytes, f.unique_bytes));
	json_object_object_add(o, "compression-factor", xms_ratio(f.unique_bytes, f.physical_bytes));
	json_object_object_add(o, "data-reduction-ratio", xms_ratio(f.logical_bytes, f.physical_bytes));
	json_object_object_add(o, "thin-provisioning-ratio", xms_ratio(f.provisioned_bytes, f.logical_bytes));
	json_object_object_add(o, "num-of-vols", json_object_new_int64((int64_t)nvol));
	/* the SSDs its profile's brick has (a profile's capacity.ssds) */
	json_object_object_add(o, "num-of-ssds", json_object_new_int64((int64_t)f.ssds));
	json_object_object_add(o, "chap-authentication-mode", json_object_new_string(xms_chap_mode_name(c->chap_auth)));
	json_object_object_add(o, "chap-discovery-mode", json_object_new_string(xms_chap_mode_name(c->chap_discovery)));
	/* lunlab's own: which profile emulates it, and the soft threshold */
	json_object_object_add(o, "lunlab-profile", json_object_new_string(f.profile));
	json_object_object_add(o, "lunlab-soft-threshold", xms_kb(f.soft_threshold_bytes));
	json_object_object_add(o, "lunlab-unique-space", xms_kb(f.unique_bytes));
	json_object_object_add(o, "lunlab-physical-space", xms_kb(f.physical_bytes));
	/* performance: the sum of its volumes' LU counters (xms_perf.h) */
	struct xms_perf_counters pc = { 0 };
	for (size_t i = 0; i < g_xms.volumes.n; i++)
		if (g_xms.volumes.v[i].cluster == c->index && g_xms.volumes.v[i].lu)
			xms_perf_add(&pc, g_xms.volumes.v[i].lu->stats);
	xms_perf_show(&c->perf, &pc, now_ms, o);
	json_object_array_add(arr, o);
}

static void list(struct xms_ctx *x, struct json_object *arr)
{
	uint64_t now_ms = xms_perf_now_ms();

	(void)x;
	for (size_t i = 0; i < g_xms.clusters.n; i++)
		one(arr, &g_xms.clusters.v[i], now_ms);
}

static bool mode_field(struct xms_ctx *x, const char *field, enum xms_chap_mode *out)
{
	const char *s;
	int rc = xms_field_string(x, field, 32, &s);

	if (rc <= 0)
		return rc == 0;
	if (!xms_chap_mode_parse(s, out))
		return api_errorf(x->rsp, 400, "Command Syntax Error: %s: want disabled, initiator or mutual", field);
	return true;
}

/* PUT: chap-authentication-mode, chap-discovery-mode */
static void put(struct xms_ctx *x, uint64_t index)
{
	struct xms_cluster *c = xms_cluster_get(&g_xms, index);
	enum xms_chap_mode a, d;

	if (!c) {
		api_error(x->rsp, 400, XMS_ERR_NOT_FOUND);
		return;
	}
	a = c->chap_auth;
	d = c->chap_discovery;
	if (!mode_field(x, "chap-authentication-mode", &a) || !mode_field(x, "chap-discovery-mode", &d))
		return;
	c->chap_auth = a;
	c->chap_discovery = d;
	xms_model_changed(&g_xms, XMS_KIND_CLUSTER, c->index);
	if (xms_republish(x))
		xms_reply_ok(x);
}

const struct xms_type xms_type_clusters = {
	.name = "clusters",
	.v1 = true,
	.list = list,
	.put = put,
};
