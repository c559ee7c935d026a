/* metrics_prom.h — a metrics snapshot as Prometheus text (GET /metrics);
 * the names and labels are the interface scripts use (docs/metrics.md). */
#ifndef LUNLAB_METRICS_PROM_H
#define LUNLAB_METRICS_PROM_H

#include <stddef.h>

#include "target/metrics/metrics_snapshot.h"

/* The exposition of s, malloc'd and NUL-terminated (length in *len).  NULL
 * with a one-line reason in err on a writer error (a lunlab bug) or out of
 * memory. */
char *metrics_prom_render(const struct metrics_snapshot *s, size_t *len, char *err, size_t errlen);

/* The content type of that text. */
#define METRICS_PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

#endif
