/* test_metrics_prom.c — target/metrics/metrics_prom.c: the names scripts
 * depend on, with their labels and exact values, for a known snapshot; and
 * the whole text accepted by Debian's promtool (`promtool check metrics`,
 * Prometheus' own parser and linter of the naming conventions) when the
 * test gets its path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "metrics_fixture.h"
#include "target/metrics/metrics_prom.h"

static const char *promtool;

static char *render(void)
{
	struct metrics_snapshot s;
	char err[160] = "";
	size_t len = 0;
	char *t;

	fixture_snapshot(&s);
	t = metrics_prom_render(&s, &len, err, sizeof(err));
	if (!t)
		fail_msg("render: %s", err);
	assert_int_equal(strlen(t), len);
	return t;
}

static void has_line(const char *text, const char *line)
{
	char want[512];

	snprintf(want, sizeof(want), "\n%s\n", line);
	if (!strstr(text, want))
		fail_msg("missing line: %s", line);
}

#define LU0 "array=\"a1\",lun=\"0\",volume=\"template\",profile=\"x2\""
#define LU1 "array=\"a1\",lun=\"1\",volume=\"clone \\\"b\\\"\",profile=\"x2\""
#define ARR "array=\"a1\",profile=\"x2\""

static void test_names_scripts_use(void **state)
{
	char *t = render();

	(void)state;
	has_line(t, "# TYPE lunlab_commands_total counter");
	has_line(t, "lunlab_commands_total{" LU0 ",kind=\"read\"} 10");
	has_line(t, "lunlab_commands_total{" LU1 ",kind=\"xcopy\"} 4");
	has_line(t, "lunlab_commands_total{" LU1 ",kind=\"caw\"} 0");
	has_line(t, "lunlab_command_errors_total{" LU0 ",kind=\"read\"} 1");
	has_line(t, "lunlab_wire_bytes_total{" LU0 ",kind=\"read\"} 9437184");
	has_line(t, "lunlab_wire_bytes_total{" LU1 ",kind=\"xcopy\"} 304");
	has_line(t, "# TYPE lunlab_xcopy_covered_bytes_total counter");
	has_line(t, "lunlab_xcopy_covered_bytes_total{" LU1 "} 16777216");
	has_line(t, "lunlab_lu_mapped_bytes{" LU0 "} 16777216");
	has_line(t, "# TYPE lunlab_array_logical_bytes gauge");
	has_line(t, "lunlab_array_logical_bytes{" ARR "} 33554432");
	has_line(t, "lunlab_array_physical_bytes{" ARR "} 8388608");
	has_line(t, "lunlab_array_unique_bytes{" ARR "} 16777216");
	has_line(t, "lunlab_array_capacity_bytes{" ARR "} 1099511627776");
	has_line(t, "lunlab_array_dedup_ratio{" ARR "} 2");
	has_line(t, "lunlab_array_compression_ratio{" ARR "} 2");
	has_line(t, "lunlab_array_data_reduction_ratio{" ARR "} 4");
	has_line(t, "lunlab_array_pending_blocks{" ARR "} 0");
	has_line(t, "lunlab_array_volumes{" ARR "} 2");
	has_line(t, "lunlab_array_modeled_cpu_seconds_total{" ARR "} 3");
	has_line(t, "lunlab_array_modeled_elapsed_seconds_total{" ARR "} 2");
	has_line(t, "lunlab_array_modeled_cores{" ARR "} 16");
	has_line(t, "lunlab_array_modeled_latency_seconds_bucket{" ARR ",le=\"5e-05\"} 4");
	has_line(t, "lunlab_array_modeled_latency_seconds_bucket{" ARR ",le=\"0.001\"} 14");
	has_line(t, "lunlab_array_modeled_latency_seconds_count{" ARR "} 14");
	has_line(t, "lunlab_modeled_latency_seconds_bucket{" LU1 ",le=\"5e-05\"} 4");
	has_line(t, "lunlab_modeled_latency_seconds_sum{" LU1 "} 9.2e-05");
	has_line(t, "lunlab_modeled_cpu_seconds_total{" LU1 "} 0.002");
	has_line(t, "lunlab_observed_latency_seconds_bucket{" LU0 ",kind=\"read\",le=\"0.0005\"} 0");
	has_line(t, "lunlab_observed_latency_seconds_bucket{" LU0 ",kind=\"read\",le=\"0.001\"} 10");
	has_line(t, "lunlab_observed_latency_seconds_bucket{" LU0 ",kind=\"read\",le=\"+Inf\"} 10");
	has_line(t, "lunlab_observed_latency_seconds_sum{" LU0 ",kind=\"read\"} 0.007");
	has_line(t, "lunlab_iscsi_sessions{type=\"normal\"} 2");
	has_line(t, "lunlab_iscsi_logins_total{result=\"success\"} 5");
	has_line(t, "lunlab_iscsi_logins_total{result=\"authentication_failure\"} 1");
	has_line(t, "# TYPE lunlab_login_failures_total counter");
	has_line(t, "lunlab_login_failures_total{kind=\"api\"} 12");
	has_line(t, "lunlab_login_failures_total{kind=\"chap\"} 4");
	has_line(t, "lunlab_login_throttled_total{kind=\"api\"} 7");
	has_line(t, "lunlab_login_throttled_total{kind=\"chap\"} 0");
	has_line(t, "# TYPE lunlab_login_locked_addresses gauge");
	has_line(t, "lunlab_login_locked_addresses 1");
	has_line(t, "# TYPE lunlab_fault_hits_total counter");
	has_line(t, "lunlab_fault_hits_total{action=\"sense\"} 3");
	has_line(t, "lunlab_fault_hits_total{action=\"drop\"} 1");
	has_line(t, "lunlab_fault_hits_total{action=\"xcopy-fail-after\"} 0");
	has_line(t, "lunlab_fault_rule_hits_total{rule=\"7\",spec=\"op=read,sense=medium-error\"} 3");
	has_line(t, "lunlab_fault_rule_matches_total{rule=\"7\",spec=\"op=read,sense=medium-error\"} 9");
	has_line(t, "process_resident_memory_bytes 91234304");
	has_line(t, "process_cpu_seconds_total 12.25");
	free(t);
}

/* an LU whose handler has no array-control table still gets its command
 * counters (empty array labels), and no array figures are invented */
static void test_lu_without_array(void **state)
{
	struct metrics_snapshot s;
	char err[160], *t;
	size_t len;

	(void)state;
	fixture_snapshot(&s);
	memset(&fixture_lu[1].arr, 0, sizeof(fixture_lu[1].arr));
	fixture_lu[1].have_array = false;
	s.narr = 0;
	t = metrics_prom_render(&s, &len, err, sizeof(err));
	assert_non_null(t);
	has_line(t, "lunlab_commands_total{array=\"\",lun=\"1\",volume=\"\",profile=\"\",kind=\"xcopy\"} 4");
	assert_null(strstr(t, "lun=\"1\",volume=\"\",profile=\"\"} "));
	assert_null(strstr(t, "lunlab_array_logical_bytes{"));
	free(t);
}

static void test_promtool_accepts(void **state)
{
	char path[] = "/tmp/lunlab-metrics-XXXXXX", cmd[600], line[512], out[4096] = "";
	char *t;
	FILE *f, *p;
	int fd, rc;

	(void)state;
	if (!promtool) {
		skip();
		return;
	}
	t = render();
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs(t, f);
	fclose(f);
	free(t);
	snprintf(cmd, sizeof(cmd), "'%s' check metrics < '%s' 2>&1", promtool, path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p))
		strncat(out, line, sizeof(out) - strlen(out) - 1);
	rc = pclose(p);
	unlink(path);
	if (rc != 0 || out[0])
		fail_msg("promtool check metrics (exit %d):\n%s", rc, out);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_scripts_use),
		cmocka_unit_test(test_lu_without_array),
		cmocka_unit_test(test_promtool_accepts),
	};
	promtool = argc > 1 ? argv[1] : NULL;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
