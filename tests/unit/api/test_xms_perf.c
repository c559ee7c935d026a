/* test_xms_perf.c — XMS's performance figures from LU counters
 * (xms_perf.h): the cumulative ones as they are, the rates over the last
 * interval between readings at least XMS_PERF_MIN_INTERVAL_MS apart, 0 on
 * the first reading, a shrinking counter taken as no change, every figure a
 * decimal string, and the counters of a real lu_stats summed by kind. */
#include <json-c/json.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "target/api/xms_perf.h"
#include "target/lu/lu_stats.h"

static const char *field(struct json_object *o, const char *k)
{
	struct json_object *v;

	assert_true(json_object_object_get_ex(o, k, &v));
	assert_true(json_object_is_type(v, json_type_string));
	return json_object_get_string(v);
}

static struct json_object *show(struct xms_perf_sample *s, const struct xms_perf_counters *c, uint64_t ms)
{
	struct json_object *o = json_object_new_object();

	xms_perf_show(s, c, ms, o);
	return o;
}

static void test_rates(void **state)
{
	struct xms_perf_sample s = { 0 };
	struct xms_perf_counters c = { .rd_n = 100, .wr_n = 50, .rd_bytes = 100 * 4096, .wr_bytes = 50 * 8192,
				       .rd_lat_ns = 100 * 200000, .wr_lat_ns = 50 * 400000 };
	struct json_object *o;

	(void)state;
	o = show(&s, &c, 10000); /* the first reading: no interval yet */
	assert_string_equal(field(o, "acc-num-of-rd"), "100");
	assert_string_equal(field(o, "acc-size-of-wr"), "400");
	assert_string_equal(field(o, "rd-iops"), "0");
	assert_string_equal(field(o, "avg-latency"), "0");
	json_object_put(o);
	c.rd_n += 10;
	c.rd_bytes += 10 * 4096;
	c.rd_lat_ns += 10 * 300000;
	o = show(&s, &c, 10500); /* too soon: not a reading; still no interval */
	assert_string_equal(field(o, "acc-num-of-rd"), "110");
	assert_string_equal(field(o, "rd-iops"), "0");
	json_object_put(o);
	c.wr_n += 4;
	c.wr_bytes += 4 * 8192;
	c.wr_lat_ns += 4 * 100000;
	o = show(&s, &c, 12000); /* 2 s after the first: 10 reads, 4 writes */
	assert_string_equal(field(o, "rd-iops"), "5");
	assert_string_equal(field(o, "wr-iops"), "2");
	assert_string_equal(field(o, "iops"), "7");
	assert_string_equal(field(o, "rd-bw"), "20");  /* 40 KiB in 2 s */
	assert_string_equal(field(o, "wr-bw"), "16");
	assert_string_equal(field(o, "bw"), "36");
	assert_string_equal(field(o, "rd-latency"), "300");
	assert_string_equal(field(o, "wr-latency"), "100");
	assert_string_equal(field(o, "avg-latency"), "242"); /* (3 ms + 0.4 ms) / 14 */
	json_object_put(o);
	/* a counter that went down (an LU replaced) counts as no change */
	c.rd_n = 1;
	o = show(&s, &c, 13000);
	assert_string_equal(field(o, "rd-iops"), "0");
	assert_string_equal(field(o, "acc-num-of-rd"), "1");
	json_object_put(o);
}

static void test_from_lu_stats(void **state)
{
	struct lu_stats *st = lu_stats_new();
	struct xms_perf_counters c = { 0 };

	(void)state;
	assert_non_null(st);
	lu_stats_record(st, 0, LU_KIND_READ, 4096, true, 1000);
	lu_stats_record(st, 1, LU_KIND_READ, 512, false, 3000);
	lu_stats_record(st, 0, LU_KIND_WRITE, 8192, true, 5000);
	lu_stats_record(st, 0, LU_KIND_OTHER, 36, true, 100);
	xms_perf_add(&c, st);
	xms_perf_add(&c, NULL);
	assert_int_equal(c.rd_n, 2);
	assert_int_equal(c.rd_bytes, 4608);
	assert_int_equal(c.rd_lat_ns, 4000);
	assert_int_equal(c.wr_n, 1);
	assert_int_equal(c.wr_bytes, 8192);
	assert_int_equal(c.wr_lat_ns, 5000);
	xms_perf_add(&c, st); /* a cluster sums its volumes */
	assert_int_equal(c.rd_n, 4);
	lu_stats_free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_from_lu_stats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
