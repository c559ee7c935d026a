/* conn_rx.c — the receive state machine: BHS, AHS + header digest, data
 * segment, pad + data digest.  Bytes come through a 256 KiB staging buffer,
 * except large data segments whose destination is known (immediate data and
 * Data-Out go to their command's buffer): those are received in place.
 *
 * A recv() into staging takes whatever the socket holds, so the header of a
 * 256 KiB Data-Out brought most of its data along, which then had to be
 * copied into the command's buffer: one user-space copy of every byte
 * written.  While large data segments are arriving (the last PDU carried at
 * least RX_DIRECT_MIN bytes) each recv() therefore asks only for what the
 * current stage needs (48 bytes of BHS, then the data straight into place);
 * small PDUs switch back to batching, which serves 4 KiB commands best. */
#include "target/iscsi/conn.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "target/iscsi/crc32c.h"
#include "target/iscsi/io_thread.h"
#include "target/iscsi/target.h"

#define RX_DIRECT_MIN 16384  /* receive in place from this many bytes on */
#define RX_RECV_BUDGET 16    /* recv() calls per wake-up, for fairness */

static bool digests_on(const struct conn *c) { return c->digests_live; }

static void expect(struct conn *c, enum rx_stage st, uint8_t *dst, uint32_t need)
{
	c->stage = st;
	c->rx_dst = dst;
	c->rx_need = need;
	c->rx_got = 0;
}

static void reset_for_next_pdu(struct conn *c)
{
	c->rx_cmd = NULL;
	c->rx_r2t = NULL;
	expect(c, RX_BHS, c->bhs, ISCSI_BHS_LEN);
}

/* A SCSI Command without the W bit whose data would take the connection
 * past CONN_MAX_DATA_BYTES waits, header complete, with reading paused. */
static bool over_data_budget(struct conn *c)
{
	const uint8_t *h = c->bhs;
	uint32_t edtl;

	if (c->state != CS_FFP || bhs_opcode(h) != ISCSI_OP_SCSI_CMD || (h[1] & ISCSI_CMD_WRITE) ||
	    !c->data_bytes)
		return false;
	edtl = get_be32(h + 20);
	return c->data_bytes + edtl > CONN_MAX_DATA_BYTES;
}

/* Where the data segment of the PDU in c->bhs goes. */
static int header_complete(struct conn *c)
{
	uint8_t *h = c->bhs;
	uint8_t op = bhs_opcode(h);
	const char *why = "";
	int reason;

	c->rx_dlen = bhs_data_len(h);
	c->rx_cmd = NULL;
	c->rx_r2t = NULL;
	if (c->state == CS_CLOSING) { /* logged out or login refused: drain, ignore */
		expect(c, RX_DATA, NULL, c->rx_dlen);
		c->bhs[0] = 0x3f;
		return 0;
	}
	if (c->state == CS_LOGIN && op != ISCSI_OP_LOGIN_REQ) {
		conn_close(c, "non-login PDU before login completed");
		return -1;
	}
	reason = pdu_validate_header(h, c->params.max_recv_dsl, &why);
	if (reason) {
		if (c->state == CS_LOGIN || c->rx_dlen > c->params.max_recv_dsl) {
			/* cannot trust the framing any more */
			conn_close(c, why);
			return -1;
		}
		conn_queue_reject(c, h, (uint8_t)reason, why);
		expect(c, RX_DATA, NULL, c->rx_dlen);
		c->bhs[0] = 0x3f; /* mark: discard, nothing to dispatch */
		return 0;
	}
	if (c->state == CS_FFP && op == ISCSI_OP_SCSI_CMD) {
		if (scsi_cmd_header(c, h) < 0)
			return -1;
		/* writes are not charged: their Data-Out may sit behind a header
		 * we would pause on, and their data is the initiator's own */
		if (c->rx_cmd && !c->rx_cmd->data_charge && !(h[1] & ISCSI_CMD_WRITE)) {
			c->rx_cmd->data_charge = get_be32(h + 20);
			c->data_bytes += c->rx_cmd->data_charge;
		}
	} else if (c->state == CS_FFP && op == ISCSI_OP_DATA_OUT) {
		if (dataout_header(c, h) < 0)
			return -1;
	} else {
		c->rx_dst = c->pdu_data;
	}
	expect(c, RX_DATA, c->rx_dst, c->rx_dlen);
	c->rx_exact = c->rx_dst && c->rx_dlen >= RX_DIRECT_MIN;
	return 0;
}

static void dispatch(struct conn *c)
{
	uint8_t *h = c->bhs;
	uint8_t op = bhs_opcode(h);
	struct icmd *ic;
	enum icmd_kind kind;

	if (h[0] == 0x3f) /* rejected in header_complete */
		return;
	if (c->state == CS_LOGIN) {
		login_handle(c, h, c->pdu_data, c->rx_dlen);
		return;
	}
	switch (op) {
	case ISCSI_OP_SCSI_CMD:
		if (c->rx_cmd)
			cmdsn_submit(c, c->rx_cmd);
		return;
	case ISCSI_OP_DATA_OUT:
		dataout_received(c);
		return;
	case ISCSI_OP_LOGIN_REQ:
		conn_queue_reject(c, h, ISCSI_REJECT_PROTOCOL_ERROR, "Login Request in full feature phase");
		return;
	case ISCSI_OP_SNACK_REQ:
		/* ErrorRecoveryLevel=0: no SNACK support */
		conn_queue_reject(c, h, ISCSI_REJECT_CMD_NOT_SUPPORTED, "SNACK needs ErrorRecoveryLevel > 0");
		return;
	case ISCSI_OP_NOP_OUT:
		if (bhs_itt(h) == ISCSI_RSVD_TAG && !bhs_immediate(h)) {
			conn_queue_reject(c, h, ISCSI_REJECT_PROTOCOL_ERROR,
					  "NOP-Out with ITT 0xffffffff must be immediate");
			return;
		}
		kind = IC_NOP;
		break;
	case ISCSI_OP_TEXT_REQ:
		kind = IC_TEXT;
		break;
	case ISCSI_OP_TMF_REQ:
		kind = IC_TMF;
		break;
	case ISCSI_OP_LOGOUT_REQ:
		kind = IC_LOGOUT;
		break;
	default:
		conn_queue_reject(c, h, ISCSI_REJECT_CMD_NOT_SUPPORTED, "opcode not supported");
		return;
	}
	ic = icmd_new(c, h, kind);
	if (!ic) {
		conn_close(c, "out of memory");
		return;
	}
	if (c->rx_dlen) {
		ic->buf = malloc(c->rx_dlen + 1);
		if (!ic->buf) {
			conn_close(c, "out of memory");
			return;
		}
		ic->buf_cap = 0; /* plain malloc: bufcache_put frees it */
		memcpy(ic->buf, c->pdu_data, c->rx_dlen);
		ic->buf_len = c->rx_dlen;
	}
	cmdsn_submit(c, ic);
}

static bool data_digest_ok(struct conn *c)
{
	uint32_t pad = pdu_pad4(c->rx_dlen);
	uint32_t crc;

	if (!c->rx_data)
		return true; /* discarded anyway */
	crc = ll_crc32c(0, c->rx_data, c->rx_dlen);
	crc = ll_crc32c(crc, c->rx_tail, pad);
	return crc == crc32c_get_wire(c->rx_tail + pad);
}

/* Returns -1 when c was closed. */
static int data_digest_failed(struct conn *c)
{
	uint8_t op = bhs_opcode(c->bhs);

	if (c->state == CS_LOGIN) {
		conn_close(c, "data digest error during login");
		return -1;
	}
	conn_queue_reject(c, c->bhs, ISCSI_REJECT_DATA_DIGEST, "DataDigest does not match the data");
	if (op == ISCSI_OP_SCSI_CMD && c->rx_cmd) {
		/* the command is discarded as if never sent (RFC 7143 7.8) */
		struct icmd *ic = c->rx_cmd;
		scsi_cmd_state_set(&ic->state, SCSI_CMD_FINISHED);
		icmd_unlink(ic);
		icmd_put(ic);
		c->rx_cmd = NULL;
	} else if (op == ISCSI_OP_DATA_OUT) {
		/* ERL 0 cannot recover a lost Data-Out burst */
		conn_close(c, "data digest error on Data-Out");
		return -1;
	}
	return 0;
}

/* One stage finished; move to the next.  Returns -1 when c was closed,
 * 1 when a whole PDU is in, 2 when the header must wait for the data
 * budget (the stage is left as it is: calling again re-checks). */
static int stage_done(struct conn *c)
{
	bool hd = c->params.header_digest && digests_on(c);
	bool dd = c->params.data_digest && digests_on(c);
	uint32_t ahs = bhs_ahs_len(c->bhs);
	uint32_t tail;

	switch (c->stage) {
	case RX_BHS:
		if (ahs || hd) {
			if (ahs > CONN_MAX_AHS) {
				conn_close(c, "AHS too long");
				return -1;
			}
			expect(c, RX_AHS, c->bhs + ISCSI_BHS_LEN, ahs + (hd ? ISCSI_DIGEST_LEN : 0));
			return 0;
		}
		if (over_data_budget(c))
			return 2;
		if (header_complete(c) < 0)
			return -1;
		break;
	case RX_AHS:
		if (hd) {
			uint32_t want = ll_crc32c(0, c->bhs, ISCSI_BHS_LEN + ahs);
			if (want != crc32c_get_wire(c->bhs + ISCSI_BHS_LEN + ahs)) {
				conn_close(c, "header digest error");
				return -1;
			}
		}
		if (over_data_budget(c))
			return 2;
		if (header_complete(c) < 0)
			return -1;
		break;
	case RX_DATA:
		break;
	case RX_TAIL:
		if (dd && c->rx_dlen && !data_digest_ok(c))
			return data_digest_failed(c) < 0 ? -1 : 1;
		return 1;
	}
	/* header complete (stage RX_DATA set up) or data complete */
	if (c->stage == RX_DATA && c->rx_got < c->rx_need)
		return 0; /* data still to come */
	c->rx_data = c->rx_dlen ? c->rx_dst : NULL;
	tail = pdu_pad4(c->rx_dlen) + (dd && c->rx_dlen ? ISCSI_DIGEST_LEN : 0);
	if (tail) {
		expect(c, RX_TAIL, c->rx_tail, tail);
		return 0;
	}
	return 1;
}

void conn_on_readable(struct conn *c)
{
	int budget = RX_RECV_BUDGET;
	/* a recv() that returned less than it asked for emptied the socket:
	 * another one would only say EAGAIN (one wasted syscall per wake-up).
	 * epoll is level-triggered, so bytes arriving after it wake us again. */
	bool drained = false;

	c->refs++; /* dispatch may close c */
	while (!c->closed) {
		while (c->rx_got < c->rx_need) {
			size_t avail = c->rx_end - c->rx_start;
			size_t want = c->rx_need - c->rx_got;
			ssize_t r;

			if (avail) {
				size_t n = avail < want ? avail : want;
				if (c->rx_dst)
					memcpy(c->rx_dst + c->rx_got, c->rxbuf + c->rx_start, n);
				c->rx_start += n;
				c->rx_got += (uint32_t)n;
				continue;
			}
			c->rx_start = c->rx_end = 0;
			if (drained || budget-- <= 0)
				goto out;
			size_t ask = c->rx_cap;
			if (c->rx_dst && want >= RX_DIRECT_MIN)
				ask = want;                    /* in place */
			else if (c->rx_exact && want < c->rx_cap)
				ask = want;                    /* staging, this stage only */

			if (c->rx_dst && want >= RX_DIRECT_MIN)
				r = recv(c->fd, c->rx_dst + c->rx_got, ask, 0);
			else
				r = recv(c->fd, c->rxbuf, ask, 0);
			if (r == 0) {
				conn_close(c, "connection closed by initiator");
				goto out;
			}
			if (r < 0) {
				if (errno == EINTR)
					continue;
				if (errno != EAGAIN && errno != EWOULDBLOCK)
					conn_close(c, "receive failed");
				goto out;
			}
			c->rx_progress = true;
			drained = (size_t)r < ask;
			if (c->rx_dst && want >= RX_DIRECT_MIN)
				c->rx_got += (uint32_t)r;
			else
				c->rx_end = (size_t)r;
		}
		int rc = stage_done(c);
		if (rc < 0 || c->closed)
			break;
		if (rc == 2) {
			/* stop reading; conn_data_released() resumes us */
			if (!c->rx_paused) {
				c->rx_paused = true;
				io_thread_watch(c, c->epollout);
			}
			break;
		}
		if (rc == 1) {
			dispatch(c);
			if (!c->closed)
				reset_for_next_pdu(c);
		}
	}
out:
	conn_put(c);
}
