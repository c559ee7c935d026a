/* test_report_json.c - the --json documents carry the keys docs/bench.md promises, with the
 * values of the results they render. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <json-c/json.h>

#include "client/report.h"
#include "client/write_data.h"

static json_object *path(json_object *o, const char *a, const char *b)
{
	json_object *v = NULL;
	if (!json_object_object_get_ex(o, a, &v))
		fail_msg("missing key '%s'", a);
	if (b && (!v || !json_object_object_get_ex(v, b, &v)))
		fail_msg("missing key '%s.%s'", a, b);
	return v;
}

/* Reparse the serialised text: the schema is about what scripts read, not the object tree. */
static json_object *roundtrip(json_object *o)
{
	json_object *p = json_tokener_parse(json_object_to_json_string(o));
	json_object_put(o);
	assert_non_null(p);
	return p;
}

static void clone_keys(void **state)
{
	static struct clone_result r = { .template_size = 1 << 20, .clones = 3, .parallel = 2, .outstanding = 2, .n = 2 };
	r.runs[0] = (struct clone_run){ .chunk = 256 << 10, .xcopy = true, .wall_s = 1.5, .commands = 12,
					.have_modeled = true, .modeled_duration_s = 80.5,
					.modeled_peak_latency_ms = 0.023, .modeled_peak_cpu_pct = 70.1, .time_scale = 1 };
	r.runs[1] = (struct clone_run){ .chunk = 4 << 20, .xcopy = false, .fell_back = true, .wall_s = 2.5,
					.conn = { .busy = 3 } };
	r.conn = (struct conn_stats){ .busy = 3, .reconnects = 1, .outage_s = 0.5, .longest_outage_s = 0.5 };
	json_object *o = roundtrip(json_clone(&r));
	assert_string_equal(json_object_get_string(path(o, "command", NULL)), "clone");
	assert_true(json_object_get_double(path(o, "wall_s", NULL)) == 1.5);
	assert_true(json_object_get_boolean(path(o, "xcopy", NULL)));
	assert_true(json_object_get_double(path(o, "modeled", "duration_s")) == 80.5);
	assert_true(json_object_get_double(path(o, "modeled", "peak_latency_ms")) == 0.023);
	assert_true(json_object_get_double(path(o, "modeled", "peak_cpu_pct")) == 70.1);
	assert_int_equal(json_object_get_int(path(o, "commands", NULL)), 12);
	json_object *v = NULL;
	assert_false(json_object_object_get_ex(path(o, "modeled", NULL), "job_duration_s", &v)); /* no --plot-job */
	json_object *runs = path(o, "runs", NULL);
	assert_int_equal(json_object_array_length(runs), 2);
	json_object *r1 = json_object_array_get_idx(runs, 1);
	assert_false(json_object_get_boolean(path(r1, "xcopy", NULL)));
	assert_true(json_object_get_boolean(path(r1, "fell_back", NULL)));
	assert_null(path(r1, "modeled", NULL));      /* not reported: null, key present */
	assert_non_null(path(r1, "latency", "p99_ms"));
	/* each run's own counters; the top level has the whole command's, not the first run's */
	assert_int_equal(json_object_get_int(path(r1, "connection", "busy")), 3);
	assert_int_equal(json_object_get_int(path(json_object_array_get_idx(runs, 0), "connection", "busy")), 0);
	assert_int_equal(json_object_get_int(path(o, "connection", "busy")), 3);
	assert_int_equal(json_object_get_int(path(o, "connection", "reconnects")), 1);
	assert_true(json_object_get_double(path(o, "connection", "longest_outage_s")) == 0.5);
	json_object_put(o);
	/* --plot-job: the modeled duration scaled to the job the run samples (64 MiB of a
	 * 100 x 11.9 GiB job, about 1/19040) */
	r.plot_job_bytes = 1277748838400ull;
	r.runs[0].bytes_cloned = 64ull << 20;
	r.runs[0].modeled_duration_s = 0.004204032;
	o = roundtrip(json_clone(&r));
	assert_int_equal(json_object_get_int64(path(o, "modeled", "job_bytes")), 1277748838400ll);
	double job = json_object_get_double(path(o, "modeled", "job_duration_s"));
	double want = 0.004204032 * 1277748838400.0 / 67108864.0; /* 80.04 s */
	assert_true(job > want - 1e-9 && job < want + 1e-9);
	assert_null(path(json_object_array_get_idx(path(o, "runs", NULL), 1), "modeled", NULL)); /* no model, no job */
	json_object_put(o);
}

static void scale_keys(void **state)
{
	static struct scale_result r = { .bs = 4 << 20, .qd = 1, .n = 2, .write = true, .data = DATA_WIN10 };
	r.runs[0] = (struct scale_run){ .vms = 1, .total_mbps = 600, .fairness = 1 };
	r.runs[1] = (struct scale_run){ .vms = 100, .total_mbps = 820, .fairness = 1.02, .have_modeled = true,
					.time_scale = 1, .host_mean_latency_ms = 500, .modeled_mean_latency_ms = 400,
					.machine_share = 0.2, .machine_share_exact = true, .machine_limited = true,
					.suggested_time_scale = 10,
					.conn = { .reconnects = 100, .resent = 100, .outage_s = 150, .longest_outage_s = 1.5 } };
	r.runs[0].conn.task_set_full = 9;
	json_object *o = roundtrip(json_scale(&r));
	assert_string_equal(json_object_get_string(path(o, "data", NULL)), "win10");
	assert_string_equal(json_object_get_string(path(o, "pattern", NULL)), "sequential");
	json_object *runs = path(o, "runs", NULL);
	assert_int_equal(json_object_array_length(runs), 2);
	json_object *e = json_object_array_get_idx(runs, 1);
	assert_int_equal(json_object_get_int(path(e, "vms", NULL)), 100);
	assert_true(json_object_get_double(path(e, "total_mbps", NULL)) == 820);
	assert_true(json_object_get_double(path(e, "fairness", NULL)) == 1.02);
	assert_true(json_object_get_boolean(path(e, "machine_limited", NULL)));
	assert_true(json_object_get_double(path(e, "modeled", "host_mean_latency_ms")) == 500);
	assert_true(json_object_get_double(path(e, "modeled", "mean_latency_ms")) == 400);
	assert_true(json_object_get_double(path(e, "modeled", "machine_share")) == 0.2);
	assert_true(json_object_get_double(path(e, "modeled", "suggested_time_scale")) == 10);
	assert_string_equal(json_object_get_string(path(e, "modeled", "clock")), "real");
	assert_int_equal(json_object_get_int(path(e, "connection", "reconnects")), 100);
	assert_true(json_object_get_double(path(e, "connection", "longest_outage_s")) == 1.5);
	/* top level: the sum over the runs */
	assert_int_equal(json_object_get_int(path(o, "connection", "reconnects")), 100);
	assert_int_equal(json_object_get_int(path(o, "connection", "task_set_full")), 9);
	assert_true(json_object_get_double(path(o, "connection", "outage_s")) == 150);
	e = json_object_array_get_idx(runs, 0);
	assert_null(path(e, "modeled", NULL));        /* no model reported: null, key present */
	assert_false(json_object_get_boolean(path(e, "machine_limited", NULL)));
	json_object_put(o);
	/* reads say no data */
	static struct scale_result rd = { .bs = 4096, .qd = 32, .n = 0, .random = true };
	o = roundtrip(json_scale(&rd));
	json_object *v = NULL;
	assert_false(json_object_object_get_ex(o, "data", &v));
	assert_string_equal(json_object_get_string(path(o, "pattern", NULL)), "random");
	json_object_put(o);
}

static void drr_keys(void **state)
{
	static struct drr_result r = { .image_bytes = 100, .settled = true, .settle_s = 2.5, .have_capacity = true,
				       .source = "s", .readback_bytes = 65536, .conn = { .reconnects = 1, .resent = 8 } };
	r.cap = (struct array_capacity){ .logical_bytes = 11970, .physical_bytes = 6990, .unique_bytes = 9000,
					 .dedup_ratio = 1.33, .compression_ratio = 1.287, .drr = 1.712 };
	json_object *o = roundtrip(json_drr(&r));
	assert_int_equal(json_object_get_int64(path(o, "logical_bytes", NULL)), 11970);
	assert_int_equal(json_object_get_int64(path(o, "physical_bytes", NULL)), 6990);
	assert_true(json_object_get_double(path(o, "dedup_ratio", NULL)) == 1.33);
	assert_true(json_object_get_double(path(o, "compression_ratio", NULL)) == 1.287);
	assert_true(json_object_get_double(path(o, "drr", NULL)) == 1.712);
	assert_true(json_object_get_double(path(o, "settle_s", NULL)) == 2.5);
	assert_int_equal(json_object_get_int64(path(o, "readback_bytes", NULL)), 65536);
	assert_int_equal(json_object_get_int(path(o, "connection", "resent")), 8);
	/* every counter is there, zero or not */
	static const char *const keys[] = { "reconnects", "outage_s", "longest_outage_s", "resent", "timeouts",
					    "aborts", "busy", "task_set_full", "unit_attentions", "resets",
					    "not_ready", "aborted_commands" };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		assert_non_null(path(o, "connection", keys[i]));
	json_object_put(o);
}

static void info_keys(void **state)
{
	static struct info_result r = { .vendor = "LUNLAB", .product = "x2", .num_blocks = 8, .block_size = 512,
					.xcopy_opcode = 1, .caw = 0, .write_same16 = -1, .unmap = 1 };
	json_object *o = roundtrip(json_info(&r));
	assert_int_equal(json_object_get_int64(path(o, "capacity_bytes", NULL)), 4096);
	assert_true(json_object_get_boolean(path(o, "vaai", "extended_copy")));
	assert_false(json_object_get_boolean(path(o, "vaai", "compare_and_write")));
	assert_null(path(o, "vaai", "write_same"));          /* unknown */
	assert_null(path(o, "array", NULL));
	assert_non_null(path(o, "thin", "lbpme"));
	assert_int_equal(json_object_get_int(path(o, "connection", "unit_attentions")), 0);
	json_object_put(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(clone_keys),
		cmocka_unit_test(scale_keys),
		cmocka_unit_test(drr_keys),
		cmocka_unit_test(info_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
