/* scsi_core_ua.c — the one place a unit attention is taken for a command
 * (scsi_core.h).  Its raisers each record a condition where it can be
 * raised without a lock on the command path, and every one of them is
 * reported only from here:
 *   - power on (06/29/01): the LU's told set (target/lu/power_on.c), raised
 *     by a restart on a state directory or TARGET COLD RESET;
 *   - LUN RESET by another nexus (06/29/03), the nexus's LUN inventory
 *     (06/3F/0E), capacity (06/2A/09), ALUA state (06/2A/06): generation
 *     counters on the LU that the nexus compares with what it saw
 *     (target/lu/lu_nexus.c), raised from any thread with one atomic add;
 *   - reservations (06/2A/03 preempted, 06/2A/04 released, 06/2A/05
 *     registrations preempted): the LU's per-port queue, under its
 *     reservation lock (target/lu/pr_state.c), taken only when the LU has
 *     reservation state.
 * Priority, highest first (SAM-5 5.14: one condition is reported per
 * command, and a power on covers the resets before it): power on, reset,
 * inventory, capacity, ALUA, reservations.
 *
 * SAM-5 5.14 / SPC-4 4.6 exceptions: INQUIRY and REPORT LUNS neither see
 * nor clear a unit attention; REQUEST SENSE reports a power on or a
 * reservation unit attention as its sense data, GOOD status (the
 * generation-counted ones stay pending for the next command, as before
 * this module: changing that is a behaviour change the conformance suites
 * would have to agree with). */
#include "target/core/scsi_core.h"
#include "lunlab/scsi_vocab.h"

#include "target/lu/alua.h"
#include "target/lu/lu_pr.h"
#include "target/lu/power_on.h"

/* Is this the session's first command to e that may carry its power on?
 * A --lun LU: the login's list says which are still owed to the port.  A
 * mapped LU: only one reopened from a state directory owes it (power_on.h),
 * checked once per session and LU. */
static bool power_on_first(struct scsi_itn *itn, uint64_t lun, struct lu_entry *e)
{
	if (!e->global)
		return e->power_on && lu_nexus_power_on_first(&itn->lunx, e);
	if (lun >= itn->power_on_n || !itn->power_on_owed[lun])
		return false;
	itn->power_on_owed[lun] = false;
	return true;
}

static bool power_on_ua(struct scsi_itn *itn, struct scsi_core_cmd *cmd, struct lu_entry *e)
{
	if (!power_on_first(itn, cmd->lun, e))
		return false;
	/* told now, or by another session of the port: either way it covers
	 * any LUN RESET before it (no 06/29/03 for those) */
	lu_nexus_reset_seen(&itn->lunx, e);
	return e->global ? lu_power_on_claim(cmd->lun, itn->initiator, itn->isid)
			 : lu_entry_power_on_claim(e, itn->initiator, itn->isid);
}

bool scsi_core_take_ua(struct scsi_itn *itn, struct scsi_core_cmd *cmd, uint8_t ua[3], bool *as_data)
{
	uint8_t op = cmd->lc->cdb[0];
	struct lu_entry *e = cmd->e;

	bool exempt = op == SCSI_OP_INQUIRY || op == SCSI_OP_REPORT_LUNS;

	*as_data = op == SCSI_OP_REQUEST_SENSE;
	if (!e)
		return false;
	if (!exempt && power_on_ua(itn, cmd, e)) {
		ua[0] = SCSI_SK_UNIT_ATTENTION;
		ua[1] = scsi_asc(SCSI_ASC_POWER_ON_OCCURRED);
		ua[2] = scsi_ascq(SCSI_ASC_POWER_ON_OCCURRED);
		return true;
	}
	/* a timed ALUA transition that ended owes its 06/2A/06 now; settled
	 * for the exempt commands too, so they see the state it ended in */
	alua_settle(e);
	if (exempt)
		return false;
	if (lu_nexus_take_ua(&itn->lunx, e, op, ua)) { /* none for REQUEST SENSE */
		*as_data = false;
		return true;
	}
	/* the reservation queue is the LU layer's (lu_pr.h), keyed by port */
	return cmd->be && lu_pr_take_ua(cmd->lc, ua);
}
