/* xms_perf_query.c — see xms_perf_query.h. */
#include "target/api/xms_perf_query.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "target/api/api_router.h"
#include "target/api/xms_time.h"

const char *const xms_perf_entity_names[XMS_PERF_ENTITIES] = { "Cluster", "Volume", "InitiatorGroup", "Target",
							       "Initiator", "XEnv", "SSD" };

const char *const xms_perf_agg_names[XMS_PERF_AGGS] = { "avg", "min", "max" };

static const struct {
	const char *name;
	int64_t ms;                        /* 0: every reading (raw) */
} granularities[] = { { "raw", 0 }, { "auto", 0 }, { "one_minute", 60000 }, { "ten_minutes", 600000 },
		      { "one_hour", 3600000 }, { "one_day", 86400000 } };

static const struct {
	const char *name;
	int64_t ms;
} frames[] = { { "real_time", 60000 }, { "last_hour", 3600000 }, { "last_day", 86400000 },
	       { "last_week", 7 * 86400000LL }, { "last_year", 366 * 86400000LL } };

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* the first value of key ("" counts as absent, as XMS takes an empty one) */
static const char *param(const struct api_param *p, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (p[i].key && strcmp(p[i].key, key) == 0)
			return p[i].value && *p[i].value ? p[i].value : NULL;
	return NULL;
}

int xms_perf_query_parse(const struct api_param *p, size_t n, int64_t now_ms, struct xms_perf_query *q, char *err,
			 size_t errlen)
{
	const char *ent = param(p, n, "entity"), *gran = param(p, n, "granularity");
	const char *frame = param(p, n, "time-frame"), *from = param(p, n, "from-time");
	const char *to = param(p, n, "to-time"), *lim = param(p, n, "limit");
	const char *cname = param(p, n, "cluster-name"), *cid = param(p, n, "cluster-id");
	int64_t s;

	q->entity = XMS_PERF_CLUSTER;
	q->t0_ms = now_ms - 3600000;
	q->t1_ms = now_ms;
	q->granularity_ms = 0;
	q->granularity = "raw";
	q->limit = XMS_PERF_QUERY_LIMIT_MAX;
	q->naggs = 0;
	q->cluster = cname ? cname : cid;
	for (size_t i = 0; i < n; i++) {
		unsigned a = 0, k;

		if (!p[i].key || strcmp(p[i].key, "aggregation-type") != 0 || !p[i].value || !*p[i].value)
			continue;
		while (a < XMS_PERF_AGGS && strcasecmp(p[i].value, xms_perf_agg_names[a]) != 0)
			a++;
		if (a == XMS_PERF_AGGS) {
			snprintf(err, errlen, "Command Syntax Error: aggregation-type: want avg, min or max");
			return -1;
		}
		for (k = 0; k < q->naggs && q->aggs[k] != (enum xms_perf_agg)a; k++)
			;
		if (k == q->naggs)
			q->aggs[q->naggs++] = (enum xms_perf_agg)a;
	}
	if (!q->naggs)
		q->aggs[q->naggs++] = XMS_PERF_AVG;
	if (ent) {
		size_t k = 0;
		while (k < XMS_PERF_ENTITIES && strcasecmp(ent, xms_perf_entity_names[k]) != 0)
			k++;
		if (k == XMS_PERF_ENTITIES) {
			snprintf(err, errlen, "Command Syntax Error: entity: want Cluster, Volume, InitiatorGroup, Target, "
					      "Initiator, XEnv or SSD (lunlab keeps no history of others)");
			return -1;
		}
		q->entity = (enum xms_perf_entity)k;
	}
	if (gran) {
		size_t i = 0;
		while (i < COUNT(granularities) && strcmp(gran, granularities[i].name) != 0)
			i++;
		if (i == COUNT(granularities)) {
			snprintf(err, errlen, "Command Syntax Error: granularity: want raw, auto, one_minute, ten_minutes, "
					      "one_hour or one_day");
			return -1;
		}
		q->granularity_ms = granularities[i].ms;
		q->granularity = granularities[i].name;
	}
	if (frame) {
		size_t i = 0;
		while (i < COUNT(frames) && strcmp(frame, frames[i].name) != 0)
			i++;
		if (i == COUNT(frames)) {
			snprintf(err, errlen, "Command Syntax Error: time-frame: want real_time, last_hour, last_day, "
					      "last_week or last_year");
			return -1;
		}
		q->t0_ms = now_ms - frames[i].ms;
	}
	if (from) {
		if (!xms_time_parse(from, &s)) {
			snprintf(err, errlen, "Command Syntax Error: from-time: want YYYY-MM-DD HH:MM:SS");
			return -1;
		}
		q->t0_ms = s * 1000;
	}
	if (to) {
		if (!xms_time_parse(to, &s)) {
			snprintf(err, errlen, "Command Syntax Error: to-time: want YYYY-MM-DD HH:MM:SS");
			return -1;
		}
		q->t1_ms = s * 1000 + 999;
	}
	if (lim) {
		char *end;
		q->limit = strtoul(lim, &end, 10);
		if (*lim < '0' || *lim > '9' || *end || q->limit == 0 || q->limit > XMS_PERF_QUERY_LIMIT_MAX) {
			snprintf(err, errlen, "Command Syntax Error: limit: want 1..%d", XMS_PERF_QUERY_LIMIT_MAX);
			return -1;
		}
	}
	return 0;
}
