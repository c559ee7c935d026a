/* lunlab_hardware.c — /api/lunlab/hardware: hardware faults of the
 * emulated X-Brick (docs/faults.md "Hardware faults").
 *
 *   GET /api/lunlab/hardware   {"failed": [{"cluster", "component", "name", "number"}]}
 *   PUT /api/lunlab/hardware   {"component": "ssd" | "storage-controller",
 *                               "name": "X1-SC2" | "wwn-0x..." | "3" (its number from 1),
 *                               "state": "failed" | "healthy",
 *                               "cluster": NAME (default: the first)}
 * The inventory (xms_inventory.h) shows the component failed, an alert and
 * an event say so; a failed storage controller takes its targets' portals
 * down until it is healthy again. */
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "target/api/api_json.h"
#include "target/api/lunlab_api.h"
#include "target/api/xms_common.h"
#include "target/api/xms_inventory.h"
#include "target/iscsi/target.h"

static void reply_failed(struct api_response *rsp)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "failed", xms_inv_failed_json());
	api_reply_json(rsp, 200, o);
}

static void hardware(const struct api_request *req, struct api_response *rsp)
{
	static const char *const known[] = { "component", "name", "state", "cluster" };
	char err[320], num[24];
	const char *comp = NULL, *name = NULL, *state = NULL, *cl = NULL;
	struct json_object *body, *nv;
	struct xms_cluster *c;
	enum xms_inv_component kind;
	unsigned n;

	if (*req->rest) {
		api_error(rsp, 404, "not_found");
		return;
	}
	xms_lock();
	if (req->method == API_GET) {
		reply_failed(rsp);
		xms_unlock();
		return;
	}
	body = api_json_parse_body(req->body, req->body_len, err, sizeof(err));
	if (!body) {
		api_error(rsp, 400, err);
		goto out;
	}
	if (!json_object_is_type(body, json_type_object)) {
		api_error(rsp, 400, "body: want a JSON object");
		goto out;
	}
	json_object_object_foreach(body, key, val)
	{
		bool ok = false;
		(void)val;
		for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
			ok |= strcmp(key, known[i]) == 0;
		if (!ok) {
			api_errorf(rsp, 400, "%.40s: unknown field (want component, name, state, cluster)", key);
			goto out;
		}
	}
	if (api_json_string(body, "component", 32, &comp, err, sizeof(err)) != 1 ||
	    (strcmp(comp, "ssd") != 0 && strcmp(comp, "storage-controller") != 0)) {
		api_error(rsp, 400, "component: want \"ssd\" or \"storage-controller\"");
		goto out;
	}
	if (api_json_string(body, "state", 16, &state, err, sizeof(err)) != 1 ||
	    (strcmp(state, "failed") != 0 && strcmp(state, "healthy") != 0)) {
		api_error(rsp, 400, "state: want \"failed\" or \"healthy\"");
		goto out;
	}
	/* the name, or the number as a JSON integer */
	if (json_object_object_get_ex(body, "name", &nv) && json_object_is_type(nv, json_type_int) &&
	    json_object_get_int64(nv) > 0 && json_object_get_int64(nv) < 100000) {
		snprintf(num, sizeof(num), "%lld", (long long)json_object_get_int64(nv));
		name = num;
	} else if (api_json_string(body, "name", 64, &name, err, sizeof(err)) != 1) {
		api_error(rsp, 400, "name: want the component's name or its number from 1");
		goto out;
	}
	if (api_json_string(body, "cluster", 63, &cl, err, sizeof(err)) < 0) {
		api_error(rsp, 400, "cluster: want a cluster's name");
		goto out;
	}
	c = cl ? xms_cluster_by_name(&g_xms, cl) : g_xms.clusters.n ? &g_xms.clusters.v[0] : NULL;
	if (!c) {
		api_error(rsp, 404, "obj_not_found: cluster");
		goto out;
	}
	kind = comp[0] == 's' && comp[1] == 's' ? XMS_INV_SSD : XMS_INV_SC;
	n = xms_inv_find(c->index, kind, name);
	if (!n) {
		api_errorf(rsp, 404, "obj_not_found: no %s \"%.64s\" in cluster %s", comp, name, c->name);
		goto out;
	}
	if (xms_inv_set_failed(c->index, kind, n, state[0] == 'f', err, sizeof(err)) < 0) {
		api_error(rsp, 409, err);
		goto out;
	}
	target_log("API: %s set %s %.64s of cluster %s %s", req->user ? req->user : "?", comp, name, c->name, state);
	reply_failed(rsp);
out:
	json_object_put(body);
	xms_unlock();
}

static const struct api_route routes[] = {
	{ API_GET | API_PUT, "/api/lunlab/hardware", API_ROUTE_PREFIX, hardware, NULL },
};

int lunlab_hardware_register(char *err, size_t errlen)
{
	return api_routes_add(routes, sizeof(routes) / sizeof(routes[0]), err, errlen);
}
