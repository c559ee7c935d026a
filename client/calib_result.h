/* calib_result.h - everything calibrate measured, fitted and wrote; the report writers
 * (client/report_calibrate.c) render this and nothing else. */
#ifndef LUNLAB_CLIENT_CALIB_RESULT_H
#define LUNLAB_CLIENT_CALIB_RESULT_H

#include <stdbool.h>
#include <stdint.h>

#include "client/calib_dr.h"
#include "client/calib_fit.h"
#include "client/calib_load.h"
#include "client/calib_profile.h"

#define CALIB_MAX_POINTS 48
#define CALIB_MAX_TRIES 6
#define CALIB_MAX_DR 24
#define CALIB_MAX_NOTES 16

struct calib_try {
	unsigned q;
	double rate, rate_se;         /* commands per second, as this host saw them */
	double cpu_share;
	double pred_rate;             /* the fitted profile's closed loop at this q (0: none) */
};

struct calib_point_result {
	struct calib_point pt;
	bool measured;                /* false: skipped, reason says why */
	char reason[200];
	double qd1_ns, qd1_mad_ns;    /* host-observed latency at queue depth 1, real time */
	unsigned qd1_n;
	struct calib_try tries[CALIB_MAX_TRIES];
	unsigned ntries;
	bool saturated;               /* the last try kept the busiest resource busy */
	bool machine_limited;         /* this host, not the LU, may have set the saturated rate */
	bool contended;               /* with more outstanding each command took longer than alone:
	                               * no row from the rates (the model cannot describe it) */
	char limit_reason[200];
	bool lu_failed;               /* a command failed with a sense key other than ILLEGAL REQUEST
	                               * (the LU timed its own work out): the kind's larger sizes are
	                               * not measured */
	int row_qd1, row_sat;         /* rows[] of the fit, -1 none */
};

struct calib_result {
	char vendor[9], product[17], revision[5];
	uint64_t capacity;
	uint32_t bs;
	/* the array's usable capacity and soft threshold (calib_capacity.h) */
	uint64_t usable_bytes, usable_lo, usable_hi;
	bool usable_measured, soft_measured;
	unsigned soft_threshold_pct;
	char capacity_how[240], soft_how[200];
	char where[600];              /* portal, target, LUN: never the credentials */
	char dest[600];               /* the --dest LU, "" without */
	uint64_t offset, region;      /* bytes */
	double time_scale, budget_s, elapsed_s;
	double phase_s[5];            /* floor, filling the read area, timings, data reduction, fit */
	double nop_rtt_ns, nop_mad_ns, nop_rate;
	double loopback_mb_s;         /* < 0: not measured (the portal is not this host) */
	bool supported[CK_N];
	char unsupported[CK_N][200];  /* why a kind was not measured */
	struct calib_point_result pts[CALIB_MAX_POINTS];
	unsigned npts;
	struct calib_row rows[2 * CALIB_MAX_POINTS];
	unsigned nrows;
	struct calib_fit fit;
	const char *dedup_source;     /* "data", "timing" or "assumed" */
	double chi2_by_block[12];     /* timing search: dedup block 512 << i */
	bool have_chi2_by_block;
	/* data reduction */
	bool have_dr;
	char dr_reason[200];          /* why not, when !have_dr */
	struct dr_measure dr[CALIB_MAX_DR];
	uint64_t dr_pred_unique[CALIB_MAX_DR], dr_pred_physical[CALIB_MAX_DR];
	unsigned ndr;
	uint32_t dr_dedup_block;      /* 0: no kind deduplicated */
	bool dr_zero_stored;          /* the zero kind took space */
	struct dr_params drp;
	struct dr_fit_report drrep;
	bool have_drfit;
	/* the profile */
	struct calib_profile_doc doc;
	char out_path[512];
	struct conn_stats conn;       /* what the connection layer did, summed over every session
	                               * (a timing cut by a lost session was run again) */
	char notes[CALIB_MAX_NOTES][400];
	unsigned nnotes;
	bool machine_limited;         /* some figure is this host's, not the LU's */
};

#endif
