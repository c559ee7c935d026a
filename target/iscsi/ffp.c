/* ffp.c — full feature phase: what a task does when its CmdSN turn comes,
 * plus the two small PDU families (NOP-Out ping, Logout). */
#include "target/iscsi/conn.h"

#include <string.h>

#include "target/iscsi/target.h"

static void finish(struct icmd *ic)
{
scsi_cmd_state_set(&ic->state, SCSI_CMD_FINISHED);
	icmd_unlink(ic);
	icmd_put(ic);
}

void ffp_deliver(struct conn *c, struct icmd *ic)
{
	scsi_cmd_state_set(&ic->state, SCSI_CMD_DELIVERED);
	if (ic->aborted) { /* aborted while waiting for its turn */
		finish(ic);
		return;
	}
	switch (ic->kind) {
	case IC_SCSI:
		scsi_cmd_deliver(c, ic);
		break;
	case IC_NOP:
		nop_out_deliver(c, ic);
		break;
	case IC_TEXT:
		text_handle(c, ic);
		break;
	case IC_TMF:
		tmf_deliver(c, ic);
		break;
	case IC_LOGOUT:
		logout_deliver(c, ic);
		break;
	}
}

/* NOP-Out with a real ITT is a ping: echo its data in a NOP-In. */
void nop_out_deliver(struct conn *c, struct icmd *ic)
{
	struct txpdu *t;

	if (ic->itt == ISCSI_RSVD_TAG) { /* no reply wanted */
		finish(ic);
		return;
	}
	t = tx_new();
	if (!t) {
		conn_close(c, "out of memory");
		return;
	}
	pdu_init_rsp(t->hdr, ISCSI_OP_NOP_IN, ISCSI_FLAG_FINAL);
	memcpy(t->hdr + 8, ic->hdr + 8, 8); /* LUN echoed */
	put_be32(t->hdr + 16, ic->itt);
	put_be32(t->hdr + 20, ISCSI_RSVD_TAG);
	if (ic->buf_len) {
		uint32_t n = (uint32_t)ic->buf_len;
		if (n > c->params.max_xmit_dsl)
			n = c->params.max_xmit_dsl;
		t->data = ic->buf;
		t->dlen = n;
		t->ref = ic;
		ic->refs++;
	}
	conn_queue(c, t, true);
	finish(ic);
}

void logout_deliver(struct conn *c, struct icmd *ic)
{
	uint8_t reason = ic->hdr[1] & 0x7f;
	struct txpdu *t = tx_new();

	if (!t) {
		conn_close(c, "out of memory");
		return;
	}
	pdu_init_rsp(t->hdr, ISCSI_OP_LOGOUT_RSP, ISCSI_FLAG_FINAL);
	put_be32(t->hdr + 16, ic->itt);
	if (reason == 2) {
		t->hdr[2] = 2; /* connection recovery is not supported (ERL 0) */
	} else if (reason == 1 && get_be16(ic->hdr + 20) != c->cid) {
		t->hdr[2] = 1;
	} else {
		t->hdr[2] = 0;
		t->close_after = true;
	}
	put_be16(t->hdr + 40, (uint16_t)c->params.time2wait);
	put_be16(t->hdr + 42, (uint16_t)c->params.time2retain);
	finish(ic);
	conn_queue(c, t, true);
	if (t->close_after && !c->closed && c->state == CS_FFP)
		c->state = CS_CLOSING; /* nothing after the Logout Response */
}
