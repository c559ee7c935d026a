/* dataout.c — solicited (R2T) and unsolicited Data-Out (RFC 7143 11.7/11.8).
 * Data lands straight in the command buffer at its BufferOffset.  With
 * DataPDUInOrder=Yes and DataSequenceInOrder=Yes every PDU must continue
 * exactly where the previous one of its sequence stopped, with the next
 * DataSN: anything else is a protocol error, and at ErrorRecoveryLevel 0 the
 * connection (so the session) ends. */
#include "target/iscsi/conn.h"

#include <string.h>

#include "target/iscsi/target.h"

/* A Data-Out that breaks the sequence rules: Reject it (protocol error) and
 * drop its task, which the initiator now considers failed; the session
 * survives.  The PDU's data is discarded. */
static int bad_dataout(struct conn *c, struct icmd *ic, const uint8_t *h, const char *why)
{
	conn_queue_reject(c, h, ISCSI_REJECT_PROTOCOL_ERROR, why);
	ic->aborted = true;
	/* a task still waiting for its CmdSN turn is on c->pending: freeing it
	 * here left a dangling pointer there; ffp_deliver drops it (aborted)
	 * when its turn comes, or conn_close frees it */
	if (ic->state != SCSI_CMD_IN_BACKEND && ic->state != SCSI_CMD_RECEIVED) {
		scsi_cmd_state_set(&ic->state, SCSI_CMD_FINISHED);
		icmd_unlink(ic);
		icmd_put(ic);
	}
	return 0;
}

static struct r2t_slot *find_r2t(struct icmd *ic, uint32_t ttt)
{
	for (unsigned i = 0; i < TGT_MAX_OUTSTANDING_R2T; i++)
		if (ic->r2t[i].used && ic->r2t[i].ttt == ttt)
			return &ic->r2t[i];
	return NULL;
}

int dataout_header(struct conn *c, const uint8_t *h)
{
	uint32_t itt = bhs_itt(h), ttt = get_be32(h + 20);
	uint32_t datasn = get_be32(h + 36), off = get_be32(h + 40);
	uint32_t dlen = bhs_data_len(h);
	struct icmd *ic = conn_find_task(c, itt);
	struct r2t_slot *s = NULL;

	c->rx_dst = NULL;
	c->rx_cmd = NULL;
	c->rx_r2t = NULL;
	if (!ic || ic->kind != IC_SCSI || !ic->wants_data || scsi_cmd_state_submitted(ic->state) || ic->aborted)
		return 0; /* e.g. the task was aborted: drop its data */
	if (ttt == ISCSI_RSVD_TAG) {
		if (c->params.initial_r2t) {
			return bad_dataout(c, ic, h, "unsolicited Data-Out while InitialR2T=Yes");
		}
		if (off != ic->imm_len + ic->unsol_got || (uint64_t)off + dlen > ic->unsol_expect) {
			return bad_dataout(c, ic, h, "unsolicited Data-Out outside the first burst");
		}
		if (datasn != ic->unsol_datasn) {
			return bad_dataout(c, ic, h, "Data-Out DataSN out of order");
		}
	} else {
		s = find_r2t(ic, ttt);
		if (!s) {
			return bad_dataout(c, ic, h, "Data-Out for an unknown Target Transfer Tag");
		}
		if (datasn != s->next_datasn) {
			return bad_dataout(c, ic, h, "Data-Out DataSN out of order");
		}
		if (off != s->offset + s->got || (uint64_t)off + dlen > (uint64_t)s->offset + s->len) {
			return bad_dataout(c, ic, h, "Data-Out BufferOffset outside its R2T");
		}
	}
	if ((uint64_t)off + dlen > ic->edtl) {
		return bad_dataout(c, ic, h, "Data-Out beyond the expected data transfer length");
	}
	c->rx_dst = ic->buf + off;
	c->rx_cmd = ic;
	c->rx_r2t = s;
	c->rx_off = off;
	return 0;
}

/* A burst of a WRITE's data has landed and more is on its way: tell the
 * backend, which may start on what is there (lu_backend_ops.data_arrived).
 * Only when the buffer is filled strictly from its start: unsolicited data
 * complete, one R2T outstanding at a time (so the one just satisfied ends
 * the prefix: final is where its data ended). */
static void early_data(struct conn *c, struct icmd *ic, size_t final)
{
	if (!ic->early_data || ic->state != SCSI_CMD_DELIVERED || ic->aborted || ic->lc.dir != LU_DIR_WRITE ||
	    c->params.max_r2t != 1 || ic->imm_len + ic->unsol_got < ic->unsol_expect || ic->got_total >= ic->edtl)
		return;
	/* ic->be is only safe to follow while its LU is still there (lu_rcu.h) */
	if (!scsi_cmd_lu_still_there(c, ic))
		return; /* (a removed LU: the command ends with LOGICAL UNIT NOT SUPPORTED) */
	scsi_cmd_set_buffer(ic);
	ic->be->ops->data_arrived(ic->be, &ic->lc, final);
}

void dataout_received(struct conn *c)
{
	struct icmd *ic = c->rx_cmd;
	struct r2t_slot *s = c->rx_r2t;
	bool final = c->bhs[1] & ISCSI_FLAG_FINAL;

	if (!ic)
		return;
	ic->got_total += c->rx_dlen;
	if (s) {
		s->got += c->rx_dlen;
		s->next_datasn++;
		if (final || s->got == s->len) {
			if (s->got != s->len) {
				bad_dataout(c, ic, c->bhs, "Data-Out sequence ended before its R2T was satisfied");
				return;
			}
			/* (the slot is reused by the next R2T) */
			size_t prefix = (size_t)s->offset + s->len;
			s->used = false;
			ic->r2t_outstanding--;
			r2t_send_more(c, ic);
			early_data(c, ic, prefix);
		}
	} else {
		ic->unsol_got += c->rx_dlen;
		ic->unsol_datasn++;
	}
	if (ic->got_total >= ic->edtl)
		scsi_cmd_data_complete(c, ic);
}

void r2t_send_more(struct conn *c, struct icmd *ic)
{
	if (ic->state == SCSI_CMD_RECEIVED || ic->aborted)
		return;
	while (ic->r2t_outstanding < c->params.max_r2t && ic->r2t_next_off < ic->edtl) {
		struct r2t_slot *s = NULL;
		struct txpdu *t;
		uint32_t len = ic->edtl - ic->r2t_next_off;

		for (unsigned i = 0; i < TGT_MAX_OUTSTANDING_R2T; i++)
			if (!ic->r2t[i].used) {
				s = &ic->r2t[i];
				break;
			}
		if (!s)
			return;
		t = tx_new();
		if (!t) {
			conn_close(c, "out of memory");
			return;
		}
		if (len > c->params.max_burst)
			len = c->params.max_burst;
		if (c->next_ttt == ISCSI_RSVD_TAG)
			c->next_ttt = 1;
		s->used = true;
		s->ttt = c->next_ttt++;
		s->offset = ic->r2t_next_off;
		s->len = len;
		s->got = 0;
		s->next_datasn = 0;
		pdu_init_rsp(t->hdr, ISCSI_OP_R2T, ISCSI_FLAG_FINAL);
		memcpy(t->hdr + 8, ic->hdr + 8, 8);
		put_be32(t->hdr + 16, ic->itt);
		put_be32(t->hdr + 20, s->ttt);
		put_be32(t->hdr + 36, ic->r2t_sn++);
		put_be32(t->hdr + 40, s->offset);
		put_be32(t->hdr + 44, len);
		ic->exp_datasn++;
		ic->r2t_next_off += len;
		ic->r2t_outstanding++;
		conn_queue(c, t, false);
	}
}
