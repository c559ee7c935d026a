/* xms_system.c — the `xms` resource: the management server itself (one
 * object, index 1).  Clients read its sw-version to pick their dialect (the
 * Cinder driver uses its v4.2 client from XMS 4.2 on). */
#include <json-c/json.h>
#include <stdio.h>
#include <time.h>

#include "target/api/xms_ids.h"
#include "target/api/api_server.h"
#include "target/api/xms_common.h"
#include "target/api/xms_model.h"
#include "target/api/xms_scsi.h"
#include "target/lu/proc_figures.h"
#include "target/api/xms_resources.h"
#include "target/lu/lu_table.h"

/* lunlab's XMS is the target process: its memory and CPU, the auth file's
 * API users, and the space figures of every cluster */
static void host_figures(struct json_object *o)
{
	static double last_cpu, last_wall, cpu_pct; /* the model lock serialises lists */
	struct timespec ts;
	double wall, cpu = proc_cpu_seconds();
	uint64_t used = 0, provisioned = 0, physical = 0;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	wall = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	if (!last_wall || wall - last_wall >= XMS_PERF_MIN_INTERVAL_MS / 1000.0) {
		cpu_pct = last_wall ? 100.0 * (cpu - last_cpu) / (wall - last_wall) : 0;
		last_cpu = cpu;
		last_wall = wall;
	}
	json_object_object_add(o, "ram-usage", xms_kb(proc_rss_bytes()));
	json_object_object_add(o, "ram-total", xms_kb(proc_ram_total_bytes()));
	/* percent of one core over the last interval, a number (Telegraf: float64) */
	json_object_object_add(o, "cpu", json_object_new_double((double)(int64_t)(cpu_pct * 10 + 0.5) / 10));
	json_object_object_add(o, "num-of-user-accounts", json_object_new_int(api_server_user_count()));
	for (size_t i = 0; i < g_xms.clusters.n; i++) {
		struct lunlab_array_figures f;
		xms_scsi_cluster_figures(&g_xms.clusters.v[i], &f);
		used += f.used_bytes;
		provisioned += f.provisioned_bytes;
		physical += f.physical_bytes;
	}
	json_object_object_add(o, "ssd-space-in-use", xms_kb(used));
	/* XMS's overall efficiency: space provisioned per space physically used,
	 * a string (Telegraf decodes it with `json:",string"`) */
	char r[32];
	snprintf(r, sizeof(r), "%.3f", physical ? (double)provisioned / (double)physical : 0.0);
	json_object_object_add(o, "overall-efficiency-ratio", json_object_new_string(r));
}

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
	host_figures(o);
	json_object_array_add(arr, o);
}

const struct xms_type xms_type_xms = {
	.name = "xms",
	.list_key = "xmss", /* XMS lists itself under "xmss" (Telegraf, CoprHD read that key) */
	.v1 = true,
	.list = list,
};
