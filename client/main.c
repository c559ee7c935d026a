/* main.c - lunlab-bench entry point: parse, run one scenario, render it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "client/cli.h"
#include "client/conn.h"
#include "client/metrics_record.h"
#include "client/plot_svg.h"
#include "client/report_calibrate.h"
#include "client/report.h"
#include "client/scenarios.h"
#include "lunlab_version.h"
#include "client/scn_main.h"

/* --metrics-url: the target's figures recorded during the run */
static struct metrics_record *g_rec;
static json_object *g_array_metrics;

/* Stops the recorder; a failed last reading is reported, not fatal (the run's own
 * figures stand). */
static void record_finish(void)
{
	char err[512];

	if (!g_rec)
		return;
	g_array_metrics = metrics_record_finish(g_rec, err, sizeof(err));
	g_rec = NULL;
	if (!g_array_metrics)
		fprintf(stderr, "lunlab-bench: --metrics-url: %s\n", err);
}

/* The run failed: no report, so no last reading either (the target may be gone) */
static void record_abandon(void)
{
	if (g_rec)
		metrics_record_cancel(g_rec);
	g_rec = NULL;
}

/* What the array saw, for the table output: the whole run's view */
static void table_array_metrics(FILE *f)
{
	json_object *run, *arrs;

	if (!g_array_metrics || !json_object_object_get_ex(g_array_metrics, "run", &run) ||
	    !json_object_object_get_ex(run, "arrays", &arrs))
		return;
	fprintf(f, "\nwhat the array saw (--metrics-url, first to last reading):\n");
	for (size_t i = 0; i < json_object_array_length(arrs); i++) {
		json_object *a = json_object_array_get_idx(arrs, i), *x;
		char ml[32] = "-", ol[32] = "-";
#define D(k) (json_object_object_get_ex(a, k, &x) ? json_object_get_double(x) : 0)
		if (D("cloned_bytes") == 0 && D("wire_bytes") == 0)
			continue; /* an array the run did not touch */
		if (D("modeled_latency_s") >= 0)
			snprintf(ml, sizeof(ml), "%.1f us", D("modeled_latency_s") * 1e6);
		if (D("observed_latency_s") >= 0)
			snprintf(ol, sizeof(ol), "%.1f us", D("observed_latency_s") * 1e6);
		fprintf(f, "  array %s: cloned %.0f bytes inside the array, %.0f bytes over the wire; modeled CPU %.1f%%, "
			   "mean latency modeled %s, observed by the target %s\n",
			json_object_object_get_ex(a, "name", &x) ? json_object_get_string(x) : "?", D("cloned_bytes"),
			D("wire_bytes"), D("modeled_cpu_pct"), ml, ol);
#undef D
	}
}

static void print_json(json_object *o)
{
	if (g_array_metrics) {
		json_object_object_add(o, "array_metrics", g_array_metrics);
		g_array_metrics = NULL;
	}
	printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

static int write_plot(const char *path, int (*fn)(FILE *, const void *), const void *r)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "lunlab-bench: --plot: cannot create %s\n", path);
		return -1;
	}
	int rc = fn(f, r);
	if (fclose(f) || rc) {
		fprintf(stderr, "lunlab-bench: --plot: writing %s failed\n", path);
		return -1;
	}
	return 0;
}

static int plot_scale_cb(FILE *f, const void *r) { return plot_scale_svg(f, r); }
static int plot_clone_cb(FILE *f, const void *r) { return plot_clone_svg(f, r); }

static int run(const struct bench_opts *po, char *err, size_t errlen);

int main(int argc, char **argv)
{
	static struct bench_opts o;
	char err[1024];
	if (lunlab_version_asked(argc, argv)) {
		lunlab_version_print(stdout, "lunlab-bench");
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "scenario")) /* its own command line (client/scn_main.c) */
		return scn_main(argc - 1, argv + 1);
	int rc = cli_parse(argc, argv, &o, err, sizeof(err));
	if (rc == 1) {
		fputs(cli_usage(), stdout);
		return 0;
	}
	if (rc) {
		fprintf(stderr, "lunlab-bench: %s\n", err);
		return 2;
	}
	/* an iSCSI URL libiscsi cannot parse (no LUN, a typo) is bad usage, as the parser's
	 * own refusals: exit 2, before any connection */
	if (o.cmd != CMD_WATCH && (conn_check_url(o.url, err, sizeof(err)) ||
				   (o.dest_url && conn_check_url(o.dest_url, err, sizeof(err))))) {
		fprintf(stderr, "lunlab-bench: %s\n", err);
		return 2;
	}
	const struct conn_policy policy = { .timeout_s = o.timeout_s, .status_line = !o.quiet && isatty(STDERR_FILENO) };
	conn_set_policy(&policy);
	if (o.cmd == CMD_WATCH) {
		rc = scenario_watch(&o, err, sizeof(err));
	} else if (o.metrics_url && !(g_rec = metrics_record_start(o.metrics_url, o.metrics_insecure, o.interval_s,
								   err, sizeof(err)))) {
		if (!conn_fatal_error()) {
			fprintf(stderr, "lunlab-bench: --metrics-url: %s\n", err);
			return 1;
		}
		rc = -1;
	} else {
		rc = run(&o, err, sizeof(err));
		json_object_put(g_array_metrics);
	}
	/* A session (or an HTTP endpoint: watch, --api) that failed for good is the cause,
	 * whatever the scenario made of the commands it lost (a query that "failed" is not a
	 * feature the LU lacks): one line, exit 3. */
	if (conn_fatal_error()) {
		fprintf(stderr, "lunlab-bench: %s\n", conn_fatal_error());
		return 3;
	}
	if (rc == -1)
		fprintf(stderr, "lunlab-bench: %s\n", err);
	return rc ? 1 : 0;
}

/* Run the subcommand and print its report; 0, -1 with err, -2 when the report could not be
 * written (said already).  The --metrics-url recorder stops between the run and its report.
 * A report is printed only when no session failed for good (main prints that instead). */
static int run(const struct bench_opts *po, char *err, size_t errlen)
{
	const struct bench_opts o = *po;

	switch (o.cmd) {
	case CMD_INFO: {
		static struct info_result r;
		if (scenario_info(&o, &r, err, errlen) || conn_fatal_error())
			break;
		record_finish();
		if (o.format == OUT_JSON) {
			json_object *j = json_info(&r);
			if (r.have_cluster)
				json_object_object_add(j, "cluster", json_cluster(&r));
			print_json(j);
		} else if (o.format == OUT_CSV) {
			csv_info(stdout, &r);
		} else {
			table_info(stdout, &r);
			if (r.have_cluster)
				table_cluster(stdout, &r);
			table_array_metrics(stdout);
		}
		return 0;
	}
	case CMD_SCALE: {
		static struct scale_result r;
		if (scenario_scale(&o, &r, err, errlen) || conn_fatal_error())
			break;
		record_finish();
		if (o.format == OUT_JSON) print_json(json_scale(&r));
		else if (o.format == OUT_CSV) csv_scale(stdout, &r);
		else table_scale(stdout, &r), table_array_metrics(stdout);
		if (o.plot_path && write_plot(o.plot_path, plot_scale_cb, &r))
			return -2;
		/* --keep-going: the run went on after failed commands; it still failed */
		for (unsigned i = 0; i < r.n; i++)
			if (r.runs[i].failed_ios) {
				snprintf(err, errlen, "%llu command(s) failed at %u VMs; the first: %s",
					 (unsigned long long)r.runs[i].failed_ios, r.runs[i].vms, r.runs[i].first_failure);
				return -1;
			}
		return 0;
	}
	case CMD_CLONE: {
		static struct clone_result r;
		if (o.mode == MODE_SNAPSHOT) {
			static struct snapclone_result sr;
			if (scenario_snapclone(&o, &sr, err, errlen) || conn_fatal_error())
				break;
			record_finish();
			if (o.format == OUT_JSON) print_json(json_snapclone(&sr));
			else if (o.format == OUT_CSV) csv_snapclone(stdout, &sr);
			else table_snapclone(stdout, &sr), table_array_metrics(stdout);
			return 0;
		}
		FILE *explain = o.format == OUT_TABLE ? stdout : stderr;
		if (scenario_clone(&o, &r, explain, err, errlen) || conn_fatal_error())
			break;
		record_finish();
		if (o.format == OUT_JSON) print_json(json_clone(&r));
		else if (o.format == OUT_CSV) csv_clone(stdout, &r);
		else table_clone(stdout, &r), table_array_metrics(stdout);
		if (o.plot_path && write_plot(o.plot_path, plot_clone_cb, &r))
			return -2;
		return 0;
	}
	case CMD_DRR: {
		static struct drr_result r;
		if (scenario_drr(&o, &r, err, errlen) || conn_fatal_error())
			break;
		record_finish();
		if (o.format == OUT_JSON) print_json(json_drr(&r));
		else if (o.format == OUT_CSV) csv_drr(stdout, &r);
		else table_drr(stdout, &r), table_array_metrics(stdout);
		return 0;
	}
	case CMD_CALIBRATE: {
		static struct calib_result r;
		if (scenario_calibrate(&o, &r, err, errlen) || conn_fatal_error())
			break;
		record_finish();
		if (o.format == OUT_JSON) print_json(json_calibrate(&r));
		else table_calibrate(stdout, &r), table_array_metrics(stdout);
		return 0;
	}
	default:
		snprintf(err, errlen, "no command");
		break;
	}
	record_abandon();
	return -1;
}
