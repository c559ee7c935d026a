/* lunlab_model_check.c — GET /api/lunlab/model-check: the API model's name
 * index compared with a scan of every object (xms_model_names_check), for
 * the API tests to ask after each kind of change (create, rename, delete,
 * snapshot, refresh, restart): a name set behind the index's back would
 * make ?name= lookups and uniqueness wrong without any other symptom.
 *
 *   GET /api/lunlab/model-check   200 {"names": "N entries, as the objects"}
 *                                 500 {"message": "name index: <the first difference>", ...}
 *
 * O(objects x log objects) per call: a test's tool, not a poller's. */
#include <json-c/json.h>
#include <stdio.h>

#include "target/api/api_json.h"
#include "target/api/api_router.h"
#include "target/api/lunlab_api.h"
#include "target/api/xms_engine.h"
#include "target/api/xms_model.h"

static void model_check(const struct api_request *req, struct api_response *rsp)
{
	char why[400];
	int rc;

	(void)req;
	xms_lock();
	rc = xms_model_names_check(&g_xms, why, sizeof(why));
	xms_unlock();
	if (rc < 0) {
		api_errorf(rsp, 500, "name index: %s", why);
		return;
	}
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "names", json_object_new_string(why));
	api_reply_json(rsp, 200, o);
}

static const struct api_route routes[] = {
	{ API_GET, "/api/lunlab/model-check", 0, model_check, NULL },
};

int lunlab_model_check_register(char *err, size_t errlen)
{
	return api_routes_add(routes, sizeof(routes) / sizeof(routes[0]), err, errlen);
}
