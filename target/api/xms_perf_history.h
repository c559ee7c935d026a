/* xms_perf_history.h — XMS's performance query over a bounded history:
 * GET /api/json/v3/queries/performance and .../types/performance (v2, v3;
 * XtremIO.Utils' Get-XIOPerformanceCounter asks the latter) with entity=,
 * obj-list=, from-time=/to-time= or time-frame=, granularity=, limit=,
 * aggregation-type=, prop=, cluster-name=/cluster-id= (parsed by
 * xms_perf_query.h).
 *
 * The history holds readings of the same counters /metrics serves
 * (xms_perf.h: commands, bytes and latency sums of reads and writes; a
 * cluster sums its volumes' LUs, an initiator group its initiators', a
 * target is its portal's, an initiator its IQN's; an XEnv its share of the
 * target process's CPU time, an SSD its cluster's counters over the working
 * SSDs: xms_inventory.h), one reading per object every
 * XMS_PERF_HIST_PERIOD_MS, taken by a sampler thread (and by each query,
 * at most once a second, so a client polling faster sees fresh figures).
 * Bounded: XMS_PERF_HIST_OBJS objects (clusters, volumes, initiator
 * groups, targets, initiators, XEnvs and SSDs together, slots given in that
 * order; one gone gives its slot up) x XMS_PERF_HIST_SAMPLES readings x 56 bytes:
 * 256 x 360 x 56 = about 5 MB, one hour at the 10 s period.  The rates of
 * a row are between the first and the last reading of its bucket.
 * Every function but the route expects the model lock. */
#ifndef LUNLAB_XMS_PERF_HISTORY_H
#define LUNLAB_XMS_PERF_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#define XMS_PERF_HIST_OBJS 256
#define XMS_PERF_HIST_SAMPLES 360
#define XMS_PERF_HIST_PERIOD_MS 10000

/* one reading of every object at now_ms (wall clock, ms) */
void xms_perf_history_sample(int64_t now_ms);

/* the routes; the sampler thread starts with them and stops with
 * xms_perf_history_stop */
int xms_perf_history_register(char *err, size_t errlen);
void xms_perf_history_stop(void);

/* Tests: forget every reading. */
void xms_perf_history_reset(void);

#endif
