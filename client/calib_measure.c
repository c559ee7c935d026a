/* calib_measure.c - calibrate's timing measurements (docs/calibrate.md "What it does"):
 * the ladder of command kinds and sizes, each measured at queue depth 1 and then with more
 * commands outstanding until the busiest resource stays busy, and the rows the fit takes. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lunlab/scsi_vocab.h"
#include "client/calib_ctx.h"
#include "client/calib_host_limit.h"
#include "client/calib_load.h"
#include "client/report.h"

/* ---- 4. the timing measurements ---- */

const char *calib_area_name(enum area_id a)
{
	static const char *const n[A_N] = { "read", "write", "copy", "write-same/unmap", "data-reduction" };
	return n[a];
}

static enum area_id area_of(enum calib_kind k)
{
	switch (k) {
	case CK_WRITE: return A_WRITE;
	case CK_WRITE_SAME:
	case CK_UNMAP: return A_SAME;
	default: return A_READ; /* READ, VERIFY, and XCOPY's source */
	}
}

/* Which sizes of each kind: small ones to see per-command costs and the dedup block's
 * step in entries, large ones for per-byte and per-entry slopes (docs/calibrate.md). */
void calib_plan(struct cctx *x)
{
	struct calib_result *r = x->r;
	uint32_t bs = r->bs;
	uint64_t small = bs > 4096 ? bs : 4096;
	static const uint64_t rw[] = { 4096, 16384, 65536, 262144, CALIB_MIB, 4 * CALIB_MIB };
	static const uint64_t vf[] = { 65536, CALIB_MIB, 8 * CALIB_MIB };
	static const uint64_t ws[] = { 512, 4096, 8192, 16384, 32768, 65536, CALIB_MIB, 16 * CALIB_MIB };
	static const uint64_t un[] = { 65536, CALIB_MIB, 16 * CALIB_MIB };
	static const uint64_t xc[] = { 65536, 262144, CALIB_MIB, 4 * CALIB_MIB, 16 * CALIB_MIB };
	struct { enum calib_kind k; const uint64_t *s; unsigned n; } lists[] = {
		{ CK_READ, rw, 6 }, { CK_WRITE, rw, 6 }, { CK_VERIFY, vf, 3 }, { CK_WRITE_SAME, ws, 8 },
		{ CK_UNMAP, un, 3 }, { CK_XCOPY, xc, 5 },
	};
	uint64_t max_xfer = x->b0.max_xfer_blocks ? (uint64_t)x->b0.max_xfer_blocks * bs : UINT64_MAX;
	for (unsigned l = 0; l < sizeof(lists) / sizeof(lists[0]); l++) {
		enum calib_kind k = lists[l].k;
		uint64_t limit = x->area[area_of(k)].blocks * bs / 2;
		if (x->o->max_io && x->o->max_io < limit)
			limit = x->o->max_io;
		if (k == CK_READ || k == CK_WRITE)
			limit = limit < max_xfer ? limit : max_xfer;
		if (k == CK_WRITE_SAME && x->b0.max_write_same_blocks)
			limit = limit < x->b0.max_write_same_blocks * bs ? limit : x->b0.max_write_same_blocks * bs;
		if (k == CK_UNMAP && x->b0.max_unmap_blocks)
			limit = limit < (uint64_t)x->b0.max_unmap_blocks * bs ? limit : (uint64_t)x->b0.max_unmap_blocks * bs;
		if (k == CK_XCOPY) {
			uint64_t seg = (uint64_t)XCOPY_MAX_SEG_BLOCKS * bs, dst = x->area[A_XCOPY].blocks * bs / 2;
			limit = limit < seg ? limit : seg;
			limit = limit < dst ? limit : dst;
		}
		uint64_t last = 0;
		for (unsigned i = 0; i < lists[l].n; i++) {
			uint64_t s = lists[l].s[i];
			if ((k == CK_READ || k == CK_WRITE) && s < small)
				s = small;
			if (s < bs)
				s = bs;
			s -= s % bs;
			if (s > limit || s == last || r->npts >= CALIB_MAX_POINTS - 2)
				continue;
			last = s;
			r->pts[r->npts++].pt = (struct calib_point){ .kind = k, .bytes = s, .segments = 1 };
		}
		/* the CPU per extra segment: one 1 MiB copy as 2 and as 4 segments */
		if (k == CK_XCOPY && CALIB_MIB <= limit && (CALIB_MIB / bs) % 4 == 0) {
			r->pts[r->npts++].pt = (struct calib_point){ .kind = k, .bytes = CALIB_MIB, .segments = 2 };
			r->pts[r->npts++].pt = (struct calib_point){ .kind = k, .bytes = CALIB_MIB, .segments = 4 };
		}
	}
}

void calib_track_written(struct cctx *x, enum area_id a, uint64_t end_lba)
{
	if (end_lba > x->written_end[a])
		x->written_end[a] = end_lba;
}

static unsigned max_q(struct cctx *x, const struct calib_point *p)
{
	enum area_id a = area_of(p->kind);
	uint64_t blocks = p->bytes / x->r->bs;
	uint64_t fit = x->area[a].blocks / blocks;
	if (p->kind == CK_XCOPY) {
		uint64_t f2 = x->area[A_XCOPY].blocks / blocks;
		fit = fit < f2 ? fit : f2;
	}
	unsigned sessions = p->kind == CK_XCOPY ? x->t.ndconn : x->t.nconn;
	uint64_t q = (uint64_t)sessions * PER_SESSION;
	if (fit < q)
		q = fit;
	if (p->kind == CK_WRITE && q * p->bytes > WRITE_BUFFERS_MAX)
		q = WRITE_BUFFERS_MAX / p->bytes;
	return q ? (unsigned)q : 1;
}

/* 1: the point was refused (reason set), 0 measured, -1 failure */
int calib_measure_point(struct cctx *x, struct calib_point_result *pr, double slice, char *err, size_t errlen)
{
	const struct calib_point *p = &pr->pt;
	struct calib_result *r = x->r;
	enum area_id a = area_of(p->kind);
	const struct calib_area *src = &x->area[a], *dst = p->kind == CK_XCOPY ? &x->area[A_XCOPY] : NULL;
	struct calib_run run;
	double t0 = now_s();
	if (calib_load_run(&x->t, p, src, dst, 1, 1, 100000, slice * 0.3, &x->stamp, &run, err, errlen))
		return -1;
	calib_track_written(x, a, run.written_lba_end);
	if (run.outcome != CALIB_OK) {
		if (run.outcome == CALIB_REFUSED)
			snprintf(pr->reason, sizeof(pr->reason), "%s with sense %02X/%02X/%02X",
				 run.key == SCSI_SK_ILLEGAL_REQUEST ? "refused" : "failed", run.key, run.asc, run.ascq);
		else
			snprintf(pr->reason, sizeof(pr->reason), "answered BUSY or TASK SET FULL with one command outstanding");
		pr->lu_failed = run.outcome == CALIB_REFUSED && run.key != SCSI_SK_ILLEGAL_REQUEST;
		return 1;
	}
	pr->measured = true;
	pr->qd1_ns = run.lat_med_ns;
	pr->qd1_mad_ns = run.lat_mad_ns;
	pr->qd1_n = (unsigned)run.measured;
	if (p->kind == CK_XCOPY)
		calib_track_written(x, A_XCOPY, dst->lba + dst->blocks); /* copies land anywhere in the area */
	double t1 = run.lat_med_ns / 1e9;
	/* Outstanding commands: 2 first, then x4 while the commands clearly do not queue (rho
	 * above 3/4), x2 to confirm a level that looks saturated; at most CALIB_MAX_TRIES levels. */
	unsigned qmax = max_q(x, p);
	unsigned q = qmax < 2 ? qmax : 2;
	while (q >= 2 && pr->ntries < CALIB_MAX_TRIES) {
		unsigned left_levels = CALIB_MAX_TRIES - pr->ntries;
		if (left_levels > 3)
			left_levels = 3;
		double ms = (slice - (now_s() - t0)) / (double)left_levels;
		if (ms < 0.2)
			ms = 0.2;
		/* a short warm-up: a closed loop reaches its steady state within a few completions */
		if (calib_load_run(&x->t, p, src, dst, q, q < 4 ? q : 4, 1000000, ms, &x->stamp, &run, err, errlen))
			return -1;
		calib_track_written(x, a, run.written_lba_end);
		if (run.outcome == CALIB_REFUSED) {
			/* ILLEGAL REQUEST refuses; any other key (NOT READY, ABORTED COMMAND: a LU
			 * that timed its own work out under load) is a failure of the LU */
			snprintf(pr->reason, sizeof(pr->reason), "%s with %u outstanding (sense %02X/%02X/%02X)",
				 run.key == SCSI_SK_ILLEGAL_REQUEST ? "refused" : "failed", q, run.key, run.asc, run.ascq);
			pr->lu_failed = run.key != SCSI_SK_ILLEGAL_REQUEST;
			break;
		}
		if (run.outcome == CALIB_BUSY) {
			snprintf(pr->reason, sizeof(pr->reason), "the LU answered BUSY or TASK SET FULL with %u outstanding",
				 q);
			break;
		}
		struct calib_try *tr = &pr->tries[pr->ntries++];
		*tr = (struct calib_try){ .q = q, .rate = run.rate, .rate_se = run.rate_se, .cpu_share = run.cpu_share };
		/* A closed loop of q commands that each take t1 alone runs at q / t1 until the busiest
		 * resource is full, then at that resource's rate: rho = rate x t1 / q well below 1 says
		 * the commands queue.  Saturated when they queue and more outstanding commands no
		 * longer raise the rate; one level alone (a stall of the LU or of this host also
		 * looks like queueing) is confirmed by the next whenever there is one. */
		double rho = run.rate * t1 / q;
		if (pr->ntries >= 2) {
			double prev = pr->tries[pr->ntries - 2].rate;
			if (run.rate < 1.15 * prev && rho <= 0.75) {
				pr->saturated = true;
				break;
			}
		}
		unsigned next = rho > 0.75 ? 4 * q : 2 * q;
		if (next > qmax)
			next = qmax;
		if (next <= q) {
			/* no level left to confirm with: queueing alone has to do */
			pr->saturated = rho <= 0.5;
			break;
		}
		q = next;
	}
	/* did this host set the pace? */
	if (pr->ntries) {
		const struct calib_try *tr = &pr->tries[pr->ntries - 1];
		struct calib_host_obs o = { .rate = tr->rate, .bytes = p->bytes,
					    .moves_data = p->kind == CK_READ || p->kind == CK_WRITE,
					    .cpu_share = tr->cpu_share, .nop_rate = r->nop_rate,
					    .loopback_mb_s = r->loopback_mb_s };
		pr->machine_limited = calib_host_limited(&o, pr->limit_reason, sizeof(pr->limit_reason));
	}
	return 0;
}

/* VERIFY measures the back-end only if the LU reads the medium for it.  Some answer a VERIFY
 * with BYTCHK 0 without reading (tgt does): then the largest VERIFY (8 MiB) takes no longer
 * than the smallest READ (4 KiB), which no LU that reads can do.  Such VERIFYs say nothing
 * about the back-end and contradict the model (every command pays the per-command CPU), so
 * they are left out, and said so. */
void calib_verify_sanity(struct cctx *x)
{
	struct calib_result *r = x->r;
	const struct calib_point_result *vbig = NULL, *rsmall = NULL;
	for (unsigned i = 0; i < r->npts; i++) {
		const struct calib_point_result *p = &r->pts[i];
		if (!p->measured)
			continue;
		if (p->pt.kind == CK_VERIFY && (!vbig || p->pt.bytes > vbig->pt.bytes))
			vbig = p;
		if (p->pt.kind == CK_READ && (!rsmall || p->pt.bytes < rsmall->pt.bytes))
			rsmall = p;
	}
	if (!vbig || !rsmall || vbig->pt.bytes <= rsmall->pt.bytes || vbig->qd1_ns > rsmall->qd1_ns)
		return;
	char vb[32], rb[32];
	fmt_size(vb, sizeof(vb), vbig->pt.bytes);
	fmt_size(rb, sizeof(rb), rsmall->pt.bytes);
	r->supported[CK_VERIFY] = false;
	snprintf(r->unsupported[CK_VERIFY], sizeof(r->unsupported[0]),
		 "a %s VERIFY took %.1f us, a %s READ %.1f us: the LU does not read the medium for VERIFY, so it "
		 "measures no back-end", vb, vbig->qd1_ns / 1e3, rb, rsmall->qd1_ns / 1e3);
	for (unsigned j = 0; j < r->npts; j++)
		if (r->pts[j].pt.kind == CK_VERIFY && r->pts[j].measured) {
			r->pts[j].measured = false;
			snprintf(r->pts[j].reason, sizeof(r->pts[j].reason), "answered without reading the medium");
		}
}

/* the fit's rows from the measurements, in the array's time */
void calib_make_rows(struct cctx *x)
{
	struct calib_result *r = x->r;
	double s = r->time_scale;
	/* the NOP round trip's own uncertainty, per QD1 median */
	double nop_se = 1.4826 * r->nop_mad_ns / sqrt(40);
	r->nrows = 0;
	for (unsigned i = 0; i < r->npts; i++) {
		struct calib_point_result *pr = &r->pts[i];
		pr->row_qd1 = pr->row_sat = -1;
		if (!pr->measured)
			continue;
		struct calib_row base = { .kind = pr->pt.kind, .covered = pr->pt.bytes, .segments = pr->pt.segments,
					  .wire = calib_wire_bytes(&pr->pt, r->bs) };
		struct calib_row q1 = base;
		q1.obs = OBS_QD1;
		double y = pr->qd1_ns - r->nop_rtt_ns;
		double se = sqrt(pow(1.4826 * pr->qd1_mad_ns / sqrt(pr->qd1_n ? pr->qd1_n : 1), 2) + nop_se * nop_se);
		if (y < 0.02 * pr->qd1_ns) { /* within the transport's noise: barely informative */
			y = 0.02 * pr->qd1_ns;
			se = se > 0.5 * pr->qd1_ns ? se : 0.5 * pr->qd1_ns;
		}
		q1.y = y / s;
		q1.sigma = fmax(se, 0.005 * y) / s;
		if (q1.sigma <= 0)
			q1.sigma = 1;
		pr->row_qd1 = (int)r->nrows;
		r->rows[r->nrows++] = q1;
		if (!pr->ntries)
			continue;
		/* Saturated: the bottleneck's rate, from the last two levels, which both ran at it (their
		 * geometric mean: one noisy level does not set it).  Not saturated: the best rate seen,
		 * which the bottleneck is at least as fast as (a bound only), as when this host may
		 * have set it. */
		double rate = 0, rel_se = 0;
		if (pr->saturated && pr->ntries >= 2) {
			const struct calib_try *a = &pr->tries[pr->ntries - 2], *b = &pr->tries[pr->ntries - 1];
			rate = sqrt(a->rate * b->rate);
			rel_se = fmax(fabs(a->rate - b->rate) / (a->rate + b->rate),
				      0.5 * (a->rate_se / a->rate + b->rate_se / b->rate));
		} else {
			const struct calib_try *best = &pr->tries[0];
			for (unsigned t = 1; t < pr->ntries; t++)
				if (pr->tries[t].rate > best->rate)
					best = &pr->tries[t];
			rate = best->rate;
			rel_se = rate > 0 ? best->rate_se / rate : 0;
		}
		if (rate <= 0)
			continue;
		struct calib_row sr = base;
		sr.obs = OBS_SAT;
		sr.y = 1e9 / rate / s;
		sr.sigma = sr.y * fmax(rel_se, 0.005);
		sr.bound_only = !pr->saturated || pr->machine_limited;
		/* More commands outstanding made each take longer than one at a time, transport
		 * included (the rate fell below 1 / the host's QD1 latency): the LU, or this host,
		 * serializes and then some.  No set of concurrent resources does that, so the row is
		 * left out, and said so. */
		if (!pr->machine_limited && sr.y > 1.1 * pr->qd1_ns / s) {
			pr->contended = true;
			continue;
		}
		pr->row_sat = (int)r->nrows;
		r->rows[r->nrows++] = sr;
	}
}

