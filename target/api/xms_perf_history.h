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

/* --state-dir (xms_log_store.h): once a minute the sampler stores one
 * record of namespace XMS_LOG_NS_PERF (key its time in ms) holding each
 * object's readings since the last record, at most one per
 * XMS_PERF_HIST_PERIOD_MS and always the newest, and a clean stop stores
 * one more:
 *     {"objects": [{"entity": "Volume", "index": 7, "cluster": 1,
 *                   "guid": G, "name": N,
 *                   "readings": [[ms, rd_n, wr_n, rd_bytes, wr_bytes,
 *                                 rd_lat_ns, wr_lat_ns], ...]}, ...]}
 *     (an XEnv's readings: [ms, cpu_us])
 * Kept: the newest XMS_PERF_STORE_RECORDS records, none older than the
 * in-memory hour (an older one is deleted when a new one is stored), so a
 * graph of the last hour survives a restart (a SIGKILL loses the minute
 * since the last record).  On disk: as many readings as the memory holds
 * (XMS_PERF_HIST_OBJS x XMS_PERF_HIST_SAMPLES, about 60 bytes each as
 * text) plus each object's name and guid once per record (about 200
 * bytes x XMS_PERF_HIST_OBJS x XMS_PERF_STORE_RECORDS): at most about
 * 5.5 + 6 MB; one record at most XMS_PERF_STORE_RECORD_MAX. */
#define XMS_LOG_NS_PERF "api-perf"
#define XMS_PERF_STORE_PERIOD_MS 60000
#define XMS_PERF_STORE_RECORDS 120 /* 60 of the minutes, and the stops */
#define XMS_PERF_STORE_RECORD_MAX (1024 * 1024)

/* At a start, before the sampler: the stored readings back into the
 * history (each object's counters go on from its last one: the counters
 * of this start count from 0).  0, or -1 with err naming the bad record
 * and field (nothing loaded).  Under the model lock. */
int xms_perf_history_load(char *err, size_t errlen);

/* one reading of every object at now_ms (wall clock, ms) */
void xms_perf_history_sample(int64_t now_ms);

/* the routes; the sampler thread starts with them and stops with
 * xms_perf_history_stop */
int xms_perf_history_register(char *err, size_t errlen);
void xms_perf_history_stop(void);

/* Tests: forget every reading. */
void xms_perf_history_reset(void);

#endif
