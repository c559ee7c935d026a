/* tmf.c — Task Management Function requests (RFC 7143 11.5/11.6, SAM-5).
 * An aborted task never gets a response.  A task still inside the LU cannot
 * be taken back, so the TMF response waits until the LU returns it (its
 * status is then dropped): "respond after the affected tasks complete". */
#include "target/iscsi/conn.h"

#include <stdlib.h>
#include <string.h>

#include "target/lu/power_on.h"
#include "target/lu/lu_pr.h"
#include "target/lu/lu_table.h"

#define TMF_ABORT_TASK 1
#define TMF_ABORT_TASK_SET 2
#define TMF_CLEAR_ACA 3
#define TMF_CLEAR_TASK_SET 4
#define TMF_LUN_RESET 5
#define TMF_TARGET_WARM_RESET 6
#define TMF_TARGET_COLD_RESET 7
#define TMF_TASK_REASSIGN 8

#define TMF_RSP_COMPLETE 0
#define TMF_RSP_NO_TASK 1
#define TMF_RSP_NO_LUN 2
#define TMF_RSP_REASSIGN_UNSUPPORTED 4
#define TMF_RSP_UNSUPPORTED 5
#define TMF_RSP_REJECTED 255

static void queue_rsp(struct conn *c, uint32_t itt, uint8_t response, bool close_after)
{
	struct txpdu *t = tx_new();

	if (!t) {
		conn_close(c, "out of memory");
		return;
	}
	pdu_init_rsp(t->hdr, ISCSI_OP_TMF_RSP, ISCSI_FLAG_FINAL);
	t->hdr[2] = response;
	put_be32(t->hdr + 16, itt);
	t->close_after = close_after;
	conn_queue(c, t, true);
}

static void send_rsp(struct conn *c, uint32_t itt, uint8_t response)
{
	queue_rsp(c, itt, response, false);
}

/* Aborts one task; returns true when the TMF must wait for it. */
static bool abort_one(struct icmd *t, struct tmf_wait *w)
{
	if (t->aborted)
		return t->state == SCSI_CMD_IN_BACKEND && t->tmf == w;
	t->aborted = true;
	if (t->state == SCSI_CMD_IN_BACKEND) {
		t->tmf = w;
		w->waiting++;
		return true;
	}
	if (t->state != SCSI_CMD_RECEIVED) {
		/* waiting for Data-Out (or held by a fault rule): later Data-Out
		 * finds no task and is dropped */
		scsi_cmd_state_set(&t->state, SCSI_CMD_FINISHED);
		icmd_unlink(t);
		icmd_put(t);
	}
	/* not delivered yet: it stays in the CmdSN queue to keep the order and
	 * is dropped when its turn comes (ffp_deliver) */
	return false;
}

static void abort_matching(struct conn *c, struct icmd *self, bool all_luns, uint64_t lun,
			   struct tmf_wait *w)
{
	struct icmd *t = c->tasks, *nx;

	for (; t; t = nx) {
		nx = t->next;
		if (t == self || t->kind != IC_SCSI || t->state == SCSI_CMD_FINISHED)
			continue;
		if (!all_luns && t->lun != lun)
			continue;
		abort_one(t, w);
	}
}

void tmf_deliver(struct conn *c, struct icmd *ic)
{
	uint8_t fn = ic->hdr[1] & 0x7f;
	uint32_t ref_itt = get_be32(ic->hdr + 20), ref_cmdsn = get_be32(ic->hdr + 32);
	bool lun_ok;
	uint64_t lun = pdu_lun_decode(ic->hdr + 8, &lun_ok);
	struct tmf_wait *w = calloc(1, sizeof(*w));
	uint8_t rsp = TMF_RSP_COMPLETE;
	uint32_t itt = ic->itt;

	/* the TMF itself is not a task anyone can abort */
scsi_cmd_state_set(&ic->state, SCSI_CMD_FINISHED);
	icmd_unlink(ic);
	icmd_put(ic);
	if (!w) {
		conn_close(c, "out of memory");
		return;
	}
	w->itt = itt;
	switch (fn) {
	case TMF_ABORT_TASK: {
		struct icmd *t = conn_find_task(c, ref_itt);
		if (t && t->kind == IC_SCSI) {
			abort_one(t, w);
		} else if (sn_le(c->exp_cmd_sn, ref_cmdsn) && sn_le(ref_cmdsn, conn_accept_max(c))) {
			rsp = TMF_RSP_COMPLETE; /* not received yet: nothing to abort */
		} else {
			rsp = TMF_RSP_NO_TASK;
		}
		break;
	}
	case TMF_ABORT_TASK_SET:
	case TMF_CLEAR_TASK_SET:
	case TMF_LUN_RESET:
	{
		struct lu_entry *e = lu_nexus_lookup(&c->itn.lunx, c->initiator, lun, lun_ok);

		if (!e) {
			rsp = TMF_RSP_NO_LUN;
			break;
		}
		abort_matching(c, NULL, false, lun, w);
		if (fn == TMF_LUN_RESET) {
			struct lu_backend *be = e->be;
			/* SAM-5 6.3.3: the reset establishes 06/29/03 for EVERY I_T
			 * nexus, the one that sent it included (as LIO does; libiscsi's
			 * MultipathIO.Reset checks both paths) */
			lu_entry_lun_reset(e);
			if (w->waiting && be->ops->abort_nexus)
				be->ops->abort_nexus(be, c->nexus_id);
			/* SPC-4 5.13.1: a LUN reset releases SCSI-2 reservations,
			 * persistent ones stay */
			lu_pr_entry_reset(e);
		}
		break;
	}
	case TMF_TARGET_WARM_RESET:
		abort_matching(c, NULL, true, 0, w);
		lu_pr_target_reset(false);
		break;
	case TMF_TARGET_COLD_RESET:
		/* RFC 7143 11.5.1: a warm reset plus the loss of every
		 * connection; here the one that asked (the others cannot be
		 * reached from this I/O thread).  Like a power on, it drops
		 * every reservation and registration (no APTPL).  The response
		 * goes now and closes the connection: the tasks in the backend
		 * die with it. */
		abort_matching(c, NULL, true, 0, w);
		for (struct icmd *t = c->tasks; t; t = t->next)
			if (t->tmf == w)
				t->tmf = NULL; /* nobody waits: the response is gone already */
		lu_pr_target_reset(true);
		lu_power_on_rearm(); /* every nexus is owed 06/29/01 again */
		free(w);
		queue_rsp(c, itt, TMF_RSP_COMPLETE, true);
		return;
	case TMF_CLEAR_ACA:
		rsp = TMF_RSP_UNSUPPORTED;
		break;
	case TMF_TASK_REASSIGN:
		rsp = TMF_RSP_REASSIGN_UNSUPPORTED; /* ErrorRecoveryLevel 0 */
		break;
	default:
		rsp = TMF_RSP_REJECTED;
		break;
	}
	w->response = rsp;
	if (w->waiting == 0) {
		send_rsp(c, itt, rsp);
		free(w);
		return;
	}
	w->next = c->tmfs;
	c->tmfs = w;
}

void tmf_task_gone(struct conn *c, struct icmd *ic)
{
	struct tmf_wait *w = ic->tmf, **pp;

	ic->tmf = NULL;
	if (!w || --w->waiting > 0)
		return;
	for (pp = &c->tmfs; *pp; pp = &(*pp)->next) {
		if (*pp == w) {
			*pp = w->next;
			break;
		}
	}
	if (!c->closed)
		send_rsp(c, w->itt, w->response);
	free(w);
}
