/* lunlab_luns.c — GET /api/lunlab/luns: the --lun LUs of the running target
 * (docs/api.md "The --lun LUs").  The XMS resources show what the API made
 * (volumes, snapshots, their maps); the LUs of the command line or --config
 * are not XMS volumes, and before this a client could list them only from
 * /metrics.json.  Read only: they live as long as the process.
 *
 *   GET /api/lunlab/luns      {"luns": [LU, ...]} in LUN order
 *   GET /api/lunlab/luns/N    one LU; 404 obj_not_found
 *
 * LU: {"lun", "size" (bytes), "block-size", "array", "profile", "serial"
 * (the handler's: the unit serial, or the named volume), "tpgs"}; "array",
 * "profile" and "serial" are null for a LU whose handler reports no array. */
#include "target/api/lunlab_api.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>

#include "lunlab/array_ctl.h"
#include "target/api/api_json.h"
#include "target/api/api_router.h"
#include "target/lu/lu_cmd.h"
#include "target/lu/lu_table.h"
#include "target/tcmu/host.h"

static struct json_object *str_or_null(bool have, const char *s)
{
	return have && s[0] ? json_object_new_string(s) : NULL;
}

static struct json_object *lu_json(uint64_t lun)
{
	static const char *const tpgs_names[] = { "off", "implicit", "explicit", "both" };
	struct lu_backend *be = lu_table_get(lun);
	struct json_object *o = json_object_new_object();
	struct lunlab_lu_figures fig = { 0 };
	struct tcmu_device *dev = NULL;
	const struct lunlab_array_ctl *ctl = tcmu_host_backend_array_ctl(be, &dev);
	bool have = lunlab_array_ctl_has(ctl, lu_figures) && ctl->lu_figures(dev, &fig) == 0;

	json_object_object_add(o, "lun", json_object_new_int64((int64_t)lun));
	json_object_object_add(o, "size", json_object_new_int64((int64_t)(be->num_lbas * be->block_size)));
	json_object_object_add(o, "block-size", json_object_new_int64(be->block_size));
	json_object_object_add(o, "array", str_or_null(have, fig.array));
	json_object_object_add(o, "profile", str_or_null(have, fig.profile));
	json_object_object_add(o, "serial", str_or_null(have, fig.volume));
	json_object_object_add(o, "tpgs", json_object_new_string(tpgs_names[be->tpgs & 3]));
	return o;
}

static void luns(const struct api_request *req, struct api_response *rsp)
{
	size_t n = lu_table_count();
	char *end;
	unsigned long long lun;

	if (!*req->rest) {
		struct json_object *o = json_object_new_object(), *arr = json_object_new_array();

		for (size_t i = 0; i < n; i++)
			json_object_array_add(arr, lu_json(i));
		json_object_object_add(o, "luns", arr);
		api_reply_json(rsp, 200, o);
		return;
	}
	/* the LUN, in decimal: nothing else names a --lun LU */
	errno = 0;
	lun = strtoull(req->rest, &end, 10);
	if (req->rest[0] < '0' || req->rest[0] > '9' || *end || errno || lun >= n) {
		api_error(rsp, 404, "obj_not_found");
		return;
	}
	api_reply_json(rsp, 200, lu_json(lun));
}

static const struct api_route routes[] = {
	{ API_GET, "/api/lunlab/luns", API_ROUTE_PREFIX, luns, NULL },
};

int lunlab_luns_register(char *err, size_t errlen)
{
	return api_routes_add(routes, sizeof(routes) / sizeof(routes[0]), err, errlen);
}
