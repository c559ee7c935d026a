/* xms_perf_query.h — the parameters of XMS's performance query
 * (GET .../queries/performance, .../types/performance; xms_perf_history.h
 * answers it): entity=, time-frame= or from-time=/to-time=,
 * granularity=, limit= (obj-list= is matched by the answer, one name per
 * parameter).  Pure parsing of outside input, so the API fuzzer
 * (fuzz-api-query) runs it on every query string it makes.
 *
 * entity= compares without case (MTSXtremIO's smoke test's ad-hoc commands
 * send `entity=target`)
 * and the answer names the entity as XMS spells it. */
#ifndef LUNLAB_XMS_PERF_QUERY_H
#define LUNLAB_XMS_PERF_QUERY_H

#include <stddef.h>
#include <stdint.h>

struct api_param;

/* the entities lunlab keeps a history of (XtremIO.Utils' list also has
 * DataProtectionGroup, SnapshotGroup, SSD, TargetGroup, XEnv and Xms) */
enum xms_perf_entity { XMS_PERF_CLUSTER, XMS_PERF_VOLUME, XMS_PERF_IG, XMS_PERF_TARGET, XMS_PERF_INITIATOR,
		       XMS_PERF_ENTITIES };

extern const char *const xms_perf_entity_names[XMS_PERF_ENTITIES];

#define XMS_PERF_QUERY_LIMIT_MAX 100000

struct xms_perf_query {
	enum xms_perf_entity entity;   /* default Cluster */
	int64_t t0_ms, t1_ms;          /* wall clock, inclusive; default the last hour */
	int64_t granularity_ms;        /* 0: every reading (raw, auto) */
	const char *granularity;       /* its name, as answered */
	unsigned long limit;           /* rows, 1..XMS_PERF_QUERY_LIMIT_MAX */
};

/* 0, or -1 with a one-line 400 message naming the bad parameter
 * ("Command Syntax Error: granularity: want ..."); now_ms is the wall
 * clock the time frames count back from. */
int xms_perf_query_parse(const struct api_param *p, size_t n, int64_t now_ms, struct xms_perf_query *q, char *err,
			 size_t errlen);

#endif
