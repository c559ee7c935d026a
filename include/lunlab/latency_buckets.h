/* latency_buckets.h — the one set of latency histogram buckets lunlab
 * reports, shared by the target core (host-observed latency, target/lu) and
 * handler_lunlab.so (modeled latency, handed over through array_ctl.h), so
 * /metrics and the dashboard can put the two side by side bucket for bucket.
 *
 * Bounds follow a 1-2-5 series from 5 us to 10 s: XtremIO's metadata copies
 * take tens of microseconds, a paced 4 MiB transfer half a millisecond, a
 * stalled command seconds.  Bucket i counts latencies <= bound[i] that are
 * above bound[i-1]; the last bucket (LUNLAB_LAT_BUCKETS - 1) counts what is
 * above the last bound (Prometheus' le="+Inf" once made cumulative). */
#ifndef LUNLAB_LATENCY_BUCKETS_H
#define LUNLAB_LATENCY_BUCKETS_H

#include <stdint.h>

#define LUNLAB_LAT_BOUNDS 20
#define LUNLAB_LAT_BUCKETS (LUNLAB_LAT_BOUNDS + 1)

/* upper bounds in nanoseconds (inclusive) */
static const uint64_t lunlab_lat_bound_ns[LUNLAB_LAT_BOUNDS] = {
	5000ull, 10000ull, 20000ull, 50000ull, 100000ull, 200000ull, 500000ull,
	1000000ull, 2000000ull, 5000000ull, 10000000ull, 20000000ull, 50000000ull,
	100000000ull, 200000000ull, 500000000ull,
	1000000000ull, 2000000000ull, 5000000000ull, 10000000000ull,
};

/* The bucket of a latency: a short scan, cheaper than a division or a
 * branchy search for the few-microsecond latencies most commands have. */
static inline unsigned lunlab_lat_bucket(uint64_t ns)
{
	unsigned i = 0;

	while (i < LUNLAB_LAT_BOUNDS && ns > lunlab_lat_bound_ns[i])
		i++;
	return i;
}

#endif
