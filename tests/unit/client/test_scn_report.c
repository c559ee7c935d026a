/* test_scn_report.c - the JUnit file of a scenario run: one test case per expectation, a
 * failure with the expectation and its observed value, an error and skipped cases when the
 * scenario could not run, XML escaping of names and messages; the JSON report's fields. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "client/scn_parse.h"
#include "client/scn_report.h"

static struct scn_model g_m;
static struct scn_result g_r;

static const char yaml[] =
	"name: 'a<b & \"c\"'\n"
	"arrays: {a: {luns: {d: {size: 16M}}}}\n"
	"workloads: {w: {kind: verify, lun: d}}\n"
	"expect:\n"
	"  - {workload: w, verified: true}\n"
	"  - {workload: w, output: 'x<y', name: \"out'put\"}\n";

static char *junit(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(scn_junit_write(f, &g_m, &g_r, 42), 0);
	fclose(f);
	return buf;
}

static void setup_run(void)
{
	char err[256];
	assert_int_equal(scn_parse_text("s.yaml", yaml, strlen(yaml), &g_m, err, sizeof(err)), 0);
	memset(&g_r, 0, sizeof(g_r));
	g_r.seconds = 1.5;
	g_r.x[0].ok = true;
	g_r.x[0].time_s = 0.25;
	snprintf(g_r.x[1].observed, sizeof(g_r.x[1].observed), "exit status 1: <oops>");
	g_r.x[1].time_s = 0.25;
	g_r.status = 1;
}

static void failure(void **state)
{
	setup_run();
	char *x = junit();
	assert_non_null(strstr(x, "<testsuites name=\"lunlab scenarios\" tests=\"2\" failures=\"1\" errors=\"0\" time=\"1.500\">\n"));
	assert_non_null(strstr(x, "  <testsuite name=\"a&lt;b &amp; &quot;c&quot;\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\" time=\"1.500\" timestamp=\""));
	assert_non_null(strstr(x, "<property name=\"seed\" value=\"42\"/>"));
	assert_non_null(strstr(x, "    <testcase classname=\"a&lt;b &amp; &quot;c&quot;\" name=\"workload w: acknowledged data verified\" time=\"0.250\"/>\n"));
	assert_non_null(strstr(x, "    <testcase classname=\"a&lt;b &amp; &quot;c&quot;\" name=\"out&apos;put\" time=\"0.250\">\n"
				  "      <failure type=\"expectation\" message=\"out&apos;put: observed exit status 1: &lt;oops&gt;\">"
				  "s.yaml:6:5: out&apos;put: observed exit status 1: &lt;oops&gt;</failure>\n"
				  "    </testcase>\n"));
	assert_non_null(strstr(x, "</testsuite>\n</testsuites>\n"));
	free(x);
}

static void could_not_run(void **state)
{
	setup_run();
	g_r.status = 2;
	snprintf(g_r.error, sizeof(g_r.error), "array a: lunlab-target exited at start (status 2)\x01");
	char *x = junit();
	assert_non_null(strstr(x, "tests=\"3\" failures=\"0\" errors=\"1\" skipped=\"2\""));
	assert_non_null(strstr(x, "name=\"scenario runs\" time=\"1.500\">\n      <error type=\"could-not-run\" "
				  "message=\"array a: lunlab-target exited at start (status 2)\">")); /* \x01 dropped */
	assert_non_null(strstr(x, "name=\"out&apos;put\" time=\"0.250\">\n      <skipped message=\"the scenario could not run\"/>"));
	assert_null(strstr(x, "<failure"));
	free(x);

	json_object *j = scn_json_report(&g_m, &g_r, 42);
	json_object *v, *xs;
	assert_true(json_object_object_get_ex(j, "status", &v) && json_object_get_int(v) == 2);
	assert_true(json_object_object_get_ex(j, "seed", &v) && json_object_get_int64(v) == 42);
	assert_true(json_object_object_get_ex(j, "expectations", &xs) && json_object_array_length(xs) == 2);
	json_object *x1 = json_object_array_get_idx(xs, 1);
	assert_true(json_object_object_get_ex(x1, "held", &v) && v == NULL); /* not judged */
	assert_true(json_object_object_get_ex(x1, "line", &v) && json_object_get_int(v) == 6);
	json_object_put(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(failure),
		cmocka_unit_test(could_not_run),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
