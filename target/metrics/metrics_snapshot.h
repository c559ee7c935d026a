/* metrics_snapshot.h — every figure lunlab-target shows of itself and its
 * arrays at one moment, gathered in one place so that /metrics (Prometheus
 * text, metrics_prom.c) and the dashboard's JSON (metrics_json.c) always
 * say the same thing.
 *
 * Where each figure comes from (layers call downward only):
 *   target core   per-LU commands, wire bytes and observed latency by kind
 *                 (target/lu/lu_stats.h), logins and sessions
 *                 (target/iscsi/iscsi_stats.h), the process's RSS and CPU;
 *   the array     through include/lunlab/array_ctl.h only: each LU's labels
 *                 (array, volume, profile), covered bytes and modeled
 *                 figures (lu_figures), each array's capacity figures
 *                 (array_figures) and model totals (array_model). */
#ifndef LUNLAB_METRICS_SNAPSHOT_H
#define LUNLAB_METRICS_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lunlab/array_ctl.h"
#include "target/iscsi/iscsi_stats.h"
#include "target/iscsi/path_stats.h"
#include "target/iscsi/login_throttle.h"
#include "target/lu/fault_rules.h"
#include "target/lu/lu_stats.h"

struct metrics_lu {
	uint64_t lun;                     /* a --lun LU's LUN (global) */
	bool global;                      /* false: an API volume, seen at per-initiator LUNs */
	bool have_array;                  /* the handler answered lu_figures */
	struct lunlab_lu_figures arr;     /* labels and the array's figures ("" / 0 without) */
	struct lu_kind_figures host[LU_KINDS];
};

/* one end of the I_T paths (path_stats.h): a portal or an initiator */
struct metrics_path {
	char name[PATH_STATS_NAME_MAX];   /* the portal's "host:port", or the IQN */
	struct lu_kind_figures f[LU_KINDS];
};

struct metrics_array {
	char name[LUNLAB_ARRAY_NAME_MAX];
	char profile[32];
	bool have_figures;                /* array_figures answered */
	struct lunlab_array_figures fig;
	bool have_model;                  /* array_model answered */
	struct lunlab_model_figures model;
};

struct metrics_snapshot {
	double time_s;                    /* CLOCK_REALTIME, seconds, when gathered */
	uint64_t rss_bytes;               /* resident set of the process */
	double cpu_seconds;               /* user + system CPU of the process */
	uint64_t sessions[2];             /* [0] normal, [1] discovery */
	uint64_t logins[LOGIN_RESULTS];
	/* failed logins (API passwords, CHAP answers), tries refused unchecked
	 * while their address waited, addresses locked out now (login_throttle.h) */
	uint64_t auth_failures[LOGIN_THROTTLE_KINDS], auth_refused[LOGIN_THROTTLE_KINDS];
	uint64_t auth_locked;
	uint64_t fault_hits[FAULT_ACTIONS]; /* rules fired since the start, by action */
	size_t nrules;                    /* the fault rules live now (docs/faults.md) */
	struct fault_rule_info *rules;
	size_t nlu;
	struct metrics_lu *lu;
	size_t narr;
	struct metrics_array *arr;
	size_t nportal, nini;             /* path_stats.h */
	struct metrics_path *portal, *ini;
	uint64_t ini_untracked;           /* commands of initiators beyond the bound */
};

/* Gathers everything now.  0, or -ENOMEM (nothing to free then). */
int metrics_snapshot_take(struct metrics_snapshot *s);
void metrics_snapshot_free(struct metrics_snapshot *s);

/* The ratios LOG SENSE page 30h reports (logical/unique, unique/physical,
 * logical/physical), 0 where the denominator is 0, as that page does. */
double metrics_ratio(uint64_t num, uint64_t den);

/* Bounds of the shared latency buckets in seconds (latency_buckets.h). */
extern const double metrics_lat_bounds_s[LUNLAB_LAT_BOUNDS];

#endif
