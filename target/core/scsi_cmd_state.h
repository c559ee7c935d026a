/* scsi_cmd_state.h — the life of one command (a task) in the target, as one
 * explicit state instead of the booleans that used to encode it
 * (delivered, submitted, in_backend, finished).  The transport keeps it in
 * its task (target/iscsi/conn.h struct icmd) and changes it only through
 * scsi_cmd_state_set(), which checks the transition in debug builds.
 *
 *   RECEIVED    header in; waiting for its turn in command order (iSCSI:
 *               CmdSN).  Immediate/unsolicited data may already arrive.
 *   DELIVERED   its turn came; the core's checks ran (scsi_core_check) and
 *               let it through; the transport is moving its Data-Out.
 *   DISPATCHED  out of the transport's hands but not in a backend: answered
 *               by the target (the core, a fault rule) and completing, or
 *               held / delayed by a fault rule.
 *   IN_BACKEND  handed to the LU's backend; done() not seen yet.
 *   DONE        the answer is known (done() seen, or the target answered):
 *               Data-In and status are being queued.
 *   FINISHED    off the task list: response queued, or dropped (aborted,
 *               digest error, outside the command window, connection gone).
 *               Only references held by queued PDUs keep it alive.
 *
 * Allowed transitions (anything else is a bug):
 *   RECEIVED   -> DELIVERED | FINISHED
 *   DELIVERED  -> DISPATCHED | IN_BACKEND | FINISHED
 *   DISPATCHED -> IN_BACKEND (a delay ran out) | DONE | FINISHED
 *   IN_BACKEND -> DONE
 *   DONE       -> FINISHED
 * "aborted" (a TMF or a bad Data-Out asked for the task's end) stays a
 * separate flag: it can be set in any state and is acted on at the next
 * transition. */
#ifndef LUNLAB_CORE_SCSI_CMD_STATE_H
#define LUNLAB_CORE_SCSI_CMD_STATE_H

#include <assert.h>
#include <stdbool.h>

enum scsi_cmd_state {
	SCSI_CMD_RECEIVED = 0,
	SCSI_CMD_DELIVERED,
	SCSI_CMD_DISPATCHED,
	SCSI_CMD_IN_BACKEND,
	SCSI_CMD_DONE,
	SCSI_CMD_FINISHED,
};

#define SCSI_CMD_BIT_(s) (1u << (s))

/* The states each state may go to (the table above), as bit masks. */
static inline bool scsi_cmd_state_allowed(enum scsi_cmd_state from, enum scsi_cmd_state to)
{
	static const unsigned next[] = {
		[SCSI_CMD_RECEIVED] = SCSI_CMD_BIT_(SCSI_CMD_DELIVERED) | SCSI_CMD_BIT_(SCSI_CMD_FINISHED),
		[SCSI_CMD_DELIVERED] = SCSI_CMD_BIT_(SCSI_CMD_DISPATCHED) | SCSI_CMD_BIT_(SCSI_CMD_IN_BACKEND) |
				       SCSI_CMD_BIT_(SCSI_CMD_FINISHED),
		[SCSI_CMD_DISPATCHED] = SCSI_CMD_BIT_(SCSI_CMD_IN_BACKEND) | SCSI_CMD_BIT_(SCSI_CMD_DONE) |
					SCSI_CMD_BIT_(SCSI_CMD_FINISHED),
		[SCSI_CMD_IN_BACKEND] = SCSI_CMD_BIT_(SCSI_CMD_DONE),
		[SCSI_CMD_DONE] = SCSI_CMD_BIT_(SCSI_CMD_FINISHED),
		[SCSI_CMD_FINISHED] = 0,
	};

	return (next[from] & SCSI_CMD_BIT_(to)) != 0;
}

/* One compare-and-store on the hot path; the check is an assert (debug
 * and test builds), so a wrong transition stops the tests where it
 * happens instead of corrupting a later one. */
static inline void scsi_cmd_state_set(enum scsi_cmd_state *st, enum scsi_cmd_state to)
{
	assert(scsi_cmd_state_allowed(*st, to));
	*st = to;
}

/* Handed over (to the core's answer, a fault rule or a backend) already? */
static inline bool scsi_cmd_state_submitted(enum scsi_cmd_state st)
{
	return st >= SCSI_CMD_DISPATCHED;
}

#endif
