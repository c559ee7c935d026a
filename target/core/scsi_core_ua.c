/* scsi_core_ua.c — the one place a unit attention is taken for a command
 * (scsi_core.h).  Every condition lunlab-target raises is posted to the
 * LU's one store (target/core/ua_queue.h), one queue per I_T_L nexus:
 *   - power on (06/29/01): a restart on a state directory or TARGET COLD
 *     RESET (target/lu/power_on.c);
 *   - LUN RESET (06/29/03, target/iscsi/tmf.c), the nexus's LUN inventory
 *     (06/3F/0E, target/lu/lu_nexus.c), data replaced by a refresh
 *     (06/28/00) and capacity (06/2A/09) (the management API through
 *     target/lu/lu_table.c), ALUA state (06/2A/06, target/lu/alua.c);
 *   - reservations (06/2A/03 preempted, 06/2A/04 released, 06/2A/05
 *     registrations preempted: target/lu/pr_out.c).
 * Priority, highest first (SAM-5 5.14: one condition is reported per
 * command, and a power on covers the resets before it): power on, reset,
 * inventory, medium, capacity, ALUA, reservations (ua_queue.h).
 *
 * SAM-5 5.14 / SPC-4 4.6 exceptions: INQUIRY and REPORT LUNS neither see
 * nor clear a unit attention; REQUEST SENSE reports a power on or a
 * reservation unit attention as its sense data, GOOD status (the others
 * stay pending for the next command, as lunlab always did: changing that
 * is a behaviour change the conformance suites would have to agree with).
 *
 * The handler's own unit attentions (handlers/scsi/ua.c: mode parameters
 * changed, a thin-provisioning threshold) are not here: the handler .so
 * must also run under tcmu-runner, which has no such core (README.md,
 * "Unit attentions from two places"). */
#include "target/core/scsi_core.h"
#include "lunlab/scsi_vocab.h"

#include "target/lu/alua.h"

bool scsi_core_take_ua(struct scsi_itn *itn, struct scsi_core_cmd *cmd, uint8_t ua[3], bool *as_data)
{
	uint8_t op = cmd->lc->cdb[0];
	struct lu_entry *e = cmd->e;

	*as_data = op == SCSI_OP_REQUEST_SENSE;
	if (!e)
		return false;
	/* a timed ALUA transition that ended owes its 06/2A/06 now; settled
	 * for the exempt commands too, so they see the state it ended in */
	alua_settle(e);
	return lu_nexus_take_ua(&itn->lunx, e, op, ua);
}
