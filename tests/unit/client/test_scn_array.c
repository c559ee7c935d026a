/* test_scn_array.c - the scenario runner's reading of /metrics: a series summed over the
 * label sets that carry every label asked for, names matched whole, comments skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "client/scn_array.h"

static const char text[] =
	"# HELP lunlab_array_used_bytes physical use\n"
	"# TYPE lunlab_array_used_bytes gauge\n"
	"lunlab_array_used_bytes{array=\"a\",profile=\"x2\"} 1048576\n"
	"lunlab_array_used_bytes{array=\"b\",profile=\"x2\"} 2048\n"
	"lunlab_array_used_bytes_total{array=\"a\"} 7\n"
	"lunlab_fault_hits_total{action=\"sense\"} 3\n"
	"lunlab_fault_hits_total{action=\"xcopy-fail-after\"} 1\n"
	"lunlab_iscsi_sessions 2\n"
	"lunlab_lu_mapped_bytes{array=\"a\",lun=\"0\",volume=\"v,1\",profile=\"x2\"} 10\n"
	"lunlab_lu_mapped_bytes{array=\"a\",lun=\"1\",volume=\"s\",profile=\"x2\"} 5.5\n";

static void sums(void **state)
{
	double v = -1;
	assert_int_equal(scn_metric_sum(text, "lunlab_array_used_bytes", &v), 0);
	assert_true(v == 1048576 + 2048); /* both arrays; not the _total series */
	assert_int_equal(scn_metric_sum(text, "lunlab_array_used_bytes{array=\"a\"}", &v), 0);
	assert_true(v == 1048576);
	assert_int_equal(scn_metric_sum(text, "lunlab_array_used_bytes{profile=\"x2\",array=\"b\"}", &v), 0);
	assert_true(v == 2048);
	assert_int_equal(scn_metric_sum(text, "lunlab_fault_hits_total{action=\"xcopy-fail-after\"}", &v), 0);
	assert_true(v == 1);
	assert_int_equal(scn_metric_sum(text, "lunlab_iscsi_sessions", &v), 0);
	assert_true(v == 2);
	assert_int_equal(scn_metric_sum(text, "lunlab_lu_mapped_bytes{array=\"a\"}", &v), 0);
	assert_true(v == 15.5);
	/* a label value with a comma in it is one label */
	assert_int_equal(scn_metric_sum(text, "lunlab_lu_mapped_bytes{volume=\"v,1\"}", &v), 0);
	assert_true(v == 10);
}

static void refusals(void **state)
{
	double v = -1;
	assert_int_equal(scn_metric_sum(text, "lunlab_array_used", &v), -1);         /* a prefix is not a name */
	assert_int_equal(scn_metric_sum(text, "lunlab_array_used_bytes{array=\"c\"}", &v), -1);
	assert_int_equal(scn_metric_sum(text, "lunlab_iscsi_sessions{array=\"a\"}", &v), -1); /* no labels on it */
	assert_int_equal(scn_metric_sum(text, "lunlab_fault_hits_total{action=\"sens\"}", &v), -1);
	assert_int_equal(scn_metric_sum("", "x", &v), -1);
	assert_true(v == -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sums),
		cmocka_unit_test(refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
