/* calib_ctx.h - what the parts of lunlab-bench calibrate share while it runs (the scenario in
 * scenario_calibrate.c, the timings in calib_measure.c, data reduction in calib_drrun.c).
 * Private to those three files. */
#ifndef LUNLAB_CLIENT_CALIB_CTX_H
#define LUNLAB_CLIENT_CALIB_CTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "client/calib_describe.h"
#include "client/calib_result.h"
#include "client/cli.h"
#include "client/conn.h"
#include "client/vpd_b0.h"

#define CALIB_MIB (1ull << 20)
#define POOL_MAX 8              /* sessions in the load pool */
#define PER_SESSION 32          /* commands outstanding per session at most */
#define WRITE_BUFFERS_MAX (256ull << 20)

enum area_id { A_READ, A_WRITE, A_XCOPY, A_SAME, A_DR, A_N };

/* areas of the region, in this order, on 1 MiB boundaries (scenario_calibrate.c "layout") */
struct cctx {
	const struct bench_opts *o;
	struct calib_result *r;
	/* every session of the run in one array, so that one conn_poll_many services them all
	 * (calib_load.h): main at 0, dmain at 1 (unused without --dest), then pool and dpool */
	struct bench_conn sess[2 + 2 * POOL_MAX];
	unsigned nsess;
	struct bench_conn *main, *dmain;  /* identification, queries, fills, UNMAP (dmain: --dest) */
	bool have_dest;
	struct bench_conn *pool, *dpool;  /* the load: npool sessions to the LU, ndpool to --dest */
	unsigned npool, ndpool;
	struct calib_target t;
	struct b0_limits b0;
	struct calib_area area[A_N];   /* A_XCOPY on the destination LU with --dest */
	uint64_t written_end[A_N];     /* one past the last LBA written in each area (0: none) */
	uint64_t stamp;
	double t_start;
	uint64_t lbp_set_blocks;       /* LOG SENSE 0Ch counts threshold sets of this many blocks
	                                * (2^THRESHOLD EXPONENT of VPD B2h; 1 without one) */
	bool lbp_listed;               /* LOG SENSE 00h listed page 0Ch, asked before the timings (a LU
	                                * the timings overloaded may not answer promptly after them) */
};

void calib_track_written(struct cctx *x, enum area_id a, uint64_t end_lba);
const char *calib_area_name(enum area_id a);
/* write `spec` (calib_dr.h) at lba, at most 1 MiB and the LU's limit per WRITE, 8 in flight */
int calib_write_kind(struct cctx *x, const struct dr_spec *spec, uint64_t lba, const char *label, char *err,
		     size_t errlen);
/* UNMAP blocks from lba in the LU's largest allowed pieces.  Returns 0 or -1. */
int calib_unmap_range(struct cctx *x, struct bench_conn *c, uint64_t lba, uint64_t blocks);

/* calib_measure.c: the ladder of points, their measurement, and the fit's rows */
void calib_plan(struct cctx *x);
/* 1: refused (reason set), 0: measured, -1: failure */
int calib_measure_point(struct cctx *x, struct calib_point_result *pr, double slice, char *err, size_t errlen);
void calib_verify_sanity(struct cctx *x);
void calib_make_rows(struct cctx *x);

/* calib_drrun.c: the data kinds through LOG SENSE 0Ch, and their fit.  Returns 0 (r->have_dr
 * says whether figures came, r->dr_reason why not), or -1 on a failure. */
int calib_data_reduction(struct cctx *x, char *err, size_t errlen);

#endif
