/* datain.c — Data-In / SCSI Response building.  Data-In PDUs point into the
 * command buffer (each holds a reference on the task) so nothing is copied. */
#include "target/iscsi/datain.h"

#include <stdlib.h>
#include <string.h>

#include "target/iscsi/conn.h"
#include "target/iscsi/xfer_len.h"

void residual_compute(uint64_t tl, bool rw, bool is_write, uint32_t edtl, size_t produced,
		      struct residual *r)
{
	uint64_t have;

	r->flags = 0;
	r->count = 0;
	if (rw && tl != XFER_LEN_UNKNOWN) {
		have = tl;
	} else if (is_write) {
		return; /* a parameter list: the LU does not report what it used */
	} else {
		have = produced;
	}
	if (have > edtl) {
		r->flags = ISCSI_FLAG_OVERFLOW;
		r->count = have - edtl > UINT32_MAX ? UINT32_MAX : (uint32_t)(have - edtl);
	} else if (have < edtl) {
		r->flags = ISCSI_FLAG_UNDERFLOW;
		r->count = (uint32_t)(edtl - have);
	}
}

uint32_t datain_pdu_count(size_t len, uint32_t mx)
{
	return mx ? (uint32_t)((len + mx - 1) / mx) : 0;
}

void datain_queue(struct conn *c, struct icmd *ic, uint32_t len, bool with_status,
		  uint8_t status, const struct residual *r)
{
	datain_queue_range(c, ic, 0, len, len, with_status, status, r);
}

/* PDU boundaries depend only on the offset (a new sequence every
 * MaxBurstLength bytes, PDUs of at most MaxRecvDataSegmentLength within
 * it), so a transfer queued in several ranges whose ends fall on PDU
 * boundaries goes out exactly as one queued at once. */
static uint32_t pdu_len_at(const struct conn *c, uint32_t off, uint32_t total)
{
	uint32_t mx = c->params.max_xmit_dsl, burst = c->params.max_burst;
	uint32_t n = total - off, seq_left = burst - off % burst;

	if (n > mx)
		n = mx;
	return n < seq_left ? n : seq_left;
}

uint32_t datain_full_pdus_end(const struct conn *c, uint32_t off, uint32_t ready, uint32_t total)
{
	while (off < ready) {
		uint32_t n = pdu_len_at(c, off, total);

		if (off + n > ready)
			break;
		off += n;
	}
	return off;
}

void datain_queue_range(struct conn *c, struct icmd *ic, uint32_t off, uint32_t end, uint32_t total,
			bool with_status, uint8_t status, const struct residual *r)
{
	uint32_t burst = c->params.max_burst;

	while (off < end && !c->closed) {
		struct txpdu *t = tx_new();
		uint32_t n = pdu_len_at(c, off, total);
		bool last;

		if (!t) {
			conn_close(c, "out of memory");
			return;
		}
		if (n > end - off)
			n = end - off; /* a caller's range ends mid-PDU: only at the very end */
		last = off + n == total;
		pdu_init_rsp(t->hdr, ISCSI_OP_DATA_IN, 0);
		if (last || (off + n) % burst == 0)
			t->hdr[1] |= ISCSI_FLAG_FINAL;
		memcpy(t->hdr + 8, ic->hdr + 8, 8); /* LUN */
		put_be32(t->hdr + 16, ic->itt);
		put_be32(t->hdr + 20, ISCSI_RSVD_TAG);
		put_be32(t->hdr + 36, ic->exp_datasn++);
		put_be32(t->hdr + 40, off);
		if (last && with_status) {
			t->hdr[1] |= ISCSI_FLAG_FINAL | ISCSI_DATAIN_STATUS | r->flags;
			t->hdr[3] = status;
			put_be32(t->hdr + 44, r->count);
		}
		t->data = ic->buf + off;
		t->dlen = n;
		t->ref = ic;
		ic->refs++;
		conn_queue(c, t, last && with_status);
		off += n;
	}
}

void scsi_rsp_queue(struct conn *c, struct icmd *ic, uint8_t status, const uint8_t *sense,
		    uint32_t sense_len, const struct residual *r)
{
	struct txpdu *t = tx_new();
	uint8_t *data = NULL;

	if (!t) {
		conn_close(c, "out of memory");
		return;
	}
	pdu_init_rsp(t->hdr, ISCSI_OP_SCSI_RSP, ISCSI_FLAG_FINAL | r->flags);
	t->hdr[2] = 0; /* command completed at target */
	t->hdr[3] = status;
	put_be32(t->hdr + 16, ic->itt);
	put_be32(t->hdr + 36, ic->exp_datasn);
	put_be32(t->hdr + 44, r->count);
	if (sense_len) {
		/* SenseLength (2 bytes) then the sense data */
		data = malloc(sense_len + 2);
		if (!data) {
			free(t);
			conn_close(c, "out of memory");
			return;
		}
		put_be16(data, (uint16_t)sense_len);
		memcpy(data + 2, sense, sense_len);
		t->data = data;
		t->dlen = sense_len + 2;
		t->owned = data;
	}
	conn_queue(c, t, true);
}
