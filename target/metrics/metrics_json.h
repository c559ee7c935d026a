/* metrics_json.h — a metrics snapshot as JSON (GET /metrics.json): the
 * same figures as /metrics, shaped for the dashboard (one object per array
 * and per LU) and for lunlab-bench --metrics-url and `watch`.  Counters are
 * running totals; a reader takes two snapshots to get rates. */
#ifndef LUNLAB_METRICS_JSON_H
#define LUNLAB_METRICS_JSON_H

#include <stddef.h>

#include "target/metrics/metrics_snapshot.h"

/* malloc'd, NUL-terminated; NULL when out of memory */
char *metrics_json_render(const struct metrics_snapshot *s, size_t *len);

#endif
