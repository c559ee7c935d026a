/* xms_system.c — the `xms` resource: the management server itself (one
 * object, index 1).  Clients read its sw-version to pick their dialect (the
 * Cinder driver uses its v4.2 client from XMS 4.2 on). */
#include <json-c/json.h>

#include "target/api/xms_ids.h"
#include "target/api/xms_model.h"
#include "target/api/xms_resources.h"
#include "target/lu/lu_table.h"

static void list(struct xms_ctx *x, struct json_object *arr)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string("xms"));
	json_object_object_add(o, "index", json_object_new_int(1));
	json_object_object_add(o, "guid", json_object_new_string(xms_ids_xms_guid()));
	json_object_object_add(o, "xms-id", xms_oid(xms_ids_xms_guid(), "xms", 1));
	json_object_object_add(o, "version", json_object_new_string(XMS_VERSION));
	json_object_object_add(o, "sw-version", json_object_new_string(XMS_SW_VERSION));
	json_object_object_add(o, "restapi-protocol-version", json_object_new_string(XMS_RESTAPI_VERSION));
	json_object_object_add(o, "db-version", json_object_new_string(XMS_DB_VERSION));
	/* the address the client reached the XMS at (Telegraf tags its figures with it) */
	json_object_object_add(o, "xms-ip", json_object_new_string(x->req->local_addr ? x->req->local_addr : ""));
	json_object_object_add(o, "lunlab-version", json_object_new_string(LUNLAB_VERSION_STRING));
	/* performance of every volume it manages (xms_perf.h); one sample: one xms */
	static struct xms_perf_sample perf;
	struct xms_perf_counters pc = { 0 };
	for (size_t i = 0; i < g_xms.volumes.n; i++)
		if (g_xms.volumes.v[i].lu)
			xms_perf_add(&pc, g_xms.volumes.v[i].lu->stats);
	xms_perf_show(&perf, &pc, xms_perf_now_ms(), o);
	json_object_array_add(arr, o);
}

const struct xms_type xms_type_xms = {
	.name = "xms",
	.list_key = "xmss", /* XMS lists itself under "xmss" (Telegraf, CoprHD read that key) */
	.v1 = true,
	.list = list,
};
