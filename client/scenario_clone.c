/* scenario_clone.c - an ESXi-like datamover.
 *
 * A template region is written once, then cloned --vms times into consecutive destination
 * regions.  --parallel clones run at once (vCenter runs several provisioning operations per
 * host), each keeping --outstanding commands in flight.  Each EXTENDED COPY covers at most
 * --chunk bytes (ESXi's /DataMover/MaxHWTransferSize) with one 0x02 segment and one 0xE4
 * descriptor per LU, LIST ID USAGE 11b, sent to the destination LU.  When the array refuses
 * the command (CHECK CONDITION) the run falls back to the software datamover - READ into the
 * host, WRITE back out - and says so, as ESXi does.
 *
 * --mode odx copies as Windows' copy engine does instead: one token per chunk - POPULATE
 * TOKEN of the chunk's source range (to the source LU), RECEIVE ROD TOKEN INFORMATION to fetch
 * the token, WRITE USING TOKEN of it to the destination range (to the destination LU).  What
 * the array refuses is copied with READ + WRITE; a partial WRITE USING TOKEN has its transfer
 * count read with RRTI and only the rest is copied that way. */
#include "lunlab/cdb_decode.h"
#include "lunlab/scsi_vocab.h"
#include "client/scenarios.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#include "client/conn.h"
#include "client/latency.h"
#include "client/progress.h"
#include "client/readback.h"
#include "client/scsi_query.h"
#include "client/odx_builder.h"
#include "client/odx_explain.h"
#include "client/stream_write.h"
#include "client/vpd8f.h"
#include "client/xfer_limit.h"
#include "client/xcopy_builder.h"

/* The software datamover moves at most this much per READ/WRITE pair (host buffers stay
 * bounded at parallel x outstanding x 1 MiB whatever --chunk says). */
#define SW_IO_MAX (1u << 20)

struct clone_ctx;

struct cslot {
	struct clone_ctx *ctx;
	unsigned lane;
	bool busy;
	bool xcopy;                 /* this command is an EXTENDED COPY */
	bool odx;                   /* this piece goes POPULATE TOKEN -> RRTI -> WRITE USING TOKEN */
	int phase;                  /* software: 1 reading, 2 writing; ODX: enum odx_phase */
	unsigned clone;
	uint64_t off, end;          /* piece of the template still to copy, in blocks */
	uint64_t blocks;            /* the command in flight covers [off, off + blocks) */
	uint64_t t0;
	uint8_t list[XCOPY_HDR_LEN + 2 * XCOPY_TGT_DESC_LEN + XCOPY_SEG_DESC_LEN];
	uint8_t *buf;               /* software datamover buffer */
	struct scsi_iovec iov;
	uint8_t olist[ODX_WUT_HDR_LEN + ODX_RANGE_LEN];   /* the ODX parameter list in flight */
	uint8_t token[ODX_TOKEN_LEN];                     /* this piece's token, from RRTI */
	struct cmd_status wut_st;   /* a refused WRITE USING TOKEN's answer, kept across its RRTI */
};

enum odx_phase { ODX_PT = 11, ODX_RRTI, ODX_WUT, ODX_WUT_RRTI };

struct lane {
	int clone;                  /* -1 idle */
	uint64_t next_off;          /* next template block to issue */
	unsigned inflight;
	bool software;              /* an EXTENDED COPY of this clone failed: the rest in software */
};

struct clone_ctx {
	const struct bench_opts *o;
	struct bench_conn conns[2];
	unsigned nconn;
	struct bench_conn *src, *dst;
	struct xcopy_lu lus[2];
	bool have_naa;
	uint32_t bsz;
	uint64_t tmpl_blocks;
	uint64_t dst_base;          /* LBA of clone 0 on the destination */
	uint64_t chunk_blocks, sw_blocks;
	bool use_xcopy;
	bool use_odx;
	bool odx_offered;           /* VPD 8Fh of both LUs lists POPULATE TOKEN and WRITE USING TOKEN */
	uint64_t odx_max_blocks;    /* VPD 8Fh MAXIMUM TOKEN TRANSFER SIZE (0: not said) */
	struct clone_run *run;
	/* run state */
	unsigned next_clone, clones_done;
	struct lane *lanes;
	struct cslot *slots;
	struct lat_samples lat;
	uint64_t blocks_done;
	bool *clone_fell_back;      /* per clone: an EXTENDED COPY of it failed part way */
	bool failed;
	char err[1024];
};

static uint64_t dst_lba(const struct clone_ctx *x, unsigned clone, uint64_t off)
{
	return x->dst_base + (uint64_t)clone * x->tmpl_blocks + off;
}

static int build_list(struct clone_ctx *x, unsigned clone, uint64_t off, uint64_t blocks, uint8_t *buf, size_t cap)
{
	struct xcopy_segment seg = {
		.src_index = 0,
		.dst_index = x->nconn == 2 ? 1 : 0,
		.blocks = (uint16_t)blocks,
		.src_lba = off,
		.dst_lba = dst_lba(x, clone, off),
	};
	return xcopy_build(x->lus, x->nconn, &seg, 1, buf, cap);
}

static void slot_cb(struct bench_conn *c, int status, struct scsi_task *task, void *priv);

static int issue_software_read(struct cslot *s)
{
	struct clone_ctx *x = s->ctx;
	if (!s->buf && posix_memalign((void **)&s->buf, 4096, (size_t)x->sw_blocks * x->bsz)) {
		snprintf(x->err, sizeof(x->err), "out of memory for the software datamover");
		return -1;
	}
	s->xcopy = false;
	s->odx = false;
	s->phase = 1;
	s->blocks = s->end - s->off < x->sw_blocks ? s->end - s->off : x->sw_blocks;
	s->iov.iov_base = s->buf;
	s->iov.iov_len = (size_t)(s->blocks * x->bsz);
	s->t0 = now_ns();
	if (conn_read16(x->src, s->off, (uint32_t)(s->blocks * x->bsz), &s->iov, 1, slot_cb, s)) {
		snprintf(x->err, sizeof(x->err), "%s", conn_failed(x->src) ? conn_error(x->src) : "cannot queue READ(16)");
		return -1;
	}
	return 0;
}

static int issue_software_write(struct cslot *s)
{
	struct clone_ctx *x = s->ctx;
	s->phase = 2;
	s->t0 = now_ns();
	if (conn_write16(x->dst, dst_lba(x, s->clone, s->off), (uint32_t)(s->blocks * x->bsz), &s->iov, 1, slot_cb, s)) {
		snprintf(x->err, sizeof(x->err), "%s", conn_failed(x->dst) ? conn_error(x->dst) : "cannot queue WRITE(16)");
		return -1;
	}
	return 0;
}

static int issue_xcopy(struct cslot *s)
{
	struct clone_ctx *x = s->ctx;
	int len = build_list(x, s->clone, s->off, s->blocks, s->list, sizeof(s->list));
	if (len < 0) {
		snprintf(x->err, sizeof(x->err), "cannot build an EXTENDED COPY parameter list");
		return -1;
	}
	s->xcopy = true;
	s->t0 = now_ns();
	struct scsi_task *t = scsi_cdb_extended_copy(len);
	if (!t || scsi_task_add_data_out_buffer(t, len, s->list)) {
		scsi_free_scsi_task(t);
		snprintf(x->err, sizeof(x->err), "out of memory for an EXTENDED COPY");
		return -1;
	}
	if (conn_submit(x->dst, t, slot_cb, s)) {
		snprintf(x->err, sizeof(x->err), "%s", conn_failed(x->dst) ? conn_error(x->dst) : "cannot queue EXTENDED COPY");
		return -1;
	}
	x->run->wire_bytes += (uint64_t)len;
	return 0;
}

/* ---- ODX: one token per chunk, the three commands Windows' copy engine sends ---- */

static void odx_cb(struct bench_conn *c, int status, struct scsi_task *task, void *priv);

/* List identifiers are per I_T nexus: each slot has two of its own (its POPULATE TOKEN's and
 * its WRITE USING TOKEN's), so no id is reused while the array may still hold its list. */
static uint32_t odx_list_id(const struct clone_ctx *x, const struct cslot *s, bool wut)
{
	return 0x10000u + 2u * (uint32_t)(s - x->slots) + (wut ? 1u : 0u);
}

static int odx_submit(struct cslot *s, struct bench_conn *c, const uint8_t cdb[16], bool out, size_t len,
		      int phase, const char *what)
{
	struct clone_ctx *x = s->ctx;
	struct scsi_task *t = scsi_create_task(16, (unsigned char *)cdb, out ? SCSI_XFER_WRITE : SCSI_XFER_READ, (int)len);
	if (!t || (out && scsi_task_add_data_out_buffer(t, (int)len, s->olist))) {
		if (t)
			scsi_free_scsi_task(t);
		snprintf(x->err, sizeof(x->err), "out of memory for a %s", what);
		return -1;
	}
	s->odx = true;
	s->xcopy = false;
	s->phase = phase;
	s->t0 = now_ns();
	if (conn_submit(c, t, odx_cb, s)) {
		snprintf(x->err, sizeof(x->err), "%s", conn_failed(c) ? conn_error(c) : "cannot queue an ODX command");
		return -1;
	}
	if (out)
		x->run->wire_bytes += len;
	return 0;
}

static int odx_pt_list(const struct clone_ctx *x, const struct cslot *s, uint8_t *buf, size_t cap)
{
	/* ROD type and inactivity timeout left to the array (RTV 0, timeout 0), as Windows asks */
	struct odx_pt_args a = { .immed = false };
	struct odx_range r = { .lba = s->off, .blocks = (uint32_t)s->blocks };
	(void)x;
	return odx_pt_build(&a, &r, 1, buf, cap);
}

/* DEL_TKN: a chunk's token serves one write, so it dies with it and its block references
 * are released now rather than at the end of its inactivity timeout. */
static int odx_wut_list(const struct clone_ctx *x, const struct cslot *s, const uint8_t *token, uint8_t *buf, size_t cap)
{
	struct odx_wut_args a = { .del_tkn = !x->o->keep_tokens, .offset_blocks = 0, .token = token };
	struct odx_range r = { .lba = dst_lba(x, s->clone, s->off), .blocks = (uint32_t)s->blocks };
	return odx_wut_build(&a, &r, 1, buf, cap);
}

static int issue_odx_pt(struct cslot *s)
{
	struct clone_ctx *x = s->ctx;
	int len = odx_pt_list(x, s, s->olist, sizeof(s->olist));
	if (len < 0) {
		snprintf(x->err, sizeof(x->err), "cannot build a POPULATE TOKEN parameter list");
		return -1;
	}
	uint8_t cdb[16];
	odx_pt_cdb(cdb, odx_list_id(x, s, false), (uint32_t)len);
	return odx_submit(s, x->src, cdb, true, (size_t)len, ODX_PT, "POPULATE TOKEN");
}

/* RRTI of the POPULATE TOKEN (on the source's nexus) or of the WRITE USING TOKEN (on the
 * destination's): list ids belong to the nexus that sent the command. */
static int issue_odx_rrti(struct cslot *s, bool wut)
{
	struct clone_ctx *x = s->ctx;
	uint8_t cdb[16];
	odx_rrti_cdb(cdb, odx_list_id(x, s, wut), ODX_RRTI_ALLOC);
	return odx_submit(s, wut ? x->dst : x->src, cdb, false, ODX_RRTI_ALLOC, wut ? ODX_WUT_RRTI : ODX_RRTI,
			  "RECEIVE ROD TOKEN INFORMATION");
}

static int issue_odx_wut(struct cslot *s)
{
	struct clone_ctx *x = s->ctx;
	int len = odx_wut_list(x, s, s->token, s->olist, sizeof(s->olist));
	if (len < 0) {
		snprintf(x->err, sizeof(x->err), "cannot build a WRITE USING TOKEN parameter list");
		return -1;
	}
	uint8_t cdb[16];
	odx_wut_cdb(cdb, odx_list_id(x, s, true), (uint32_t)len);
	return odx_submit(s, x->dst, cdb, true, (size_t)len, ODX_WUT, "WRITE USING TOKEN");
}

/* Give lane `l`'s idle slots the next pieces of its clone; move to the next clone when done. */
static void lane_fill(struct clone_ctx *x, unsigned l)
{
	struct lane *ln = &x->lanes[l];
	unsigned out = x->o->outstanding;
	for (;;) {
		/* A lane starts its next clone as soon as the last piece of the current one is
		 * issued (not completed): the host keeps `outstanding` commands in flight per lane,
		 * the closed loop the models are calibrated with (tests/unit/models). */
		if (ln->clone < 0 || ln->next_off >= x->tmpl_blocks) {
			if (ln->clone >= 0)
				x->clones_done++;
			if (x->next_clone >= x->o->clones) {
				ln->clone = -1;
				return;
			}
			ln->clone = (int)x->next_clone++;
			ln->next_off = 0;
			ln->software = false;      /* every clone tries EXTENDED COPY again */
		}
		struct cslot *s = NULL;
		for (unsigned q = 0; q < out; q++) {
			if (!x->slots[l * out + q].busy) {
				s = &x->slots[l * out + q];
				break;
			}
		}
		if (!s)
			return;
		bool odx = x->use_odx && !ln->software;
		bool xcopy = !odx && x->use_xcopy && !ln->software;
		uint64_t per = xcopy || odx ? x->chunk_blocks : x->sw_blocks;
		uint64_t left = x->tmpl_blocks - ln->next_off;
		s->clone = (unsigned)ln->clone;
		s->off = ln->next_off;
		s->end = s->off + (left < per ? left : per);
		s->blocks = s->end - s->off;
		s->busy = true;
		ln->next_off = s->end;
		ln->inflight++;
		int rc = odx ? issue_odx_pt(s) : xcopy ? issue_xcopy(s) : issue_software_read(s);
		if (rc) {
			x->failed = true;
			s->busy = false;
			ln->inflight--;
			return;
		}
	}
}

static void slot_done(struct clone_ctx *x, struct cslot *s)
{
	s->busy = false;
	x->lanes[s->lane].inflight--;
	if (!x->failed)
		lane_fill(x, s->lane);
}

/* An EXTENDED COPY came back with CHECK CONDITION (--mode auto), as ESXi's datamover handles
 * it: an array that does not know the command (05/20/00 INVALID COMMAND OPERATION CODE) gets
 * the software datamover (host READ + WRITE) for the rest of the run; any other failure (a
 * copy aborted part way: COPY ABORTED, ABORTED COMMAND, a parameter list refused mid-run...)
 * sends the rest of that clone through the software datamover, and the next clones try
 * EXTENDED COPY again.  The failed piece itself is always redone in software. */
static void xcopy_failed(struct clone_ctx *x, struct cslot *s, const struct cmd_status *st)
{
	struct clone_run *run = x->run;
	char answer[80];
	conn_describe_status(st->status, st->key, st->asc, st->ascq, answer, sizeof(answer));
	run->fell_back = true;
	if (st->key == SCSI_SK_ILLEGAL_REQUEST && st->asc == scsi_asc(SCSI_ASC_INVALID_OPCODE)) {
		if (x->use_xcopy) {
			x->use_xcopy = false;
			snprintf(run->fallback_reason, sizeof(run->fallback_reason),
				 "the array refused EXTENDED COPY (%s): fell back to the software datamover "
				 "(host READ + WRITE) for the rest of the run, as ESXi does", answer);
		}
		return;
	}
	struct lane *ln = &x->lanes[s->lane];
	if (ln->clone == (int)s->clone)
		ln->software = true;     /* (a lane that moved on has issued all of this clone) */
	if (!x->clone_fell_back[s->clone]) {
		x->clone_fell_back[s->clone] = true;
		run->fallback_clones++;
	}
	if (!run->fallback_reason[0])
		snprintf(run->fallback_reason, sizeof(run->fallback_reason),
			 "EXTENDED COPY failed at clone %u, template block %llu (%s): the rest of that clone "
			 "went through the software datamover (host READ + WRITE), as ESXi does; the next "
			 "clones tried EXTENDED COPY again", s->clone, (unsigned long long)s->off, answer);
}

static void slot_cb(struct bench_conn *c, int status, struct scsi_task *task, void *priv)
{
	struct cslot *s = priv;
	struct clone_ctx *x = s->ctx;
	struct cmd_status st;
	char answer[100];
	uint64_t t = now_ns();
	conn_task_status(task, status, &st);
	conn_describe_answer(c, status, task, answer, sizeof(answer));
	scsi_free_scsi_task(task);
	lat_add(&x->lat, t - s->t0);
	x->run->commands++;
	if (st.status != 0) {
		if (s->xcopy && st.status == SCSI_STATUS_CHECK_CONDITION && x->o->mode == MODE_AUTO) {
			xcopy_failed(x, s, &st);
			/* The refused piece [off, end) is copied in software pieces by this slot. */
			if (issue_software_read(s)) {
				x->failed = true;
				slot_done(x, s);
			}
			return;
		}
		if (!x->failed) {
			x->failed = true;
			if (st.status < 0)
				snprintf(x->err, sizeof(x->err), "%s", conn_error(c));
			else
				snprintf(x->err, sizeof(x->err), "%s: %s failed at clone %u, template block %llu: %s", c->url,
					 s->xcopy ? "EXTENDED COPY" : s->phase == 1 ? "READ(16)" : "WRITE(16)", s->clone,
					 (unsigned long long)s->off, answer);
		}
		slot_done(x, s);
		return;
	}
	if (!s->xcopy && s->phase == 1) {
		x->run->wire_bytes += s->blocks * x->bsz;
		if (issue_software_write(s)) {
			x->failed = true;
			slot_done(x, s);
		}
		return;
	}
	x->blocks_done += s->blocks;
	if (s->xcopy)
		x->run->xcopy_bytes += s->blocks * x->bsz;
	if (!s->xcopy) {
		x->run->software_bytes += s->blocks * x->bsz;
		x->run->wire_bytes += s->blocks * x->bsz;
		s->off += s->blocks;
		if (s->off < s->end && !x->failed) {
			if (issue_software_read(s)) {
				x->failed = true;
				slot_done(x, s);
			}
			return;
		}
	}
	slot_done(x, s);
}

/* The array refused an ODX step (or wrote part of a WRITE USING TOKEN): as Windows' copy
 * engine does, the rest of the piece, [s->off, s->end), is copied with READ + WRITE.  An
 * array that does not know the opcode gets no more ODX in this run; any other refusal sends
 * the rest of that clone through READ + WRITE, and the next clones try ODX again. */
static void odx_refused(struct clone_ctx *x, struct cslot *s, const struct cmd_status *st, const char *why)
{
	struct clone_run *run = x->run;
	run->fell_back = true;
	if (st && st->key == SCSI_SK_ILLEGAL_REQUEST && st->asc == scsi_asc(SCSI_ASC_INVALID_OPCODE)) {
		if (x->use_odx) {
			x->use_odx = false;
			snprintf(run->fallback_reason, sizeof(run->fallback_reason),
				 "the array refused ODX (%s): the rest of the run was copied with host READ + WRITE, "
				 "as Windows' copy engine does", why);
		}
	} else {
		struct lane *ln = &x->lanes[s->lane];
		if (ln->clone == (int)s->clone)
			ln->software = true;
		if (!x->clone_fell_back[s->clone]) {
			x->clone_fell_back[s->clone] = true;
			run->fallback_clones++;
		}
		if (!run->fallback_reason[0])
			snprintf(run->fallback_reason, sizeof(run->fallback_reason),
				 "ODX stopped at clone %u, template block %llu (%s): the rest of that clone was copied "
				 "with host READ + WRITE, as Windows' copy engine does; the next clones tried ODX again",
				 s->clone, (unsigned long long)s->off, why);
	}
	if (s->off >= s->end) {
		slot_done(x, s);
		return;
	}
	if (issue_software_read(s)) {
		x->failed = true;
		slot_done(x, s);
	}
}

static void odx_cb(struct bench_conn *c, int status, struct scsi_task *task, void *priv)
{
	struct cslot *s = priv;
	struct clone_ctx *x = s->ctx;
	struct cmd_status st;
	char answer[100], why[300];
	uint64_t t = now_ns();
	conn_task_status(task, status, &st);
	conn_describe_answer(c, status, task, answer, sizeof(answer));
	struct odx_rrti info;
	char perr[160] = "";
	bool rrti_ok = false;
	if (st.status == 0 && (s->phase == ODX_RRTI || s->phase == ODX_WUT_RRTI)) {
		size_t n = task->datain.size > 0 ? (size_t)task->datain.size : 0;
		rrti_ok = odx_rrti_parse(task->datain.data, n, &info, perr, sizeof(perr)) == 0;
		x->run->wire_bytes += n;
	}
	scsi_free_scsi_task(task);
	lat_add(&x->lat, t - s->t0);
	x->run->commands++;
	/* where an ODX copy's time goes: bench/odx-speed.sh holds WRITE USING TOKEN to its goal */
	if (s->phase == ODX_PT) {
		x->run->odx_pt_ns += t - s->t0;
		if (st.status == 0)
			x->run->odx_tokens++;
	} else if (s->phase == ODX_WUT) {
		x->run->odx_wut_ns += t - s->t0;
		if (t - s->t0 > x->run->odx_wut_max_ns)
			x->run->odx_wut_max_ns = t - s->t0;
	} else {
		x->run->odx_rrti_ns += t - s->t0;
	}
	static const char *const names[] = { "POPULATE TOKEN", "RECEIVE ROD TOKEN INFORMATION", "WRITE USING TOKEN",
					     "RECEIVE ROD TOKEN INFORMATION" };
	const char *what = names[s->phase - ODX_PT];
	/* a lost session or an answer other than GOOD / CHECK CONDITION after the connection
	 * layer's retries: the run fails, as a READ or WRITE would */
	if (st.status != 0 && (st.status < 0 || st.status != SCSI_STATUS_CHECK_CONDITION || x->failed)) {
		if (!x->failed) {
			x->failed = true;
			snprintf(x->err, sizeof(x->err), "%s: %s failed at clone %u, template block %llu: %s", c->url, what,
				 s->clone, (unsigned long long)s->off, st.status < 0 ? conn_error(c) : answer);
		}
		slot_done(x, s);
		return;
	}
	if (x->failed) {
		slot_done(x, s);
		return;
	}
	int rc = 0;
	switch (s->phase) {
	case ODX_PT:
		if (st.status) {
			snprintf(why, sizeof(why), "POPULATE TOKEN: %s", answer);
			odx_refused(x, s, &st, why);
			return;
		}
		rc = issue_odx_rrti(s, false);
		break;
	case ODX_RRTI:
		if (st.status || !rrti_ok || !info.have_token || info.status != ODX_ST_GOOD) {
			snprintf(why, sizeof(why), "RECEIVE ROD TOKEN INFORMATION: %s", st.status ? answer : !rrti_ok ? perr :
				 !info.have_token ? "no token in the answer" : odx_status_name(info.status));
			odx_refused(x, s, st.status ? &st : NULL, why);
			return;
		}
		memcpy(s->token, info.token, ODX_TOKEN_LEN);
		rc = issue_odx_wut(s);
		break;
	case ODX_WUT:
		if (st.status) {
			/* how far did it get?  RRTI's transfer count says (SBC-3 partial writes) */
			s->wut_st = st;
			rc = issue_odx_rrti(s, true);
			break;
		}
		x->blocks_done += s->blocks;
		x->run->odx_bytes += s->blocks * x->bsz;
		slot_done(x, s);
		return;
	case ODX_WUT_RRTI: {
		uint64_t done = 0;
		if (st.status == 0 && rrti_ok && info.transfer_count_units == 0xf1 && info.transfer_count <= s->blocks)
			done = info.transfer_count;
		x->blocks_done += done;
		x->run->odx_bytes += done * x->bsz;
		char wa[100];
		conn_describe_status(s->wut_st.status, s->wut_st.key, s->wut_st.asc, s->wut_st.ascq, wa, sizeof(wa));
		snprintf(why, sizeof(why), "WRITE USING TOKEN: %s; RRTI: %llu of %llu blocks written", wa,
			 (unsigned long long)done, (unsigned long long)s->blocks);
		s->off += done;
		odx_refused(x, s, &s->wut_st, why);
		return;
	}
	default:
		break;
	}
	if (rc) {
		x->failed = true;
		slot_done(x, s);
	}
}

static int fill_template(void *arg, uint64_t offset, uint8_t *buf, size_t len)
{
	const struct bench_opts *o = arg;
	template_fill(o->template_content, o->seed, offset, buf, len);
	return 0;
}

static bool snapshot_capacity(struct clone_ctx *x, struct array_capacity *cap)
{
	char e[200];
	return q_capacity(x->src, cap, e, sizeof(e)) == 0;
}

/* --explain: run the first few commands one at a time and show what the array did. */
static void explain(struct clone_ctx *x, FILE *f)
{
	const struct bench_opts *o = x->o;
	bool cap_ok = q_log_supported(x->src, 0x30);
	fprintf(f, "== explain: the first %u commands of clone 0 ==\n", o->explain_count);
	for (unsigned i = 0; i < o->explain_count; i++) {
		uint64_t off = (uint64_t)i * x->chunk_blocks;
		if (off >= x->tmpl_blocks)
			break;
		uint64_t blocks = x->tmpl_blocks - off < x->chunk_blocks ? x->tmpl_blocks - off : x->chunk_blocks;
		uint64_t bytes = blocks * x->bsz;
		fprintf(f, "\n#%u  copy template blocks %llu..%llu (%llu blocks, %llu bytes) to LBA %llu\n", i + 1,
			(unsigned long long)off, (unsigned long long)(off + blocks - 1), (unsigned long long)blocks,
			(unsigned long long)bytes, (unsigned long long)dst_lba(x, 0, off));
		if (!x->use_xcopy) {
			fprintf(f, "  software datamover: READ(16) LBA %llu, %llu bytes in, then WRITE(16) LBA %llu, "
				"%llu bytes out: %llu bytes over the wire\n", (unsigned long long)off,
				(unsigned long long)bytes, (unsigned long long)dst_lba(x, 0, off),
				(unsigned long long)bytes, (unsigned long long)(2 * bytes));
			continue;
		}
		uint8_t list[sizeof(((struct cslot *)0)->list)];
		int len = build_list(x, 0, off, blocks, list, sizeof(list));
		char text[2048];
		xcopy_describe(list, (size_t)len, text, sizeof(text));
		fprintf(f, "  EXTENDED COPY (83h, LID1), parameter list %d bytes:\n%s", len, text);
		struct array_capacity before, after;
		bool have = cap_ok && snapshot_capacity(x, &before);
		uint8_t cdb[16];
		struct cmd_status st;
		xcopy_cdb(cdb, (uint32_t)len);
		uint64_t t0 = now_ns();
		int rc = conn_cmd(x->dst, cdb, 16, 2, list, (size_t)len, NULL, 0, &st);
		double ms = (double)(now_ns() - t0) / 1e6;
		if (rc || st.status) {
			fprintf(f, "  array: refused (status %d, sense %02x/%02x/%02x): ESXi would fall back to "
				"the software datamover\n", st.status, st.key, st.asc, st.ascq);
			continue;
		}
		fprintf(f, "  array: GOOD in %.3f ms", ms);
		if (have && snapshot_capacity(x, &after)) {
			long long mapped = (long long)(after.mapped_blocks - before.mapped_blocks);
			long long uniq = (long long)(after.unique_bytes - before.unique_bytes);
			long long phys = (long long)(after.physical_bytes - before.physical_bytes);
			fprintf(f, "; map entries moved: %+lld blocks (of %llu bytes); data bytes stored: %+lld unique, "
				"%+lld physical -> data moved: %s\n", mapped, (unsigned long long)after.dedup_block, uniq,
				phys, uniq == 0 && phys == 0 ? "none (a metadata copy)" : "some");
		} else {
			fprintf(f, " (the LU reports no capacity page 0x30: map entries not visible)\n");
		}
		fprintf(f, "  over the wire: %d bytes of parameter list; the software datamover would have moved "
			"%llu bytes (READ %llu in + WRITE %llu out)\n", len, (unsigned long long)(2 * bytes),
			(unsigned long long)bytes, (unsigned long long)bytes);
	}
	fprintf(f, "== end of explain ==\n\n");
}

/* Did this machine, rather than the modeled array, set the pace?
 * The model derives arrival times from real time / time scale, so whatever this machine adds
 * to a command (target and client CPU, loopback) beyond the modeled latency x scale shows up
 * in modeled time as extra host turnaround, divided by the scale.  Per stream (parallel x
 * outstanding closed loops) that is commands/streams x extra / scale of modeled time; as a
 * share of the modeled duration it says how wrong the figures are.  Slow motion shrinks it
 * as 1/scale, so the scale that brings it under 2% can be computed. */
static void machine_check(const struct bench_opts *o, struct clone_run *run, const struct model_telemetry *t,
			  double client_cpu_s)
{
	uint64_t ops = 0, lat = 0;
	for (unsigned b = 0; b < 13; b++) {
		ops += t->bucket_ops[b];
		lat += t->bucket_latency_ns[b];
	}
	double scale = run->time_scale > 0 ? run->time_scale : 1;
	run->modeled_mean_latency_ms = ops ? (double)lat / (double)ops / 1e6 : 0;
	if (t->virtual_streams) {
		/* modeled arrivals come from the modeled host, not from this machine's clock */
		run->virtual_streams = (unsigned)t->virtual_streams;
		run->machine_share = 0;
		run->machine_share_exact = true;
		run->machine_limited = false;
		run->suggested_time_scale = 0;
		return;
	}
	/* The pacer also holds each completion for the modeled host turnaround x scale (the seed's
	 * host is part of the model): that is not this machine's doing.  Without the LU reporting
	 * it (page 0x31 parameter 0x0009), the share is an upper bound. */
	double turn_ms = t->have_turnaround && t->commands ? (double)t->turnaround_ns / (double)t->commands / 1e6 : 0;
	run->machine_share_exact = t->have_turnaround;
	/* what fault rules (delay=) held the commands is neither the model's nor this machine's
	 * (page 0x31 parameter 0x000F) */
	double injected_ms = t->commands ? (double)t->fault_delay_ns / (double)t->commands / 1e6 : 0;
	double extra_ms = run->lat_mean_ms - injected_ms - (run->modeled_mean_latency_ms + turn_ms) * scale;
	if (extra_ms < 0)
		extra_ms = 0;
	double streams = (double)o->parallel * o->outstanding;
	double per_stream = (double)run->commands / streams;
	if (run->modeled_duration_s > 0)
		run->machine_share = per_stream * extra_ms / 1e3 / scale / run->modeled_duration_s;
	if (run->machine_share > 1)
		run->machine_share = 1;
	run->machine_limited = (run->machine_share_exact && run->machine_share > 0.05) ||
			       client_cpu_s > run->wall_s * 0.9;
	run->suggested_time_scale = run->machine_share > 0.02 ? scale * run->machine_share / 0.02 : scale;
	if (run->machine_share >= 1)
		run->suggested_time_scale = scale * 50;   /* the figures say nothing: at least 50x more */
}


/* On a virtual clock the modeled host, not this one, sets the pace: make it the host this run
 * is (--parallel x --outstanding streams) unless the LU's configuration pinned it.  Before the
 * telemetry reset, which then starts every stream of the new host from an idle array. */
static void virtual_host_streams(struct clone_ctx *x, struct clone_run *run)
{
	struct model_telemetry t;
	char e[200];
	if (q_telemetry(x->src, &t, e, sizeof(e)) || !t.virtual_streams)
		return;
	const char *src = "lu";
	if (t.have_streams_pinned && t.streams_pinned)
		src = "pinned";
	else if (t.have_streams_pinned && q_set_host_streams(x->src, x->o->parallel * x->o->outstanding) == 0)
		src = "run";
	snprintf(run->host_streams_source, sizeof(run->host_streams_source), "%s", src);
}

/* A run's lanes and slots (the first nslots with software buffers), freed and forgotten. */
static void run_state_free(struct clone_ctx *x, unsigned nslots)
{
	for (unsigned i = 0; x->slots && i < nslots; i++)
		free(x->slots[i].buf);
	free(x->lanes);
	free(x->slots);
	free(x->clone_fell_back);
	x->lanes = NULL;
	x->slots = NULL;
	x->clone_fell_back = NULL;
}

static int run_chunk(struct clone_ctx *x, uint64_t chunk, struct clone_run *run, bool telemetry,
		     char *err, size_t errlen)
{
	const struct bench_opts *o = x->o;
	memset(run, 0, sizeof(*run));
	run->chunk = chunk;
	x->run = run;
	if (chunk % x->bsz) {
		snprintf(err, errlen, "chunk %llu is not a multiple of the %u-byte block", (unsigned long long)chunk, x->bsz);
		return -1;
	}
	x->chunk_blocks = chunk / x->bsz;
	if (o->mode == MODE_ODX) {
		/* one token per chunk: the chunk must be one the array issues tokens for */
		if (x->odx_max_blocks && x->chunk_blocks > x->odx_max_blocks) {
			snprintf(err, errlen, "chunk %llu is %llu blocks: the array's tokens cover at most %llu "
				 "(VPD 0x8F MAXIMUM TOKEN TRANSFER SIZE)", (unsigned long long)chunk,
				 (unsigned long long)x->chunk_blocks, (unsigned long long)x->odx_max_blocks);
			return -1;
		}
		if (x->chunk_blocks > UINT32_MAX) {
			snprintf(err, errlen, "chunk %llu is more blocks than one range descriptor holds",
				 (unsigned long long)chunk);
			return -1;
		}
	} else if (x->chunk_blocks > XCOPY_MAX_SEG_BLOCKS) {
		snprintf(err, errlen, "chunk %llu is %llu blocks: one 0x02 segment covers at most 65535",
			 (unsigned long long)chunk, (unsigned long long)x->chunk_blocks);
		return -1;
	}
	uint64_t sw = chunk < SW_IO_MAX ? chunk : SW_IO_MAX;
	/* READ from the source and WRITE to the destination: both LUs' limits apply. */
	x->sw_blocks = xfer_clamp_blocks(xfer_clamp_blocks(sw / x->bsz, x->src->max_xfer_blocks),
					 x->dst->max_xfer_blocks);
	x->use_xcopy = o->mode != MODE_SOFTWARE && o->mode != MODE_ODX && x->have_naa;
	bool xcopy_wanted = x->use_xcopy;
	/* Windows' copy engine reads VPD 0x8F first and does not try ODX on an LU that does not
	 * list it: neither does --mode odx */
	x->use_odx = o->mode == MODE_ODX && x->odx_offered;
	bool odx_wanted = x->use_odx;
	if (o->mode == MODE_ODX && !x->odx_offered) {
		run->fell_back = true;
		snprintf(run->fallback_reason, sizeof(run->fallback_reason),
			 "VPD 0x8F of the LUs does not list POPULATE TOKEN and WRITE USING TOKEN: copied with host "
			 "READ + WRITE, as Windows' copy engine does");
	}
	if (x->use_xcopy && o->mode == MODE_AUTO && q_opcode_supported(x->dst, 0x83, 0) == 0) {
		x->use_xcopy = false;
		run->fell_back = true;
		snprintf(run->fallback_reason, sizeof(run->fallback_reason),
			 "EXTENDED COPY is not in the LU's supported opcodes: using the software datamover "
			 "(host READ + WRITE), as ESXi does");
	}
	if (o->mode != MODE_SOFTWARE && o->mode != MODE_ODX && !x->have_naa)
		snprintf(run->fallback_reason, sizeof(run->fallback_reason),
			 "the LU has no binary NAA designator in VPD 0x83: no EXTENDED COPY possible, "
			 "using the software datamover");
	if (!x->have_naa && o->mode == MODE_XCOPY) {
		snprintf(err, errlen, "--mode xcopy: the LU has no binary NAA designator in VPD 0x83");
		return -1;
	}
	if (telemetry)
		virtual_host_streams(x, run);
	if (telemetry && q_log_reset(x->src, 0x31))
		telemetry = false;

	unsigned nslots = o->parallel * o->outstanding;
	x->lanes = calloc(o->parallel, sizeof(*x->lanes));
	x->slots = calloc(nslots, sizeof(*x->slots));
	x->clone_fell_back = calloc(o->clones, sizeof(*x->clone_fell_back));
	if (!x->lanes || !x->slots || !x->clone_fell_back) {
		run_state_free(x, 0);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (unsigned l = 0; l < o->parallel; l++)
		x->lanes[l].clone = -1;
	for (unsigned i = 0; i < nslots; i++) {
		x->slots[i].ctx = x;
		x->slots[i].lane = i / o->outstanding;
	}
	x->next_clone = x->clones_done = 0;
	x->blocks_done = 0;
	x->failed = false;
	x->err[0] = 0;
	x->lat.n = 0;
	char label[40];
	snprintf(label, sizeof(label), "clone chunk %lluk", (unsigned long long)(chunk >> 10));
	struct progress pb;
	progress_start(&pb, label, x->tmpl_blocks * o->clones, o->quiet);
	struct conn_stats cs0 = { 0 }, cs1 = { 0 };
	for (unsigned k = 0; k < x->nconn; k++)
		conn_stats_add(&cs0, &x->conns[k].stats);
	double cpu0 = cpu_seconds();
	uint64_t t0 = now_ns();
	for (unsigned l = 0; l < o->parallel; l++)
		lane_fill(x, l);
	int ret = -1;
	for (;;) {
		unsigned inflight = 0;
		for (unsigned l = 0; l < o->parallel; l++)
			inflight += x->lanes[l].inflight;
		if (!inflight)
			break;
		/* a session that fails for good fails its commands back through slot_cb */
		conn_poll_many(x->conns, x->nconn, 1000, err, errlen);
		progress_update(&pb, x->blocks_done);
	}
	run->wall_s = (double)(now_ns() - t0) / 1e9;
	double cpu = cpu_seconds() - cpu0;
	progress_end(&pb);
	for (unsigned k = 0; k < x->nconn; k++)
		conn_stats_add(&cs1, &x->conns[k].stats);
	conn_stats_diff(&run->conn, &cs1, &cs0);
	if (x->failed) {
		snprintf(err, errlen, "%s", x->err);
		goto out;
	}
	run->xcopy = xcopy_wanted && !run->fell_back;
	run->odx = odx_wanted && !run->fell_back;
	run->bytes_cloned = x->tmpl_blocks * x->bsz * o->clones;
	run->lat_mean_ms = lat_mean_ms(&x->lat);
	run->lat_max_ms = lat_percentile_ms(&x->lat, 100);
	run->lat_p50_ms = lat_percentile_ms(&x->lat, 50);
	run->lat_p90_ms = lat_percentile_ms(&x->lat, 90);
	run->lat_p99_ms = lat_percentile_ms(&x->lat, 99);
	/* After a re-login the page may hold only what a restarted target saw since. */
	if (telemetry && !run->conn.reconnects) {
		struct model_telemetry t;
		char e[200];
		/* An unmodeled profile (lunlab's "unlimited") still lists the page but charges
		 * nothing: no busy time, no latency.  Its figures would read as a 0 ms, 0% array. */
		if (q_telemetry(x->src, &t, e, sizeof(e)) == 0 && (t.modeled_busy_ns > 0 || t.peak_latency_ns > 0)) {
			run->have_modeled = true;
			run->modeled_duration_s = (double)t.modeled_elapsed_ns / 1e9;
			run->modeled_peak_latency_ms = (double)t.peak_latency_ns / 1e6;
			run->modeled_max_latency_ms = (double)t.max_latency_ns / 1e6;
			run->modeled_peak_cpu_pct = (double)t.peak_cpu_permille / 10.0;
			run->time_scale = (double)t.time_scale_x1000 / 1000.0;
			/* retried answers put backoffs into the latencies the model did not charge:
			 * no verdict on this machine from such a run */
			if (!conn_stats_disturbed(&run->conn))
				machine_check(o, run, &t, cpu);
		}
	}
	ret = 0;
out:
	run_state_free(x, nslots);
	return ret;
}

/* --verify: read back the first, middle and last MiB of every clone and compare them with
 * the template's content (template_fill is a pure function of the offset). */
static int verify_clones(struct clone_ctx *x, struct clone_result *r, char *err, size_t errlen)
{
	const struct bench_opts *o = x->o;
	uint64_t piece = 1u << 20;
	if (piece > o->template_size)
		piece = o->template_size;
	piece -= piece % x->bsz;
	piece = xfer_clamp_bytes(piece, x->bsz, x->dst->max_xfer_blocks);
	uint8_t *got = malloc(piece), *want = malloc(piece);
	int ret = -1;
	if (!got || !want) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (unsigned c = 0; c < o->clones; c++) {
		uint64_t offs[3] = { 0, (o->template_size / 2) - (o->template_size / 2) % x->bsz,
				     o->template_size - piece };
		for (int k = 0; k < 3; k++) {
			uint64_t off = offs[k];
			if (off + piece > o->template_size)
				off = o->template_size - piece;
			uint8_t cdb[16];
			uint64_t lba = dst_lba(x, c, off / x->bsz);
			uint32_t blocks = (uint32_t)(piece / x->bsz);
			(void)cdb_build(cdb, sizeof(cdb), SCSI_OP_READ_16, 0, lba, blocks); /* READ(16): always fits */
			struct cmd_status st;
			if (conn_cmd(x->dst, cdb, 16, 1, NULL, 0, got, piece, &st) || st.status || st.got != piece) {
				snprintf(err, errlen, "--verify: READ(16) of clone %u at LBA %llu failed (status %d)", c,
					 (unsigned long long)lba, st.status);
				goto out;
			}
			/* template_fill works in 4 KiB blocks: compare whole ones (the rest is not produced) */
			template_fill(o->template_content, o->seed, off, want, piece);
			size_t cmp = (size_t)(piece - piece % SYNTH_BLOCK_SIZE);
			if (memcmp(got, want, cmp)) {
				size_t i = 0;
				while (i < cmp && got[i] == want[i])
					i++;
				snprintf(err, errlen, "--verify: clone %u differs from the template at byte %llu",
					 c, (unsigned long long)(off + i));
				goto out;
			}
			r->verified_bytes += cmp;
		}
	}
	r->verified = true;
	ret = 0;
out:
	free(got);
	free(want);
	return ret;
}

int scenario_clone(const struct bench_opts *o, struct clone_result *r, FILE *explain_out,
		   char *err, size_t errlen)
{
	static struct clone_ctx x;
	memset(&x, 0, sizeof(x));
	memset(r, 0, sizeof(*r));
	x.o = o;
	r->clones = o->clones;
	r->parallel = o->parallel;
	r->outstanding = o->outstanding;
	r->template_size = o->template_size;
	r->plot_job_bytes = o->plot_job_bytes;
	if (conn_open(o->url, o->initiator, &x.conns[0], err, errlen))
		return -1;
	x.nconn = 1;
	if (o->dest_url) {
		char iname[300];
		snprintf(iname, sizeof(iname), "%s", o->initiator);
		if (conn_open(o->dest_url, iname, &x.conns[1], err, errlen)) {
			conn_close(&x.conns[0]);
			return -1;
		}
		x.nconn = 2;
		r->two_lus = true;
	}
	x.src = &x.conns[0];
	x.dst = &x.conns[x.nconn - 1];
	x.bsz = x.src->block_size;
	int ret = -1;
	for (unsigned i = 0; i < x.nconn; i++)
		if (xfer_limit_query(&x.conns[i], err, errlen))
			goto out;
	if (x.dst->block_size != x.bsz) {
		snprintf(err, errlen, "source and destination block sizes differ (%u, %u)", x.bsz, x.dst->block_size);
		goto out;
	}
	if (o->template_size % x.bsz) {
		snprintf(err, errlen, "--template-size %llu is not a multiple of the %u-byte block",
			 (unsigned long long)o->template_size, x.bsz);
		goto out;
	}
	x.tmpl_blocks = o->template_size / x.bsz;
	x.dst_base = x.nconn == 2 ? 0 : x.tmpl_blocks;
	if (x.dst_base + x.tmpl_blocks * o->clones > x.dst->num_blocks || x.tmpl_blocks > x.src->num_blocks) {
		snprintf(err, errlen, "%u clones of %llu bytes need %llu blocks on the destination LU, it has %llu",
			 o->clones, (unsigned long long)o->template_size,
			 (unsigned long long)(x.dst_base + x.tmpl_blocks * o->clones),
			 (unsigned long long)x.dst->num_blocks);
		goto out;
	}
	/* 0xE4 descriptors name LUs by their binary NAA designator (VPD 0x83). */
	x.have_naa = true;
	for (unsigned i = 0; i < x.nconn; i++) {
		uint8_t page[1024];
		int n = q_inquiry(&x.conns[i], 0x83, page, sizeof(page));
		x.lus[i].block_size = x.bsz;
		x.lus[i].peripheral_type = 0;
		if (n <= 0 || vpd83_find_naa(page, (size_t)n, &x.lus[i]))
			x.have_naa = false;
	}
	/* ODX: what both LUs' VPD 0x8F offer (POPULATE TOKEN goes to the source, WRITE USING
	 * TOKEN to the destination) and the largest token, as Windows reads them */
	if (o->mode == MODE_ODX) {
		x.odx_offered = true;
		for (unsigned i = 0; i < x.nconn; i++) {
			uint8_t page[1024];
			struct tpc_vpd v;
			char e[200];
			int n = q_inquiry(&x.conns[i], 0x8f, page, sizeof(page));
			if (n <= 0 || vpd8f_parse(page, (size_t)n, &v, e, sizeof(e)) || !v.populate_token ||
			    !v.write_using_token || !v.rrti) {
				x.odx_offered = false;
				continue;
			}
			if (v.have_rod && v.max_token_transfer &&
			    (!x.odx_max_blocks || v.max_token_transfer < x.odx_max_blocks))
				x.odx_max_blocks = v.max_token_transfer;
		}
	}
	if (!o->skip_template) {
		struct stream_write_args wa = {
			.start_lba = 0, .total_bytes = o->template_size, .io_bytes = 1u << 20, .qd = 8,
			.fill = fill_template, .fill_arg = (void *)o, .label = "writing template", .quiet = o->quiet,
		};
		if (o->template_size < wa.io_bytes)
			wa.io_bytes = (uint32_t)o->template_size;
		if (stream_write(x.src, &wa, err, errlen))
			goto out;
	}
	bool telemetry = q_log_supported(x.src, 0x31);
	if (o->explain) {
		x.chunk_blocks = o->sweep[0] / x.bsz;
		if (o->mode == MODE_ODX) {
			if (x.chunk_blocks == 0 || x.chunk_blocks > UINT32_MAX ||
			    (x.odx_max_blocks && x.chunk_blocks > x.odx_max_blocks)) {
				snprintf(err, errlen, "chunk %llu cannot be one token's range of %u-byte blocks",
					 (unsigned long long)o->sweep[0], x.bsz);
				goto out;
			}
			struct odx_explain_args ea = {
				.src = x.src, .dst = x.dst, .chunk_blocks = x.chunk_blocks, .tmpl_blocks = x.tmpl_blocks,
				.dst_base = x.dst_base, .block_size = x.bsz, .count = o->explain_count,
				.offered = x.odx_offered, .del_tkn = !o->keep_tokens, .two_lus = x.nconn == 2,
			};
			odx_explain(&ea, explain_out);
		} else if (x.chunk_blocks == 0 || x.chunk_blocks > XCOPY_MAX_SEG_BLOCKS) {
			snprintf(err, errlen, "chunk %llu cannot be one 0x02 segment of %u-byte blocks",
				 (unsigned long long)o->sweep[0], x.bsz);
			goto out;
		} else {
			x.use_xcopy = o->mode != MODE_SOFTWARE && x.have_naa &&
				      (o->mode == MODE_XCOPY || q_opcode_supported(x.dst, 0x83, 0) != 0);
			explain(&x, explain_out);
		}
	}
	for (unsigned i = 0; i < o->n_sweep; i++) {
		if (run_chunk(&x, o->sweep[i], &r->runs[r->n], telemetry, err, errlen))
			goto out;
		r->n++;
	}
	if (o->verify && verify_clones(&x, r, err, errlen))
		goto out;
	/* A session was lost and logged in again: the figures are the array's only if the
	 * template it held before is still there (a target that came back empty fails the run). */
	unsigned reconnects = 0;
	for (unsigned i = 0; i < x.nconn; i++)
		reconnects += x.conns[i].stats.reconnects;
	uint64_t checked;
	if (reconnects && readback_check(x.src, 0, o->template_size, fill_template, (void *)o, 16, &checked,
					 err, errlen))
		goto out;
	ret = 0;
out:
	lat_free(&x.lat);
	for (unsigned i = 0; i < x.nconn; i++) {
		conn_stats_add(&r->conn, &x.conns[i].stats);
		conn_close(&x.conns[i]);
	}
	return ret;
}
