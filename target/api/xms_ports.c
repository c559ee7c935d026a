/* xms_ports.c — the target side as XMS shows it, from lunlab-target's own
 * configuration: `iscsi-portals` (one per --listen address), `targets` (one
 * iSCSI port per portal; port-address is the target's IQN) and
 * `target-groups` (the one group "Default" every LUN map goes through).  A
 * wildcard listener (0.0.0.0, ::) is shown as the loopback address, the one
 * address it certainly serves.  A portal with advertise= is shown at the
 * address it advertises (what a client such as Cinder must connect to), and
 * a portal set down (/api/lunlab/portals) has port-state "down". */
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "target/api/xms_common.h"
#include "target/api/xms_perf.h"
#include "target/api/xms_inventory.h"
#include "target/api/xms_resources.h"
#include "target/iscsi/portal.h"
#include "target/iscsi/target.h"

static void fixed_guid(char out[XMS_GUID_LEN + 1], unsigned kind, uint64_t index)
{
	snprintf(out, XMS_GUID_LEN + 1, "%08x%024llx", kind, (unsigned long long)index);
}

void xms_target_guid(char *out, int t)
{
	fixed_guid(out, 0x7a26, (uint64_t)t + 1);
}

static void portal_addr(const struct target_portal *p, char *ip, size_t cap)
{
	if (p->adv_host[0])
		snprintf(ip, cap, "%s", p->adv_host);
	else if (p->wildcard)
		snprintf(ip, cap, "%s", p->v6 ? "::1" : "127.0.0.1");
	else
		snprintf(ip, cap, "%s", p->host);
}

/* The cluster a port is shown in: lunlab serves every cluster through the
 * same target and portals, so a port belongs to whichever cluster the
 * request names (Cinder's backend for x2a must find them), else the first. */
static const struct xms_cluster *port_cluster(void)
{
	const struct xms_cluster *c = g_xms.scope ? xms_cluster_get(&g_xms, g_xms.scope) : NULL;

	return c ? c : g_xms.clusters.n ? &g_xms.clusters.v[0] : NULL;
}

static void list_portals(struct xms_ctx *x, struct json_object *arr)
{
	(void)x;
	for (int i = 0; i < g_target.nportals; i++) {
		const struct target_portal *p = &g_target.portals[i];
		struct json_object *o = json_object_new_object();
		char ip[80], name[96], guid[XMS_GUID_LEN + 1], tguid[XMS_GUID_LEN + 1], tname[32];

		portal_addr(p, ip, sizeof(ip));
		snprintf(name, sizeof(name), "%s/%d", ip, (p->adv_host[0] ? p->adv_v6 : p->v6) ? 128 : 32);
		fixed_guid(guid, 0x1c51, (uint64_t)i + 1);
		fixed_guid(tguid, 0x7a26, (uint64_t)i + 1);
		xms_inv_target_name(i, tname, sizeof(tname));
		json_object_object_add(o, "name", json_object_new_string(name));
		json_object_object_add(o, "index", json_object_new_int(i + 1));
		json_object_object_add(o, "guid", json_object_new_string(guid));
		json_object_object_add(o, "portal-id", xms_oid(guid, name, (uint64_t)i + 1));
		json_object_object_add(o, "ip-addr", json_object_new_string(name));
		json_object_object_add(o, "ip-port", json_object_new_int((int)(p->adv_host[0] ? p->adv_port : p->port)));
		json_object_object_add(o, "port-address", json_object_new_string(g_target.iqn));
		json_object_object_add(o, "tar-id", xms_oid(tguid, tname, (uint64_t)i + 1));
		json_object_object_add(o, "vlan", json_object_new_int(0));
		if (port_cluster())
			json_object_object_add(o, "sys-id", xms_cluster_oid(port_cluster()));
		json_object_array_add(arr, o);
	}
}

static void list_targets(struct xms_ctx *x, struct json_object *arr)
{
	/* one sample per target (xms_perf.h); under the model lock */
	static struct xms_perf_sample perf[TARGET_MAX_PORTALS];
	uint64_t now_ms = xms_perf_now_ms();

	(void)x;
	for (int i = 0; i < g_target.nportals; i++) {
		struct json_object *o = json_object_new_object();
		char guid[XMS_GUID_LEN + 1], name[32];

		xms_target_guid(guid, i);
		xms_inv_target_name(i, name, sizeof(name));
		json_object_object_add(o, "name", json_object_new_string(name));
		json_object_object_add(o, "index", json_object_new_int(i + 1));
		json_object_object_add(o, "guid", json_object_new_string(guid));
		json_object_object_add(o, "tar-id", xms_oid(guid, name, (uint64_t)i + 1));
		json_object_object_add(o, "port-type", json_object_new_string("iscsi"));
		json_object_object_add(o, "port-address", json_object_new_string(g_target.iqn));
		json_object_object_add(o, "port-state", json_object_new_string(portal_is_down(i) ? "down" : "up"));
		json_object_object_add(o, "tg-id", xms_tg_oid());
		xms_inv_target_tags(i, o);
		if (port_cluster()) {
			json_object_object_add(o, "sys-id", xms_cluster_oid(port_cluster()));
			xms_inv_target_ids(port_cluster(), i, o);
		}
		/* performance: what came through its portal, the counters /metrics
		 * serves per portal (lunlab_portal_*) */
		struct xms_perf_counters pc = { 0 };
		xms_perf_add_portal(&pc, i);
		xms_perf_show(&perf[i], &pc, now_ms, o);
		json_object_array_add(arr, o);
	}
}

static void list_tgs(struct xms_ctx *x, struct json_object *arr)
{
	struct json_object *o = json_object_new_object();

	(void)x;
	json_object_object_add(o, "name", json_object_new_string("Default"));
	json_object_object_add(o, "index", json_object_new_int(1));
	json_object_object_add(o, "tg-id", xms_tg_oid());
	json_object_object_add(o, "num-of-tars", json_object_new_int(g_target.nportals));
	if (g_xms.clusters.n)
		json_object_object_add(o, "sys-id", xms_cluster_oid(port_cluster()));
	json_object_array_add(arr, o);
}

const struct xms_type xms_type_portals = { .name = "iscsi-portals", .v1 = true, .list = list_portals };
const struct xms_type xms_type_targets = { .name = "targets", .v1 = true, .list = list_targets };
const struct xms_type xms_type_tgs = { .name = "target-groups", .v1 = true, .list = list_tgs };
