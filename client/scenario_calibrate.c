/* scenario_calibrate.c - lunlab-bench calibrate: measure any iSCSI LU with what any host sees
 * (timings, standard SCSI pages), fit the cost model's parameters, write a profile that makes
 * lunlab behave like it.  The method, and which measurement identifies which parameter:
 * docs/calibrate.md.  In order:
 *   1. identify the LU (INQUIRY, READ CAPACITY, VPD B0h/83h) and lay out the region it may
 *      write (--offset, --capacity-use; --dataloss was required by the command line);
 *   2. the transport's floor: NOP-Out round trip and rate, this host's loopback TCP;
 *   3. fill the read area with unique incompressible data;
 *   4. per command kind and size: latency at queue depth 1, then the closed-loop rate at
 *      growing queue depths until the busiest resource never idles (calib_load.c);
 *   5. data reduction of generated kinds from LOG SENSE 0Ch, when the LU reports it (calib_dr.c);
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

#include "client/calib_describe.h"
#include "client/conn.h"
#include "client/lbp_page.h"
#include "client/loopback_probe.h"
#include "client/scsi_query.h"
#include "client/stream_write.h"
#include "client/vpd_b0.h"
#include "client/xfer_limit.h"
#include "models/cost.h"
#include "models/cost_virtual.h"
#include "models/profile_parse.h"

#define MIB (1ull << 20)
#define POOL_MAX 8              /* sessions in the load pool */
#define PER_SESSION 32          /* commands outstanding per session at most */
#define WRITE_BUFFERS_MAX (256ull << 20)

enum area_id { A_READ, A_WRITE, A_XCOPY, A_SAME, A_DR, A_N };

struct cctx {
	const struct bench_opts *o;
	struct calib_result *r;
	struct bench_conn main, dmain;
	bool have_dest;
	struct bench_conn pool[POOL_MAX], dpool[POOL_MAX];
	unsigned npool, ndpool;
	struct calib_target t;
	struct b0_limits b0;
	struct calib_area area[A_N];   /* A_XCOPY on the destination LU with --dest */
	uint64_t written_end[A_N];     /* one past the last LBA written in each area (0: none) */
	uint64_t stamp;
	double t_start;
};

static void note(struct calib_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct calib_result *r, const char *fmt, ...)
{
	if (r->nnotes >= CALIB_MAX_NOTES)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->notes[r->nnotes++], sizeof(r->notes[0]), fmt, ap);
	va_end(ap);
}

static void copy_trim(char *dst, const uint8_t *src, size_t n)
{
	memcpy(dst, src, n);
	dst[n] = 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)dst[i] < 0x20 || (unsigned char)dst[i] > 0x7e)
			dst[i] = '?';
	while (n && dst[n - 1] == ' ')
		dst[--n] = 0;
}

/* ---- 1. identity and region ---- */

static int identify(struct cctx *x, char *err, size_t errlen)
{
	struct calib_result *r = x->r;
	uint8_t buf[1024];
	int n = q_inquiry(&x->main, -1, buf, 96);
	if (n < 36) {
		snprintf(err, errlen, "standard INQUIRY returned %d bytes (< 36)", n);
		return -1;
	}
	copy_trim(r->vendor, buf + 8, 8);
	copy_trim(r->product, buf + 16, 16);
	copy_trim(r->revision, buf + 32, 4);
	r->bs = x->main.block_size;
	r->capacity = x->main.num_blocks * x->main.block_size;
	snprintf(r->where, sizeof(r->where), "%s %s LUN %d", x->main.portal, x->main.target, x->main.lun);
	n = q_inquiry(&x->main, 0x00, buf, 255);
	if (n > 0 && vpd00_lists(buf, (size_t)n, 0xb0)) {
		int m = q_inquiry(&x->main, 0xb0, buf, 64);
		if (m < 0 || vpd_b0_decode(buf, (size_t)m, &x->b0, err, errlen))
			return -1;
	}
	x->t.bs = r->bs;
	x->t.nlus = 1;
	bool naa = true;
	struct bench_conn *lus[2] = { &x->main, &x->dmain };
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
		note(r, "--capacity-use reaches past the LU's end: calibrate uses bytes %llu..%llu only",
		     (unsigned long long)o->offset, (unsigned long long)cap);
		end = cap;
	}
	if (x->have_dest && end > x->dmain.num_blocks * x->dmain.block_size)
		end = x->dmain.num_blocks * x->dmain.block_size;
	uint64_t start = (o->offset + MIB - 1) / MIB * MIB; /* areas on 1 MiB boundaries inside the region */
	uint64_t units = end > start ? (end - start) / MIB : 0;
	if (units < 64) {
		snprintf(err, errlen, "calibrate needs at least 64 MiB of the LU from --offset on (it has %llu MiB "
			 "there); give --capacity-use 1g or more", (unsigned long long)units);
		return -1;
	}
	r->offset = o->offset;
	r->region = end - o->offset;
	uint64_t part[A_N] = { units / 8, units / 8, units / 4, units / 4, 0 };
	part[A_DR] = units - part[0] - part[1] - part[2] - part[3];
	uint64_t at = start, per = MIB / r->bs;
	for (int a = 0; a < A_N; a++) {
		x->area[a].lba = at / r->bs;
		x->area[a].blocks = part[a] * per;
		if (!(x->have_dest && a == A_XCOPY))
			at += part[a] * MIB;
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
	if (calib_nop_rtt(&x->main, reps, &r->nop_rtt_ns, &r->nop_mad_ns, err, errlen))
		return -1;
	double secs = x->o->budget_s >= 120 ? 2.0 : 0.5;
	if (calib_nop_rate(x->pool, x->npool, 8, secs, &r->nop_rate, err, errlen))
		return -1;
	r->loopback_mb_s = portal_is_loopback(x->main.portal) ? loopback_tcp_mb_s(secs) : -1;
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

static int write_kind(struct cctx *x, const struct dr_spec *spec, uint64_t lba, const char *label, char *err,
		      size_t errlen)
{
	struct fillarg fa = { .spec = *spec };
	struct stream_write_args wa = {
		.start_lba = lba, .total_bytes = spec->bytes, .qd = 8, .fill = fill_spec, .fill_arg = &fa,
		.label = label, .quiet = x->o->quiet,
	};
	wa.io_bytes = xfer_clamp_bytes(spec->bytes < MIB ? spec->bytes : MIB, x->r->bs, x->b0.max_xfer_blocks);
	return stream_write(&x->main, &wa, err, errlen);
}

/* ---- 4. the timing measurements ---- */

static const char *area_name(enum area_id a)
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
static void plan(struct cctx *x)
{
	struct calib_result *r = x->r;
	uint32_t bs = r->bs;
	uint64_t small = bs > 4096 ? bs : 4096;
	static const uint64_t rw[] = { 4096, 16384, 65536, 262144, MIB, 4 * MIB };
	static const uint64_t vf[] = { 65536, MIB, 8 * MIB };
	static const uint64_t ws[] = { 512, 4096, 8192, 16384, 32768, 65536, MIB, 16 * MIB };
	static const uint64_t un[] = { 65536, MIB, 16 * MIB };
	static const uint64_t xc[] = { 65536, 262144, MIB, 4 * MIB, 16 * MIB };
	struct { enum calib_kind k; const uint64_t *s; unsigned n; } lists[] = {
		{ CK_READ, rw, 6 }, { CK_WRITE, rw, 6 }, { CK_VERIFY, vf, 3 }, { CK_WRITE_SAME, ws, 8 },
		{ CK_UNMAP, un, 3 }, { CK_XCOPY, xc, 5 },
	};
	uint64_t max_xfer = x->b0.max_xfer_blocks ? (uint64_t)x->b0.max_xfer_blocks * bs : UINT64_MAX;
	for (unsigned l = 0; l < sizeof(lists) / sizeof(lists[0]); l++) {
		enum calib_kind k = lists[l].k;
		uint64_t limit = x->area[area_of(k)].blocks * bs / 2;
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
		if (k == CK_XCOPY && MIB <= limit && (MIB / bs) % 4 == 0) {
			r->pts[r->npts++].pt = (struct calib_point){ .kind = k, .bytes = MIB, .segments = 2 };
			r->pts[r->npts++].pt = (struct calib_point){ .kind = k, .bytes = MIB, .segments = 4 };
		}
	}
}

static void track_written(struct cctx *x, enum area_id a, uint64_t end_lba)
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
static int measure_point(struct cctx *x, struct calib_point_result *pr, double slice, char *err, size_t errlen)
{
	const struct calib_point *p = &pr->pt;
	struct calib_result *r = x->r;
	enum area_id a = area_of(p->kind);
	const struct calib_area *src = &x->area[a], *dst = p->kind == CK_XCOPY ? &x->area[A_XCOPY] : NULL;
	struct calib_run run;
	double t0 = now_s();
	if (calib_load_run(&x->t, p, src, dst, 1, 1, 100000, slice * 0.3, &x->stamp, &run, err, errlen))
		return -1;
	track_written(x, a, run.written_lba_end);
	if (run.outcome != CALIB_OK) {
		if (run.outcome == CALIB_REFUSED)
			snprintf(pr->reason, sizeof(pr->reason), "refused with sense %02X/%02X/%02X", run.key, run.asc,
				 run.ascq);
		else
			snprintf(pr->reason, sizeof(pr->reason), "answered BUSY or TASK SET FULL with one command outstanding");
		return 1;
	}
	pr->measured = true;
	pr->qd1_ns = run.lat_med_ns;
	pr->qd1_mad_ns = run.lat_mad_ns;
	pr->qd1_n = (unsigned)run.measured;
	if (p->kind == CK_XCOPY)
		track_written(x, A_XCOPY, dst->lba + dst->blocks); /* copies land anywhere in the area */
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
		track_written(x, a, run.written_lba_end);
		if (run.outcome == CALIB_REFUSED) {
			snprintf(pr->reason, sizeof(pr->reason), "refused with %u outstanding (sense %02X/%02X/%02X)", q,
				 run.key, run.asc, run.ascq);
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
		double mb_s = tr->rate * (double)p->bytes / 1e6;
		if (tr->cpu_share >= 0.85)
			snprintf(pr->limit_reason, sizeof(pr->limit_reason), "lunlab-bench used %.0f%% of a core",
				 tr->cpu_share * 100);
		else if (r->nop_rate > 0 && tr->rate >= 0.6 * r->nop_rate)
			snprintf(pr->limit_reason, sizeof(pr->limit_reason),
				 "%.0f commands/s, %.0f%% of the %.0f NOP-Outs/s the transport alone turns around",
				 tr->rate, 100 * tr->rate / r->nop_rate, r->nop_rate);
		else if ((p->kind == CK_READ || p->kind == CK_WRITE) && r->loopback_mb_s > 0 &&
			 mb_s >= 0.35 * r->loopback_mb_s)
			snprintf(pr->limit_reason, sizeof(pr->limit_reason),
				 "%.0f MB/s, over a third of this host's own loopback TCP (%.0f MB/s)", mb_s,
				 r->loopback_mb_s);
		pr->machine_limited = pr->limit_reason[0] != 0;
	}
	return 0;
}

/* VERIFY measures the back-end only if the LU reads the medium for it.  Some answer a VERIFY
 * with BYTCHK 0 at once (tgt does): as fast as a NOP-Out while a READ of the same size takes
 * clearly longer.  Such VERIFYs say nothing about the back-end and contradict the model (every
 * command pays the per-command CPU), so they are left out, and said so. */
static void verify_sanity(struct cctx *x)
{
	struct calib_result *r = x->r;
	double noise = 3 * 1.4826 * r->nop_mad_ns + 0.05 * r->nop_rtt_ns;
	for (unsigned i = 0; i < r->npts; i++) {
		struct calib_point_result *v = &r->pts[i];
		if (v->pt.kind != CK_VERIFY || !v->measured)
			continue;
		double rd = 0;
		for (unsigned j = 0; j < r->npts; j++)
			if (r->pts[j].pt.kind == CK_READ && r->pts[j].measured && r->pts[j].pt.bytes <= v->pt.bytes)
				rd = r->pts[j].qd1_ns - r->nop_rtt_ns; /* the largest READ not above the VERIFY */
		if (v->qd1_ns - r->nop_rtt_ns <= noise && rd > 4 * noise) {
			for (unsigned j = 0; j < r->npts; j++)
				if (r->pts[j].pt.kind == CK_VERIFY) {
					r->pts[j].measured = false;
					snprintf(r->pts[j].reason, sizeof(r->pts[j].reason), "answered without reading the medium");
				}
			r->supported[CK_VERIFY] = false;
			snprintf(r->unsupported[CK_VERIFY], sizeof(r->unsupported[0]),
				 "answered as fast as a NOP-Out (%.1f us) while a READ takes %.1f us more: the LU does not "
				 "read the medium for VERIFY, so it measures no back-end", v->qd1_ns / 1e3, rd / 1e3);
			return;
		}
	}
}

/* the fit's rows from the measurements, in the array's time */
static void make_rows(struct cctx *x)
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
		pr->row_sat = (int)r->nrows;
		r->rows[r->nrows++] = sr;
	}
}

/* ---- 5. data reduction ---- */

static int lbp_read(struct cctx *x, struct lbp_counts *c, char *err, size_t errlen)
{
	static struct log_page pg;
	if (q_log_page(&x->main, 0x0c, &pg, err, errlen))
		return -1;
	return lbp_counts_decode(&pg, c, err, errlen);
}

/* An array may account in the background: wait until the figures have not changed for a
 * while (0.1 s with a short budget, up to 1 s with the default 10 minutes; 30 s at most). */
static int lbp_settled(struct cctx *x, struct lbp_counts *c, char *err, size_t errlen)
{
	struct lbp_counts prev;
	double stable = x->o->budget_s / 600.0;
	stable = stable < 0.1 ? 0.1 : stable > 1 ? 1 : stable;
	if (lbp_read(x, &prev, err, errlen))
		return -1;
	double t0 = now_s(), since = t0;
	for (;;) {
		struct timespec ts = { 0, 25000000 };
		nanosleep(&ts, NULL);
		if (lbp_read(x, c, err, errlen))
			return -1;
		if (memcmp(c, &prev, sizeof(*c)))
			since = now_s();
		else if (now_s() - since >= stable)
			return 0;
		if (now_s() - t0 > 30) {
			note(x->r, "the LU's capacity figures were still changing after 30 s: data reduction is provisional");
			return 0;
		}
		prev = *c;
	}
}

static int unmap_range(struct cctx *x, struct bench_conn *c, uint64_t lba, uint64_t blocks)
{
	uint64_t chunk = x->b0.max_unmap_blocks ? x->b0.max_unmap_blocks : (64 * MIB) / x->r->bs;
	while (blocks) {
		uint64_t n = blocks < chunk ? blocks : chunk;
		uint8_t cdb[10] = { 0x42, 0, 0, 0, 0, 0, 0, 0, 24, 0 };
		uint8_t list[24] = { 0, 22, 0, 16 };
		for (int i = 0; i < 8; i++)
			list[8 + i] = (uint8_t)(lba >> (56 - 8 * i));
		for (int i = 0; i < 4; i++)
			list[16 + i] = (uint8_t)(n >> (24 - 8 * i));
		struct cmd_status st;
		if (conn_cmd(c, cdb, 10, 2, list, sizeof(list), NULL, 0, &st) || st.status != 0)
			return -1;
		lba += n;
		blocks -= n;
	}
	return 0;
}

static int measure_kind(struct cctx *x, const struct dr_spec *spec, uint64_t lba, struct dr_measure *m, char *err,
			size_t errlen)
{
	struct lbp_counts c0, c1;
	uint32_t bs = x->r->bs;
	if (unmap_range(x, &x->main, lba, spec->bytes / bs)) {
		snprintf(err, errlen, "UNMAP of the data-reduction area failed");
		return -1;
	}
	if (lbp_settled(x, &c0, err, errlen))
		return -1;
	char label[40];
	dr_name(spec, label, sizeof(label));
	if (write_kind(x, spec, lba, label, err, errlen))
		return -1;
	track_written(x, A_DR, lba + spec->bytes / bs);
	if (lbp_settled(x, &c1, err, errlen))
		return -1;
	memset(m, 0, sizeof(*m));
	m->spec = *spec;
	int64_t logical = ((int64_t)c1.used - (int64_t)c0.used) * bs;
	int64_t dedup = ((int64_t)c1.dedup - (int64_t)c0.dedup) * bs;
	int64_t comp = ((int64_t)c1.compressed - (int64_t)c0.compressed) * bs;
	m->logical = logical > 0 ? (uint64_t)logical : 0;
	m->unique = logical - dedup > 0 ? (uint64_t)(logical - dedup) : 0;
	m->physical = logical - dedup - comp > 0 ? (uint64_t)(logical - dedup - comp) : 0;
	return 0;
}

static int data_reduction(struct cctx *x, char *err, size_t errlen)
{
	struct calib_result *r = x->r;
	struct lbp_counts c;
	char e[200];
	if (!q_log_supported(&x->main, 0x0c) || lbp_read(x, &c, e, sizeof(e))) {
		snprintf(r->dr_reason, sizeof(r->dr_reason), "the LU has no Logical Block Provisioning log page (0Ch)");
		return 0;
	}
	if (!c.have_used || !c.have_dedup || !c.have_compressed) {
		snprintf(r->dr_reason, sizeof(r->dr_reason), "LOG SENSE 0Ch has no used, de-duplicated and compressed "
			 "LBA counts (0002h, 0100h, 0101h)");
		return 0;
	}
	if (!r->supported[CK_UNMAP]) {
		snprintf(r->dr_reason, sizeof(r->dr_reason), "the LU cannot UNMAP, so no area can be measured fresh");
		return 0;
	}
	uint64_t seed = x->stamp * 0x9e3779b97f4a7c15ull ^ (uint64_t)time(NULL);
	uint64_t lba = x->area[A_DR].lba, end = lba + x->area[A_DR].blocks;
	uint32_t bs = r->bs;
	struct dr_spec specs[CALIB_MAX_DR];
	unsigned n = 0;
	specs[n++] = (struct dr_spec){ .kind = DR_ZERO, .bytes = MIB };
	specs[n++] = (struct dr_spec){ .kind = DR_RANDOM, .bytes = 2 * MIB };
	specs[n++] = (struct dr_spec){ .kind = DR_SPARSE, .bytes = 2 * MIB };
	for (unsigned i = 0; i < n; i++) {
		specs[i].seed = seed + i;
		if (lba + specs[i].bytes / bs > end)
			break;
		if (measure_kind(x, &specs[i], lba, &r->dr[r->ndr], err, errlen))
			return -1;
		lba += specs[i].bytes / bs;
		r->ndr++;
	}
	r->dr_zero_stored = r->dr[0].logical > 0;
	/* dup S from the block size up, until one deduplicates */
	for (uint32_t s = bs > 512 ? bs : 512; s <= MIB && r->ndr < CALIB_MAX_DR - 8; s <<= 1) {
		struct dr_spec d = { .kind = DR_DUP, .param = s, .seed = seed + 100 + s };
		d.bytes = 8ull * s > 512 * 1024 ? 8ull * s : 512 * 1024;
		if (lba + d.bytes / bs > end)
			break;
		if (measure_kind(x, &d, lba, &r->dr[r->ndr], err, errlen))
			return -1;
		lba += d.bytes / bs;
		r->ndr++;
		if (dr_dedup_block(r->dr, r->ndr))
			break;
	}
	r->dr_dedup_block = dr_dedup_block(r->dr, r->ndr);
	uint32_t d = r->dr_dedup_block ? r->dr_dedup_block : 4096;
	for (uint32_t k = 10; k <= 15 && (1u << k) <= d && r->ndr < CALIB_MAX_DR - 1; k++) {
		struct dr_spec s = { .kind = DR_PERIOD, .param = k, .bytes = MIB > 8ull * d ? MIB : 8ull * d,
				     .seed = seed + 200 + k, .block = d };
		if (lba + s.bytes / bs > end)
			break;
		if (measure_kind(x, &s, lba, &r->dr[r->ndr], err, errlen))
			return -1;
		lba += s.bytes / bs;
		r->ndr++;
	}
	struct dr_spec w = { .kind = DR_WIN10, .bytes = 6553600, .seed = seed + 300 };
	if (lba + w.bytes / bs <= end && r->ndr < CALIB_MAX_DR) {
		if (measure_kind(x, &w, lba, &r->dr[r->ndr], err, errlen))
			return -1;
		r->ndr++;
	} else {
		note(r, "the data-reduction area is too small for the win10 kind (6.25 MiB): give more --capacity-use");
	}
	r->have_dr = true;
	if (dr_fit(r->dr, r->ndr, d, &r->drp, &r->drrep) == 0) {
		r->have_drfit = true;
		for (unsigned i = 0; i < r->ndr; i++) {
			uint64_t l;
			dr_predict(&r->dr[i].spec, &r->drp, &l, &r->dr_pred_unique[i], &r->dr_pred_physical[i]);
		}
	}
	return 0;
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
	verify_sanity(x);
	make_rows(x);
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
		rc = calib_fit_search(r->rows, r->nrows, lo, MIB, &r->fit, r->chi2_by_block + skip, 12 - skip);
	}
	if (rc) {
		snprintf(err, errlen, "the fit failed: too few measurements (%u) for the model's parameters", r->nrows);
		return -1;
	}
	calib_describe(r, x->o->out_path, x->o->profile_name);
	char *perr = NULL;
	char *text = calib_profile_render_checked(&r->doc, &perr);
	if (!text) {
		snprintf(err, errlen, "the profile does not load: %s", perr ? perr : "?");
		free(perr);
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
	for (unsigned i = 0; i < x->npool; i++)
		conn_close(&x->pool[i]);
	for (unsigned i = 0; i < x->ndpool; i++)
		conn_close(&x->dpool[i]);
	conn_close(&x->main);
	if (x->have_dest)
		conn_close(&x->dmain);
}

static int open_pool(const char *url, const char *prefix, struct bench_conn *pool, unsigned *n, char *err,
		     size_t errlen)
{
	static const unsigned tries[] = { POOL_MAX, 2, 1 };
	for (unsigned i = 0; i < 3; i++)
		if (conn_open_many(url, prefix, tries[i], pool, err, errlen) == 0) {
			*n = tries[i];
			return 0;
		}
	return -1;
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
	if (conn_open(o->url, o->initiator, &x.main, err, errlen))
		return -1;
	int ret = -1;
	if (o->dest_url) {
		if (conn_open(o->dest_url, o->initiator, &x.dmain, err, errlen))
			goto out;
		x.have_dest = true;
		if (x.dmain.block_size != x.main.block_size) {
			snprintf(err, errlen, "the two LUs' block sizes differ (%u, %u)", x.main.block_size,
				 x.dmain.block_size);
			goto out;
		}
		snprintf(r->dest, sizeof(r->dest), "%s %s LUN %d", x.dmain.portal, x.dmain.target, x.dmain.lun);
	}
	if (identify(&x, err, errlen) || layout(&x, err, errlen))
		goto out;
	if (open_pool(o->url, prefix, x.pool, &x.npool, err, errlen))
		goto out;
	if (x.have_dest) {
		char dp[320];
		snprintf(dp, sizeof(dp), "%s-dest", prefix);
		if (open_pool(o->dest_url, dp, x.dpool, &x.ndpool, err, errlen))
			goto out;
	}
	x.t.sparse_writes = o->sparse_writes;
	x.t.conns = x.pool;
	x.t.nconn = x.npool;
	x.t.dconns = x.have_dest ? x.dpool : x.pool;
	x.t.ndconn = x.have_dest ? x.ndpool : x.npool;
	double tp = now_s();
	if (floors(&x, err, errlen))
		goto out;
	r->phase_s[0] = now_s() - tp;
	tp = now_s();
	/* the read area, and XCOPY's source, hold unique incompressible data */
	struct dr_spec fill = { .kind = o->sparse_writes ? DR_SPARSE : DR_RANDOM, .bytes = x.area[A_READ].blocks * r->bs,
				.seed = x.stamp };
	if (write_kind(&x, &fill, x.area[A_READ].lba, "filling the read area", err, errlen))
		goto out;
	track_written(&x, A_READ, x.area[A_READ].lba + x.area[A_READ].blocks);
	r->phase_s[1] = now_s() - tp;
	tp = now_s();
	plan(&x);
	/* the timings get what is left of the budget but a share for data reduction (~30 writes of
	 * a few MiB, each waiting for the figures to settle) and the fit */
	double timing_end = x.t_start + 0.85 * o->budget_s - (q_log_supported(&x.main, 0x0c) ? 0.15 * o->budget_s : 0);
	if (timing_end < now_s() + 0.3 * r->npts)
		timing_end = now_s() + 0.3 * r->npts;
	for (unsigned i = 0; i < r->npts; i++) {
		struct calib_point_result *pr = &r->pts[i];
		if (!r->supported[pr->pt.kind]) {
			snprintf(pr->reason, sizeof(pr->reason), "not supported");
			continue;
		}
		double slice = (timing_end - now_s()) / (double)(r->npts - i);
		if (slice < 0.3)
			slice = 0.3;
		int rc = measure_point(&x, pr, slice, err, errlen);
		if (rc < 0)
			goto out;
		/* the smallest size of a kind refused: the kind is not supported */
		bool first = !i || r->pts[i - 1].pt.kind != pr->pt.kind;
		if (rc == 1 && first) {
			r->supported[pr->pt.kind] = false;
			snprintf(r->unsupported[pr->pt.kind], sizeof(r->unsupported[0]), "%s", pr->reason);
		}
		if (!o->quiet)
			fprintf(stderr, "\rcalibrate: %u of %u measurements   ", i + 1, r->npts);
	}
	if (!o->quiet)
		fprintf(stderr, "\n");
	r->phase_s[2] = now_s() - tp;
	tp = now_s();
	if (data_reduction(&x, err, errlen))
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
			struct bench_conn *c = x.have_dest && a == A_XCOPY ? &x.dmain : &x.main;
			if (unmap_range(&x, c, x.area[a].lba, x.written_end[a] - x.area[a].lba))
				note(r, "UNMAP of the %s area failed: it keeps calibrate's data", area_name((enum area_id)a));
		}
	} else {
		note(r, "the LU cannot UNMAP: the region keeps calibrate's data");
	}
	r->elapsed_s = now_s() - x.t_start;
	if (r->elapsed_s > o->budget_s * 1.2)
		note(r, "the run took %.0f s of a %.0f s budget: the slowest commands need at least a few "
		     "completions each", r->elapsed_s, o->budget_s);
	ret = 0;
out:
	close_all(&x);
	return ret;
}
