/* metrics_routes.h — what target/metrics serves on the API server
 * (target/api/api_router.h):
 *   GET /metrics          Prometheus text exposition (metrics_prom.h)
 *   GET /metrics.json     the same snapshot as JSON (metrics_json.h)
 *   GET /                 the live dashboard (dashboard/index.html)
 *   GET /dashboard/NAME   its script, style and chart library (always public:
 *                         they hold no figures)
 * The first three need the API's HTTP Basic authentication unless open
 * (--api-metrics-open: scrapers rarely do Basic auth). */
#ifndef LUNLAB_METRICS_ROUTES_H
#define LUNLAB_METRICS_ROUTES_H

#include <stdbool.h>
#include <stddef.h>

/* Before api_start(); 0, or -1 with a one-line reason. */
int metrics_routes_register(bool open, char *err, size_t errlen);

#endif
