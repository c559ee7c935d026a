/* xms_perf_query.h — the parameters of XMS's performance query
 * (GET .../queries/performance, .../types/performance; xms_perf_history.h
 * answers it): entity=, time-frame= or from-time=/to-time=,
 * granularity=, limit=, aggregation-type= (repeatable: XtremIO.Utils sends
 * one per type), cluster-name= or cluster-id= (MTSXtremIO sends the
 * latter); obj-list= and prop= (one name per parameter) are matched by the
 * answer.  Pure parsing of outside input, so the API fuzzer
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
 * DataProtectionGroup, SnapshotGroup, TargetGroup and Xms) */
enum xms_perf_entity { XMS_PERF_CLUSTER, XMS_PERF_VOLUME, XMS_PERF_IG, XMS_PERF_TARGET, XMS_PERF_INITIATOR,
		       XMS_PERF_XENV, XMS_PERF_SSD, XMS_PERF_ENTITIES };

/* aggregation-type=: what a row says of its bucket's readings (XtremIO.Utils'
 * AggregationType enum: avg, min, max; the members are named TYPE__counter,
 * the prefix CoprHD's avg__cpu_usage and MTSXtremIO's avg__iops carry) */
enum xms_perf_agg { XMS_PERF_AVG, XMS_PERF_MIN, XMS_PERF_MAX, XMS_PERF_AGGS };

extern const char *const xms_perf_agg_names[XMS_PERF_AGGS];

extern const char *const xms_perf_entity_names[XMS_PERF_ENTITIES];

#define XMS_PERF_QUERY_LIMIT_MAX 100000

struct xms_perf_query {
	enum xms_perf_entity entity;   /* default Cluster */
	int64_t t0_ms, t1_ms;          /* wall clock, inclusive; default the last hour */
	int64_t granularity_ms;        /* 0: every reading (raw, auto) */
	const char *granularity;       /* its name, as answered */
	unsigned long limit;           /* rows, 1..XMS_PERF_QUERY_LIMIT_MAX */
	/* the aggregation types asked, in the order first asked (default avg alone) */
	enum xms_perf_agg aggs[XMS_PERF_AGGS];
	unsigned naggs;
	/* cluster-name= or cluster-id= (a name or an index; NULL none): points
	 * into the parameters */
	const char *cluster;
};

/* 0, or -1 with a one-line 400 message naming the bad parameter
 * ("Command Syntax Error: granularity: want ..."); now_ms is the wall
 * clock the time frames count back from. */
int xms_perf_query_parse(const struct api_param *p, size_t n, int64_t now_ms, struct xms_perf_query *q, char *err,
			 size_t errlen);

#endif
