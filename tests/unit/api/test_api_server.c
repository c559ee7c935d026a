/* test_api_server.c — the HTTPS server on 127.0.0.1 with a generated
 * certificate, through libcurl: authentication (none, wrong, right), the
 * exact XMS-shaped error bodies (401, 404, 405, 413, 400), routes that other
 * parts of the target add (public, prefix), HEAD, bounded query parameters,
 * and a clean stop. */
#include <json-c/json.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <curl/curl.h>

#include "api_test_http.h"
#include "target/api/api_json.h"
#include "target/api/api_router.h"
#include "target/api/api_server.h"
#include "target/api/xms_engine.h"
#include "target/api/xms_resources.h"
#include "target/iscsi/auth_config.h"
#include "target/iscsi/login_throttle.h"

static struct auth_config auth;
static unsigned port;
static char logged[8192];

__attribute__((format(printf, 1, 2))) static void capture_log(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (strlen(logged) + strlen(line) + 2 < sizeof(logged)) {
		strcat(logged, line);
		strcat(logged, "\n");
	}
}

static void echo_rest(const struct api_request *req, struct api_response *rsp)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "rest", json_object_new_string(req->rest));
	json_object_object_add(o, "user", req->user ? json_object_new_string(req->user) : NULL);
	json_object_object_add(o, "cls", json_object_new_string(req->route_cls ? (const char *)req->route_cls : ""));
	api_reply_json(rsp, 200, o);
}

static const struct api_route test_routes[] = {
	{ API_GET, "/test/public", API_ROUTE_PUBLIC, echo_rest, "public" },
	{ API_GET | API_POST, "/test/tree", API_ROUTE_PREFIX, echo_rest, "tree" },
};

static int setup(void **state)
{
	char err[256];
	struct api_server_cfg cfg = { .listen = "127.0.0.1:0", .auth = &auth, .log = capture_log };

	memset(&auth, 0, sizeof(auth));
	static const struct xms_type *const types[] = { &xms_type_xms };

	/* no api user: no API */
	assert_int_equal(api_server_start(&cfg, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "an 'api USER SECRET' line"));
	assert_true(auth_config_add_api_user(&auth, "admin", "Xtrem10secret", err, sizeof(err)));
	assert_int_equal(api_routes_add(test_routes, 2, err, sizeof(err)), 0);
	assert_int_equal(xms_routes_register(types, 1, err, sizeof(err)), 0);
	assert_int_equal(api_server_start(&cfg, err, sizeof(err)), 0);
	port = api_server_port();
	assert_true(port > 0);
	assert_non_null(strstr(logged, "api: https://127.0.0.1:"));
	assert_non_null(strstr(logged, "self-signed certificate CN=127.0.0.1"));
	assert_non_null(strstr(logged, "SHA256:"));
	return 0;
}

static int teardown(void **state)
{
	api_server_stop();
	api_routes_clear();
	auth_config_free(&auth);
	return 0;
}

static void authentication(void **state)
{
	struct http_result r;

	assert_int_equal(http_request(port, "GET", "/api/json/v2/types/xms/1", NULL, NULL, 0, &r), 0);
	assert_int_equal(r.status, 401);
	assert_string_equal(r.body, "{ \"message\": \"Unauthorized\", \"error_code\": 401 }");
	assert_string_equal(r.www_auth, "Basic realm=\"XMS\"");
	assert_int_equal(http_request(port, "GET", "/api/json/v2/types/xms/1", "admin:Xtrem10secreT", NULL, 0, &r), 0);
	assert_int_equal(r.status, 401);
	assert_int_equal(http_request(port, "GET", "/api/json/v2/types/xms/1", "root:Xtrem10secret", NULL, 0, &r), 0);
	assert_int_equal(r.status, 401);
	assert_int_equal(http_request(port, "GET", "/api/json/v2/types/xms/1", "admin:Xtrem10secre", NULL, 0, &r), 0);
	assert_int_equal(r.status, 401);
	/* unauthenticated: no route is revealed either */
	assert_int_equal(http_request(port, "GET", "/nothing/here", NULL, NULL, 0, &r), 0);
	assert_int_equal(r.status, 401);
	/* the secret never reaches the log; the user name does */
	assert_null(strstr(logged, "Xtrem10secret"));
	assert_non_null(strstr(logged, "GET /api/json/v2/types/xms/1 user=root -> 401"));
}

/* failed logins (login_throttle.h) on a clock held still: no test waits */
static uint64_t frozen_ms = 5000000;
static uint64_t frozen(void)
{
	return frozen_ms;
}

static void throttling(void **state)
{
	struct http_result r;
	const char *path = "/api/json/v2/types/xms/1";

	login_throttle_reset();
	login_throttle_set_clock(frozen);
	logged[0] = '\0';
	/* three free failures, the fourth makes 127.0.0.1 wait 1 s */
	for (int i = 0; i < 4; i++) {
		assert_int_equal(http_request(port, "GET", path, "admin:wrong-password", NULL, 0, &r), 0);
		assert_int_equal(r.status, 401);
	}
	assert_non_null(strstr(logged, "api: failed login: user=admin from 127.0.0.1 (3 in a row; next try in 0 s)"));
	assert_non_null(strstr(logged, "api: failed login: user=admin from 127.0.0.1 (4 in a row; next try in 1 s)"));
	/* inside the wait even the right password is refused, unchecked, at once */
	assert_int_equal(http_request(port, "GET", path, "admin:Xtrem10secret", NULL, 0, &r), 0);
	assert_int_equal(r.status, 429);
	assert_string_equal(r.body, "{ \"message\": \"too_many_failed_logins: retry in 1 s\", \"error_code\": 429 }");
	assert_string_equal(r.retry_after, "1");
	/* so is the v3 login command with the query form */
	assert_int_equal(http_request(port, "GET", "/api/json/v3/commands/login?user=admin&password=Xtrem10secret",
				      NULL, NULL, 0, &r), 0);
	assert_int_equal(r.status, 429);
	/* a request without credentials is not a guess: 401 as ever */
	assert_int_equal(http_request(port, "GET", path, NULL, NULL, 0, &r), 0);
	assert_int_equal(r.status, 401);
	/* another address is not slowed */
	http_source = "127.0.0.2";
	assert_int_equal(http_request(port, "GET", path, "admin:Xtrem10secret", NULL, 0, &r), 0);
	assert_int_equal(r.status, 200);
	http_source = NULL;
	assert_int_equal(login_throttle_failures(LOGIN_THROTTLE_API), 4);
	assert_int_equal(login_throttle_refused(LOGIN_THROTTLE_API), 2);
	/* the wait over, a right password is let in and forgets the failures */
	frozen_ms += 1000;
	assert_int_equal(http_request(port, "GET", path, "admin:Xtrem10secret", NULL, 0, &r), 0);
	assert_int_equal(r.status, 200);
	assert_int_equal(http_request(port, "GET", path, "admin:wrong-password", NULL, 0, &r), 0);
	assert_int_equal(r.status, 401);
	assert_int_equal(http_request(port, "GET", path, "admin:Xtrem10secret", NULL, 0, &r), 0);
	assert_int_equal(r.status, 200);
	/* ten failures in a row lock the address out for 900 s */
	for (int i = 0; i < 10; i++) {
		assert_int_equal(http_request(port, "GET", path, "admin:wrong-password", NULL, 0, &r), 0);
		assert_int_equal(r.status, 401);
		frozen_ms += 30000; /* past any wait before the lockout */
	}
	assert_non_null(strstr(logged, "(10 in a row; locked out for 900 s)"));
	frozen_ms -= 30000;
	assert_int_equal(http_request(port, "GET", path, "admin:Xtrem10secret", NULL, 0, &r), 0);
	assert_int_equal(r.status, 429);
	assert_string_equal(r.retry_after, "900");
	assert_int_equal(login_throttle_locked(frozen_ms), 1);
	assert_null(strstr(logged, "Xtrem10secret"));
	assert_null(strstr(logged, "wrong-password"));
	login_throttle_set_clock(NULL);
	login_throttle_reset();
}

static void xms_object(void **state)
{
	struct http_result r;
	struct json_object *o, *c, *v;

	assert_int_equal(http_request(port, "GET", "/api/json/v2/types/xms/1", "admin:Xtrem10secret", NULL, 0, &r), 0);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.content_type, "application/json");
	o = json_tokener_parse(r.body);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "content", &c));
	assert_true(json_object_object_get_ex(c, "sw-version", &v));
	assert_string_equal(json_object_get_string(v), "6.3.0-58");
	assert_true(json_object_object_get_ex(c, "name", &v));
	assert_string_equal(json_object_get_string(v), "xms");
	json_object_put(o);
	/* v1 path, prop= */
	assert_int_equal(http_request(port, "GET", "/api/json/types/xms/1?prop=version", "admin:Xtrem10secret", NULL, 0,
				      &r), 0);
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.body, "{ \"content\": { \"version\": \"6.3.0\" }, \"links\": [ { \"href\": \"https://127.0.0.1:"));
	assert_non_null(strstr(r.body, "/api/json/types/xms/1\", \"rel\": \"self\" } ] }"));
	/* HEAD: the status without a body */
	assert_int_equal(http_request(port, "HEAD", "/api/json/types/xms/1", "admin:Xtrem10secret", NULL, 0, &r), 0);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.body_len, 0);
}

static void errors(void **state)
{
	struct http_result r;
	char *big;

	assert_int_equal(http_request(port, "GET", "/nothing/here", "admin:Xtrem10secret", NULL, 0, &r), 0);
	assert_int_equal(r.status, 404);
	assert_string_equal(r.body, "{ \"message\": \"not_found\", \"error_code\": 404 }");
	assert_int_equal(http_request(port, "PATCH", "/api/json/v2/types/xms/1", "admin:Xtrem10secret", "{}", 2, &r), 0);
	assert_int_equal(r.status, 405);
	assert_string_equal(r.body, "{ \"message\": \"method_not_allowed\", \"error_code\": 405 }");
	assert_int_equal(http_request(port, "POST", "/api/json/v2/types/xms", "admin:Xtrem10secret", "{\"a\":", 5, &r), 0);
	assert_int_equal(r.status, 400);
	assert_string_equal(r.body, "{ \"message\": \"Command Syntax Error: body: JSON ends early (at byte 5)\", "
				    "\"error_code\": 400 }");
	assert_int_equal(http_request(port, "POST", "/api/json/v2/types/xms", "admin:Xtrem10secret", "{}", 2, &r), 0);
	assert_int_equal(r.status, 400);
	assert_string_equal(r.body, "{ \"message\": \"Command Syntax Error: xms cannot be created\", \"error_code\": 400 }");
	assert_int_equal(http_request(port, "GET", "/api/json/v2/types/xms/abc", "admin:Xtrem10secret", NULL, 0, &r), 0);
	assert_int_equal(r.status, 400);
	assert_string_equal(r.body, "{ \"message\": \"Command Syntax Error: 'abc' is not an object index\", "
				    "\"error_code\": 400 }");
	assert_int_equal(http_request(port, "GET", "/api/json/v2/types/xms/7", "admin:Xtrem10secret", NULL, 0, &r), 0);
	assert_int_equal(r.status, 400);
	assert_string_equal(r.body, "{ \"message\": \"obj_not_found\", \"error_code\": 400 }");
	assert_int_equal(http_request(port, "GET", "/api/json/v2/types/xms?filter=name:is:xms", "admin:Xtrem10secret",
				      NULL, 0, &r), 0);
	assert_int_equal(r.status, 400);
	assert_string_equal(r.body, "{ \"message\": \"Command Syntax Error: filter: operator: want eq, ne, gt, ge, lt, "
				    "le or like\", \"error_code\": 400 }");
	/* bodies are bounded: 2 MiB is refused before it is read */
	big = malloc(2u << 20);
	assert_non_null(big);
	memset(big, ' ', 2u << 20);
	assert_int_equal(http_request(port, "POST", "/test/tree/x", "admin:Xtrem10secret", big, 2u << 20, &r), 0);
	assert_int_equal(r.status, 413);
	assert_string_equal(r.body, "{ \"message\": \"request_entity_too_large\", \"error_code\": 413 }");
	free(big);
}

static void too_many_params(void **state)
{
	char path[2048];
	size_t o = (size_t)snprintf(path, sizeof(path), "/api/json/v2/types/xms?");
	struct http_result r;

	for (int i = 0; i < 65; i++)
		o += (size_t)snprintf(path + o, sizeof(path) - o, "p%d=1&", i);
	assert_int_equal(http_request(port, "GET", path, "admin:Xtrem10secret", NULL, 0, &r), 0);
	assert_int_equal(r.status, 400);
	assert_string_equal(r.body, "{ \"message\": \"Command Syntax Error: more than 64 query parameters\", "
				    "\"error_code\": 400 }");
}

static void extension_routes(void **state)
{
	struct http_result r;

	/* public: no credentials needed, none reported */
	assert_int_equal(http_request(port, "GET", "/test/public", NULL, NULL, 0, &r), 0);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.body, "{ \"rest\": \"\", \"user\": null, \"cls\": \"public\" }");
	/* prefix: the part below it reaches the handler */
	assert_int_equal(http_request(port, "GET", "/test/tree/a/b", "admin:Xtrem10secret", NULL, 0, &r), 0);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.body, "{ \"rest\": \"a/b\", \"user\": \"admin\", \"cls\": \"tree\" }");
	/* a path that only starts like the prefix is not below it */
	assert_int_equal(http_request(port, "GET", "/test/treehouse", "admin:Xtrem10secret", NULL, 0, &r), 0);
	assert_int_equal(r.status, 404);
	/* a route cannot be taken twice */
	char err[128];
	assert_int_equal(api_routes_add(&test_routes[1], 1, err, sizeof(err)), -1);
	assert_string_equal(err, "route /test/tree: already served for one of these methods");
}

static void stopped(void **state)
{
	struct http_result r;

	api_server_stop();
	assert_int_equal(api_server_port(), 0);
	assert_int_not_equal(http_request(port, "GET", "/test/public", NULL, NULL, 0, &r), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(authentication),
		cmocka_unit_test(throttling),
		cmocka_unit_test(xms_object),
		cmocka_unit_test(errors),
		cmocka_unit_test(too_many_params),
		cmocka_unit_test(extension_routes),
		cmocka_unit_test(stopped),
	};
	int rc;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	rc = cmocka_run_group_tests(tests, setup, teardown);
	curl_global_cleanup();
	return rc;
}
