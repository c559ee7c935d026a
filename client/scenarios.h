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

#endif
