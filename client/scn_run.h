/* scn_run.h - run a parsed scenario: start its arrays, its workloads and its timeline,
 * print the timeline as it happens, judge the expectations, stop everything. */
#ifndef LUNLAB_CLIENT_SCN_RUN_H
#define LUNLAB_CLIENT_SCN_RUN_H

#include <stdbool.h>
#include <stdio.h>

#include <json-c/json.h>

#include "client/scn_model.h"

struct scn_run_opts {
	const char *self;              /* this lunlab-bench, for the built-in workloads */
	const char *target_bin;        /* lunlab-target */
	uint64_t seed;
	FILE *log;                     /* the readable timeline */
	bool keep_dir;                 /* keep the run directory (logs, outputs, state) */
};

struct scn_xresult {
	bool ok;
	char observed[SCN_TEXT * 2];
	double time_s;                 /* the workload's duration (JUnit time) */
};

struct scn_result {
	int status;                    /* 0 every expectation held, 1 one did not, 2 could not run */
	char error[SCN_TEXT * 2];      /* status 2: why */
	double seconds;
	double runner_cpu_s;           /* the runner's own CPU (its children not included) */
	double workloads_cpu_s;        /* the workloads' CPU, as wait4 reported it */
	char rundir[SCN_TEXT];
	struct scn_xresult x[SCN_MAX_EXPECT];
	json_object *timeline;         /* [{"t": s, "what": text}] */
	json_object *workloads;        /* {name: {"exit", "seconds", "timed_out", "report"}} */
};

int scn_run(const struct scn_model *m, const struct scn_run_opts *o, struct scn_result *r);
void scn_result_free(struct scn_result *r);

/* a number at a dot path ("runs.0.fallback_clones") of j; 0 or -1 */
int scn_json_number(json_object *j, const char *path, double *out);

#endif
