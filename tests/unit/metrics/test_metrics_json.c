/* test_metrics_json.c — target/metrics/metrics_json.c: the dashboard's
 * JSON of a known snapshot, read back with json-c, value by value. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "metrics_fixture.h"
#include "target/metrics/metrics_json.h"

static json_object *get(json_object *o, const char *path)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k; k = strtok_r(NULL, ".", &save)) {
		json_object *n = NULL;

		if (json_object_is_type(o, json_type_array))
			n = json_object_array_get_idx(o, (size_t)atoi(k));
		else if (!json_object_object_get_ex(o, k, &n))
			n = NULL;
		if (!n)
			fail_msg("no %s in the JSON (at %s)", path, k);
		o = n;
	}
	return o;
}

static void test_values(void **state)
{
	struct metrics_snapshot s;
	size_t len = 0;
	char *t;
	json_object *root;

	(void)state;
	fixture_snapshot(&s);
	t = metrics_json_render(&s, &len);
	assert_non_null(t);
	assert_int_equal(strlen(t), len);
	root = json_tokener_parse(t);
	assert_non_null(root);
	assert_true(json_object_get_double(get(root, "time")) == 1764547200.5);
	assert_int_equal(json_object_array_length(get(root, "latency_bounds_seconds")), LUNLAB_LAT_BOUNDS);
	assert_true(json_object_get_double(get(root, "latency_bounds_seconds.3")) == 50e-6);
	assert_int_equal(json_object_get_int64(get(root, "process.rss_bytes")), 91234304);
	assert_int_equal(json_object_get_int64(get(root, "iscsi.sessions.normal")), 2);
	assert_int_equal(json_object_get_int64(get(root, "iscsi.logins.success")), 5);
	assert_string_equal(json_object_get_string(get(root, "arrays.0.name")), "a1");
	assert_string_equal(json_object_get_string(get(root, "arrays.0.profile")), "x2");
	assert_int_equal(json_object_get_int64(get(root, "arrays.0.capacity.logical_bytes")), 32 << 20);
	assert_int_equal(json_object_get_int64(get(root, "arrays.0.capacity.physical_bytes")), 8 << 20);
	assert_true(json_object_get_double(get(root, "arrays.0.capacity.data_reduction_ratio")) == 4.0);
	assert_int_equal(json_object_get_int64(get(root, "arrays.0.model.cores")), 16);
	assert_true(json_object_get_double(get(root, "arrays.0.model.cpu_seconds")) == 3.0);
	assert_true(json_object_get_double(get(root, "arrays.0.model.elapsed_seconds")) == 2.0);
	assert_int_equal(json_object_get_int64(get(root, "arrays.0.model.latency_buckets.7")), 10);
	assert_int_equal(json_object_get_int64(get(root, "luns.1.lun")), 1);
	assert_string_equal(json_object_get_string(get(root, "luns.1.volume")), "clone \"b\"");
	assert_int_equal(json_object_get_int64(get(root, "luns.1.kinds.xcopy.commands")), 4);
	assert_int_equal(json_object_get_int64(get(root, "luns.1.kinds.xcopy.wire_bytes")), 304);
	assert_int_equal(json_object_get_int64(get(root, "luns.1.xcopy_covered_bytes")), 16 << 20);
	assert_int_equal(json_object_get_int64(get(root, "luns.0.kinds.read.errors")), 1);
	assert_int_equal(json_object_get_int64(get(root, "luns.0.kinds.read.latency_buckets.7")), 10);
	assert_int_equal(json_object_get_int64(get(root, "luns.1.model.commands")), 4);
	json_object_put(root);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
