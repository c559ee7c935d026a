/* metrics_routes.c — /metrics, /metrics.json and the dashboard on the API
 * server (metrics_routes.h). */
#include "target/metrics/metrics_routes.h"

#include <stdlib.h>
#include <string.h>

#include "target/api/api_json.h"
#include "target/api/api_router.h"
#include "target/metrics/dashboard_assets.h"
#include "target/metrics/metrics_json.h"
#include "target/metrics/metrics_prom.h"
#include "target/metrics/metrics_snapshot.h"

const struct dashboard_asset *dashboard_asset_find(const char *name)
{
	for (const struct dashboard_asset *a = dashboard_assets; a->name; a++)
		if (!strcmp(a->name, name))
			return a;
	return NULL;
}

static void get_metrics(const struct api_request *req, struct api_response *rsp)
{
	struct metrics_snapshot s;
	char err[160];
	size_t len = 0;
	char *text;

	(void)req;
	if (metrics_snapshot_take(&s) < 0) {
		api_error(rsp, 500, "out of memory gathering the metrics");
		return;
	}
	text = metrics_prom_render(&s, &len, err, sizeof(err));
	metrics_snapshot_free(&s);
	if (!text) {
		api_errorf(rsp, 500, "metrics: %s", err);
		return;
	}
	rsp->status = 200;
	rsp->body = text;
	rsp->body_len = len;
	rsp->content_type = METRICS_PROM_CONTENT_TYPE;
}

static void get_metrics_json(const struct api_request *req, struct api_response *rsp)
{
	struct metrics_snapshot s;
	size_t len = 0;
	char *text;

	(void)req;
	if (metrics_snapshot_take(&s) < 0) {
		api_error(rsp, 500, "out of memory gathering the metrics");
		return;
	}
	text = metrics_json_render(&s, &len);
	metrics_snapshot_free(&s);
	if (!text) {
		api_error(rsp, 500, "out of memory rendering the metrics");
		return;
	}
	rsp->status = 200;
	rsp->body = text;
	rsp->body_len = len;
	rsp->content_type = "application/json";
}

static bool serve_asset(const char *name, struct api_response *rsp)
{
	const struct dashboard_asset *a = dashboard_asset_find(name);

	if (!a || !(rsp->body = malloc(a->len ? a->len : 1)))
		return a ? api_error(rsp, 500, "out of memory") : api_error(rsp, 404, "not_found");
	memcpy(rsp->body, a->data, a->len);
	rsp->body_len = a->len;
	rsp->status = 200;
	rsp->content_type = a->content_type;
	return true;
}

static void get_index(const struct api_request *req, struct api_response *rsp)
{
	(void)req;
	serve_asset("index.html", rsp);
}

static void get_asset(const struct api_request *req, struct api_response *rsp)
{
	/* a plain file name: the table is the whole namespace, nothing is opened */
	if (!req->rest[0] || strchr(req->rest, '/')) {
		api_error(rsp, 404, "not_found");
		return;
	}
	serve_asset(req->rest, rsp);
}

static struct api_route routes[] = {
	{ API_GET | API_HEAD, "/metrics", 0, get_metrics, NULL },
	{ API_GET | API_HEAD, "/metrics.json", 0, get_metrics_json, NULL },
	{ API_GET | API_HEAD, "/", 0, get_index, NULL },
	{ API_GET | API_HEAD, "/dashboard", API_ROUTE_PREFIX | API_ROUTE_PUBLIC, get_asset, NULL },
};

int metrics_routes_register(bool open, char *err, size_t errlen)
{
	for (size_t i = 0; i < 3; i++)
		routes[i].flags = open ? API_ROUTE_PUBLIC : 0;
	return api_routes_add(routes, sizeof(routes) / sizeof(routes[0]), err, errlen);
}
