/* main.c - lunlab-bench entry point: parse, run one scenario, render it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "client/cli.h"
#include "client/conn.h"
#include "client/plot_svg.h"
#include "client/report.h"
#include "client/scenarios.h"

static void print_json(json_object *o)
{
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

static int run(const struct bench_opts *o, char *err, size_t errlen);

int main(int argc, char **argv)
{
	static struct bench_opts o;
	char err[1024];
	int rc = cli_parse(argc, argv, &o, err, sizeof(err));
	if (rc == 1) {
		fputs(err, stdout);
		return 0;
	}
	if (rc) {
		fprintf(stderr, "lunlab-bench: %s\n", err);
		return 2;
	}
	const struct conn_policy policy = { .timeout_s = o.timeout_s, .status_line = !o.quiet && isatty(STDERR_FILENO) };
	conn_set_policy(&policy);
	rc = run(&o, err, sizeof(err));
	/* A session that failed for good is the cause, whatever the scenario made of the commands
	 * it lost (a query that "failed" is not a feature the LU lacks): one line, exit 3. */
	if (conn_fatal_error()) {
		fprintf(stderr, "lunlab-bench: %s\n", conn_fatal_error());
		return 3;
	}
	if (rc == -1)
		fprintf(stderr, "lunlab-bench: %s\n", err);
	return rc ? 1 : 0;
}

/* Run the subcommand and print its report; 0, -1 with err, -2 when the report could not be
 * written (said already). */
static int run(const struct bench_opts *op, char *err, size_t errlen)
{
	const struct bench_opts o = *op;
	/* a report is printed only when no session failed for good (main prints that instead) */
	switch (o.cmd) {
	case CMD_INFO: {
		static struct info_result r;
		if (scenario_info(&o, &r, err, errlen) || conn_fatal_error())
			break;
		if (o.format == OUT_JSON) print_json(json_info(&r));
		else if (o.format == OUT_CSV) csv_info(stdout, &r);
		else table_info(stdout, &r);
		return 0;
	}
	case CMD_SCALE: {
		static struct scale_result r;
		if (scenario_scale(&o, &r, err, errlen) || conn_fatal_error())
			break;
		if (o.format == OUT_JSON) print_json(json_scale(&r));
		else if (o.format == OUT_CSV) csv_scale(stdout, &r);
		else table_scale(stdout, &r);
		if (o.plot_path && write_plot(o.plot_path, plot_scale_cb, &r))
			return -2;
		return 0;
	}
	case CMD_CLONE: {
		static struct clone_result r;
		FILE *explain = o.format == OUT_TABLE ? stdout : stderr;
		if (scenario_clone(&o, &r, explain, err, errlen) || conn_fatal_error())
			break;
		if (o.format == OUT_JSON) print_json(json_clone(&r));
		else if (o.format == OUT_CSV) csv_clone(stdout, &r);
		else table_clone(stdout, &r);
		if (o.plot_path && write_plot(o.plot_path, plot_clone_cb, &r))
			return -2;
		return 0;
	}
	case CMD_DRR: {
		static struct drr_result r;
		if (scenario_drr(&o, &r, err, errlen) || conn_fatal_error())
			break;
		if (o.format == OUT_JSON) print_json(json_drr(&r));
		else if (o.format == OUT_CSV) csv_drr(stdout, &r);
		else table_drr(stdout, &r);
		return 0;
	}
	default:
		snprintf(err, errlen, "no command");
		break;
	}
	return -1;
}
