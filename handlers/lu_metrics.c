/* lu_metrics.c — per-LU modeled figures (lu_metrics.h). */
#include "handlers/lu_metrics.h"

#include <string.h>

static void add(_Atomic uint64_t *c, uint64_t n)
{
	if (n)
		atomic_fetch_add_explicit(c, n, memory_order_relaxed);
}

void lu_metrics_record(struct lu_metrics *m, const struct cost_req *r, uint64_t latency_ns, uint64_t cpu_ns)
{
	add(&m->commands, 1);
	add(&m->cpu_ns, cpu_ns);
	add(&m->latency_sum_ns, latency_ns);
	add(&m->latency_buckets[lunlab_lat_bucket(latency_ns)], 1);
	switch (r->kind) {
	case COST_XCOPY:
		add(&m->xcopy_covered_bytes, r->xcopy_bytes);
		break;
	case COST_WRITE_SAME:
		add(&m->write_same_covered_bytes, r->xcopy_bytes);
		break;
	case COST_UNMAP:
		add(&m->unmap_covered_bytes, r->xcopy_bytes);
		break;
	default:
		break;
	}
}

static uint64_t get(const _Atomic uint64_t *c)
{
	return atomic_load_explicit(c, memory_order_relaxed);
}

void lu_metrics_read(const struct lu_metrics *m, struct lu_metrics_figures *out)
{
	memset(out, 0, sizeof(*out));
	out->commands = get(&m->commands);
	out->cpu_ns = get(&m->cpu_ns);
	out->latency_sum_ns = get(&m->latency_sum_ns);
	for (unsigned b = 0; b < LUNLAB_LAT_BUCKETS; b++)
		out->latency_buckets[b] = get(&m->latency_buckets[b]);
	out->xcopy_covered_bytes = get(&m->xcopy_covered_bytes);
	out->write_same_covered_bytes = get(&m->write_same_covered_bytes);
	out->unmap_covered_bytes = get(&m->unmap_covered_bytes);
}
