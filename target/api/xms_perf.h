/* xms_perf.h — the performance figures XMS shows on volumes, clusters and
 * the xms object, from the same per-LU counters /metrics serves
 * (target/lu/lu_stats.h: commands, bytes, latency sums by kind): no second
 * bookkeeping; initiator groups and targets from the same figures kept per
 * initiator and per portal (target/iscsi/path_stats.h, also on /metrics).
 *
 * Cumulative: acc-num-of-rd / -wr (commands), acc-size-of-rd / -wr (KiB),
 * exactly the counters.  Rates: rd-iops, wr-iops, iops, rd-bw, wr-bw, bw
 * (KiB/s), rd-latency, wr-latency, avg-latency (microseconds), over the
 * last interval between two readings at least XMS_PERF_MIN_INTERVAL_MS
 * apart; a reading is taken when a client asks (a poller's own interval
 * is what it sees; the first poll shows 0).  Every one is a decimal string,
 * as XMS sends them and as Go clients decode them (`json:",string"`). */
#ifndef LUNLAB_XMS_PERF_H
#define LUNLAB_XMS_PERF_H

#include <stdint.h>

struct json_object;
struct json_text;
struct lu_stats;

#define XMS_PERF_MIN_INTERVAL_MS 1000

struct xms_perf_counters {
	uint64_t rd_n, wr_n;           /* commands */
	uint64_t rd_bytes, wr_bytes;
	uint64_t rd_lat_ns, wr_lat_ns; /* latency sums */
};

/* two readings: the rates are between them */
struct xms_perf_sample {
	struct xms_perf_counters prev, cur;
	uint64_t prev_ms, cur_ms;      /* 0: none yet */
};

/* adds an LU's counters (NULL: none) into c */
void xms_perf_add(struct xms_perf_counters *c, const struct lu_stats *s);
/* adds what initiator iqn sent (target/iscsi/path_stats.h; nothing before
 * its first command) into c: an initiator group is the sum of its
 * initiators */
void xms_perf_add_initiator(struct xms_perf_counters *c, const char *iqn);
/* adds what came through portal i (an XMS target) into c */
void xms_perf_add_portal(struct xms_perf_counters *c, int i);
/* a new reading at now_ms into the sample (kept when at least
 * XMS_PERF_MIN_INTERVAL_MS after the last), then the properties added to o */
void xms_perf_show(struct xms_perf_sample *smp, const struct xms_perf_counters *now, uint64_t now_ms,
		   struct json_object *o);
/* the same properties written as text (json_text.h: a listing of many volumes) */
void xms_perf_text(struct xms_perf_sample *smp, const struct xms_perf_counters *now, uint64_t now_ms,
		   struct json_text *w);
/* a monotonic clock in ms */
uint64_t xms_perf_now_ms(void);

#endif
