/* main.c - lunlab-bench entry point: parse, run one scenario, render it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "client/cli.h"
#include "client/plot_svg.h"
#include "client/report_calibrate.h"
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
	switch (o.cmd) {
	case CMD_INFO: {
		static struct info_result r;
		if (scenario_info(&o, &r, err, sizeof(err)))
			break;
		if (o.format == OUT_JSON) print_json(json_info(&r));
		else if (o.format == OUT_CSV) csv_info(stdout, &r);
		else table_info(stdout, &r);
		return 0;
	}
	case CMD_SCALE: {
		static struct scale_result r;
		if (scenario_scale(&o, &r, err, sizeof(err)))
			break;
		if (o.format == OUT_JSON) print_json(json_scale(&r));
		else if (o.format == OUT_CSV) csv_scale(stdout, &r);
		else table_scale(stdout, &r);
		if (o.plot_path && write_plot(o.plot_path, plot_scale_cb, &r))
			return 1;
		return 0;
	}
	case CMD_CLONE: {
		static struct clone_result r;
		FILE *explain = o.format == OUT_TABLE ? stdout : stderr;
		if (scenario_clone(&o, &r, explain, err, sizeof(err)))
			break;
		if (o.format == OUT_JSON) print_json(json_clone(&r));
		else if (o.format == OUT_CSV) csv_clone(stdout, &r);
		else table_clone(stdout, &r);
		if (o.plot_path && write_plot(o.plot_path, plot_clone_cb, &r))
			return 1;
		return 0;
	}
	case CMD_DRR: {
		static struct drr_result r;
		if (scenario_drr(&o, &r, err, sizeof(err)))
			break;
		if (o.format == OUT_JSON) print_json(json_drr(&r));
		else if (o.format == OUT_CSV) csv_drr(stdout, &r);
		else table_drr(stdout, &r);
		return 0;
	}
	case CMD_CALIBRATE: {
		static struct calib_result r;
		if (scenario_calibrate(&o, &r, err, sizeof(err)))
			break;
		if (o.format == OUT_JSON) print_json(json_calibrate(&r));
		else table_calibrate(stdout, &r);
		return 0;
	}
	default:
		snprintf(err, sizeof(err), "no command");
		break;
	}
	fprintf(stderr, "lunlab-bench: %s\n", err);
	return 1;
}
