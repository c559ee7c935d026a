/* test_scn_run.c - what the expectations read from a workload's JSON report: a number (or a
 * boolean as 0/1) at a dot path through objects and array indexes; anything else is no value. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "client/scn_run.h"

static void paths(void **state)
{
	json_object *j = json_tokener_parse(
		"{\"fallback_clones\": 2, \"verified\": true, \"modeled\": {\"duration_s\": 0.001051008},"
		" \"runs\": [{\"chunk\": 262144}, {\"chunk\": 1048576, \"latency\": {\"p99_ms\": 1.5}}],"
		" \"name\": \"x\", \"none\": null}");
	double v = -1;
	assert_non_null(j);
	assert_int_equal(scn_json_number(j, "fallback_clones", &v), 0);
	assert_true(v == 2);
	assert_int_equal(scn_json_number(j, "verified", &v), 0);
	assert_true(v == 1);
	assert_int_equal(scn_json_number(j, "modeled.duration_s", &v), 0);
	assert_true(v == 0.001051008);
	assert_int_equal(scn_json_number(j, "runs.1.latency.p99_ms", &v), 0);
	assert_true(v == 1.5);
	assert_int_equal(scn_json_number(j, "runs.0.chunk", &v), 0);
	assert_true(v == 262144);
	v = -1;
	assert_int_equal(scn_json_number(j, "runs.2.chunk", &v), -1);   /* past the end */
	assert_int_equal(scn_json_number(j, "runs.x", &v), -1);
	assert_int_equal(scn_json_number(j, "name", &v), -1);           /* a string */
	assert_int_equal(scn_json_number(j, "none", &v), -1);           /* null */
	assert_int_equal(scn_json_number(j, "modeled", &v), -1);        /* an object */
	assert_int_equal(scn_json_number(j, "nothing.here", &v), -1);
	assert_int_equal(scn_json_number(NULL, "x", &v), -1);
	assert_true(v == -1);
	json_object_put(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(paths),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
