/* test_api_faults.c — the management API's fault rules (api_faults.h)
 * through their routes, without a server (api_dispatch): a rule answers
 * its XMS error for its method and type only, after `skip` matching
 * requests and for `count` of them; several rules in order; every bad
 * field of a POST named; listing, one rule, deletes. */
#include <json-c/json.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "target/api/api_faults.h"
#include "target/api/api_router.h"

static unsigned call(enum api_method m, const char *path, const char *body, char **out)
{
	struct api_request req = { .method = m, .path = path, .body = body, .body_len = strlen(body), .host = "h",
				   .user = "admin" };
	struct api_response rsp = { 0 };

	api_dispatch(&req, &rsp);
	*out = rsp.body;
	return rsp.status;
}

static unsigned post(const char *body, char **out)
{
	return call(API_POST, "/api/lunlab/api-faults", body, out);
}

/* what a request of method m to XMS type `type` meets: 0 (passes) or the
 * status, with the message in msg */
static unsigned meets(enum api_method m, const char *type, char *msg, size_t cap)
{
	struct api_request req = { .method = m, .path = "/api/json/v2/types/x", .body = "", .host = "h" };
	struct api_response rsp = { 0 };
	struct json_object *o, *v;

	msg[0] = '\0';
	if (!api_faults_check(&req, type, &rsp))
		return 0;
	o = json_tokener_parse(rsp.body);
	assert_true(json_object_object_get_ex(o, "message", &v));
	snprintf(msg, cap, "%s", json_object_get_string(v));
	assert_true(json_object_object_get_ex(o, "error_code", &v));
	assert_int_equal(json_object_get_int(v), (int)rsp.status);
	json_object_put(o);
	free(rsp.body);
	return rsp.status;
}

static int setup(void **state)
{
	char err[128];

	(void)state;
	api_routes_clear();
	api_faults_reset();
	assert_int_equal(api_faults_register(err, sizeof(err)), 0);
	return 0;
}

static void test_skip_count_method_type(void **state)
{
	char *out, msg[64];

	(void)state;
	assert_int_equal(post("{\"error\": \"system_is_busy\", \"method\": \"POST\", \"type\": \"snapshots\", "
			      "\"skip\": 1, \"count\": 2}", &out), 201);
	assert_non_null(strstr(out, "\"id\": 1") ? out : strstr(out, "\"id\":1"));
	free(out);
	assert_int_equal(meets(API_GET, "snapshots", msg, sizeof(msg)), 0);   /* another method */
	assert_int_equal(meets(API_POST, "volumes", msg, sizeof(msg)), 0);    /* another type */
	assert_int_equal(meets(API_POST, "snapshots", msg, sizeof(msg)), 0);  /* skipped */
	assert_int_equal(meets(API_POST, "snapshots", msg, sizeof(msg)), 400);
	assert_string_equal(msg, "system_is_busy");
	assert_int_equal(meets(API_POST, "snapshots", msg, sizeof(msg)), 400);
	assert_int_equal(meets(API_POST, "snapshots", msg, sizeof(msg)), 0);  /* spent after 2 */
	assert_int_equal(call(API_GET, "/api/lunlab/api-faults/1", "", &out), 200);
	assert_non_null(strstr(out, "\"spent\": true") ? out : strstr(out, "\"spent\":true"));
	assert_non_null(strstr(out, "\"hits\": 2") ? out : strstr(out, "\"hits\":2"));
	free(out);
}

static void test_order_and_any(void **state)
{
	char *out, msg[64];

	(void)state;
	assert_int_equal(post("{\"error\": \"too_many_snapshots_per_vol\", \"type\": \"snapshots\"}", &out), 201);
	free(out);
	assert_int_equal(post("{\"error\": \"cluster_is_not_healthy\", \"status\": 503}", &out), 201);
	free(out);
	assert_int_equal(meets(API_POST, "snapshots", msg, sizeof(msg)), 400);
	assert_string_equal(msg, "too_many_snapshots_per_vol");
	assert_int_equal(meets(API_DELETE, "lun-maps", msg, sizeof(msg)), 503);
	assert_string_equal(msg, "cluster_is_not_healthy");
	assert_int_equal(call(API_DELETE, "/api/lunlab/api-faults/1", "", &out), 200);
	free(out);
	assert_int_equal(meets(API_POST, "snapshots", msg, sizeof(msg)), 503);
	assert_int_equal(call(API_DELETE, "/api/lunlab/api-faults", "", &out), 200);
	assert_non_null(strstr(out, "removed"));
	free(out);
	assert_int_equal(meets(API_POST, "snapshots", msg, sizeof(msg)), 0);
	assert_int_equal(call(API_GET, "/api/lunlab/api-faults/2", "", &out), 404);
	free(out);
	assert_int_equal(call(API_GET, "/api/lunlab/api-faults/x", "", &out), 404);
	free(out);
}

static void test_bad_bodies(void **state)
{
	static const struct {
		const char *body, *want;
	} bad[] = {
		{ "{}", "error: want" },
		{ "{\"error\": 7}", "error: want" },
		{ "{\"error\": \"made_up\"}", "error: made_up is not" },
		{ "{\"error\": \"system_is_busy\", \"method\": \"PATCH\"}", "method: want" },
		{ "{\"error\": \"system_is_busy\", \"type\": \"Vol/../\"}", "type: want" },
		{ "{\"error\": \"system_is_busy\", \"skip\": -1}", "skip: want" },
		{ "{\"error\": \"system_is_busy\", \"count\": \"x\"}", "count: want" },
		{ "{\"error\": \"system_is_busy\", \"status\": 200}", "status: want" },
		{ "{\"error\": \"system_is_busy\", \"status\": 600}", "status: want" },
		{ "{\"error\": \"system_is_busy\", \"colour\": 1}", "colour: unknown field" },
		{ "[1]", "body: want a JSON object" },
		{ "{\"error\"", "" },
	};
	char *out, msg[64];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(post(bad[i].body, &out), 400);
		assert_non_null(strstr(out, bad[i].want));
		free(out);
	}
	assert_int_equal(meets(API_POST, "volumes", msg, sizeof(msg)), 0); /* nothing was added */
	for (int i = 0; i < API_FAULTS_MAX; i++) {
		assert_int_equal(post("{\"error\": \"obj_not_found\", \"type\": \"xms\"}", &out), 201);
		free(out);
	}
	assert_int_equal(post("{\"error\": \"obj_not_found\"}", &out), 400);
	assert_non_null(strstr(out, "too many API fault rules"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_skip_count_method_type, setup),
		cmocka_unit_test_setup(test_order_and_any, setup),
		cmocka_unit_test_setup(test_bad_bodies, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
