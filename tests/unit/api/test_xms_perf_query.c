/* test_xms_perf_query.c — the performance query's parameters
 * (xms_perf_query.h): the defaults, each entity (Initiator too, and without
 * case), the time frames counted back from now, from-time/to-time as UTC
 * seconds with to-time's whole second, granularities, limit's bounds,
 * aggregation-type (each type once, in the order first asked, avg alone by
 * default), cluster-name / cluster-id, and each bad value refused with a
 * message naming its parameter. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "target/api/api_router.h"
#include "target/api/xms_perf_query.h"

#define NOW 1796000000000LL /* ms: 2026-11-30 */

static int parse(struct xms_perf_query *q, char *err, size_t errlen, const char *k1, const char *v1, const char *k2,
		 const char *v2)
{
	struct api_param p[2] = { { k1, v1 }, { k2, v2 } };

	err[0] = '\0';
	return xms_perf_query_parse(p, k1 ? (k2 ? 2 : 1) : 0, NOW, q, err, errlen);
}

static void test_defaults(void **state)
{
	struct xms_perf_query q;
	char err[200];

	(void)state;
	assert_int_equal(parse(&q, err, sizeof(err), NULL, NULL, NULL, NULL), 0);
	assert_int_equal(q.entity, XMS_PERF_CLUSTER);
	assert_true(q.t0_ms == NOW - 3600000 && q.t1_ms == NOW);
	assert_true(q.granularity_ms == 0);
	assert_string_equal(q.granularity, "raw");
	assert_int_equal(q.limit, XMS_PERF_QUERY_LIMIT_MAX);
	/* an empty value is absent, as XMS takes it */
	assert_int_equal(parse(&q, err, sizeof(err), "entity", "", "limit", ""), 0);
	assert_int_equal(q.entity, XMS_PERF_CLUSTER);
}

static void test_entities(void **state)
{
	struct xms_perf_query q;
	char err[200];

	(void)state;
	for (int k = 0; k < XMS_PERF_ENTITIES; k++) {
		assert_int_equal(parse(&q, err, sizeof(err), "entity", xms_perf_entity_names[k], NULL, NULL), 0);
		assert_int_equal(q.entity, k);
	}
	assert_int_equal(parse(&q, err, sizeof(err), "entity", "initiator", NULL, NULL), 0);
	assert_int_equal(q.entity, XMS_PERF_INITIATOR);
	assert_string_equal(xms_perf_entity_names[q.entity], "Initiator");
	assert_int_equal(parse(&q, err, sizeof(err), "entity", "xenv", NULL, NULL), 0);
	assert_int_equal(q.entity, XMS_PERF_XENV);
	assert_string_equal(xms_perf_entity_names[q.entity], "XEnv");
	assert_int_equal(parse(&q, err, sizeof(err), "entity", "SSD", NULL, NULL), 0);
	assert_int_equal(q.entity, XMS_PERF_SSD);
	assert_int_equal(parse(&q, err, sizeof(err), "entity", "DataProtectionGroup", NULL, NULL), -1);
	assert_string_equal(err, "Command Syntax Error: entity: want Cluster, Volume, InitiatorGroup, Target, "
				 "Initiator, XEnv or SSD (lunlab keeps no history of others)");
}

static void test_aggregation_cluster(void **state)
{
	struct xms_perf_query q;
	char err[200];
	struct api_param p[5] = { { "aggregation-type", "max" }, { "aggregation-type", "AVG" },
				  { "aggregation-type", "max" }, { "cluster-id", "2" }, { "aggregation-type", "" } };

	(void)state;
	assert_int_equal(parse(&q, err, sizeof(err), NULL, NULL, NULL, NULL), 0);
	assert_int_equal(q.naggs, 1);
	assert_int_equal(q.aggs[0], XMS_PERF_AVG);
	assert_null(q.cluster);
	/* XtremIO.Utils sends one parameter per type; a repeat counts once, an empty one not */
	err[0] = '\0';
	assert_int_equal(xms_perf_query_parse(p, 5, NOW, &q, err, sizeof(err)), 0);
	assert_int_equal(q.naggs, 2);
	assert_int_equal(q.aggs[0], XMS_PERF_MAX);
	assert_int_equal(q.aggs[1], XMS_PERF_AVG);
	assert_string_equal(q.cluster, "2");
	/* cluster-name first, an empty one absent */
	assert_int_equal(parse(&q, err, sizeof(err), "cluster-id", "1", "cluster-name", "xb"), 0);
	assert_string_equal(q.cluster, "xb");
	assert_int_equal(parse(&q, err, sizeof(err), "cluster-name", "", NULL, NULL), 0);
	assert_null(q.cluster);
	assert_int_equal(parse(&q, err, sizeof(err), "aggregation-type", "sum", NULL, NULL), -1);
	assert_string_equal(err, "Command Syntax Error: aggregation-type: want avg, min or max");
}

static void test_times(void **state)
{
	struct xms_perf_query q;
	char err[200];

	(void)state;
	assert_int_equal(parse(&q, err, sizeof(err), "time-frame", "real_time", NULL, NULL), 0);
	assert_true(q.t0_ms == NOW - 60000 && q.t1_ms == NOW);
	assert_int_equal(parse(&q, err, sizeof(err), "time-frame", "last_week", NULL, NULL), 0);
	assert_true(q.t0_ms == NOW - 7 * 86400000LL);
	/* 2026-12-05 07:00:00 UTC = 1796454000 s; to-time takes its whole second */
	assert_int_equal(parse(&q, err, sizeof(err), "from-time", "2026-12-05 07:00:00", "to-time",
			       "2026-12-05 08:00:00"), 0);
	assert_true(q.t0_ms == 1796454000000LL && q.t1_ms == 1796457600999LL);
	assert_int_equal(parse(&q, err, sizeof(err), "time-frame", "last_month", NULL, NULL), -1);
	assert_string_equal(err, "Command Syntax Error: time-frame: want real_time, last_hour, last_day, last_week or "
				 "last_year");
	assert_int_equal(parse(&q, err, sizeof(err), "from-time", "2026-12-05T07:00:00", NULL, NULL), -1);
	assert_string_equal(err, "Command Syntax Error: from-time: want YYYY-MM-DD HH:MM:SS");
	assert_int_equal(parse(&q, err, sizeof(err), "to-time", "2026-12-05 07:00", NULL, NULL), -1);
	assert_string_equal(err, "Command Syntax Error: to-time: want YYYY-MM-DD HH:MM:SS");
}

static void test_granularity_limit(void **state)
{
	struct xms_perf_query q;
	char err[200];

	(void)state;
	assert_int_equal(parse(&q, err, sizeof(err), "granularity", "ten_minutes", "limit", "100000"), 0);
	assert_true(q.granularity_ms == 600000);
	assert_string_equal(q.granularity, "ten_minutes");
	assert_int_equal(q.limit, 100000);
	assert_int_equal(parse(&q, err, sizeof(err), "granularity", "auto", "limit", "1"), 0);
	assert_true(q.granularity_ms == 0);
	assert_int_equal(q.limit, 1);
	assert_int_equal(parse(&q, err, sizeof(err), "granularity", "weekly", NULL, NULL), -1);
	assert_non_null(strstr(err, "granularity: want raw"));
	static const char *const bad[] = { "0", "100001", "-1", "+5", "5x", "99999999999999999999999" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(&q, err, sizeof(err), "limit", bad[i], NULL, NULL), -1);
		assert_string_equal(err, "Command Syntax Error: limit: want 1..100000");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_entities),
		cmocka_unit_test(test_times),
		cmocka_unit_test(test_granularity_limit),
		cmocka_unit_test(test_aggregation_cluster),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
