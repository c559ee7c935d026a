/* conn_tx.c — the output queue.  PDUs are queued with their data pointing
 * into the command buffer (no copy) and leave in one sendmsg() of many
 * iovecs when the loop flushes the connection. */
#include "target/iscsi/conn.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "target/iscsi/conn_pool.h"
#include "target/iscsi/crc32c.h"
#include "target/iscsi/io_thread.h"
#include "target/iscsi/target.h"

/* iovecs per sendmsg(): 2 per PDU (header, data) and PDUs of a whole batch
 * of completions (QD32 and more) in one call; IOV_MAX is 1024 */
#define TX_IOV_MAX 256

static __thread struct conn_pool tx_pool; /* conn_pool.h */

void conn_tx_pool_drain(void)
{
	conn_pool_drain(&tx_pool);
}

struct txpdu *tx_new(void)
{
	struct txpdu *t = conn_pool_get(&tx_pool, sizeof(*t));

	if (t)
		t->hlen = ISCSI_BHS_LEN;
	return t;
}

static void tx_free(struct txpdu *t)
{
	if (t->ref)
		icmd_put(t->ref);
	free(t->owned);
	conn_pool_put(&tx_pool, t);
}

void conn_free_txq(struct conn *c)
{
	while (c->tx_head) {
		struct txpdu *t = c->tx_head;
		c->tx_head = t->next;
		tx_free(t);
	}
	c->tx_tail = NULL;
	c->tx_off = 0;
}

void conn_mark_dirty(struct conn *c)
{
	if (c->dirty || !c->thr)
		return;
	c->dirty = true;
	c->refs++; /* the flush list holds the connection */
	c->dirty_next = c->thr->dirty;
	c->thr->dirty = c;
}

void conn_queue(struct conn *c, struct txpdu *t, bool advance_statsn)
{
	uint8_t *h = t->hdr;
	uint8_t op = bhs_opcode(h);
	uint32_t pad;

	if (c->closed) {
		tx_free(t);
		return;
	}
	/* R2T and Data-In without status carry StatSN without consuming it */
	if (op != ISCSI_OP_LOGIN_RSP) {
		put_be32(h + 24, c->stat_sn);
		put_be32(h + 28, c->exp_cmd_sn);
		put_be32(h + 32, conn_max_cmd_sn(c));
	}
	if (op == ISCSI_OP_DATA_IN && !(h[1] & ISCSI_DATAIN_STATUS))
		put_be32(h + 24, 0); /* reserved unless the S bit is set */
	if (advance_statsn)
		c->stat_sn++;
	put_be24(h + 5, t->dlen);
	t->hlen = ISCSI_BHS_LEN;
	if (c->params.header_digest && c->digests_live) {
		crc32c_put_wire(h + ISCSI_BHS_LEN, ll_crc32c(0, h, ISCSI_BHS_LEN));
		t->hlen += ISCSI_DIGEST_LEN;
	}
	pad = pdu_pad4(t->dlen);
	memset(t->tail, 0, pad);
	t->tlen = pad;
	if (t->dlen && c->params.data_digest && c->digests_live) {
		uint32_t crc = ll_crc32c(0, t->data, t->dlen);
		crc = ll_crc32c(crc, t->tail, pad);
		crc32c_put_wire(t->tail + pad, crc);
		t->tlen += ISCSI_DIGEST_LEN;
	}
	t->next = NULL;
	if (c->tx_tail)
		c->tx_tail->next = t;
	else
		c->tx_head = t;
	c->tx_tail = t;
	conn_mark_dirty(c);
}

void conn_queue_reject(struct conn *c, const uint8_t *bhs, uint8_t reason, const char *why)
{
	struct txpdu *t = tx_new();
	uint8_t *copy = malloc(ISCSI_BHS_LEN);

	if (!t || !copy) {
		free(t);
		free(copy);
		conn_close(c, "out of memory");
		return;
	}
	target_log("reject to %s (initiator %s): %s, ITT 0x%08x, reason 0x%02x: %s", c->peer,
		   c->initiator, pdu_opcode_name(bhs_opcode(bhs)), bhs_itt(bhs), reason, why);
	memcpy(copy, bhs, ISCSI_BHS_LEN);
	pdu_init_rsp(t->hdr, ISCSI_OP_REJECT, ISCSI_FLAG_FINAL);
	t->hdr[2] = reason;
	put_be32(t->hdr + 16, ISCSI_RSVD_TAG);
	t->data = copy;
	t->dlen = ISCSI_BHS_LEN;
	t->owned = copy;
	conn_queue(c, t, true);
}

/* Sends as much of the queue as the socket takes. */
void conn_flush(struct conn *c)
{
	while (c->tx_head && !c->closed) {
		struct iovec iov[TX_IOV_MAX];
		int n = 0;
		size_t skip = c->tx_off;
		struct msghdr mh;
		ssize_t w;

		for (struct txpdu *t = c->tx_head; t && n <= TX_IOV_MAX - 3; t = t->next) {
			const void *part[3] = { t->hdr, t->data, t->tail };
			size_t plen[3] = { t->hlen, t->dlen, t->tlen };
			for (int k = 0; k < 3; k++) {
				if (skip >= plen[k]) {
					skip -= plen[k];
					continue;
				}
				iov[n].iov_base = (uint8_t *)part[k] + skip;
				iov[n].iov_len = plen[k] - skip;
				skip = 0;
				n++;
			}
			if (t->close_after)
				break; /* nothing after a final PDU */
		}
		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = iov;
		mh.msg_iovlen = (size_t)n;
		w = sendmsg(c->fd, &mh, MSG_NOSIGNAL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				if (!c->epollout)
					io_thread_watch(c, true);
				return;
			}
			conn_close(c, "send failed");
			return;
		}
		/* retire what went out */
		size_t done = c->tx_off + (size_t)w;
		while (c->tx_head) {
			struct txpdu *t = c->tx_head;
			size_t tot = t->hlen + t->dlen + t->tlen;
			if (done < tot)
				break;
			done -= tot;
			c->tx_head = t->next;
			if (!c->tx_head)
				c->tx_tail = NULL;
			if (t->close_after) {
				const char *why = t->close_why ? t->close_why : "logged out";
				tx_free(t);
				conn_close(c, why);
				return;
			}
			tx_free(t);
		}
		c->tx_off = done;
	}
	if (c->epollout && !c->closed)
		io_thread_watch(c, false);
}
