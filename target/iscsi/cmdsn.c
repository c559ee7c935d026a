/* cmdsn.c — command ordering (RFC 7143 4.2.2.1 and 3.2.2.1): non-immediate
 * PDUs are delivered in CmdSN order; early ones wait in a sorted queue;
 * anything outside [ExpCmdSN, MaxCmdSN] is silently ignored. */
#include "target/iscsi/conn.h"

enum cmdsn_verdict cmdsn_check(uint32_t exp, uint32_t max, uint32_t cmdsn, bool immediate)
{
	if (immediate)
		return CMDSN_DELIVER;
	/* max = exp - 1 is a closed window (RFC 7143 4.2.2.1): even the
	 * expected CmdSN is outside it.  Delivering it anyway let a flood grow
	 * the task list without bound, one past the window at a time. */
	if (!sn_le(cmdsn, max))
		return CMDSN_DROP;
	if (cmdsn == exp)
		return CMDSN_DELIVER;
	if (sn_lt(exp, cmdsn))
		return CMDSN_QUEUE;
	return CMDSN_DROP;
}

void cmdsn_insert_sorted(struct icmd **head, struct icmd *ic)
{
	while (*head && sn_lt((*head)->cmdsn, ic->cmdsn))
		head = &(*head)->pend_next;
	ic->pend_next = *head;
	*head = ic;
}

static void drop(struct icmd *ic)
{
scsi_cmd_state_set(&ic->state, SCSI_CMD_FINISHED);
	icmd_unlink(ic);
	icmd_put(ic);
}

void cmdsn_submit(struct conn *c, struct icmd *ic)
{
	switch (cmdsn_check(c->exp_cmd_sn, conn_accept_max(c), ic->cmdsn, ic->immediate)) {
	case CMDSN_DROP:
		drop(ic);
		return;
	case CMDSN_QUEUE:
		for (struct icmd *p = c->pending; p; p = p->pend_next) {
			if (p->cmdsn == ic->cmdsn) { /* duplicate CmdSN */
				drop(ic);
				return;
			}
		}
		cmdsn_insert_sorted(&c->pending, ic);
		return;
	case CMDSN_DELIVER:
		break;
	}
	if (!ic->immediate)
		c->exp_cmd_sn++;
	ffp_deliver(c, ic);
	/* the window moved: whoever waited for it goes now, in order */
	while (!c->closed && c->pending && c->pending->cmdsn == c->exp_cmd_sn) {
		struct icmd *p = c->pending;
		c->pending = p->pend_next;
		p->pend_next = NULL;
		c->exp_cmd_sn++;
		ffp_deliver(c, p);
	}
}
