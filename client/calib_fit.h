/* calib_fit.h - fit the cost model's parameters (models/cost.c, docs/models.md "Cost model")
 * to what a host measured: per-command times of one command kind and size, either at queue
 * depth 1 on an idle array or saturated (enough commands outstanding that the busiest resource
 * never idles).  docs/calibrate.md explains the method; in short:
 *
 *   saturated time = max over resources r of line_r(params)        (the bottleneck's service)
 *   QD1 latency    = max over resources r of line_r(params) + fixed (+ per-MiB XCOPY delay)
 *
 * where every line is linear in the parameters (cpu: per command + per map entry + per MiB +
 * per extra XCOPY segment, on the pooled cores; journal: per command + per entry; front-end
 * and back-end: per byte).  Given which resource is the maximum of each measurement the model
 * is linear, so the fit alternates: assign each measurement its largest line, solve the
 * weighted linear least squares (GSL, weights 1/sigma^2, parameters >= 0), reassign, until the
 * assignment no longer changes; from many starting points, keeping the lowest chi-square.
 * A parameter no measurement was bound by is not fitted: it only has an upper bound.
 *
 * Pure: no I/O, so tests/unit/client/test_calib_fit.c drives it with measurements that the
 * cost model itself produced. */
#ifndef LUNLAB_CLIENT_CALIB_FIT_H
#define LUNLAB_CLIENT_CALIB_FIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum calib_kind { CK_READ, CK_WRITE, CK_VERIFY, CK_WRITE_SAME, CK_UNMAP, CK_XCOPY, CK_N };
enum calib_obs { OBS_QD1, OBS_SAT };
enum calib_res { RES_CPU, RES_JOURNAL, RES_FRONTEND, RES_BACKEND, RES_N };

/* The fitted parameters.  cpu_* are pool time (core-ns / cores: a host sees only the work
 * divided by the cores); FE and BE are ns per byte (1000 / MB/s); FIXED is what the profile's
 * fixed_latency_ns and host_turnaround_ns add together (a host cannot tell them apart);
 * XC_MIB is the per-MiB delay of an XCOPY that occupies no resource
 * (host_turnaround_ns_per_mib). */
enum calib_param {
	P_CPU_CMD, P_CPU_ENTRY, P_CPU_MIB, P_CPU_SEG, P_J_CMD, P_J_ENTRY, P_FE, P_BE, P_FIXED, P_XC_MIB, P_N
};

enum calib_status {
	ST_UNMEASURED,   /* no measurement involves it (the command is not supported) */
	ST_BOUND,        /* never the limit of a measurement: only an upper bound */
	ST_CONFOUNDED,   /* involved, but the measurements cannot separate it from the others:
	                  * value 0 when another parameter carries its effect, the value kept
	                  * when it carries another's */
	ST_WEAK,         /* fitted, 95% interval wider than +-10% */
	ST_FITTED,       /* fitted, 95% interval within +-10% */
};

struct calib_row {
	enum calib_kind kind;
	enum calib_obs obs;
	uint64_t wire;           /* bytes over the wire per command (data, parameter list) */
	uint64_t covered;        /* bytes of the LU the command covers */
	unsigned segments;       /* XCOPY segment descriptors (1 otherwise) */
	double y;                /* measured ns: saturated time per command, or QD1 latency minus
	                          * the transport's own round trip */
	double sigma;            /* its standard error, ns (> 0) */
	bool bound_only;         /* this host, not the LU, may have set it: not fitted, only an
	                          * upper bound of the LU's time */
	/* filled by calib_fit */
	int active;              /* the resource that is the maximum (-1: none) */
	double pred;             /* the fitted value */
	/* private to calib_fit.c: the coefficients for the dedup block being fitted */
	double cache[RES_N + 1][P_N]; /* [RES_N]: the QD1 offset (fixed, per-MiB XCOPY delay) */
	unsigned cache_uses;          /* bit r: the command uses resource r */
};

struct calib_fit {
	uint32_t dedup_block;
	double v[P_N];           /* value (0 unless FITTED/WEAK) */
	double se[P_N];          /* standard error */
	double bound[P_N];       /* BOUND: upper bound (INFINITY when nothing bounds it) */
	enum calib_status st[P_N];
	unsigned nactive[P_N];   /* measurements whose maximum involves the parameter */
	double chi2;             /* weighted, of the rows fitted */
	int dof;
	unsigned nfit;           /* rows fitted */
};

/* Coefficient of parameter p in resource r's line for a row (dedup block D). */
double calib_coef(const struct calib_row *r, uint32_t dedup_block, enum calib_res res, enum calib_param p);
/* Does the row's command use resource res at all? */
bool calib_uses(const struct calib_row *r, enum calib_res res);

/* Fit rows[n] for one dedup block.  Fills rows[].active and .pred.  Returns 0, or -1 when
 * fewer rows than needed could be fitted. */
int calib_fit(struct calib_row *rows, size_t n, uint32_t dedup_block, struct calib_fit *out);

/* Fit for every power-of-two dedup block from lo to hi and keep the lowest chi-square
 * (the dedup block changes the entries of each command: ceil(covered / D)).  chi2_by_block[i]
 * receives the chi-square of lo << i when not NULL (nblocks entries).  Returns as calib_fit. */
int calib_fit_search(struct calib_row *rows, size_t n, uint32_t lo, uint32_t hi, struct calib_fit *out,
		     double *chi2_by_block, unsigned nblocks);

const char *calib_param_name(enum calib_param p);
const char *calib_kind_name(enum calib_kind k);
const char *calib_res_name(enum calib_res r);
const char *calib_status_name(enum calib_status s);

#endif
