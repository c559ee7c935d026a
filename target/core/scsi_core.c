/* scsi_core.c — the checks every command gets, in SAM-5/SPC-4 order, and
 * the commands the target answers itself (scsi_core.h, README.md).
 *
 * Order at delivery (scsi_core_check), each step answering or passing on:
 *   1. LUN: the LU this initiator sees at the LUN (LUN masking).  None:
 *      the target answers at step 6 (SPC-4 6.6.2: INQUIRY with peripheral
 *      qualifier 011b; anything else 05/25/00 LOGICAL UNIT NOT SUPPORTED).
 *   2. unit attention (SAM-5 5.14; scsi_core_ua.c), except INQUIRY, REPORT
 *      LUNS and REQUEST SENSE.
 *   3. ALUA access state of the target port (SPC-4 5.15.2.4: 02/04/0A..0C
 *      for commands a standby / unavailable / transitioning port refuses),
 *      and REPORT TARGET PORT GROUPS (SPC-4 6.37), SET TARGET PORT GROUPS
 *      without data (SPC-4 6.46).
 *   4. reservations: RESERVATION CONFLICT for a command the LU's SPC-2 or
 *      persistent reservation forbids this I_T nexus (SPC-4 5.13.1 table
 *      63), then the reservation commands the LU layer executes itself
 *      (PERSISTENT RESERVE IN, RESERVE/RELEASE(6/10)).
 *   5. task attribute (SAM-5 8.6): every attribute is accepted and run as
 *      SIMPLE in command order (the iSCSI transport delivers in CmdSN
 *      order; ACA is never established: NACA is not supported, so no
 *      command can meet one).
 *   6. REPORT LUNS (SPC-4 6.33) and commands to a missing LUN.
 * LIO checks the same conditions in the same order for every fabric
 * (target_core_transport.c: unit attention, ALUA state, reservation, in
 * its execute step after the task attribute); lunlab answers the task
 * attribute after reservations because it refuses none.
 *
 * After the Data-Out (scsi_core_execute): SET TARGET PORT GROUPS and
 * PERSISTENT RESERVE OUT with their data, the LU still there, then the
 * fault rules (docs/faults.md: a misbehaving device is still a device with
 * reservations and unit attentions, so they come last, just before the
 * backend).
 *
 * Hot path: on a plain READ/WRITE to an LU without reservations, ALUA or
 * fault rules each step is a compare or an atomic load; nothing here
 * allocates or takes a lock unless the LU has that state. */
#include "target/core/scsi_core.h"
#include "lunlab/cdb_decode.h"
#include "lunlab/scsi_vocab.h"

#include <string.h>

#include "target/core/ua_queue.h"
#include "target/lu/alua.h"
#include "target/lu/lu_pr.h"

void scsi_core_itn_start(struct scsi_itn *itn)
{
	lu_nexus_start(&itn->lunx, itn->initiator, itn->isid);
}

void scsi_core_itn_free(struct scsi_itn *itn)
{
	lu_nexus_free(&itn->lunx);
}

static enum scsi_core_verdict answer(struct lu_cmd *lc, uint8_t status, const uint8_t *sense, uint8_t sense_len,
				     size_t data_len)
{
	lc->status = status;
	lc->sense_len = sense_len;
	if (sense_len)
		memcpy(lc->sense, sense, sense_len);
	lc->data_len = data_len;
	return SCSI_CORE_ANSWERED;
}

/* The command's Data-In buffer of at least want bytes (none wanted: what
 * it has, maybe nothing).  false: out of memory. */
static bool buffer(struct scsi_itn *itn, struct scsi_core_cmd *cmd, size_t want, uint8_t **buf, size_t *len)
{
	*buf = NULL;
	*len = 0;
	return itn->ops->buffer(cmd->tcmd, want, buf, len);
}

/* The I_T nexus and LUN on the command, for the LU layer (reservations key
 * on the initiator port). */
static void set_identity(struct scsi_itn *itn, struct scsi_core_cmd *cmd)
{
	struct lu_cmd *lc = cmd->lc;

	lc->lun = cmd->lun;
	lc->initiator = itn->initiator;
	lc->nexus_id = itn->nexus_id;
	memcpy(lc->isid, itn->isid, sizeof(lc->isid));
	lc->lu_entry = cmd->e;
}

/* Step 2's answer: CHECK CONDITION, or for REQUEST SENSE the unit
 * attention as its sense data (SPC-4 6.39: GOOD, at most the allocation
 * length and what the initiator expects). */
static enum scsi_core_verdict answer_ua(struct scsi_itn *itn, struct scsi_core_cmd *cmd, const uint8_t ua[3],
					bool as_data)
{
	uint8_t sense[LU_SENSE_MAX], sl = lu_sense_fixed(sense, ua[0], scsi_asc_pair(ua[1], ua[2]), -1);
	size_t n, len, alloc;
	uint8_t *buf;

	if (!as_data)
		return answer(cmd->lc, SCSI_STAT_CHECK_CONDITION, sense, sl, 0);
	alloc = cdb_byte_length(cmd->lc->cdb, cmd->lc->cdb_len); /* REQUEST SENSE's */
	n = sl < alloc ? sl : alloc;
	if (n > cmd->edtl)
		n = cmd->edtl;
	if (!buffer(itn, cmd, n ? cmd->edtl : 0, &buf, &len))
		return SCSI_CORE_NO_MEMORY;
	if (n > len)
		n = len;
	if (n)
		memcpy(buf, sense, n);
	return answer(cmd->lc, SCSI_STAT_GOOD, NULL, 0, n);
}

static enum scsi_core_verdict answer_alua(struct lu_cmd *lc, const struct alua_answer *a)
{
	return answer(lc, a->status, a->sense, a->sense_len, a->data_len);
}

/* SET TARGET PORT GROUPS with its len bytes of parameter data. */
static enum scsi_core_verdict set_tpgs(struct scsi_itn *itn, struct scsi_core_cmd *cmd, const uint8_t *buf,
				       size_t len)
{
	struct alua_answer a;
	bool changed;

	alua_set_tpgs(cmd->e, cmd->lun, cmd->lc->cdb, cmd->lc->cdb_len, buf, len, &a, &changed);
	if (changed) {
		/* every other I_T nexus gets 06/2A/06; the one that asked knows */
		ua_queue_clear(cmd->e->ua, itn->lunx.port, UA_BIT(UA_ALUA));
		itn->ops->log("ALUA: SET TARGET PORT GROUPS on LUN %llu from %s", (unsigned long long)cmd->lun,
			      itn->initiator);
	}
	a.data_len = len; /* Data-Out consumed */
	return answer_alua(cmd->lc, &a);
}

/* Step 3: the port's access state, and the ALUA commands without data. */
static bool alua_step(struct scsi_itn *itn, struct scsi_core_cmd *cmd, enum scsi_core_verdict *v)
{
	const uint8_t *cdb = cmd->lc->cdb;
	struct alua_answer a;
	size_t len;
	uint8_t *buf;

	if (!alua_tpgs(cmd->e) || cdb[0] == SCSI_OP_REPORT_LUNS)
		return false;
	if (alua_refuses(alua_state_of(cmd->e, cmd->lun, itn->tpg, NULL), cdb, cmd->lc->cdb_len, &a)) {
		*v = answer_alua(cmd->lc, &a);
		return true;
	}
	if (!alua_owns(cdb, cmd->lc->cdb_len))
		return false;
	if (cdb[0] == SCSI_OP_MAINTENANCE_IN) { /* REPORT TARGET PORT GROUPS */
		if (!buffer(itn, cmd, cmd->edtl, &buf, &len)) {
			*v = SCSI_CORE_NO_MEMORY;
			return true;
		}
		alua_report_tpgs(cmd->e, cmd->lun, cdb, cmd->lc->cdb_len, buf, len, &a);
		*v = answer_alua(cmd->lc, &a);
		return true;
	}
	if (cdb[0] == SCSI_OP_MAINTENANCE_OUT && cmd->lc->dir != LU_DIR_WRITE) {
		*v = set_tpgs(itn, cmd, NULL, 0); /* no Data-Out: answered now */
		return true;
	}
	return false; /* SET TARGET PORT GROUPS with data: scsi_core_execute */
}

/* PREEMPT AND ABORT: the preempted sessions' tasks on this LU go, as far as
 * the backend can drop them (their later commands meet the new reservation
 * at step 4 anyway). */
static void abort_preempted(struct scsi_itn *itn, struct lu_backend *be, const struct pr_answer *ans)
{
	for (size_t i = 0; i < ans->n_abort; i++)
		if (ans->abort_nexus[i] != itn->nexus_id && be->ops->abort_nexus)
			be->ops->abort_nexus(be, ans->abort_nexus[i]);
}

/* A reservation command the LU layer executes (lu_pr.h).  For PR OUT buf
 * holds the Data-Out; for PR IN it takes the Data-In. */
static enum scsi_core_verdict execute_pr(struct scsi_itn *itn, struct scsi_core_cmd *cmd, uint8_t *buf, size_t len)
{
	struct pr_answer ans;

	if (cmd->lc->dir == LU_DIR_WRITE && len > cmd->data_out)
		len = cmd->data_out;
	lu_pr_execute(cmd->lc, buf, len, &ans);
	abort_preempted(itn, cmd->be, &ans);
	return answer(cmd->lc, ans.status, ans.sense, ans.sense_len,
		      cmd->lc->dir == LU_DIR_WRITE ? len : ans.data_len);
}

/* Step 4: RESERVATION CONFLICT, then the reservation commands the LU layer
 * keeps (PERSISTENT RESERVE OUT waits for its data: scsi_core_execute). */
static bool reservation_step(struct scsi_itn *itn, struct scsi_core_cmd *cmd, enum scsi_core_verdict *v)
{
	struct pr_answer ans;
	size_t len;
	uint8_t *buf;

	if (cmd->lc->cdb[0] == SCSI_OP_REPORT_LUNS)
		return false;
	if (lu_pr_conflict(cmd->lc, &ans)) {
		*v = answer(cmd->lc, ans.status, ans.sense, ans.sense_len, 0);
		return true;
	}
	if (!pr_owns_opcode(cmd->lc->cdb[0]) || cmd->lc->cdb[0] == SCSI_OP_PERSISTENT_RESERVE_OUT)
		return false;
	if (!buffer(itn, cmd, cmd->edtl, &buf, &len)) {
		*v = SCSI_CORE_NO_MEMORY;
		return true;
	}
	*v = execute_pr(itn, cmd, buf, len);
	return true;
}

/* Step 6: what the target answers without a backend. */
static enum scsi_core_verdict local_answer(struct scsi_itn *itn, struct scsi_core_cmd *cmd)
{
	uint8_t sense[LU_SENSE_MAX], sense_len = 0, status = SCSI_STAT_GOOD;
	size_t len, produced = 0;
	uint8_t *buf;

	if (!buffer(itn, cmd, SCSI_CORE_WANT_ANSWER, &buf, &len))
		return SCSI_CORE_NO_MEMORY;
	lu_local_answer_nexus(&itn->lunx, cmd->e, cmd->lc->cdb, cmd->lc->cdb_len, buf, len, &produced, &status, sense, &sense_len);
	return answer(cmd->lc, status, sense, sense_len, produced < len ? produced : len);
}

enum scsi_core_verdict scsi_core_check(struct scsi_itn *itn, struct scsi_core_cmd *cmd)
{
	enum scsi_core_verdict v;
	bool as_data;
	uint8_t ua[3];

	/* 1. the LU this initiator sees at this LUN (lu_table.h) */
	cmd->e = lu_nexus_lookup(&itn->lunx, itn->initiator, cmd->lun, cmd->lun != UINT64_MAX);
	cmd->be = cmd->e ? cmd->e->be : NULL;
	set_identity(itn, cmd);
	/* 2. unit attention */
	if (scsi_core_take_ua(itn, cmd, ua, &as_data))
		return answer_ua(itn, cmd, ua, as_data);
	if (cmd->be) {
		/* 3. ALUA, 4. reservations */
		if (alua_step(itn, cmd, &v) || reservation_step(itn, cmd, &v))
			return v;
	}
	/* 5. task attribute: all accepted (see the top of this file) */
	/* 6. the target's own answers */
	if (cmd->lc->cdb[0] == SCSI_OP_REPORT_LUNS || !cmd->be)
		return local_answer(itn, cmd);
	return SCSI_CORE_PROCEED;
}

bool scsi_core_still_there(struct scsi_itn *itn, struct scsi_core_cmd *cmd, uint64_t lu_id)
{
	struct lu_entry *e = lu_nexus_lookup(&itn->lunx, itn->initiator, cmd->lun, cmd->lun != UINT64_MAX);

	if (e && e->id == lu_id) {
		cmd->e = e;
		cmd->lc->lu_entry = e;
		return true;
	}
	return false;
}

enum scsi_core_verdict scsi_core_execute(struct scsi_itn *itn, struct scsi_core_cmd *cmd, uint64_t lu_id,
					 uint8_t *buf, size_t buf_len)
{
	struct lu_cmd *lc = cmd->lc;
	bool wr = lc->dir == LU_DIR_WRITE;
	size_t got = buf ? (cmd->data_out < buf_len ? cmd->data_out : buf_len) : 0;
	struct fault_cmd fc;

	if (wr) {
		/* the management API may have unmapped or deleted the LU while
		 * its Data-Out travelled: then its backend may be gone */
		if (cmd->be && !scsi_core_still_there(itn, cmd, lu_id)) {
			uint8_t sense[LU_SENSE_MAX];
			return answer(lc, SCSI_STAT_CHECK_CONDITION, sense,
				      lu_sense_fixed(sense, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_LU_NOT_SUPPORTED, -1), 0);
		}
		if (alua_tpgs(cmd->e) && lc->cdb[0] == SCSI_OP_MAINTENANCE_OUT && alua_owns(lc->cdb, lc->cdb_len))
			return set_tpgs(itn, cmd, buf, got);
		if (cmd->be && lc->cdb[0] == SCSI_OP_PERSISTENT_RESERVE_OUT) {
			set_identity(itn, cmd);
			return execute_pr(itn, cmd, buf, buf ? buf_len : 0);
		}
	}
	if (!fault_rules_any())
		return SCSI_CORE_BACKEND; /* the common case: no rule at all */
	fc.lun = cmd->lun;
	fc.cdb = lc->cdb;
	fc.cdb_len = lc->cdb_len;
	fc.initiator = itn->initiator;
	fc.portal = itn->portal;
	fc.portal_adv = itn->portal_adv;
	fc.data = wr ? buf : NULL;
	fc.data_len = wr ? got : 0;
	return fault_rules_check(&fc, &cmd->fault) ? SCSI_CORE_FAULT : SCSI_CORE_BACKEND;
}

void scsi_core_answered(struct scsi_itn *itn, struct scsi_core_cmd *cmd, uint8_t *buf, size_t cap,
			size_t *produced)
{
	uint8_t tpgs;

	/* INQUIRY of an LU with ALUA: TPGS and the designators of the port
	 * the command came through (SPC-4 6.6.1, 7.8.6) */
	if (cmd->lc->cdb[0] != SCSI_OP_INQUIRY || !buf || !(tpgs = alua_tpgs(cmd->lc->lu_entry)))
		return;
	*produced = alua_patch_inquiry(tpgs, itn->tpg, cmd->lc->cdb, cmd->lc->cdb_len, buf, *produced, cap);
}
