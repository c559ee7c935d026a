/* scsi_cmd_flow.c — a SCSI Command PDU from header to response:
 * header (buffer for immediate data), CmdSN-ordered delivery, R2Ts for the
 * rest of a write, submission to the LU, completion back on the I/O thread,
 * Data-In + status.  Residual rules: see datain.c. */
#include "lunlab/scsi_vocab.h"
#include "target/iscsi/conn.h"

#include <string.h>
#include <time.h>

#include "target/iscsi/datain.h"
#include "target/iscsi/io_thread.h"
#include "target/iscsi/scsi_alua.h"
#include "target/iscsi/scsi_fault.h"
#include "target/iscsi/target.h"
#include "target/iscsi/xfer_len.h"
#include "target/lu/alua.h"
#include "target/lu/happenings.h"
#include "target/lu/lu_pr.h"
#include "target/lu/lu_stats.h"
#include "target/lu/lu_table.h"
#include "target/lu/power_on.h"

#define MAX_EDTL (64u << 20)        /* refuse bigger single commands */
#define MAX_READ_SLACK (1u << 20)   /* non-READ commands: room for the full answer */

static struct bufcache *cache_of(struct conn *c) { return c->thr ? &c->thr->cache : NULL; }

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The LU's figures (lu_stats.h) for a command answered with a response:
 * the bytes that crossed the wire for it and the time from its command PDU
 * to now (what the initiator waits, less the network).  Commands to no LU
 * and commands dropped (aborted, connection gone) are not counted.  The LU
 * is looked up again, as lu_still_there does: the management API may have
 * unmapped and freed it while the command was in its backend. */
static void count_answer(struct conn *c, struct icmd *ic, uint64_t wire_bytes)
{
	struct lu_entry *e;
	uint64_t now;

	if (!ic->be)
		return;
	e = lu_nexus_lookup(&c->lunx, c->initiator, ic->lun, ic->lun != UINT64_MAX);
	if (!e || e->id != ic->lu_id || !e->stats)
		return;
	now = mono_ns();
	lu_stats_record(e->stats, c->thr ? (unsigned)c->thr->idx : 0, lu_kind_of(ic->lc.cdb), wire_bytes,
			ic->lc.status == 0x00, now > ic->arrival_ns ? now - ic->arrival_ns : 0);
	/* a soft threshold or out of space the array answered: the management
	 * plane's events and alerts learn it from the feed (happenings.h) */
	if (ic->lc.status == SCSI_STAT_CHECK_CONDITION)
		happening_check_sense(e->id, ic->lun, ic->lc.status, ic->lc.sense, ic->lc.sense_len);
}

static void finish(struct icmd *ic)
{
	ic->finished = true;
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

static void complete_locally(struct conn *c, struct icmd *ic, uint8_t status,
			     const uint8_t *sense, uint8_t sense_len, size_t produced)
{
	if (g_target.trace_pdus)
		trace_local(ic, status, sense, sense_len);
	ic->lc.status = status;
	ic->lc.sense_len = sense_len;
	if (sense_len)
		memcpy(ic->lc.sense, sense, sense_len);
	ic->lc.data_len = produced;
	ic->submitted = true;
	scsi_cmd_completed(ic);
	(void)c;
}

int scsi_cmd_alloc_buf(struct conn *c, struct icmd *ic, size_t len)
{
	return alloc_buf(c, ic, len);
}

void scsi_cmd_answer(struct conn *c, struct icmd *ic, uint8_t status, const uint8_t *sense,
		     uint8_t sense_len, size_t produced)
{
	complete_locally(c, ic, status, sense, sense_len, produced);
}

/* The I_T nexus and LUN, for the LU layer's reservation checks. */
static void set_identity(struct conn *c, struct icmd *ic)
{
	ic->lc.lun = ic->lun;
	ic->lc.initiator = c->initiator;
	ic->lc.nexus_id = c->nexus_id;
	memcpy(ic->lc.isid, c->isid, sizeof(ic->lc.isid));
}

/* A write whose data came after its delivery: is its LU still the one it
 * was delivered to?  (The management API may have unmapped or deleted it
 * meanwhile: then its backend may be gone.) */
bool scsi_cmd_lu_still_there(struct conn *c, struct icmd *ic)
{
	struct lu_entry *e = lu_nexus_lookup(&c->lunx, c->initiator, ic->lun, ic->lun != UINT64_MAX);

	if (e && e->id == ic->lu_id) {
		ic->lc.lu_entry = e;
		return true;
	}
	return false;
}

/* PREEMPT AND ABORT: the preempted sessions' tasks on this LU go, as far as
 * the backend can drop them (their later commands meet the new
 * reservation in lu_pr_gate anyway). */
static void abort_preempted(struct conn *c, struct icmd *ic, const struct pr_answer *ans)
{
	for (size_t i = 0; i < ans->n_abort; i++)
		if (ans->abort_nexus[i] != c->nexus_id && ic->be->ops->abort_nexus)
			ic->be->ops->abort_nexus(ic->be, ans->abort_nexus[i]);
}

/* A reservation command the LU layer executes (lu_pr.h): PERSISTENT
 * RESERVE IN/OUT, RESERVE/RELEASE.  For PR OUT the buffer holds the
 * Data-Out; for PR IN it takes the Data-In. */
static void execute_pr(struct conn *c, struct icmd *ic)
{
	struct pr_answer ans;
	size_t len = ic->buf ? ic->buf_len : 0;

	if (ic->lc.dir == LU_DIR_WRITE && len > ic->got_total)
		len = ic->got_total;
	lu_pr_execute(&ic->lc, ic->buf, len, &ans);
	abort_preempted(c, ic, &ans);
	complete_locally(c, ic, ans.status, ans.sense, ans.sense_len,
			 ic->lc.dir == LU_DIR_WRITE ? len : ans.data_len);
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

static void submit(struct conn *c, struct icmd *ic)
{
	ic->submitted = true;
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
	if (scsi_fault_gate(c, ic))
		return; /* a fault rule answered, holds, delays or dropped it */
	ic->in_backend = true;
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

/* Is this the session's first command to e that may carry its power on?
 * A --lun LU: the login's list says which are still owed to the port.  A
 * mapped LU: only one reopened from a state directory owes it (power_on.h),
 * checked once per session.  INQUIRY and REPORT LUNS never carry it. */
static bool power_on_first(struct conn *c, struct icmd *ic, struct lu_entry *e)
{
	if (ic->lc.cdb[0] == SCSI_OP_REPORT_LUNS || ic->lc.cdb[0] == SCSI_OP_INQUIRY)
		return false;
	if (!e->global)
		return e->power_on && lu_nexus_power_on_first(&c->lunx, e);
	if (ic->lun >= c->power_on_n || !c->power_on_owed[ic->lun])
		return false;
	c->power_on_owed[ic->lun] = false;
	return true;
}

void scsi_cmd_deliver(struct conn *c, struct icmd *ic)
{
	uint8_t sense[LU_SENSE_MAX], sense_len, status, ua[3];
	bool lun_ok = ic->lun != UINT64_MAX;
	struct lu_entry *e;
	size_t produced;
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
	/* the LU this initiator sees at this LUN (LUN masking: lu_table.h) */
	e = lu_nexus_lookup(&c->lunx, c->initiator, ic->lun, lun_ok);
	ic->be = e ? e->be : NULL;
	ic->lu_id = e ? e->id : 0;
	/* decided here, while ic->be is known to be live (lu_rcu.h) */
	ic->early_data = ic->be && ic->be->ops->data_arrived && ic->be->wants_data_arrived;
	ic->lc.lu_entry = e;
	tl = cdb_xfer_len(ic->lc.cdb, ic->be ? ic->be->block_size : 512, &ic->rw);
	ic->scsi_tl = tl;

	if (e && power_on_first(c, ic, e)) {
		/* the LU's power on, owed to this nexus once (power_on.h); it
		 * outranks a reset's 29/03, which it covers */
		lu_nexus_reset_seen(&c->lunx, e);
		if (e->global ? lu_power_on_claim(ic->lun, c->initiator, c->isid)
			      : lu_entry_power_on_claim(e, c->initiator, c->isid)) {
			sense_len = lu_sense_fixed(sense, SCSI_SK_UNIT_ATTENTION, SCSI_ASC_POWER_ON_OCCURRED, -1);
			if (ic->lc.cdb[0] != SCSI_OP_REQUEST_SENSE) {
				complete_locally(c, ic, SCSI_STAT_CHECK_CONDITION, sense, sense_len, 0);
				return;
			}
			/* REQUEST SENSE: the unit attention is its sense data */
			produced = sense_len < ic->lc.cdb[4] ? sense_len : ic->lc.cdb[4];
			if (produced > ic->edtl)
				produced = ic->edtl;
			if (produced && !ic->buf && alloc_buf(c, ic, ic->edtl) < 0) {
				conn_close(c, "out of memory");
				return;
			}
			if (produced)
				memcpy(ic->buf, sense, produced);
			complete_locally(c, ic, SCSI_STAT_GOOD, NULL, 0, produced);
			return;
		}
	}
	/* a LUN RESET by another nexus, a change of this initiator's LUNs, a
	 * new capacity: UNIT ATTENTION once each (INQUIRY, REPORT LUNS and
	 * REQUEST SENSE pass, as SAM-5 allows) */
	alua_settle(e); /* a timed ALUA transition that ended owes its 06/2A/06 now */
	if (e && lu_nexus_take_ua(&c->lunx, e, ic->lc.cdb[0], ua)) {
		sense_len = lu_sense_fixed(sense, ua[0], scsi_asc_pair(ua[1], ua[2]), -1);
		complete_locally(c, ic, SCSI_STAT_CHECK_CONDITION, sense, sense_len, 0);
		return;
	}
	if (ic->be && scsi_alua_deliver(c, ic))
		return; /* 06/2A/06, the port's ALUA state, REPORT TARGET PORT GROUPS */
	if (ic->be && ic->lc.cdb[0] != SCSI_OP_REPORT_LUNS) {
		/* the LU layer first: a reservation unit attention, RESERVATION
		 * CONFLICT, then the reservation commands it keeps to itself */
		struct pr_answer ans;
		uint8_t rs[18];

		set_identity(c, ic);
		if (lu_pr_gate(&ic->lc, rs, sizeof(rs), &ans)) {
			produced = 0;
			if (ans.data_len && ic->edtl && !ic->buf && alloc_buf(c, ic, ic->edtl) == 0) {
				produced = ans.data_len < ic->buf_len ? ans.data_len : ic->buf_len;
				memcpy(ic->buf, rs, produced);
			}
			complete_locally(c, ic, ans.status, ans.sense, ans.sense_len, produced);
			return;
		}
		if (pr_owns_opcode(ic->lc.cdb[0]) && ic->lc.cdb[0] != SCSI_OP_PERSISTENT_RESERVE_OUT) {
			if (!ic->buf && ic->edtl && alloc_buf(c, ic, ic->edtl) < 0) {
				conn_close(c, "out of memory");
				return;
			}
			execute_pr(c, ic);
			return;
		}
	}
	if (ic->lc.cdb[0] == SCSI_OP_REPORT_LUNS || !ic->be) {
		/* the target answers: REPORT LUNS, or no such LUN */
		size_t want = ic->edtl;
		if (tl != XFER_LEN_UNKNOWN && tl > want && tl <= MAX_READ_SLACK)
			want = (size_t)tl;
		if (!ic->buf && want && alloc_buf(c, ic, want) < 0) {
			conn_close(c, "out of memory");
			return;
		}
		lu_local_answer_nexus(&c->lunx, e, ic->lc.cdb, ic->buf, ic->buf ? ic->buf_len : 0, &produced,
				      &status, sense, &sense_len);
		if (produced > ic->buf_len)
			produced = ic->buf_len;
		complete_locally(c, ic, status, sense, sense_len, produced);
		return;
	}

	if (ic->rw && tl != XFER_LEN_UNKNOWN && tl > ic->edtl)
		trim_to_edtl(ic);
	if (ic->skip_exec && !(ic->wants_data && ic->got_total < ic->edtl)) {
		complete_locally(c, ic, SCSI_STAT_GOOD, NULL, 0, 0);
		return;
	}
	if (ic->rw)
		ic->exec_tl = cdb_xfer_len(ic->lc.cdb, ic->be->block_size, &ic->rw);
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
	if (!ic->delivered || ic->submitted || ic->aborted)
		return;
	if (ic->skip_exec) { /* the data only had to be drained */
		complete_locally(c, ic, SCSI_STAT_GOOD, NULL, 0, 0);
		return;
	}
	if (ic->be && !scsi_cmd_lu_still_there(c, ic)) {
		uint8_t sense[18];
		complete_locally(c, ic, SCSI_STAT_CHECK_CONDITION, sense,
				 lu_sense_fixed(sense, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_LU_NOT_SUPPORTED, -1), 0);
		return;
	}
	if (scsi_alua_data_complete(c, ic))
		return; /* SET TARGET PORT GROUPS */
	if (ic->be && ic->lc.cdb[0] == SCSI_OP_PERSISTENT_RESERVE_OUT) { /* PERSISTENT RESERVE OUT: the LU layer's */
		set_identity(c, ic);
		execute_pr(c, ic);
		return;
	}
	submit(c, ic);
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
	return !ic->conn->closed && !ic->aborted && !ic->finished && ic->in_backend &&
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

	ic->in_backend = false;
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
		scsi_alua_inquiry(c, ic, &produced); /* TPGS and the port's designators */
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
