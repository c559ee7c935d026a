/* scenarios.h - the subcommands.  Each fills its result struct; main renders it. */
#ifndef LUNLAB_CLIENT_SCENARIOS_H
#define LUNLAB_CLIENT_SCENARIOS_H

#include <stddef.h>
#include <stdio.h>

#include "client/cli.h"
#include "client/calib_result.h"
#include "client/results.h"

int scenario_info(const struct bench_opts *o, struct info_result *r, char *err, size_t errlen);
int scenario_scale(const struct bench_opts *o, struct scale_result *r, char *err, size_t errlen);
/* explain_out: where --explain text goes (stdout for the table, stderr with --json/--csv). */
int scenario_clone(const struct bench_opts *o, struct clone_result *r, FILE *explain_out,
		   char *err, size_t errlen);
int scenario_drr(const struct bench_opts *o, struct drr_result *r, char *err, size_t errlen);
int scenario_calibrate(const struct bench_opts *o, struct calib_result *r, char *err, size_t errlen);
/* watch URL: prints the target's live figures until --count readings (0: until killed) */
int scenario_watch(const struct bench_opts *o, char *err, size_t errlen);
/* clone --mode snapshot: clones as snapshots through the management API */
int scenario_snapclone(const struct bench_opts *o, struct snapclone_result *r, char *err, size_t errlen);

/* scale's machine check (scenario_scale.c): fills out's modeled fields from the page 0x31
 * telemetry before (t0) and after (t1) a run and the mean latency the client saw. */
struct model_telemetry;
void scale_machine_check(const struct model_telemetry *t0, const struct model_telemetry *t1, double host_mean_s,
			 double client_cpu_pct, struct scale_run *out);
/* scale --count: the model's bytes over its own clock between t0 and t1 (modeled_mbps) */
void scale_modeled_rate(const struct model_telemetry *t0, const struct model_telemetry *t1, struct scale_run *out);
struct session_page;
void scale_session_rates(const struct session_page *p0, const struct session_page *p1, struct scale_run *out);

#endif
