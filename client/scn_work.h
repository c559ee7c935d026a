/* scn_work.h - the workloads of a scenario at run time, each a child process: built-in
 * clone and scale run this lunlab-bench's own subcommands (--json), verify is the
 * write-then-verify stream (scn_verify.c) in a forked child, run: is /bin/sh -c with the
 * arrays' URLs and API credentials in its environment.  Their output goes to files in the
 * run directory; the expectations read it afterwards. */
#ifndef LUNLAB_CLIENT_SCN_WORK_H
#define LUNLAB_CLIENT_SCN_WORK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <json-c/json.h>

#include "client/scn_array.h"
#include "client/scn_model.h"
#include "client/scn_verify.h"

struct scn_work_rt {
	const struct scn_work *cfg;
	pid_t pid;
	bool started, done;
	double t_start, t_end;         /* seconds since the run's start */
	int exit_code;                 /* 0..255, 128+N for signal N */
	double cpu_s;                  /* user + system CPU of the child (wait4), its own children not included */
	bool timed_out;                /* stopped by the runner at the scenario's timeout */
	struct scn_progress *progress; /* verify: shared with the child */
	char out_path[SCN_TEXT], err_path[SCN_TEXT];
	char *output;                  /* stdout + stderr, read when done (bounded) */
	json_object *json;             /* the report on stdout, when it is JSON */
};

struct scn_env {
	const char *self;              /* lunlab-bench */
	const char *rundir;
	uint64_t seed;
	const struct scn_model *m;
	struct scn_array_rt *arrays;
};

int scn_work_start(struct scn_work_rt *w, const struct scn_work *cfg, const struct scn_env *env, double t,
		   char *err, size_t errlen);
/* reaps it if it ended; true when done */
bool scn_work_poll(struct scn_work_rt *w, double t);
/* the scenario ran out of time: stopped, marked timed out */
void scn_work_stop(struct scn_work_rt *w, double t);
void scn_work_free(struct scn_work_rt *w);

#endif
