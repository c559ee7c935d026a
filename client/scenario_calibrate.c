/* scenario_calibrate.c - lunlab-bench calibrate: measure any iSCSI LU with what any host sees
 * (timings, standard SCSI pages), fit the cost model's parameters, write a profile that makes
 * lunlab behave like it.  The method, and which measurement identifies which parameter:
 * docs/calibrate.md.  In order:
 *   1. identify the LU (INQUIRY, READ CAPACITY, VPD B0h/83h) and lay out the region it may
 *      write (--offset, --capacity-use; --dataloss was required by the command line);
 *   2. the transport's floor: NOP-Out round trip and rate, this host's loopback TCP;
 *   3. fill the read area with unique data;
 *   4. per command kind and size: latency at queue depth 1, then the closed-loop rate at
 *      growing queue depths until the busiest resource never idles (calib_measure.c over
 *      calib_load.c);
 *   5. data reduction of generated kinds from LOG SENSE 0Ch, when the LU reports it
 *      (calib_drrun.c, calib_dr.c);
 *   6. the fit (calib_fit.c), the profile (calib_describe.c, calib_profile.c), and the
 *      closed-loop predictions of every queue depth tried, from the written profile itself;
 *   7. unmap what it wrote. */
#include "client/scenarios.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <iscsi/iscsi.h>

#include "client/calib_capacity.h"
#include "client/calib_ctx.h"
#include "client/calib_describe.h"
#include "models/profile.h"
#include "client/conn.h"
#include "client/loopback_probe.h"
#include "client/report.h"
#include "client/scsi_query.h"
#include "client/stream_write.h"
#include "client/vpd_b0.h"
#include "client/xfer_limit.h"
#include "models/cost.h"
#include "models/cost_virtual.h"
#include "models/profile_parse.h"



/* ---- 1. identity and region ---- */

static int identify(struct cctx *x, char *err, size_t errlen)
{
	struct calib_result *r = x->r;
	uint8_t buf[1024];
	int n = q_inquiry(x->main, -1, buf, 96);
	if (n < 36) {
		snprintf(err, errlen, "standard INQUIRY returned %d bytes (< 36)", n);
		return -1;
	}
	q_ascii_field(r->vendor, buf + 8, 8);
	q_ascii_field(r->product, buf + 16, 16);
	q_ascii_field(r->revision, buf + 32, 4);
	r->bs = x->main->block_size;
	r->capacity = x->main->num_blocks * x->main->block_size;
	snprintf(r->where, sizeof(r->where), "%s %s LUN %d", x->main->portal, x->main->target, x->main->lun);
	n = q_inquiry(x->main, 0x00, buf, 255);
	bool b2 = n > 0 && vpd00_lists(buf, (size_t)n, 0xb2);
	if (n > 0 && vpd00_lists(buf, (size_t)n, 0xb0)) {
		int m = q_inquiry(x->main, 0xb0, buf, 64);
		if (m < 0 || vpd_b0_decode(buf, (size_t)m, &x->b0, err, errlen))
			return -1;
	}
	/* SBC-4: page 0Ch's resource counts are in threshold sets of 2^THRESHOLD EXPONENT blocks */
	x->lbp_set_blocks = 1;
	if (b2) {
		int m = q_inquiry(x->main, 0xb2, buf, 64);
		if (m >= 5 && buf[4] > 0 && buf[4] < 32)
			x->lbp_set_blocks = 1ull << buf[4];
	}
	x->t.bs = r->bs;
	x->t.nlus = 1;
	bool naa = true;
	struct bench_conn *lus[2] = { x->main, x->dmain };
	for (unsigned i = 0; i < (x->have_dest ? 2u : 1u); i++) {
		n = q_inquiry(lus[i], 0x83, buf, sizeof(buf));
		x->t.lus[i].block_size = r->bs;
		if (n <= 0 || vpd83_find_naa(buf, (size_t)n, &x->t.lus[i]))
			naa = false;
	}
	if (x->have_dest)
		x->t.nlus = 2;
	if (!naa) {
		r->supported[CK_XCOPY] = false;
		snprintf(r->unsupported[CK_XCOPY], sizeof(r->unsupported[0]),
			 "no binary NAA designator in VPD 83h: no EXTENDED COPY can name the LU");
	}
	return 0;
}

static int layout(struct cctx *x, char *err, size_t errlen)
{
	struct calib_result *r = x->r;
	const struct bench_opts *o = x->o;
	uint64_t cap = r->capacity;
	if (o->offset % r->bs) {
		snprintf(err, errlen, "--offset %llu is not a multiple of the LU's %u-byte blocks",
			 (unsigned long long)o->offset, r->bs);
		return -1;
	}
	if (o->offset >= cap) {
		snprintf(err, errlen, "--offset %llu is past the LU's %llu bytes", (unsigned long long)o->offset,
			 (unsigned long long)cap);
		return -1;
	}
	uint64_t end = o->offset + o->capacity_use;
	if (end > cap || end < o->offset) {
		calib_note(r, "--capacity-use reaches past the LU's end: calibrate uses bytes %llu..%llu only",
		     (unsigned long long)o->offset, (unsigned long long)cap);
		end = cap;
	}
	if (x->have_dest && end > x->dmain->num_blocks * x->dmain->block_size)
		end = x->dmain->num_blocks * x->dmain->block_size;
	uint64_t start = (o->offset + CALIB_MIB - 1) / CALIB_MIB * CALIB_MIB; /* areas on 1 MiB boundaries inside the region */
	uint64_t units = end > start ? (end - start) / CALIB_MIB : 0;
	if (units < 64) {
		snprintf(err, errlen, "calibrate needs at least 64 MiB of the LU from --offset on (it has %llu MiB "
			 "there); give --capacity-use 1g or more", (unsigned long long)units);
		return -1;
	}
	r->offset = o->offset;
	r->region = end - o->offset;
	uint64_t part[A_N] = { units / 8, units / 8, units / 4, units / 4, 0 };
	part[A_DR] = units - part[0] - part[1] - part[2] - part[3];
	uint64_t at = start, per = CALIB_MIB / r->bs;
	for (int a = 0; a < A_N; a++) {
		x->area[a].lba = at / r->bs;
		x->area[a].blocks = part[a] * per;
		if (!(x->have_dest && a == A_XCOPY))
			at += part[a] * CALIB_MIB;
	}
	if (x->have_dest) /* the copies land on the second LU, in the same region */
		x->area[A_XCOPY].lba = start / r->bs;
	return 0;
}

/* ---- 2. the transport's floor ---- */

static int floors(struct cctx *x, char *err, size_t errlen)
{
	struct calib_result *r = x->r;
	unsigned reps = x->o->budget_s >= 120 ? 200 : 40;
	if (calib_nop_rtt(&x->t, x->main, reps, &r->nop_rtt_ns, &r->nop_mad_ns, err, errlen))
		return -1;
	double secs = x->o->budget_s >= 120 ? 2.0 : 0.5;
	if (calib_nop_rate(&x->t, 8, secs, &r->nop_rate, err, errlen))
		return -1;
	r->loopback_mb_s = portal_is_loopback(x->main->portal) ? loopback_tcp_mb_s(secs) : -1;
	return 0;
}

/* ---- 3. the read area ---- */

struct fillarg {
	struct dr_spec spec;
};

static int fill_spec(void *arg, uint64_t offset, uint8_t *buf, size_t len)
{
	dr_fill(&((struct fillarg *)arg)->spec, offset, buf, len);
	return 0;
}

int calib_write_kind(struct cctx *x, const struct dr_spec *spec, uint64_t lba, const char *label, char *err,
		      size_t errlen)
{
	struct fillarg fa = { .spec = *spec };
	struct stream_write_args wa = {
		.start_lba = lba, .total_bytes = spec->bytes, .qd = 8, .fill = fill_spec, .fill_arg = &fa,
		.label = label, .quiet = x->o->quiet,
	};
	wa.io_bytes = xfer_clamp_bytes(spec->bytes < CALIB_MIB ? spec->bytes : CALIB_MIB, x->r->bs, x->b0.max_xfer_blocks);
	return stream_write(x->main, &wa, err, errlen);
}

/* ---- 6. fit, profile, predictions ---- */

/* closed loop of q commands on the written profile, with this host's NOP round trip as the
 * host's turnaround: commands per second (real time, host-observed) */
static double closed_loop_rate(const struct lunlab_profile *p, const struct calib_point *pt, uint32_t bs, unsigned q,
			       double turn_ns, double scale)
{
	static const enum cost_kind ck[CK_N] = { COST_READ, COST_WRITE, COST_VERIFY, COST_WRITE_SAME, COST_UNMAP,
						 COST_XCOPY };
	struct cost_model *m = cost_model_new(p, 0);
	if (!m)
		return 0;
	struct cost_req rq = { .kind = ck[pt->kind], .bytes = calib_wire_bytes(pt, bs) };
	if (pt->kind != CK_READ && pt->kind != CK_WRITE)
		rq.xcopy_bytes = pt->bytes;
	rq.xcopy_segments = pt->segments;
	uint64_t *ready = calloc(q, sizeof(*ready));
	double rate = 0;
	if (ready) {
		unsigned total = 60 * q > 600 ? 60 * q : 600;
		uint64_t t_mid = 0, t_end = 0;
		for (unsigned i = 0; i < total; i++) {
			unsigned b = 0;
			for (unsigned j = 1; j < q; j++)
				if (ready[j] < ready[b])
					b = j;
			struct cost_result res;
			cost_model_charge_at(m, &rq, ready[b], &res);
			ready[b] = res.next_arrival_ns + (uint64_t)(turn_ns / scale);
			if (i == total / 2)
				t_mid = res.completion_ns;
			t_end = res.completion_ns;
		}
		if (t_end > t_mid)
			rate = (double)(total - total / 2 - 1) / ((double)(t_end - t_mid) / 1e9) / scale;
		free(ready);
	}
	cost_model_put(m);
	return rate;
}

static int fit_and_profile(struct cctx *x, char *err, size_t errlen)
{
	struct calib_result *r = x->r;
	calib_verify_sanity(x);
	calib_make_rows(x);
	uint32_t d = r->dr_dedup_block;
	int rc;
	if (d) {
		r->dedup_source = "data";
		rc = calib_fit(r->rows, r->nrows, d, &r->fit);
	} else {
		r->dedup_source = "timing";
		r->have_chi2_by_block = true;
		for (unsigned i = 0; i < 12; i++)
			r->chi2_by_block[i] = INFINITY;
		uint32_t lo = r->bs > 512 ? r->bs : 512;
		unsigned skip = 0;
		for (uint32_t b = 512; b < lo; b <<= 1)
			skip++;
		rc = calib_fit_search(r->rows, r->nrows, lo, PROFILE_DEDUP_BLOCK_MAX, &r->fit, r->chi2_by_block + skip, 12 - skip);
	}
	if (rc) {
		snprintf(err, errlen, "the fit failed: too few measurements (%u) for the model's parameters", r->nrows);
		return -1;
	}
	calib_describe(r, x->o->out_path, x->o->profile_name);
	char *perr = NULL, why[512];
	char *text = calib_profile_render_checked(&r->doc, why, sizeof(why));
	if (!text) {
		snprintf(err, errlen, "the profile does not load: %s", why);
		return -1;
	}
	FILE *f = fopen(x->o->out_path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		snprintf(err, errlen, "--out: cannot write %s", x->o->out_path);
		free(text);
		return -1;
	}
	snprintf(r->out_path, sizeof(r->out_path), "%s", x->o->out_path);
	/* every queue depth tried, as the written profile runs it */
	struct lunlab_profile *p = profile_parse(text, strlen(text), r->out_path, &perr);
	free(text);
	if (!p) {
		free(perr);
		return 0;
	}
	for (unsigned i = 0; i < r->npts; i++)
		for (unsigned t = 0; t < r->pts[i].ntries; t++)
			r->pts[i].tries[t].pred_rate = closed_loop_rate(p, &r->pts[i].pt, r->bs, r->pts[i].tries[t].q,
									r->nop_rtt_ns, r->time_scale);
	profile_free(p);
	return 0;
}

/* ---- the whole run ---- */

static void close_all(struct cctx *x)
{
	for (unsigned i = 0; i < sizeof(x->sess) / sizeof(x->sess[0]); i++)
		conn_close(&x->sess[i]); /* nothing for a session never opened */
}

int scenario_calibrate(const struct bench_opts *o, struct calib_result *r, char *err, size_t errlen)
{
	static struct cctx x;
	memset(&x, 0, sizeof(x));
	memset(r, 0, sizeof(*r));
	x.o = o;
	x.r = r;
	x.t_start = now_s();
	x.stamp = (uint64_t)time(NULL) << 20;
	r->time_scale = o->calib_time_scale;
	r->budget_s = o->budget_s;
	for (int k = 0; k < CK_N; k++)
		r->supported[k] = true;
	char prefix[300];
	snprintf(prefix, sizeof(prefix), "%s-calib", o->initiator);
	x.main = &x.sess[0];
	x.dmain = &x.sess[1];
	x.pool = &x.sess[2];
	if (conn_open(o->url, o->initiator, x.main, err, errlen))
		return -1;
	int ret = -1;
	if (o->dest_url) {
		if (conn_open(o->dest_url, o->initiator, x.dmain, err, errlen))
			goto out;
		x.have_dest = true;
		if (x.dmain->block_size != x.main->block_size) {
			snprintf(err, errlen, "the two LUs' block sizes differ (%u, %u)", x.main->block_size,
				 x.dmain->block_size);
			goto out;
		}
		snprintf(r->dest, sizeof(r->dest), "%s %s LUN %d", x.dmain->portal, x.dmain->target, x.dmain->lun);
	}
	if (identify(&x, err, errlen) || layout(&x, err, errlen))
		goto out;
	/* the load's sessions: one pool size for every LU (a target that refuses that many
	 * sessions ends the run, exit 3, like a login any subcommand could not make) */
	x.npool = POOL_MAX;
	if (conn_open_many(o->url, prefix, x.npool, x.pool, err, errlen))
		goto out;
	x.dpool = &x.sess[2 + x.npool];
	if (x.have_dest) {
		char dp[320];
		snprintf(dp, sizeof(dp), "%s-dest", prefix);
		x.ndpool = POOL_MAX;
		if (conn_open_many(o->dest_url, dp, x.ndpool, x.dpool, err, errlen))
			goto out;
	}
	x.nsess = 2 + x.npool + x.ndpool;
	x.t.every = x.sess;
	x.t.nevery = x.nsess;
	x.t.sparse_writes = o->sparse_writes;
	x.t.conns = x.pool;
	x.t.nconn = x.npool;
	x.t.dconns = x.have_dest ? x.dpool : x.pool;
	x.t.ndconn = x.have_dest ? x.ndpool : x.npool;
	double tp = now_s();
	if (floors(&x, err, errlen))
		goto out;
	/* the capacity before calibrate writes anything: the emptier, the finer the reading */
	x.lbp_listed = q_log_supported(x.main, 0x0c);
	calib_capacity(&x);
	r->phase_s[0] = now_s() - tp;
	tp = now_s();
	/* the read area, and XCOPY's source, hold unique incompressible data */
	struct dr_spec fill = { .kind = o->sparse_writes ? DR_SPARSE : DR_RANDOM, .bytes = x.area[A_READ].blocks * r->bs,
				.seed = x.stamp };
	if (calib_write_kind(&x, &fill, x.area[A_READ].lba, "filling the read area", err, errlen))
		goto out;
	calib_track_written(&x, A_READ, x.area[A_READ].lba + x.area[A_READ].blocks);
	r->phase_s[1] = now_s() - tp;
	tp = now_s();
	calib_plan(&x);
	/* the timings get what is left of the budget but a share for data reduction (~30 writes of
	 * a few MiB, each waiting for the figures to settle) and the fit */
	double timing_end = x.t_start + 0.85 * o->budget_s - (x.lbp_listed ? 0.15 * o->budget_s : 0);
	if (timing_end < now_s() + 0.3 * r->npts)
		timing_end = now_s() + 0.3 * r->npts;
	/* a kind the LU failed (not refused) at one size: its larger sizes are left alone, since
	 * a LU that times its own work out tends to do it again (and each costs its timeout) */
	int failed_at[CK_N];
	for (int k = 0; k < CK_N; k++)
		failed_at[k] = -1;
	for (unsigned i = 0; i < r->npts; i++) {
		struct calib_point_result *pr = &r->pts[i];
		if (!r->supported[pr->pt.kind]) {
			snprintf(pr->reason, sizeof(pr->reason), "not supported");
			continue;
		}
		if (failed_at[pr->pt.kind] >= 0) {
			char sz[32];
			const struct calib_point_result *f = &r->pts[failed_at[pr->pt.kind]];
			fmt_size(sz, sizeof(sz), f->pt.bytes);
			char why[128]; /* f is another point, but the compiler cannot know; the rest fits */
			snprintf(why, sizeof(why), "%s", f->reason);
			snprintf(pr->reason, sizeof(pr->reason), "not measured: at %s the LU %s", sz, why);
			continue;
		}
		double slice = (timing_end - now_s()) / (double)(r->npts - i);
		if (slice < 0.3)
			slice = 0.3;
		int rc = calib_measure_point(&x, pr, slice, err, errlen);
		if (rc < 0)
			goto out;
		/* the smallest size of a kind refused: the kind is not supported */
		bool first = !i || r->pts[i - 1].pt.kind != pr->pt.kind;
		if (rc == 1 && first) {
			r->supported[pr->pt.kind] = false;
			memcpy(r->unsupported[pr->pt.kind], pr->reason,
			       sizeof(r->unsupported[0]) < sizeof(pr->reason) ? sizeof(r->unsupported[0]) : sizeof(pr->reason));
			r->unsupported[pr->pt.kind][sizeof(r->unsupported[0]) - 1] = 0;
		}
		if (pr->lu_failed)
			failed_at[pr->pt.kind] = (int)i;
		if (!o->quiet)
			fprintf(stderr, "\rcalibrate: %u of %u measurements   ", i + 1, r->npts);
	}
	if (!o->quiet)
		fprintf(stderr, "\n");
	r->phase_s[2] = now_s() - tp;
	tp = now_s();
	if (calib_data_reduction(&x, err, errlen))
		goto out;
	r->phase_s[3] = now_s() - tp;
	tp = now_s();
	if (fit_and_profile(&x, err, errlen))
		goto out;
	r->phase_s[4] = now_s() - tp;
	/* 7. give back what was written (thin LUs reclaim it); nothing else is touched */
	if (r->supported[CK_UNMAP]) {
		for (int a = 0; a < A_N; a++) {
			if (!x.written_end[a] || x.written_end[a] <= x.area[a].lba)
				continue;
			struct bench_conn *c = x.have_dest && a == A_XCOPY ? x.dmain : x.main;
			if (calib_unmap_range(&x, c, x.area[a].lba, x.written_end[a] - x.area[a].lba))
				calib_note(r, "UNMAP of the %s area failed: it keeps calibrate's data", calib_area_name((enum area_id)a));
		}
	} else {
		calib_note(r, "the LU cannot UNMAP: the region keeps calibrate's data");
	}
	r->elapsed_s = now_s() - x.t_start;
	if (r->elapsed_s > o->budget_s * 1.2)
		calib_note(r, "the run took %.0f s of a %.0f s budget: the slowest commands need at least a few "
		     "completions each", r->elapsed_s, o->budget_s);
	ret = 0;
out:
	for (unsigned i = 0; i < sizeof(x.sess) / sizeof(x.sess[0]); i++)
		conn_stats_add(&r->conn, &x.sess[i].stats);
	close_all(&x);
	return ret;
}
