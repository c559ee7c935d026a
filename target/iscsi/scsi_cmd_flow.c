/* scsi_cmd_flow.c — a SCSI Command PDU from header to response:
 * header (buffer for immediate data), CmdSN-ordered delivery, R2Ts for the
 * rest of a write, submission to the LU, completion back on the I/O thread,
 * Data-In + status.  Residual rules: see datain.c.  Every SCSI question
 * (LUN, unit attentions, ALUA, reservations, target-owned commands, fault
 * rules) is the SCSI core's (target/core/scsi_core.h); this file moves
 * buffers and status, and walks the task through its states
 * (target/core/scsi_cmd_state.h). */
#include "lunlab/scsi_vocab.h"
#include "target/iscsi/conn.h"

#include <string.h>
#include <time.h>

#include "target/iscsi/datain.h"
#include "target/iscsi/io_thread.h"
#include "target/iscsi/path_stats.h"
#include "target/iscsi/scsi_fault.h"
#include "target/iscsi/target.h"
#include "target/iscsi/xfer_len.h"
#include "target/lu/lu_stats.h"
#include "target/lu/lu_table.h"

#define MAX_EDTL (64u << 20)        /* refuse bigger single commands */
#define MAX_READ_SLACK (1u << 20)   /* non-READ commands: room for the full answer */

static struct bufcache *cache_of(struct conn *c) { return c->thr ? &c->thr->cache : NULL; }

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void finish(struct icmd *ic)
{
	scsi_cmd_state_set(&ic->state, SCSI_CMD_FINISHED);
	icmd_unlink(ic);
	icmd_put(ic);
}

static int alloc_buf(struct conn *c, struct icmd *ic, size_t len)
{
	ic->buf = bufcache_get(cache_of(c), len, &ic->buf_cap);
	if (!ic->buf)
		return -1;
	ic->buf_len = len;
	return 0;
}

/* CDB from the BHS plus an extended-CDB AHS (type 1) if present. */
static int read_cdb(struct conn *c, struct icmd *ic, const uint8_t *bhs)
{
	uint32_t ahs = bhs_ahs_len(bhs);
	const uint8_t *a = bhs + ISCSI_BHS_LEN;

	memcpy(ic->lc.cdb, bhs + 32, 16);
	ic->lc.cdb_len = 16;
	while (ahs >= 4) {
		uint16_t alen = get_be16(a);
		uint8_t type = a[2];
		uint32_t whole = (3u + alen + 3u) & ~3u;
		if (whole > ahs)
			return -1;
		if (type == 1) { /* extended CDB: alen counts the reserved byte */
			if (alen < 1 || 16u + alen - 1 > LU_CDB_MAX)
				return -1;
			memcpy(ic->lc.cdb + 16, a + 4, alen - 1u);
			ic->lc.cdb_len = (uint8_t)(16 + alen - 1);
		} else if (type == 2) {
			ic->local_check = true; /* bidirectional: not supported */
			memcpy(ic->local_sense, "\x05\x24\x00", 3);
		}
		a += whole;
		ahs -= whole;
	}
	(void)c;
	return 0;
}

int scsi_cmd_header(struct conn *c, const uint8_t *bhs)
{
	uint8_t flags = bhs[1];
	bool rd = flags & ISCSI_CMD_READ, wr = flags & ISCSI_CMD_WRITE;
	uint32_t edtl = get_be32(bhs + 20), dlen = bhs_data_len(bhs);
	struct icmd *ic;
	bool lun_ok;

	c->rx_dst = NULL; /* discard unless a command takes it */
	c->rx_cmd = NULL;
	if (cmdsn_check(c->exp_cmd_sn, conn_accept_max(c), get_be32(bhs + 24), bhs_immediate(bhs)) == CMDSN_DROP)
		return 0; /* outside the window: silently ignored (RFC 7143 4.2.2.1) */
	ic = icmd_new(c, bhs, IC_SCSI);
	if (!ic) {
		conn_close(c, "out of memory");
		return -1;
	}
	c->rx_cmd = ic; /* dispatched (CmdSN order) once the PDU is complete */
	ic->arrival_ns = mono_ns();
	ic->edtl = edtl;
	ic->task_attr = flags & ISCSI_CMD_ATTR_MASK;
	ic->lun = pdu_lun_decode(bhs + 8, &lun_ok);
	if (!lun_ok)
		ic->lun = UINT64_MAX;
	if (read_cdb(c, ic, bhs) < 0) {
		ic->reject_reason = ISCSI_REJECT_INVALID_PDU_FIELD;
		ic->reject_why = "AHS: bad length or extended CDB longer than 32 bytes";
		return 0;
	}
	if (rd && wr) {
		ic->local_check = true;
		memcpy(ic->local_sense, "\x05\x24\x00", 3);
	}
	if (dlen && (!wr || !c->params.immediate_data || dlen > edtl ||
		     dlen > c->params.first_burst)) {
		ic->reject_reason = ISCSI_REJECT_PROTOCOL_ERROR;
		ic->reject_why = !wr ? "immediate data on a command without the W bit"
			       : !c->params.immediate_data ? "immediate data while ImmediateData=No"
			       : dlen > edtl ? "immediate data longer than the Expected Data Transfer Length"
			       : "immediate data longer than FirstBurstLength";
		return 0;
	}
	if (edtl > MAX_EDTL) {
		ic->local_check = true;
		memcpy(ic->local_sense, "\x05\x24\x00", 3);
		return 0;
	}
	ic->lc.dir = rd ? LU_DIR_READ : wr ? LU_DIR_WRITE : LU_DIR_NONE;
	if (wr && edtl && !ic->local_check) {
		if (alloc_buf(c, ic, edtl) < 0) {
			conn_close(c, "out of memory");
			return -1;
		}
		ic->wants_data = true;
		ic->unsol_expect = dlen;
		if (!c->params.initial_r2t && !(flags & ISCSI_FLAG_FINAL))
			ic->unsol_expect = edtl < c->params.first_burst ? edtl : c->params.first_burst;
		if (ic->unsol_expect < dlen)
			ic->unsol_expect = dlen;
		ic->r2t_next_off = ic->unsol_expect;
		c->rx_dst = ic->buf;
		ic->imm_len = dlen;
		ic->got_total = dlen; /* counted now; a digest failure discards the task */
	}
	return 0;
}

/* --trace: the LU's commands are traced by the tcmu host; these are the ones
 * the transport answers without it. */
static void trace_local(struct icmd *ic, uint8_t status, const uint8_t *sense, uint8_t sense_len)
{
	const char *name = scsi_opcode_base_name(ic->lc.cdb[0]);

	if (!name)
		name = "opcode";

	if (status == SCSI_STAT_CHECK_CONDITION && sense_len >= 14)
		target_log("trace: LUN %lld %s 0x%02x answered by the target -> CHECK CONDITION %02x/%02x/%02x",
			   ic->lun == UINT64_MAX ? -1LL : (long long)ic->lun, name, ic->lc.cdb[0],
			   sense[2] & 0x0f, sense[12], sense[13]);
	else
		target_log("trace: LUN %lld %s 0x%02x answered by the target -> status 0x%02x",
			   ic->lun == UINT64_MAX ? -1LL : (long long)ic->lun, name, ic->lc.cdb[0], status);
}

/* The target answered (the core, a fault rule): status, sense and
 * data_len are in ic->lc. */
static void answered(struct icmd *ic)
{
	if (g_target.trace_pdus)
		trace_local(ic, ic->lc.status, ic->lc.sense, ic->lc.sense_len);
	if (ic->state != SCSI_CMD_DISPATCHED) /* a fault rule's answer is dispatched already */
		scsi_cmd_state_set(&ic->state, SCSI_CMD_DISPATCHED);
	scsi_cmd_completed(ic);
}

static void complete_locally(struct conn *c, struct icmd *ic, uint8_t status,
			     const uint8_t *sense, uint8_t sense_len, size_t produced)
{
	ic->lc.status = status;
	ic->lc.sense_len = sense_len;
	if (sense_len)
		memcpy(ic->lc.sense, sense, sense_len);
	ic->lc.data_len = produced;
	answered(ic);
	(void)c;
}

/* scsi_core_ops.buffer: the command's buffer, made now if it has none */
static bool core_buffer(void *tcmd, size_t want, uint8_t **buf, size_t *len)
{
	struct icmd *ic = tcmd;

	if (want == SCSI_CORE_WANT_ANSWER) {
		/* the LU's block size does not matter here: no LU, or REPORT LUNS */
		bool rw;
		uint64_t tl = cdb_xfer_len(ic->lc.cdb, 512, &rw);

		want = ic->edtl;
		if (tl != XFER_LEN_UNKNOWN && tl > want && tl <= MAX_READ_SLACK)
			want = (size_t)tl;
	}
	if (!ic->buf && want && alloc_buf(ic->conn, ic, want) < 0)
		return false;
	*buf = ic->buf;
	*len = ic->buf ? ic->buf_len : 0;
	return true;
}

const struct scsi_core_ops scsi_cmd_core_ops = { .buffer = core_buffer, .log = target_log };

/* The command as the core sees it: a view of the task, built per call on
 * the stack (no allocation). */
static void core_cmd(struct icmd *ic, struct scsi_core_cmd *cc)
{
	cc->lc = &ic->lc;
	cc->tcmd = ic;
	cc->lun = ic->lun;
	cc->attr = (enum scsi_task_attr)ic->task_attr;
	cc->edtl = ic->edtl;
	cc->data_out = ic->got_total;
	cc->e = ic->lc.lu_entry;
	cc->be = ic->be;
}

/* A response goes out: the core counts it for the LU and posts what the
 * happenings feed wants of its answer (scsi_core_done); the transport adds
 * the same figures for the path's two ends, the portal (XMS's target) and
 * the initiator (its initiator group): path_stats.h. */
static void count_answer(struct conn *c, struct icmd *ic, uint64_t wire_bytes)
{
	struct scsi_core_cmd cc;
	uint64_t now = mono_ns(), lat = now > ic->arrival_ns ? now - ic->arrival_ns : 0;
	unsigned shard = c->thr ? c->thr->stats_shard : 0;
	struct lu_stats_sample smp;

	core_cmd(ic, &cc);
	if (!scsi_core_done(&c->itn, &cc, ic->lu_id, shard, wire_bytes, lat, &smp))
		return; /* no LU counted it: nor does the path */
	/* the path's two sets, found once per connection (a portal's is made
	 * on first use behind a pthread_once: not a call per command) */
	if (!c->path_stats_tried) {
		c->portal_stats = path_stats_portal(c->portal);
		c->ini_stats = path_stats_initiator(c->initiator);
		c->path_stats_tried = true;
	}
	lu_stats_add(c->portal_stats, shard, &smp);
	if (c->ini_stats)
		lu_stats_add(c->ini_stats, shard, &smp);
	else
		path_stats_untracked_add();
}

/* The core's verdict that ends the command here: true when it did. */
static bool core_answered(struct conn *c, struct icmd *ic, enum scsi_core_verdict v)
{
	if (v == SCSI_CORE_ANSWERED) {
		answered(ic);
		return true;
	}
	if (v == SCSI_CORE_NO_MEMORY) {
		conn_close(c, "out of memory");
		return true;
	}
	return false;
}

void scsi_cmd_answer(struct conn *c, struct icmd *ic, uint8_t status, const uint8_t *sense,
		     uint8_t sense_len, size_t produced)
{
	complete_locally(c, ic, status, sense, sense_len, produced);
}

/* A write whose data came after its delivery: is its LU still the one it
 * was delivered to?  (The management API may have unmapped or deleted it
 * meanwhile: then its backend may be gone.) */
bool scsi_cmd_lu_still_there(struct conn *c, struct icmd *ic)
{
	struct scsi_core_cmd cc;

	core_cmd(ic, &cc);
	return scsi_core_still_there(&c->itn, &cc, ic->lu_id);
}

void scsi_cmd_set_buffer(struct icmd *ic)
{
	ic->iov.iov_base = ic->buf;
	ic->iov.iov_len = ic->buf_len;
	ic->lc.iov = ic->buf ? &ic->iov : NULL;
	ic->lc.iov_cnt = ic->buf ? 1 : 0;
	ic->lc.xfer_len = ic->buf_len;
	ic->lc.lun = ic->lun;
}

/* The core's last step (scsi_core_execute), then the backend. */
static void submit(struct conn *c, struct icmd *ic)
{
	struct scsi_core_cmd cc;
	enum scsi_core_verdict v;

	core_cmd(ic, &cc);
	v = scsi_core_execute(&c->itn, &cc, ic->lu_id, ic->buf, ic->buf_len);
	if (core_answered(c, ic, v))
		return;
	scsi_cmd_set_buffer(ic);
	ic->lc.itt_tag = ic->itt;
	ic->lc.initiator = c->initiator;
	ic->lc.nexus_id = c->nexus_id;
	memcpy(ic->lc.isid, c->isid, sizeof(ic->lc.isid));
	ic->lc.done = io_thread_cmd_done;
	/* early Data-In only where the transport knows the exact length */
	ic->lc.data_ready = ic->lc.dir == LU_DIR_READ && ic->rw && ic->buf ? io_thread_cmd_data_ready : NULL;
	ic->lc.data_progress = ic->lc.data_ready ? io_thread_cmd_data_progress : NULL;
	ic->lc.priv = ic;
	ic->lc.arrival_ns = ic->arrival_ns;
	ic->lc.status = 0;
	ic->lc.sense_len = 0;
	ic->lc.data_len = 0;
	memset(&ic->lc.fault, 0, sizeof(ic->lc.fault));
	if (v == SCSI_CORE_FAULT) {
		scsi_cmd_state_set(&ic->state, SCSI_CMD_DISPATCHED);
		if (scsi_fault_act(c, ic, &cc.fault))
			return; /* a fault rule answered, holds, delays or dropped it */
		scsi_cmd_state_set(&ic->state, SCSI_CMD_IN_BACKEND);
	} else {
		scsi_cmd_state_set(&ic->state, SCSI_CMD_IN_BACKEND);
	}
	io_thread_submit(c->thr, ic->be, &ic->lc);
}

/* A READ/WRITE-family command whose EDTL is below its CDB's transfer length
 * (an overflow residual): carry it out exactly as far as the initiator's
 * data reaches, never further, and never acknowledge data it did not keep.
 * The CDB is trimmed to the blocks EDTL reaches into: a read returns the
 * first EDTL bytes of them; a write writes exactly EDTL bytes (the LU keeps
 * the rest of a last, partly covered block as it was: handlers/scsi/
 * sbc_rw.c); EDTL 0 moves nothing (GOOD).  The SCSI Response carries the
 * overflow residual either way.  (LIO refuses such a write instead, with
 * 05/0E/03; libiscsi's tests accept both, and some of them write 512 bytes
 * to a 4096-byte LU expecting GOOD.) */
static void trim_to_edtl(struct icmd *ic)
{
	uint32_t bs = ic->be->block_size;
	uint32_t blocks = (ic->edtl + bs - 1) / bs;

	if (blocks == 0 || !cdb_set_blocks(ic->lc.cdb, blocks))
		ic->skip_exec = true; /* nothing to move: GOOD + residual */
}

void scsi_cmd_deliver(struct conn *c, struct icmd *ic)
{
	uint8_t sense[LU_SENSE_MAX], sense_len;
	struct scsi_core_cmd cc;
	enum scsi_core_verdict v;
	struct lu_entry *e;
	uint64_t tl;

	if (ic->reject_reason) {
		conn_queue_reject(c, ic->hdr, ic->reject_reason, ic->reject_why);
		finish(ic);
		return;
	}
	if (ic->local_check) {
		sense_len = lu_sense_fixed(sense, ic->local_sense[0],
					   scsi_asc_pair(ic->local_sense[1], ic->local_sense[2]), -1);
		complete_locally(c, ic, SCSI_STAT_CHECK_CONDITION, sense, sense_len, 0);
		return;
	}
	/* the SCSI core's checks, in SPC-4 order (target/core/scsi_core.h) */
	ic->lc.lu_entry = NULL;
	ic->be = NULL;
	core_cmd(ic, &cc);
	v = scsi_core_check(&c->itn, &cc);
	e = cc.e;
	ic->be = cc.be;
	ic->lu_id = e ? e->id : 0;
	/* decided here, while ic->be is known to be live (lu_rcu.h) */
	ic->early_data = ic->be && ic->be->ops->data_arrived && ic->be->wants_data_arrived;
	/* the residuals of every answer, the core's too, count from it */
	tl = cdb_xfer_len(ic->lc.cdb, ic->be ? ic->be->block_size : 512, &ic->rw);
	ic->scsi_tl = tl;
	if (core_answered(c, ic, v))
		return;
	/* SCSI_CORE_PROCEED: the LU's backend executes it */

	bool trimmed = ic->rw && tl != XFER_LEN_UNKNOWN && tl > ic->edtl;

	if (trimmed)
		trim_to_edtl(ic);
	if (ic->skip_exec && !(ic->wants_data && ic->got_total < ic->edtl)) {
		complete_locally(c, ic, SCSI_STAT_GOOD, NULL, 0, 0);
		return;
	}
	/* what the backend will move: the CDB's length again only if the trim
	 * rewrote it (a decode per command is ~2% of a 4 KiB read's target CPU) */
	if (ic->rw)
		ic->exec_tl = trimmed ? cdb_xfer_len(ic->lc.cdb, ic->be->block_size, &ic->rw) : tl;
	if (ic->lc.dir != LU_DIR_WRITE) {
		size_t want = ic->edtl;
		if (ic->rw && ic->lc.dir == LU_DIR_READ) {
			if (ic->exec_tl > want && ic->exec_tl <= MAX_EDTL)
				want = (size_t)ic->exec_tl;
		} else if (tl != XFER_LEN_UNKNOWN && tl > want && tl <= MAX_READ_SLACK) {
			want = (size_t)tl;
		}
		if (want && alloc_buf(c, ic, want) < 0) {
			conn_close(c, "out of memory");
			return;
		}
		submit(c, ic);
		return;
	}
	if (!ic->wants_data || ic->got_total >= ic->edtl) {
		scsi_cmd_data_complete(c, ic);
		return;
	}
	r2t_send_more(c, ic);
}

void scsi_cmd_data_complete(struct conn *c, struct icmd *ic)
{
	if (ic->state != SCSI_CMD_DELIVERED || ic->aborted)
		return;
	if (ic->skip_exec) { /* the data only had to be drained */
		complete_locally(c, ic, SCSI_STAT_GOOD, NULL, 0, 0);
		return;
	}
	submit(c, ic); /* the core: SET TARGET PORT GROUPS, PR OUT, LU still there, faults */
}

/* Bytes of Data-In a READ/WRITE-family read returns when GOOD: the buffer,
 * within what its (trimmed) CDB asks for and what the initiator expects. */
static uint32_t rw_read_send_len(const struct icmd *ic, size_t produced)
{
	if (produced > ic->buf_len)
		produced = ic->buf_len;
	if (produced > ic->exec_tl)
		produced = (size_t)ic->exec_tl;
	return produced < ic->edtl ? (uint32_t)produced : ic->edtl;
}

static bool early_datain_ok(const struct icmd *ic)
{
	return !ic->conn->closed && !ic->aborted && ic->state == SCSI_CMD_IN_BACKEND &&
	       ic->lc.dir == LU_DIR_READ && ic->rw && ic->buf;
}

/* The LU says the buffer is final before done(): send the Data-In now (no
 * status: it goes in a SCSI Response once done() comes).  The PDUs point
 * into the buffer and hold task references, as always. */
void scsi_cmd_data_ready(struct icmd *ic)
{
	struct residual none = { 0, 0 };
	uint32_t send;

	if (!early_datain_ok(ic))
		return;
	send = rw_read_send_len(ic, ic->buf_len);
	if (ic->early_len >= send)
		return;
	datain_queue_range(ic->conn, ic, ic->early_len, send, send, false, 0, &none);
	ic->early_len = send;
}

/* The LU says the first ic->progress bytes are final: send the whole
 * Data-In PDUs they hold, so the wire transfer of a large READ overlaps
 * the LU's copying of the rest.  The last PDU waits for done() and
 * carries the status as usual. */
void scsi_cmd_data_progress(struct icmd *ic)
{
	struct residual none = { 0, 0 };
	size_t ready = atomic_load_explicit(&ic->progress, memory_order_acquire);
	uint32_t send, end;

	if (!early_datain_ok(ic))
		return;
	send = rw_read_send_len(ic, ic->buf_len);
	if (!send)
		return;
	if (ready >= send)
		ready = send - 1; /* keep the last PDU for the status */
	end = datain_full_pdus_end(ic->conn, ic->early_len, (uint32_t)ready, send);
	if (end <= ic->early_len)
		return;
	datain_queue_range(ic->conn, ic, ic->early_len, end, send, false, 0, &none);
	ic->early_len = end;
}

/* The LU is done (or the target answered): Data-In, status, residuals. */
void scsi_cmd_completed(struct icmd *ic)
{
	struct conn *c = ic->conn;
	struct residual r;
	size_t produced = ic->lc.data_len;
	uint32_t send = 0;
	bool is_write = ic->lc.dir == LU_DIR_WRITE;

	scsi_cmd_state_set(&ic->state, SCSI_CMD_DONE);
	if (c->closed || ic->aborted) {
		if (ic->tmf)
			tmf_task_gone(c, ic);
		finish(ic);
		return;
	}
	if (produced > ic->buf_len)
		produced = ic->buf_len;
	/* the LU reports its whole buffer as produced (TCMU has no residual
	 * channel): a READ/WRITE moves exactly what its CDB says */
	if (ic->rw && produced > ic->exec_tl)
		produced = (size_t)ic->exec_tl;
	if (ic->lc.status == 0x00 && !is_write) {
		struct scsi_core_cmd cc;

		core_cmd(ic, &cc);
		scsi_core_answered(&c->itn, &cc, ic->buf, ic->buf_len, &produced);
		produced = cdb_response_len(ic->lc.cdb, ic->buf, produced);
	}
	if (!is_write && ic->buf) {
		send = produced < ic->edtl ? (uint32_t)produced : ic->edtl;
	}
	residual_compute(ic->scsi_tl, ic->rw, is_write, ic->edtl, produced, &r);
	if (ic->fault_after && scsi_fault_completed(c, ic, send, &r))
		return;
	if (ic->fault_after == SCSI_FAULT_AFTER_DROP) {
		finish(ic); /* its data is queued, the connection closes after it */
		return;
	}
	count_answer(c, ic, is_write ? ic->got_total : send); /* answered: a response goes out */
	if (ic->early_len && ic->lc.status == 0x00 && ic->early_len < send) {
		/* the first PDUs went out already (data_progress): the rest, with
		 * the status on the last one */
		datain_queue_range(c, ic, ic->early_len, send, send, true, 0x00, &r);
		finish(ic);
		return;
	}
	if (ic->early_len) {
		/* the data went out already (data_ready): status alone, with the
		 * residual of the whole command; CHECK CONDITION follows data */
		scsi_rsp_queue(c, ic, ic->lc.status, ic->lc.sense,
			       ic->lc.status == SCSI_STAT_CHECK_CONDITION ? ic->lc.sense_len : 0, &r);
		finish(ic);
		return;
	}
	if (ic->lc.status == 0x00 && send) {
		datain_queue(c, ic, send, true, 0x00, &r);
	} else {
		if (send)
			datain_queue(c, ic, send, false, 0, &r);
		scsi_rsp_queue(c, ic, ic->lc.status, ic->lc.sense,
			       ic->lc.status == SCSI_STAT_CHECK_CONDITION ? ic->lc.sense_len : 0, &r);
	}
	finish(ic);
}
