/* test_api_router.c — the routing table: exact before prefix, the longest
 * prefix, a prefix matches only at '/', "/" serves everything below,
 * HEAD as GET, 404 vs 405, refusals when adding, and dispatch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "target/api/api_json.h"
#include "target/api/api_router.h"

static void h(const struct api_request *req, struct api_response *rsp)
{
	(void)req;
	rsp->status = 204;
}

static const struct api_route routes[] = {
	{ API_GET, "/", API_ROUTE_PREFIX | API_ROUTE_PUBLIC, h, "root" },
	{ API_GET | API_POST, "/api/json/v2/types/volumes", API_ROUTE_PREFIX, h, "volumes" },
	{ API_GET, "/api/json/v2/types/volumes/special", 0, h, "special" },
	{ API_DELETE, "/api/json/v2/types/volumes/special", API_ROUTE_PREFIX, h, "special-tree" },
	{ API_GET, "/metrics", 0, h, "metrics" },
};

static int setup(void **state)
{
	char err[128];

	api_routes_clear();
	assert_int_equal(api_routes_add(routes, 5, err, sizeof(err)), 0);
	return 0;
}

static const char *cls(enum api_method m, const char *path, const char **rest, bool *known)
{
	const struct api_route *r = api_route_find(m, path, rest, known);

	return r ? r->cls : NULL;
}

static void finding(void **state)
{
	const char *rest;
	bool known;

	assert_string_equal(cls(API_GET, "/api/json/v2/types/volumes", &rest, &known), "volumes");
	assert_string_equal(rest, "");
	assert_string_equal(cls(API_GET, "/api/json/v2/types/volumes/12", &rest, &known), "volumes");
	assert_string_equal(rest, "12");
	/* exact beats prefix; a prefix route for other methods does not */
	assert_string_equal(cls(API_GET, "/api/json/v2/types/volumes/special", &rest, &known), "special");
	assert_string_equal(cls(API_DELETE, "/api/json/v2/types/volumes/special/x", &rest, &known), "special-tree");
	assert_string_equal(rest, "x");
	/* only at a '/': "volumesX" is the root's */
	assert_string_equal(cls(API_GET, "/api/json/v2/types/volumesX", &rest, &known), "root");
	assert_string_equal(rest, "api/json/v2/types/volumesX");
	assert_string_equal(cls(API_HEAD, "/metrics", &rest, &known), "metrics");
	/* the path exists, the method does not: 405 */
	assert_null(cls(API_PUT, "/metrics", &rest, &known));
	assert_true(known);
	assert_null(cls(API_DELETE, "/api/json/v2/types/volumes", &rest, &known));
	assert_true(known);
	api_routes_clear();
	assert_null(cls(API_GET, "/metrics", &rest, &known));
	assert_false(known);
}

static void refusals(void **state)
{
	char err[128];
	static const struct api_route bad[] = {
		{ API_GET, "metrics", 0, h, NULL },
		{ 0, "/x", 0, h, NULL },
		{ API_GET, "/x", 0, NULL, NULL },
	};
	static const struct api_route again = { API_POST | API_GET, "/metrics", 0, h, NULL };
	static const struct api_route other = { API_POST, "/metrics", 0, h, NULL };

	for (int i = 0; i < 3; i++) {
		assert_int_equal(api_routes_add(&bad[i], 1, err, sizeof(err)), -1);
		assert_string_equal(err, "route 0: needs a path starting with '/', methods and a handler");
	}
	assert_int_equal(api_routes_add(&again, 1, err, sizeof(err)), -1);
	assert_string_equal(err, "route /metrics: already served for one of these methods");
	assert_int_equal(api_routes_add(&other, 1, err, sizeof(err)), 0);
}

static void dispatching(void **state)
{
	struct api_request req;
	struct api_response rsp;

	memset(&req, 0, sizeof(req));
	memset(&rsp, 0, sizeof(rsp));
	req.method = API_PUT;
	req.path = "/metrics";
	api_dispatch(&req, &rsp);
	assert_int_equal(rsp.status, 405);
	assert_string_equal(rsp.body, "{ \"message\": \"method_not_allowed\", \"error_code\": 405 }");
	free(rsp.body);
	memset(&rsp, 0, sizeof(rsp));
	req.method = API_GET;
	req.path = "/api/json/v2/types/volumes/3";
	api_dispatch(&req, &rsp);
	assert_int_equal(rsp.status, 204);
	assert_string_equal(req.rest, "3");
	assert_string_equal(req.route_cls, "volumes");
	api_routes_clear();
	memset(&rsp, 0, sizeof(rsp));
	api_dispatch(&req, &rsp);
	assert_int_equal(rsp.status, 404);
	free(rsp.body);
	/* parameters */
	struct api_param p[] = { { "a", "1" }, { "b", "" }, { "a", "2" } };
	req.params = p;
	req.nparams = 3;
	assert_string_equal(api_param(&req, "a"), "1");
	assert_string_equal(api_param(&req, "b"), "");
	assert_null(api_param(&req, "c"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(finding, setup),
		cmocka_unit_test_setup(refusals, setup),
		cmocka_unit_test_setup(dispatching, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
