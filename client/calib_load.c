/* calib_load.c - closed-loop measurements for calibrate (calib_load.h). */
#include "client/calib_load.h"
#include "lunlab/cdb_decode.h"
#include "lunlab/scsi_vocab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#define UNMAP_LIST_LEN 24
#define XCOPY_LIST_MAX (XCOPY_HDR_LEN + 2 * XCOPY_TGT_DESC_LEN + 8 * XCOPY_SEG_DESC_LEN)
#define LOST_MAX 3  /* runs cut by a lost session that are run again */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

void calib_median_mad(double *v, size_t n, double *median, double *mad)
{
	*median = *mad = 0;
	if (!n)
		return;
	qsort(v, n, sizeof(*v), cmp_double);
	double m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	double *dev = malloc(n * sizeof(*dev));
	if (dev) {
		for (size_t i = 0; i < n; i++)
			dev[i] = fabs(v[i] - m);
		qsort(dev, n, sizeof(*dev), cmp_double);
		*mad = n % 2 ? dev[n / 2] : (dev[n / 2 - 1] + dev[n / 2]) / 2;
		free(dev);
	}
	*median = m;
}

uint64_t calib_wire_bytes(const struct calib_point *p, uint32_t bs)
{
	switch (p->kind) {
	case CK_READ:
	case CK_WRITE: return p->bytes;
	case CK_VERIFY: return 0;
	case CK_WRITE_SAME: return bs;
	case CK_UNMAP: return UNMAP_LIST_LEN;
	case CK_XCOPY: return XCOPY_HDR_LEN + 32 * 1 + (uint64_t)XCOPY_SEG_DESC_LEN * p->segments;
	default: return 0;
	}
}

/* A session failed for good: the run is over.  Close every session of the run, so that no
 * command or NOP-Out still queued on one refers to the caller's buffers once they are freed
 * (conn_close drops them without their callbacks; closing again later does nothing). */
static void end_sessions(const struct calib_target *t)
{
	for (unsigned i = 0; i < t->nevery; i++)
		conn_close(&t->every[i]);
}

struct lrun;

struct lslot {
	struct lrun *run;
	struct bench_conn *c;
	uint64_t lba, dlba;          /* the slot's range: blocks at lba (XCOPY: copied to dlba) */
	uint64_t t0;
	bool busy;
	uint8_t *buf;                /* WRITE data */
	uint8_t list[XCOPY_LIST_MAX];
	struct scsi_iovec iov;       /* the data-out of the command in flight */
};

struct lrun {
	struct calib_target *t;
	const struct calib_point *p;
	uint32_t blocks;             /* per command */
	unsigned q, inflight;
	uint64_t done, warmup, measure;
	bool stop;
	double t_start, max_s;
	uint64_t *stamp;
	uint8_t *scratch;            /* READ data lands here (never looked at) */
	uint8_t *ws_block;           /* the WRITE SAME block */
	uint64_t *tdone;             /* completion times of the timed commands */
	double *lat;                 /* their latencies */
	size_t n, cap;
	enum calib_outcome outcome;
	uint8_t key, asc, ascq;
	bool failed;
	char err[256];
	uint64_t written_end;
};

static void put_be(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
}

/* Every 512-byte sector of a WRITE starts with the command's stamp and its own index, so no
 * block repeats what the array holds (no dedup) while the rest of the buffer stays random. */
static void stamp_buf(uint8_t *buf, size_t len, uint64_t stamp)
{
	for (size_t o = 0; o + 16 <= len; o += 512) {
		memcpy(buf + o, &stamp, 8);
		uint64_t s = o >> 9;
		memcpy(buf + o + 8, &s, 8);
	}
}

static void fill_random(uint8_t *buf, size_t len, uint64_t seed)
{
	uint64_t x = seed ^ 0x2545f4914f6cdd1dull;
	for (size_t i = 0; i + 8 <= len; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(buf + i, &x, 8);
	}
}

static void slot_cb(struct bench_conn *c, int status, struct scsi_task *task, void *priv);

static int issue(struct lslot *s)
{
	struct lrun *r = s->run;
	const struct calib_point *p = r->p;
	uint8_t cdb[16] = { 0 };
	struct scsi_iovec *out = NULL;
	uint64_t bytes = (uint64_t)r->blocks * r->t->bs;
	switch (p->kind) {
	case CK_READ:
		(void)cdb_build(cdb, sizeof(cdb), SCSI_OP_READ_16, 0, s->lba, r->blocks);
		break;
	case CK_WRITE:
		(void)cdb_build(cdb, sizeof(cdb), SCSI_OP_WRITE_16, 0, s->lba, r->blocks);
		stamp_buf(s->buf, bytes, ++*r->stamp);
		s->iov = (struct scsi_iovec){ .iov_base = s->buf, .iov_len = bytes };
		out = &s->iov;
		break;
	case CK_VERIFY: /* BYTCHK 00b: the medium is verified, no data is sent */
		(void)cdb_build(cdb, sizeof(cdb), SCSI_OP_VERIFY_16, 0, s->lba, r->blocks);
		break;
	case CK_WRITE_SAME: /* no UNMAP, no ANCHOR: the range is written with one block */
		(void)cdb_build(cdb, sizeof(cdb), SCSI_OP_WRITE_SAME_16, 0, s->lba, r->blocks);
		s->iov = (struct scsi_iovec){ .iov_base = r->ws_block, .iov_len = r->t->bs };
		out = &s->iov;
		break;
	case CK_UNMAP:
		(void)cdb_build(cdb, sizeof(cdb), SCSI_OP_UNMAP, 0, 0, UNMAP_LIST_LEN);
		memset(s->list, 0, UNMAP_LIST_LEN);
		put_be(s->list, UNMAP_LIST_LEN - 2, 2);
		put_be(s->list + 2, 16, 2);
		put_be(s->list + 8, s->lba, 8);
		put_be(s->list + 16, r->blocks, 4);
		s->iov = (struct scsi_iovec){ .iov_base = s->list, .iov_len = UNMAP_LIST_LEN };
		out = &s->iov;
		break;
	case CK_XCOPY: {
		struct xcopy_segment seg[8];
		unsigned nseg = p->segments ? p->segments : 1;
		uint32_t per = r->blocks / nseg;
		for (unsigned i = 0; i < nseg; i++) {
			uint32_t b = i + 1 == nseg ? r->blocks - per * i : per;
			seg[i] = (struct xcopy_segment){ .src_index = 0, .dst_index = r->t->nlus == 2 ? 1 : 0,
							 .blocks = (uint16_t)b, .src_lba = s->lba + (uint64_t)per * i,
							 .dst_lba = s->dlba + (uint64_t)per * i };
		}
		int len = xcopy_build(r->t->lus, r->t->nlus, seg, nseg, s->list, sizeof(s->list));
		if (len < 0) {
			snprintf(r->err, sizeof(r->err), "cannot build an EXTENDED COPY list of %u segments", nseg);
			return -1;
		}
		xcopy_cdb(cdb, (uint32_t)len);
		s->iov = (struct scsi_iovec){ .iov_base = s->list, .iov_len = (size_t)len };
		out = &s->iov;
		break;
	}
	default:
		return -1;
	}
	/* the CDB's length, direction and transfer as the target will decode them */
	struct cdb_info ci;
	enum cdb_decode_status ds = cdb_decode(cdb, sizeof(cdb), r->t->bs, &ci);
	if (ds != CDB_DECODE_OK) {
		snprintf(r->err, sizeof(r->err), "calibration CDB: %s", cdb_decode_status_str(ds));
		return -1;
	}
	int dir = ci.dir == CDB_DIR_IN ? SCSI_XFER_READ : ci.dir == CDB_DIR_OUT ? SCSI_XFER_WRITE : SCSI_XFER_NONE;
	struct scsi_task *task = scsi_create_task(ci.layout->cdb_len, cdb, dir, (int)ci.xfer_bytes);
	if (!task) {
		snprintf(r->err, sizeof(r->err), "out of memory for a SCSI task");
		return -1;
	}
	if (p->kind == CK_READ && scsi_task_add_data_in_buffer(task, (int)bytes, r->scratch)) {
		scsi_free_scsi_task(task);
		snprintf(r->err, sizeof(r->err), "cannot attach a read buffer");
		return -1;
	}
	if (out)
		scsi_task_set_iov_out(task, out, 1);
	s->t0 = now_ns();
	if (conn_submit(s->c, task, slot_cb, s)) { /* the session failed for good: task freed */
		snprintf(r->err, sizeof(r->err), "%s", conn_error(s->c));
		return -1;
	}
	s->busy = true;
	r->inflight++;
	uint64_t end = s->lba + r->blocks;
	if ((p->kind == CK_WRITE || p->kind == CK_WRITE_SAME) && end > r->written_end)
		r->written_end = end;
	return 0;
}

static void slot_cb(struct bench_conn *c, int status, struct scsi_task *task, void *priv)
{
	struct lslot *s = priv;
	struct lrun *r = s->run;
	uint64_t t = now_ns();
	struct cmd_status st;
	conn_task_status(task, status, &st);
	if (task)
		scsi_free_scsi_task(task);
	s->busy = false;
	r->inflight--;
	if (st.status != 0) {
		if (st.status == 2 && r->outcome == CALIB_OK) {
			r->outcome = CALIB_REFUSED;
			r->key = st.key;
			r->asc = st.asc;
			r->ascq = st.ascq;
		} else if ((st.status == SCSI_STAT_BUSY || st.status == SCSI_STAT_TASK_SET_FULL) && r->outcome == CALIB_OK) {
			r->outcome = CALIB_BUSY;
		} else if (st.status < 0 && !r->failed) {
			r->failed = true;
			snprintf(r->err, sizeof(r->err), "%s failed: %s", calib_kind_name(r->p->kind), conn_error(c));
		} else if (r->outcome == CALIB_OK && !r->failed) {
			r->failed = true;
			snprintf(r->err, sizeof(r->err), "%s: SCSI status 0x%02x", calib_kind_name(r->p->kind), st.status);
		}
		r->stop = true;
		return;
	}
	r->done++;
	if (r->done > r->warmup) {
		if (r->n == r->cap) {
			size_t cap = r->cap ? 2 * r->cap : 1024;
			uint64_t *td = realloc(r->tdone, cap * sizeof(*td));
			if (td)
				r->tdone = td;
			double *la = realloc(r->lat, cap * sizeof(*la));
			if (la)
				r->lat = la;
			if (!td || !la) {
				r->failed = true;
				snprintf(r->err, sizeof(r->err), "out of memory for latencies");
				r->stop = true;
				return;
			}
			r->cap = cap;
		}
		r->tdone[r->n] = t;
		r->lat[r->n] = (double)(t - s->t0);
		r->n++;
	}
	double el = now_s() - r->t_start;
	if (r->n >= r->measure || (el >= r->max_s && r->n >= 3))
		r->stop = true;
	if (!r->stop && issue(s)) {
		r->failed = true;
		r->stop = true;
	}
}

/* The rate of the completion process over the timed part: the median of its four consecutive
 * quarters, so that one stall of the LU or of this host (a loaded machine, a garbage
 * collection) does not set the figure; the standard error from the quarters' spread.
 * best: the fastest quarter (what the transport can do at most, for the floor). */
static void rate_of(const uint64_t *t, size_t n, double *rate, double *se, double *best)
{
	*rate = *se = 0;
	if (best)
		*best = 0;
	if (n < 2 || t[n - 1] <= t[0])
		return;
	*rate = (double)(n - 1) / ((double)(t[n - 1] - t[0]) / 1e9);
	if (best)
		*best = *rate;
	if (n < 9) {
		*se = *rate * 0.05; /* too few to tell: a generous 5% */
		return;
	}
	double q[4], mean = 0, var = 0;
	for (int j = 0; j < 4; j++) {
		size_t a = j * (n - 1) / 4, b = (j + 1) * (n - 1) / 4;
		q[j] = t[b] > t[a] ? (double)(b - a) / ((double)(t[b] - t[a]) / 1e9) : *rate;
		mean += q[j] / 4;
	}
	for (int j = 0; j < 4; j++)
		var += (q[j] - mean) * (q[j] - mean) / 3;
	*se = sqrt(var / 4);
	double m, mad;
	double qq[4] = { q[0], q[1], q[2], q[3] };
	calib_median_mad(qq, 4, &m, &mad);
	*rate = m;
	if (best)
		*best = qq[3];
}

/* What the connection layer did on every session of the run so far: re-logins, and BUSY /
 * TASK SET FULL answers it retried (the LU had more outstanding than it takes). */
static void conn_counts(const struct calib_target *t, unsigned *reconnects, unsigned *busy)
{
	*reconnects = *busy = 0;
	for (unsigned i = 0; i < t->nevery; i++) {
		*reconnects += t->every[i].stats.reconnects;
		*busy += t->every[i].stats.busy + t->every[i].stats.task_set_full;
	}
}

static int load_once(struct calib_target *t, const struct calib_point *p, const struct calib_area *src,
		     const struct calib_area *dst, unsigned q, unsigned warmup, unsigned measure, double max_s,
		     uint64_t *stamp, struct calib_run *res, bool *lost, char *err, size_t errlen)
{
	memset(res, 0, sizeof(*res));
	res->q = q;
	struct lrun r = { .t = t, .p = p, .q = q, .warmup = warmup, .measure = measure, .max_s = max_s,
			  .stamp = stamp };
	r.blocks = (uint32_t)(p->bytes / t->bs);
	struct lslot *slots = calloc(q, sizeof(*slots));
	int ret = -1;
	if (!slots || !r.blocks) {
		snprintf(err, errlen, "out of memory for %u slots", q);
		goto out;
	}
	uint64_t fit = src->blocks / r.blocks;
	if (!fit) {
		snprintf(err, errlen, "a %s of %llu bytes does not fit its area", calib_kind_name(p->kind),
			 (unsigned long long)p->bytes);
		goto out;
	}
	if (p->kind == CK_READ && posix_memalign((void **)&r.scratch, 4096, p->bytes)) {
		r.scratch = NULL;
		snprintf(err, errlen, "out of memory for a %llu-byte buffer", (unsigned long long)p->bytes);
		goto out;
	}
	if (p->kind == CK_WRITE_SAME) {
		r.ws_block = malloc(t->bs);
		if (!r.ws_block) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		fill_random(r.ws_block, t->bs, 0x5a5a + *stamp);
	}
	for (unsigned i = 0; i < q; i++) {
		struct lslot *s = &slots[i];
		s->run = &r;
		s->c = p->kind == CK_XCOPY ? &t->dconns[i % t->ndconn] : &t->conns[i % t->nconn];
		s->lba = src->lba + (i % fit) * r.blocks;
		s->dlba = dst ? dst->lba + (i % (dst->blocks / r.blocks ? dst->blocks / r.blocks : 1)) * r.blocks : 0;
		if (p->kind == CK_WRITE) {
			if (posix_memalign((void **)&s->buf, 4096, p->bytes)) {
				s->buf = NULL;
				snprintf(err, errlen, "out of memory for %u write buffers of %llu bytes", q,
					 (unsigned long long)p->bytes);
				goto out;
			}
			if (t->sparse_writes)
				memset(s->buf, 0, p->bytes); /* the stamp makes it unique */
			else
				fill_random(s->buf, p->bytes, *stamp * 977 + i);
		}
	}
	unsigned rec0, busy0, rec1, busy1;
	conn_counts(t, &rec0, &busy0);
	double cpu0 = cpu_seconds();
	r.t_start = now_s();
	for (unsigned i = 0; i < q && !r.stop; i++)
		if (issue(&slots[i])) {
			r.failed = true;
			r.stop = true;
		}
	/* Every session in one poll: the commands' and the idle ones, whose target may ping them.
	 * No deadline of its own: the connection layer aborts a command unanswered for --timeout
	 * and ends the run (exit 3) when that does not help. */
	while (r.inflight) {
		if (conn_poll_many(t->every, t->nevery, 200, err, errlen) < 0) {
			end_sessions(t); /* commands in flight reference the slots */
			goto out;
		}
	}
	conn_counts(t, &rec1, &busy1);
	*lost = rec1 != rec0;
	if (busy1 != busy0 && r.outcome == CALIB_OK)
		r.outcome = CALIB_BUSY;
	res->wall_s = now_s() - r.t_start;
	res->cpu_share = res->wall_s > 0 ? (cpu_seconds() - cpu0) / res->wall_s : 0;
	if (r.failed) {
		snprintf(err, errlen, "%s", r.err);
		goto out;
	}
	res->outcome = r.outcome;
	res->key = r.key;
	res->asc = r.asc;
	res->ascq = r.ascq;
	res->measured = r.n;
	res->written_lba_end = r.written_end;
	rate_of(r.tdone, r.n, &res->rate, &res->rate_se, NULL);
	calib_median_mad(r.lat, r.n, &res->lat_med_ns, &res->lat_mad_ns);
	ret = 0;
out:
	if (slots) {
		for (unsigned i = 0; i < q; i++)
			free(slots[i].buf);
		free(slots);
		free(r.scratch);
		free(r.ws_block);
	}
	free(r.tdone);
	free(r.lat);
	return ret;
}

int calib_load_run(struct calib_target *t, const struct calib_point *p, const struct calib_area *src,
		   const struct calib_area *dst, unsigned q, unsigned warmup, unsigned measure, double max_s,
		   uint64_t *stamp, struct calib_run *res, char *err, size_t errlen)
{
	uint64_t written = 0;
	for (unsigned attempt = 0;; attempt++) {
		bool lost = false;
		if (load_once(t, p, src, dst, q, warmup, measure, max_s, stamp, res, &lost, err, errlen))
			return -1;
		if (res->written_lba_end > written)
			written = res->written_lba_end;
		res->written_lba_end = written;
		if (!lost)
			return 0;
		if (attempt + 1 >= LOST_MAX) {
			snprintf(err, errlen, "%s at %u outstanding: a session was lost and logged in again during each "
				 "of %u runs, so no timing holds only the LU's work", calib_kind_name(p->kind), q,
				 LOST_MAX);
			return -1;
		}
	}
}

/* ---- the transport's floor ---- */

/* NOP-Outs are not SCSI commands: the connection layer has no queue for them, so they go on
 * the session's current libiscsi context while it is logged in.  A context the layer destroys
 * (a lost connection) cancels them or drops them: either way the round trip is sent again on
 * the next session. */
static bool session_up(const struct bench_conn *c)
{
	return c->iscsi && !conn_failed(c) && iscsi_is_logged_in(c->iscsi);
}

static double timeout_s(void)
{
	double s = conn_get_policy()->timeout_s;
	return s > 0 ? s : 30;
}

/* Service every session until all of c[0..n) are logged in; -1 when one failed for good. */
static int wait_up(const struct calib_target *t, struct bench_conn *c, unsigned n, char *err, size_t errlen)
{
	for (;;) {
		unsigned up = 0;
		for (unsigned i = 0; i < n; i++)
			up += session_up(&c[i]);
		if (up == n)
			return 0;
		if (conn_poll_many(t->every, t->nevery, 200, err, errlen) < 0)
			return -1;
	}
}

/* No NOP-In within --timeout: the target stopped answering, which ends the run as an
 * unanswered command does (exit 3, the one line naming the URL). */
static int nop_unanswered(const struct bench_conn *c, char *err, size_t errlen)
{
	char msg[700];
	snprintf(msg, sizeof(msg), "%s: a NOP-Out got no NOP-In within --timeout %g s", c->url, timeout_s());
	conn_note_fatal(msg);
	snprintf(err, errlen, "%s", msg);
	return -1;
}

struct nop_state {
	uint64_t t0;
	bool done;
	int status;
};

static void nop_cb(struct iscsi_context *iscsi, int status, void *command_data, void *priv)
{
	struct nop_state *n = priv;
	(void)iscsi;
	(void)command_data;
	n->done = true;
	n->status = status;
}

int calib_nop_rtt(const struct calib_target *t, struct bench_conn *c, unsigned reps, double *median_ns,
		  double *mad_ns, char *err, size_t errlen)
{
	double *v = calloc(reps ? reps : 1, sizeof(*v));
	if (!v) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	unsigned i = 0, cut = 0;
	while (i < reps) {
		if (wait_up(t, c, 1, err, errlen))
			goto fail;
		struct iscsi_context *ctx = c->iscsi;
		unsigned gen = c->stats.reconnects;
		struct nop_state n = { .t0 = now_ns() };
		bool gone = iscsi_nop_out_async(ctx, nop_cb, NULL, 0, &n) != 0;
		double start = now_s();
		while (!gone && !n.done) {
			if (conn_poll_many(t->every, t->nevery, 200, err, errlen) < 0)
				goto fail;
			/* the context was destroyed (and with it the NOP-Out, cancelled or dropped) */
			gone = c->iscsi != ctx || c->stats.reconnects != gen;
			if (!gone && !n.done && now_s() - start > timeout_s()) {
				nop_unanswered(c, err, errlen);
				goto fail;
			}
		}
		if (gone || n.status != 0) {
			if (++cut > 100) {
				snprintf(err, errlen, "%s: 100 NOP-Outs failed or were cut by lost sessions", c->url);
				goto fail;
			}
			continue;
		}
		v[i++] = (double)(now_ns() - n.t0);
	}
	calib_median_mad(v, reps, median_ns, mad_ns);
	free(v);
	return 0;
fail:
	end_sessions(t); /* a NOP-Out in flight refers to n: its callback runs now, not later */
	free(v);
	return -1;
}

struct nop_loop {
	bool stop, cut;
	unsigned inflight;
	uint64_t *t;           /* completion times */
	size_t n, cap;
};

struct nop_slot {
	struct bench_conn *c;
	struct nop_loop *l;
	struct iscsi_context *ctx;   /* where its NOP-Out is in flight */
	bool pending;
};

static void nop_loop_cb(struct iscsi_context *iscsi, int status, void *command_data, void *priv)
{
	struct nop_slot *s = priv;
	struct nop_loop *l = s->l;
	(void)command_data;
	if (!s->pending)
		return;
	s->pending = false;
	l->inflight--;
	if (status != 0) {
		l->cut = true; /* cancelled with its context (a lost session), or refused */
		return;
	}
	if (l->n < l->cap)
		l->t[l->n++] = now_ns();
	if (!l->stop && !iscsi_nop_out_async(iscsi, nop_loop_cb, NULL, 0, s)) {
		s->pending = true;
		l->inflight++;
	}
}

/* One measurement; *cut: a session was lost on the way (its NOP-Outs stopped). */
static int nop_rate_once(const struct calib_target *t, struct nop_slot *slots, unsigned nslots, double seconds,
			 struct nop_loop *l, char *err, size_t errlen)
{
	for (unsigned i = 0; i < nslots; i++) {
		struct nop_slot *s = &slots[i];
		s->ctx = s->c->iscsi;
		s->pending = false;
		if (!iscsi_nop_out_async(s->ctx, nop_loop_cb, NULL, 0, s)) {
			s->pending = true;
			l->inflight++;
		}
	}
	double t0 = now_s(), last = now_s();
	size_t seen = 0;
	while (l->inflight) {
		if (conn_poll_many(t->every, t->nevery, 200, err, errlen) < 0)
			return -1;
		for (unsigned i = 0; i < nslots; i++)
			if (slots[i].pending && slots[i].c->iscsi != slots[i].ctx) { /* destroyed with it */
				slots[i].pending = false;
				l->inflight--;
				l->cut = true;
			}
		double now = now_s();
		if (now - t0 >= seconds)
			l->stop = true;
		if (l->n != seen) {
			seen = l->n;
			last = now;
		} else if (now - last > timeout_s()) {
			for (unsigned i = 0; i < nslots; i++)
				if (slots[i].pending)
					return nop_unanswered(slots[i].c, err, errlen);
		}
	}
	return 0;
}

/* The fastest quarter of the run: the floor is what the transport can do at most, and a stall
 * of this host in one quarter must not lower it. */
int calib_nop_rate(const struct calib_target *t, unsigned q, double seconds, double *rate, char *err,
		   size_t errlen)
{
	static struct nop_loop l;
	unsigned n = t->nconn;
	struct nop_slot *slots = calloc((size_t)n * q, sizeof(*slots));
	memset(&l, 0, sizeof(l));
	l.cap = 4u << 20;
	l.t = malloc(l.cap * sizeof(*l.t));
	if (!slots || !l.t) {
		free(slots);
		free(l.t);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (unsigned i = 0; i < n * q; i++)
		slots[i] = (struct nop_slot){ .c = &t->conns[i % n], .l = &l };
	for (unsigned attempt = 0;; attempt++) {
		l.n = 0;
		l.stop = l.cut = false;
		if (wait_up(t, t->conns, n, err, errlen) || nop_rate_once(t, slots, n * q, seconds, &l, err, errlen)) {
			end_sessions(t); /* NOP-Outs in flight refer to the slots */
			free(slots);
			free(l.t);
			return -1;
		}
		if (!l.cut)
			break;
		if (attempt + 1 >= LOST_MAX) {
			snprintf(err, errlen, "NOP-Outs failed or were cut by lost sessions in each of %u runs", LOST_MAX);
			free(slots);
			free(l.t);
			return -1;
		}
	}
	double med, se;
	size_t skip = l.n / 5; /* a short warm-up */
	rate_of(l.t + skip, l.n - skip, &med, &se, rate);
	free(slots);
	free(l.t);
	return 0;
}
