/* lu_metrics.h — what the array's cost model said about each LU's commands,
 * kept per LU for /metrics (lunlab-target asks through array_ctl.h's
 * lu_figures): modeled latency and CPU work, and the logical bytes that
 * EXTENDED COPY, WRITE SAME and UNMAP covered without crossing the wire.
 * The model itself keeps the array's totals (cost_model_totals).
 *
 * Relaxed atomics: every worker thread of the LU records, a scrape reads;
 * the model already takes the array's lock for each command, so these few
 * adds cost nothing next to it.  Never reset. */
#ifndef LUNLAB_LU_METRICS_H
#define LUNLAB_LU_METRICS_H

#include <stdatomic.h>
#include <stdint.h>

#include "lunlab/latency_buckets.h"
#include "models/cost.h"

struct lu_metrics {
	_Atomic uint64_t commands;
	_Atomic uint64_t cpu_ns;
	_Atomic uint64_t latency_sum_ns;
	_Atomic uint64_t latency_buckets[LUNLAB_LAT_BUCKETS];
	_Atomic uint64_t xcopy_covered_bytes;
	_Atomic uint64_t write_same_covered_bytes;
	_Atomic uint64_t unmap_covered_bytes;
};

struct lu_metrics_figures {
	uint64_t commands, cpu_ns, latency_sum_ns;
	uint64_t latency_buckets[LUNLAB_LAT_BUCKETS];
	uint64_t xcopy_covered_bytes, write_same_covered_bytes, unmap_covered_bytes;
};

/* one command the model charged: latency_ns and cpu_ns as it returned them
 * (struct cost_result) */
void lu_metrics_record(struct lu_metrics *m, const struct cost_req *r, uint64_t latency_ns, uint64_t cpu_ns);
void lu_metrics_read(const struct lu_metrics *m, struct lu_metrics_figures *out);

#endif
