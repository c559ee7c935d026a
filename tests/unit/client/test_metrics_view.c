/* test_metrics_view.c - client/metrics_view.c and the URL rule of
 * client/metrics_client.c: the figures and rates lunlab-bench watch and
 * --metrics-url derive from two /metrics.json snapshots, exactly; fields of
 * the wrong type count as absent; a counter that went back gives no
 * negative rate; the terminal view and the JSON hold the same numbers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "client/metrics_client.h"
#include "client/metrics_view.h"

/* two readings 2 s apart: LUN 1 cloned 8 MiB by XCOPY with 2 commands of 108 bytes
 * (4 ms observed in all), LUN 0 read 4 MiB in 4 commands; the model charged 6 commands
 * of 0.5 core-s each on 2 cores over 1 s of modeled time, 30 us in all */
static const char *snap0 =
	"{\"time\":100.0,\"iscsi\":{\"sessions\":{\"normal\":2}},\"process\":{\"rss_bytes\":1000},"
	"\"arrays\":[{\"name\":\"a1\",\"profile\":\"x2\",\"capacity\":{\"logical_bytes\":100,"
	"\"unique_bytes\":50,\"physical_bytes\":25,\"used_bytes\":25,\"capacity_bytes\":1000,"
	"\"dedup_ratio\":2.0,\"compression_ratio\":2.0,\"data_reduction_ratio\":4.0},"
	"\"model\":{\"commands\":10,\"cpu_seconds\":1.0,\"latency_sum_seconds\":0.00001,"
	"\"elapsed_seconds\":5.0,\"cores\":2}}],"
	"\"luns\":["
	"{\"lun\":0,\"array\":\"a1\",\"volume\":\"t\",\"kinds\":{\"read\":{\"commands\":1,\"wire_bytes\":10,"
	"\"latency_sum_seconds\":0.001}},\"xcopy_covered_bytes\":0,\"mapped_bytes\":7},"
	"{\"lun\":1,\"array\":\"a1\",\"volume\":\"c\",\"kinds\":{\"xcopy\":{\"commands\":3,\"wire_bytes\":324,"
	"\"latency_sum_seconds\":0.003}},\"xcopy_covered_bytes\":1048576,"
	"\"model\":{\"commands\":3,\"latency_sum_seconds\":0.00003}}]}";
static const char *snap1 =
	"{\"time\":102.0,\"iscsi\":{\"sessions\":{\"normal\":3}},\"process\":{\"rss_bytes\":2000},"
	"\"arrays\":[{\"name\":\"a1\",\"profile\":\"x2\",\"capacity\":{\"logical_bytes\":200,"
	"\"unique_bytes\":50,\"physical_bytes\":25,\"used_bytes\":25,\"capacity_bytes\":1000,"
	"\"pending_blocks\":3,\"dedup_ratio\":4.0,\"compression_ratio\":2.0,\"data_reduction_ratio\":8.0},"
	"\"model\":{\"commands\":16,\"cpu_seconds\":2.0,\"latency_sum_seconds\":0.00004,"
	"\"elapsed_seconds\":6.0,\"cores\":2}}],"
	"\"luns\":["
	"{\"lun\":0,\"array\":\"a1\",\"volume\":\"t\",\"kinds\":{\"read\":{\"commands\":5,\"wire_bytes\":4194314,"
	"\"latency_sum_seconds\":0.005}},\"xcopy_covered_bytes\":0,\"mapped_bytes\":7},"
	"{\"lun\":1,\"array\":\"a1\",\"volume\":\"c\",\"kinds\":{\"xcopy\":{\"commands\":5,\"wire_bytes\":540,"
	"\"latency_sum_seconds\":0.007}},\"xcopy_covered_bytes\":9437184,"
	"\"model\":{\"commands\":5,\"latency_sum_seconds\":0.00007}}]}";

static struct mview v;

static void near(double a, double b)
{
	if (!(a - b < 1e-9 && b - a < 1e-9))
		fail_msg("%.12g != %.12g", a, b);
}

static void test_rates(void **state)
{
	json_object *a = json_tokener_parse(snap0), *b = json_tokener_parse(snap1);

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	mview_compute(a, b, &v);
	near(v.dt, 2.0);
	assert_int_equal(v.sessions, 3);
	assert_int_equal(v.narr, 1);
	assert_string_equal(v.arr[0].name, "a1");
	assert_int_equal(v.arr[0].logical_bytes, 200);
	assert_int_equal(v.arr[0].pending_blocks, 3);
	near(v.arr[0].data_reduction_ratio, 8.0);
	near(v.arr[0].cpu_pct, 50.0);                 /* 1 core-s / (1 s x 2 cores) */
	near(v.arr[0].modeled_latency_s, 0.00003 / 6);
	assert_int_equal(v.arr[0].cloned_bytes, 8u << 20);
	assert_int_equal(v.arr[0].wire_bytes, (4u << 20) + 216);
	near(v.arr[0].cloned_bps, 4u << 20);
	near(v.arr[0].observed_latency_s, (0.004 + 0.004) / 6);
	assert_int_equal(v.nlu, 2);
	assert_int_equal(v.lu[0].lun, 0);
	near(v.lu[0].read_bps, 2u << 20);
	near(v.lu[0].iops, 2.0);
	assert_int_equal(v.lu[0].commands[0], 4);
	near(v.lu[0].observed_latency_s, 0.001);
	near(v.lu[0].modeled_latency_s, -1);          /* no model figures for LUN 0 */
	assert_int_equal(v.lu[1].commands[2], 2);
	assert_int_equal(v.lu[1].wire_bytes[2], 216);
	near(v.lu[1].cloned_bps, 4u << 20);
	near(v.lu[1].xcopy_wire_bps, 108);
	near(v.lu[1].modeled_latency_s, 0.00002);

	/* one reading: figures, no rates */
	mview_compute(NULL, b, &v);
	near(v.dt, 0);
	assert_int_equal(v.arr[0].logical_bytes, 200);
	near(v.arr[0].cpu_pct, -1);
	near(v.lu[1].cloned_bps, 0);

	/* counters that went back (a restarted target): no negative rate */
	mview_compute(b, a, &v);
	near(v.dt, 0);
	assert_int_equal(v.lu[1].cloned_bytes, 0);
	assert_int_equal(v.arr[0].wire_bytes, 0);
	json_object_put(a);
	json_object_put(b);
}

static void test_wrong_types(void **state)
{
	json_object *o = json_tokener_parse(
		"{\"time\":\"x\",\"arrays\":{\"a\":1},\"luns\":[1,\"s\",{\"lun\":\"0\",\"kinds\":[],"
		"\"xcopy_covered_bytes\":-5,\"mapped_bytes\":1e300,\"array\":7}]}");

	(void)state;
	assert_non_null(o);
	mview_compute(o, o, &v);
	assert_int_equal(v.narr, 0);                 /* arrays is not an array */
	assert_int_equal(v.nlu, 3);
	assert_int_equal(v.lu[2].lun, 0);            /* a string is not a number */
	assert_int_equal(v.lu[2].mapped_bytes, UINT64_MAX); /* saturated, not undefined */
	assert_string_equal(v.lu[2].array, "");
	json_object_put(o);
}

static void test_print_and_json(void **state)
{
	json_object *a = json_tokener_parse(snap0), *b = json_tokener_parse(snap1), *j, *x;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	mview_compute(a, b, &v);
	mview_print(f, &v, "https://t/metrics.json");
	fclose(f);
	assert_non_null(strstr(buf, "array a1 (x2)"));
	assert_non_null(strstr(buf, "data reduction 8.000:1  (accounting pending)"));
	assert_non_null(strstr(buf, "modeled CPU 50.0%"));
	assert_non_null(strstr(buf, "cloned 4.0 MiB/s inside the array, 2.0 MiB/s over the wire"));
	free(buf);
	j = mview_json(&v);
	assert_true(json_object_object_get_ex(j, "luns", &x));
	x = json_object_array_get_idx(x, 1);
	assert_int_equal(json_object_get_int64(json_object_object_get(x, "cloned_bytes")), 8 << 20);
	assert_int_equal(json_object_get_int64(json_object_object_get(json_object_object_get(x, "commands"), "xcopy")), 2);
	json_object_put(j);
	json_object_put(a);
	json_object_put(b);
}

static void test_url(void **state)
{
	char out[256], err[256];

	(void)state;
	assert_int_equal(metrics_json_url("https://127.0.0.1:8443", out, sizeof(out), err, sizeof(err)), 0);
	assert_string_equal(out, "https://127.0.0.1:8443/metrics.json");
	assert_int_equal(metrics_json_url("https://u:p@h:1/", out, sizeof(out), err, sizeof(err)), 0);
	assert_string_equal(out, "https://u:p@h:1/metrics.json");
	assert_int_equal(metrics_json_url("http://h:1/metrics", out, sizeof(out), err, sizeof(err)), 0);
	assert_string_equal(out, "http://h:1/metrics.json");
	assert_int_equal(metrics_json_url("https://h:1/metrics.json", out, sizeof(out), err, sizeof(err)), 0);
	assert_string_equal(out, "https://h:1/metrics.json");
	assert_int_equal(metrics_json_url("https://h:1/api/json/v2", out, sizeof(out), err, sizeof(err)), -1);
	assert_string_equal(err, "metrics URL 'https://h:1/api/json/v2': give the target's API address (https://host:port)");
	assert_int_equal(metrics_json_url("iscsi://h/iqn/0", out, sizeof(out), err, sizeof(err)), -1);
	assert_string_equal(err, "metrics URL 'iscsi://h/iqn/0' does not start with http:// or https://");
	assert_int_equal(metrics_json_url("https://", out, sizeof(out), err, sizeof(err)), -1);
	assert_string_equal(err, "metrics URL 'https://' has no host");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_wrong_types),
		cmocka_unit_test(test_print_and_json),
		cmocka_unit_test(test_url),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
