/* xms_perf.c — see xms_perf.h. */
#include "target/api/xms_perf.h"

#include "target/api/json_text.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <time.h>

#include "target/iscsi/path_stats.h"
#include "target/lu/lu_stats.h"

void xms_perf_add(struct xms_perf_counters *c, const struct lu_stats *s)
{
	struct lu_kind_figures rd, wr;

	if (!s)
		return;
	lu_stats_read_kind(s, LU_KIND_READ, &rd);
	lu_stats_read_kind(s, LU_KIND_WRITE, &wr);
	c->rd_n += rd.commands;
	c->wr_n += wr.commands;
	c->rd_bytes += rd.bytes;
	c->wr_bytes += wr.bytes;
	c->rd_lat_ns += rd.latency_sum_ns;
	c->wr_lat_ns += wr.latency_sum_ns;
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

/* the properties of a sample, in the order XMS lists them */
#define XMS_PERF_PROPS 13
static const char *const prop_names[XMS_PERF_PROPS] = {
	"acc-num-of-rd", "acc-num-of-wr", "acc-size-of-rd", "acc-size-of-wr", "rd-iops", "wr-iops", "iops",
	"rd-bw", "wr-bw", "bw", "rd-latency", "wr-latency", "avg-latency",
};

/* a new reading into smp, then the values of prop_names */
static void figures(struct xms_perf_sample *smp, const struct xms_perf_counters *now, uint64_t now_ms,
		    uint64_t out[XMS_PERF_PROPS])
{
	uint64_t dt, drn, dwn, drb, dwb, drl, dwl;

	if (!smp->cur_ms || now_ms - smp->cur_ms >= XMS_PERF_MIN_INTERVAL_MS) {
		smp->prev = smp->cur;
		smp->prev_ms = smp->cur_ms;
		smp->cur = *now;
		smp->cur_ms = now_ms ? now_ms : 1;
	}
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
	out[0] = now->rd_n;
	out[1] = now->wr_n;
	out[2] = now->rd_bytes / 1024;
	out[3] = now->wr_bytes / 1024;
	out[4] = drn * 1000 / dt;
	out[5] = dwn * 1000 / dt;
	out[6] = (drn + dwn) * 1000 / dt;
	out[7] = drb * 1000 / 1024 / dt;
	out[8] = dwb * 1000 / 1024 / dt;
	out[9] = (drb + dwb) * 1000 / 1024 / dt;
	out[10] = drn ? drl / drn / 1000 : 0;
	out[11] = dwn ? dwl / dwn / 1000 : 0;
	out[12] = drn + dwn ? (drl + dwl) / (drn + dwn) / 1000 : 0;
}

void xms_perf_show(struct xms_perf_sample *smp, const struct xms_perf_counters *now, uint64_t now_ms,
		   struct json_object *o)
{
	uint64_t f[XMS_PERF_PROPS];

	figures(smp, now, now_ms, f);
	for (int i = 0; i < XMS_PERF_PROPS; i++)
		put(o, prop_names[i], f[i]);
}

void xms_perf_text(struct xms_perf_sample *smp, const struct xms_perf_counters *now, uint64_t now_ms,
		   struct json_text *w)
{
	uint64_t f[XMS_PERF_PROPS];

	figures(smp, now, now_ms, f);
	for (int i = 0; i < XMS_PERF_PROPS; i++)
		jt_kuint_str(w, prop_names[i], f[i]);
}
