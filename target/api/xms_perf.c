/* xms_perf.c — see xms_perf.h. */
#include "target/api/xms_perf.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <time.h>

#include "target/iscsi/path_stats.h"
#include "target/lu/lu_stats.h"

void xms_perf_add(struct xms_perf_counters *c, const struct lu_stats *s)
{
	struct lu_kind_figures f[LU_KINDS];

	if (!s)
		return;
	lu_stats_read(s, f);
	c->rd_n += f[LU_KIND_READ].commands;
	c->wr_n += f[LU_KIND_WRITE].commands;
	c->rd_bytes += f[LU_KIND_READ].bytes;
	c->wr_bytes += f[LU_KIND_WRITE].bytes;
	c->rd_lat_ns += f[LU_KIND_READ].latency_sum_ns;
	c->wr_lat_ns += f[LU_KIND_WRITE].latency_sum_ns;
}

void xms_perf_add_initiator(struct xms_perf_counters *c, const char *iqn)
{
	xms_perf_add(c, path_stats_initiator_find(iqn));
}

void xms_perf_add_portal(struct xms_perf_counters *c, int i)
{
	xms_perf_add(c, path_stats_portal(i));
}

uint64_t xms_perf_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void put(struct json_object *o, const char *k, uint64_t v)
{
	char s[24];

	snprintf(s, sizeof(s), "%" PRIu64, v);
	json_object_object_add(o, k, json_object_new_string(s));
}

/* counters only grow; a smaller one (an LU replaced) counts as 0 */
static uint64_t delta(uint64_t a, uint64_t b)
{
	return b > a ? b - a : 0;
}

void xms_perf_show(struct xms_perf_sample *smp, const struct xms_perf_counters *now, uint64_t now_ms,
		   struct json_object *o)
{
	uint64_t dt, drn, dwn, drb, dwb, drl, dwl;

	if (!smp->cur_ms || now_ms - smp->cur_ms >= XMS_PERF_MIN_INTERVAL_MS) {
		smp->prev = smp->cur;
		smp->prev_ms = smp->cur_ms;
		smp->cur = *now;
		smp->cur_ms = now_ms ? now_ms : 1;
	}
	put(o, "acc-num-of-rd", now->rd_n);
	put(o, "acc-num-of-wr", now->wr_n);
	put(o, "acc-size-of-rd", now->rd_bytes / 1024);
	put(o, "acc-size-of-wr", now->wr_bytes / 1024);
	dt = smp->prev_ms ? smp->cur_ms - smp->prev_ms : 0;
	drn = delta(smp->prev.rd_n, smp->cur.rd_n);
	dwn = delta(smp->prev.wr_n, smp->cur.wr_n);
	drb = delta(smp->prev.rd_bytes, smp->cur.rd_bytes);
	dwb = delta(smp->prev.wr_bytes, smp->cur.wr_bytes);
	drl = delta(smp->prev.rd_lat_ns, smp->cur.rd_lat_ns);
	dwl = delta(smp->prev.wr_lat_ns, smp->cur.wr_lat_ns);
	if (!dt)
		drn = dwn = drb = dwb = drl = dwl = 0;
	if (!dt)
		dt = 1;
	put(o, "rd-iops", drn * 1000 / dt);
	put(o, "wr-iops", dwn * 1000 / dt);
	put(o, "iops", (drn + dwn) * 1000 / dt);
	put(o, "rd-bw", drb * 1000 / 1024 / dt);
	put(o, "wr-bw", dwb * 1000 / 1024 / dt);
	put(o, "bw", (drb + dwb) * 1000 / 1024 / dt);
	put(o, "rd-latency", drn ? drl / drn / 1000 : 0);
	put(o, "wr-latency", dwn ? dwl / dwn / 1000 : 0);
	put(o, "avg-latency", drn + dwn ? (drl + dwl) / (drn + dwn) / 1000 : 0);
}
