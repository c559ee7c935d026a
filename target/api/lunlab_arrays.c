/* lunlab_arrays.c — the arrays' physical space at run time, in the lunlab
 * namespace of the management API (docs/api.md "An array's physical space"):
 *
 *   GET /api/lunlab/arrays          every array: capacity, soft threshold, use
 *   GET /api/lunlab/arrays/NAME     one array
 *   PUT /api/lunlab/arrays/NAME     {"capacity": SIZE, "soft-threshold": PERCENT}
 *
 * What a real array does when its usable space changes (an X-Brick added,
 * a drive failed and rebuilt with less spare, a pool shrunk): the hosts are
 * not asked, the array's thin-provisioning state follows.  A PUT goes
 * through array_ctl.array_set_capacity, so the array does what it does for
 * any change of its space: 06/2A/01 MODE PARAMETERS CHANGED to every nexus
 * (the thresholds of mode page 1Ch/02h and VPD B2 changed), 06/38/07 THIN
 * PROVISIONING SOFT THRESHOLD REACHED when use is now above the threshold,
 * and 07/27/07 SPACE ALLOCATION FAILED WRITE PROTECT on a write that needs a
 * block the new capacity has no room for.  Without "soft-threshold" the
 * threshold keeps its share of the capacity (a percentage, as XMS sets it).
 * A capacity below what the array uses now is refused (the array cannot
 * un-store data).  SIZE: bytes as a JSON integer, or a string as XMS writes
 * sizes ("64m", "2g"; binary; a bare number in a string is KiB, as vol-size). */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lunlab/size_parse.h"
#include "target/api/api_json.h"
#include "target/api/lunlab_api.h"
#include "target/api/xms_scsi.h"
#include "target/iscsi/target.h"

#define MAX_ARRAYS 64

static struct json_object *array_json(const char *name, const struct lunlab_array_figures *f)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "capacity", json_object_new_int64((int64_t)f->capacity_bytes));
	json_object_object_add(o, "soft-threshold-bytes", json_object_new_int64((int64_t)f->soft_threshold_bytes));
	json_object_object_add(o, "soft-threshold",
			       json_object_new_double(f->capacity_bytes ? 100.0 * (double)f->soft_threshold_bytes /
										(double)f->capacity_bytes
									: 0.0));
	json_object_object_add(o, "used", json_object_new_int64((int64_t)f->used_bytes));
	json_object_object_add(o, "physical", json_object_new_int64((int64_t)f->physical_bytes));
	/* unique blocks whose compressed size is not known yet: until 0, "used" holds their
	 * uncompressed reservation (a client that wants settled figures waits for 0) */
	json_object_object_add(o, "pending-blocks", json_object_new_int64((int64_t)f->pending_blocks));
	json_object_object_add(o, "profile", json_object_new_string(f->profile));
	return o;
}

/* "capacity": an integer of bytes or a size string; 0 absent, 1 given, -1 bad */
static int capacity_field(struct json_object *body, uint64_t *out, char *err, size_t errlen)
{
	struct json_object *v;

	if (!json_object_object_get_ex(body, "capacity", &v) || !v)
		return 0;
	if (json_object_is_type(v, json_type_int) && json_object_get_int64(v) > 0) {
		*out = (uint64_t)json_object_get_int64(v);
		return 1;
	}
	if (json_object_is_type(v, json_type_string) && json_object_get_string_len(v) <= 32 &&
	    ll_size_parse(json_object_get_string(v), 10, out) && *out > 0) /* as XMS: digits alone are KiB */
		return 1;
	snprintf(err, errlen, "capacity: want a size in bytes (an integer, or a string like 64m, 2g)");
	return -1;
}

static void arrays(const struct api_request *req, struct api_response *rsp)
{
	const struct lunlab_array_ctl *ctl = xms_scsi_ctl();
	struct lunlab_array_figures f;
	char err[320];

	if (!ctl) {
		api_error(rsp, 404, "obj_not_found");
		return;
	}
	if (!*req->rest) {
		char (*names)[LUNLAB_ARRAY_NAME_MAX];
		struct json_object *o, *arr;
		int n;

		if (req->method != API_GET) {
			api_error(rsp, 405, "PUT an array: /api/lunlab/arrays/NAME");
			return;
		}
		names = calloc(MAX_ARRAYS, sizeof(*names));
		if (!names) {
			api_error(rsp, 500, "out of memory");
			return;
		}
		n = ctl->array_list(names, MAX_ARRAYS);
		o = json_object_new_object();
		arr = json_object_new_array();
		for (int i = 0; i < n && i < MAX_ARRAYS; i++)
			if (ctl->array_figures(names[i], false, &f) == 0)
				json_object_array_add(arr, array_json(names[i], &f));
		free(names);
		json_object_object_add(o, "arrays", arr);
		api_reply_json(rsp, 200, o);
		return;
	}
	if (strlen(req->rest) >= LUNLAB_ARRAY_NAME_MAX || ctl->array_figures(req->rest, false, &f) != 0) {
		api_error(rsp, 404, "obj_not_found");
		return;
	}
	if (req->method == API_GET) {
		api_reply_json(rsp, 200, array_json(req->rest, &f));
		return;
	}
	err[0] = '\0';
	struct json_object *body = api_json_parse_body(req->body, req->body_len, err, sizeof(err));
	uint64_t cap = f.capacity_bytes, pct = 0, soft;
	int has_cap, has_pct;

	if (!body) {
		api_error(rsp, 400, err);
		return;
	}
	if ((has_cap = capacity_field(body, &cap, err, sizeof(err))) < 0 ||
	    (has_pct = api_json_uint(body, "soft-threshold", 100, &pct, err, sizeof(err))) < 0) {
		json_object_put(body);
		api_error(rsp, 400, err);
		return;
	}
	json_object_put(body);
	if (!has_cap && !has_pct) {
		api_error(rsp, 400, "want {\"capacity\": SIZE} and/or {\"soft-threshold\": PERCENT}");
		return;
	}
	if (has_pct)
		soft = (uint64_t)((__uint128_t)cap * pct / 100);
	else /* the threshold keeps its share of the capacity */
		soft = f.capacity_bytes ? (uint64_t)((__uint128_t)f.soft_threshold_bytes * cap / f.capacity_bytes) : 0;
	if (ctl->array_set_capacity(req->rest, cap, soft, err, sizeof(err)) != 0) {
		api_error(rsp, 400, err);
		return;
	}
	target_log("API: %s set array %s's capacity to %llu bytes, soft threshold %llu bytes", req->user ? req->user : "?",
		   req->rest, (unsigned long long)cap, (unsigned long long)soft);
	if (ctl->array_figures(req->rest, false, &f) != 0) {
		api_error(rsp, 404, "obj_not_found");
		return;
	}
	api_reply_json(rsp, 200, array_json(req->rest, &f));
}

static const struct api_route routes[] = {
	{ API_GET | API_PUT, "/api/lunlab/arrays", API_ROUTE_PREFIX, arrays, NULL },
};

int lunlab_arrays_register(char *err, size_t errlen)
{
	return api_routes_add(routes, sizeof(routes) / sizeof(routes[0]), err, errlen);
}
