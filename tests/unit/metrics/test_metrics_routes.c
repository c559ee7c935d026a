/* test_metrics_routes.c — target/metrics/metrics_routes.c on the real HTTPS
 * API server (127.0.0.1, libcurl): /metrics, /metrics.json and / need the
 * API's Basic auth unless opened (--api-metrics-open); the dashboard's
 * assets are always public and byte for byte the files of the source tree
 * (the build embeds them); unknown assets, paths below an asset and wrong
 * methods get the API's exact errors. */
#include <json-c/json.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../api/api_test_http.h"
#include "target/api/api.h"
#include "target/iscsi/auth_config.h"
#include "target/metrics/metrics_prom.h"
#include "target/metrics/metrics_routes.h"
#include "target/tcmu/host.h"

static struct auth_config auth;
static unsigned port;
static struct http_result r;

__attribute__((format(printf, 1, 2))) static void quiet_log(const char *fmt, ...)
{
	(void)fmt;
}

static void start(bool open)
{
	char err[256];
	struct api_server_cfg cfg = { .listen = "127.0.0.1:0", .auth = &auth, .log = quiet_log };

	assert_int_equal(metrics_routes_register(open, err, sizeof(err)), 0);
	if (api_start(&cfg, err, sizeof(err)) != 0)
		fail_msg("api_start: %s", err);
	port = api_server_port();
}

static int setup(void **state)
{
	char err[256];

	char *herr = NULL;

	(void)state;
	/* the API checks its default cluster with the handler at start */
	if (tcmu_host_load_handlers(LUNLAB_HANDLER_DIR, &herr) < 1) {
		fprintf(stderr, "load: %s\n", herr ? herr : "no handler");
		return -1;
	}
	memset(&auth, 0, sizeof(auth));
	assert_true(auth_config_add_api_user(&auth, "admin", "Xtrem10secret", err, sizeof(err)));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	auth_config_free(&auth);
	tcmu_host_shutdown();
	return 0;
}

static long get(const char *path, const char *userpwd)
{
	assert_int_equal(http_request(port, "GET", path, userpwd, NULL, 0, &r), 0);
	return r.status;
}

/* the source file the build embedded */
static char *source(const char *name, size_t *len)
{
	char path[512];
	FILE *f;
	char *buf = malloc(1 << 20);

	snprintf(path, sizeof(path), "%s/%s", DASHBOARD_SRC, name);
	f = fopen(path, "rb");
	assert_non_null(f);
	*len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	return buf;
}

static void test_closed(void **state)
{
	size_t len;
	char *js;
	json_object *o, *x;

	(void)state;
	start(false);
	assert_int_equal(get("/metrics", NULL), 401);
	assert_int_equal(get("/metrics.json", NULL), 401);
	assert_int_equal(get("/", NULL), 401);
	assert_int_equal(get("/metrics", "admin:wrong"), 401);

	assert_int_equal(get("/metrics", "admin:Xtrem10secret"), 200);
	assert_string_equal(r.content_type, METRICS_PROM_CONTENT_TYPE);
	assert_non_null(strstr(r.body, "# TYPE lunlab_iscsi_logins_total counter\n"));
	assert_non_null(strstr(r.body, "\nlunlab_iscsi_sessions{type=\"normal\"} 0\n"));
	assert_non_null(strstr(r.body, "\nprocess_resident_memory_bytes "));
	/* no LU and no volume: no array series, only the families' headers */
	assert_non_null(strstr(r.body, "# TYPE lunlab_array_logical_bytes gauge\n# HELP "));

	assert_int_equal(get("/metrics.json", "admin:Xtrem10secret"), 200);
	assert_string_equal(r.content_type, "application/json");
	o = json_tokener_parse(r.body);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "luns", &x));
	assert_int_equal(json_object_array_length(x), 0);
	assert_true(json_object_object_get_ex(o, "latency_bounds_seconds", &x));
	assert_int_equal(json_object_array_length(x), 20);
	json_object_put(o);

	/* the assets: public, exactly the source files */
	assert_int_equal(get("/dashboard/dashboard.js", NULL), 200);
	assert_string_equal(r.content_type, "text/javascript; charset=utf-8");
	js = source("dashboard.js", &len);
	assert_int_equal(r.body_len, len);
	assert_memory_equal(r.body, js, len);
	free(js);
	assert_int_equal(get("/dashboard/dashboard.css", NULL), 200);
	assert_string_equal(r.content_type, "text/css; charset=utf-8");
	assert_int_equal(get("/dashboard/uPlot.iife.min.js", NULL), 200);
	assert_true(r.body_len > 1000);
	assert_int_equal(get("/dashboard/nope.js", NULL), 404);
	assert_string_equal(r.body, "{ \"message\": \"not_found\", \"error_code\": 404 }");
	assert_int_equal(get("/dashboard/index.html/x", NULL), 404);
	assert_int_equal(get("/dashboard", NULL), 404);
	assert_int_equal(http_request(port, "POST", "/metrics", "admin:Xtrem10secret", "x", 1, &r), 0);
	assert_int_equal(r.status, 405);
}

static void test_open(void **state)
{
	(void)state;
	start(true);
	assert_int_equal(get("/metrics", NULL), 200);
	assert_int_equal(get("/metrics.json", NULL), 200);
	assert_int_equal(get("/", NULL), 200);
	assert_string_equal(r.content_type, "text/html; charset=utf-8");
	assert_non_null(strstr(r.body, "<title>lunlab — array dashboard</title>"));
	assert_non_null(strstr(r.body, "/dashboard/uPlot.iife.min.js"));
	/* the API itself is not opened */
	assert_int_equal(get("/api/json/v2/types", NULL), 401);
}

/* after each test, also a failed one: the server and its routes go */
static int stop(void **state)
{
	(void)state;
	api_stop();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_closed, stop),
		cmocka_unit_test_teardown(test_open, stop),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
