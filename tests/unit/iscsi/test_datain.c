/* test_datain.c — residual arithmetic and Data-In segmentation: PDU sizes
 * bounded by MaxRecvDataSegmentLength, F bit closing each MaxBurstLength
 * sequence, status collapsed into the last PDU, DataSN/BufferOffset, and
 * SCSI Response sense framing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lunlab/scsi_vocab.h"
#include "target/iscsi/conn.h"
#include "target/iscsi/datain.h"
#include "target/iscsi/xfer_len.h"

static void residuals(void **state)
{
	struct residual r;

	/* READ(10) of 1 block (512), EDTL 10000: underflow 9488 */
	residual_compute(512, true, false, 10000, 10000, &r);
	assert_int_equal(r.flags, ISCSI_FLAG_UNDERFLOW);
	assert_int_equal(r.count, 9488);
	/* 2 blocks asked, EDTL 1 block: overflow 1 block */
	residual_compute(1024, true, false, 512, 512, &r);
	assert_int_equal(r.flags, ISCSI_FLAG_OVERFLOW);
	assert_int_equal(r.count, 512);
	/* EDTL 0 */
	residual_compute(512, true, true, 0, 0, &r);
	assert_int_equal(r.flags, ISCSI_FLAG_OVERFLOW);
	assert_int_equal(r.count, 512);
	/* exact */
	residual_compute(4096, true, true, 4096, 4096, &r);
	assert_int_equal(r.flags, 0);
	assert_int_equal(r.count, 0);
	/* INQUIRY-like: produced 36 of EDTL 255 */
	residual_compute(XFER_LEN_UNKNOWN, false, false, 255, 36, &r);
	assert_int_equal(r.flags, ISCSI_FLAG_UNDERFLOW);
	assert_int_equal(r.count, 219);
	/* non-READ/WRITE with data out: no residual claimed */
	residual_compute(XFER_LEN_UNKNOWN, false, true, 24, 0, &r);
	assert_int_equal(r.flags, 0);
}

static void pdu_count(void **state)
{
	assert_int_equal(datain_pdu_count(0, 8192), 0);
	assert_int_equal(datain_pdu_count(1, 8192), 1);
	assert_int_equal(datain_pdu_count(8192, 8192), 1);
	assert_int_equal(datain_pdu_count(8193, 8192), 2);
	assert_int_equal(datain_pdu_count(4 << 20, 262144), 16);
}

static void response_len_of_inquiry(void **state)
{
	uint8_t cdb[6] = { SCSI_OP_INQUIRY, 0, 0, 0, 255, 0 }, buf[255];

	memset(buf, 0, sizeof(buf));
	buf[4] = 31; /* standard INQUIRY: 36 bytes */
	assert_int_equal(cdb_response_len(cdb, buf, 255), 36);
	cdb[1] = 1; /* VPD */
	buf[2] = 0;
	buf[3] = 60;
	assert_int_equal(cdb_response_len(cdb, buf, 255), 64);
	assert_int_equal(cdb_response_len(cdb, buf, 10), 10); /* never grows */
	cdb[0] = SCSI_OP_READ_CAPACITY_10; /* READ CAPACITY(10) does not describe itself */
	assert_int_equal(cdb_response_len(cdb, buf, 255), 255);
}

/* the other self-describing answers: each length field, header included */
static void response_len_of_other_pages(void **state)
{
	uint8_t cdb[16], buf[512];

	(void)state;
	memset(cdb, 0, sizeof(cdb));
	memset(buf, 0, sizeof(buf));
	cdb[0] = SCSI_OP_MODE_SENSE_6; /* MODE SENSE(6): MODE DATA LENGTH 23 -> 24 bytes */
	buf[0] = 23;
	assert_int_equal(cdb_response_len(cdb, buf, 255), 24);
	cdb[0] = SCSI_OP_MODE_SENSE_10; /* MODE SENSE(10): 0x0102 -> 260 bytes */
	buf[0] = 0x01;
	buf[1] = 0x02;
	assert_int_equal(cdb_response_len(cdb, buf, 512), 260);
	assert_int_equal(cdb_response_len(cdb, buf, 100), 100); /* never grows */
	memset(buf, 0, 8);
	cdb[0] = SCSI_OP_LOG_SENSE; /* LOG SENSE: PAGE LENGTH 12 -> 16 */
	buf[3] = 12;
	assert_int_equal(cdb_response_len(cdb, buf, 252), 16);
	memset(buf, 0, 8);
	cdb[0] = SCSI_OP_REQUEST_SENSE; /* REQUEST SENSE fixed: ADDITIONAL SENSE LENGTH 10 -> 18 */
	buf[0] = 0x70;
	buf[7] = 10;
	assert_int_equal(cdb_response_len(cdb, buf, 252), 18);
	memset(buf, 0, 8);
	cdb[0] = SCSI_OP_THIRD_PARTY_COPY_IN; /* RECEIVE COPY RESULTS: AVAILABLE DATA 40 -> 44 */
	buf[3] = 40;
	assert_int_equal(cdb_response_len(cdb, buf, 256), 44);
	memset(buf, 0, 8);
	cdb[0] = SCSI_OP_SERVICE_ACTION_IN_16; /* GET LBA STATUS: PARAMETER DATA LENGTH 20 -> 24 */
	cdb[1] = 0x12;
	buf[3] = 20;
	assert_int_equal(cdb_response_len(cdb, buf, 4096), 24);
	cdb[1] = 0x10; /* READ CAPACITY(16) is another service action: as produced */
	assert_int_equal(cdb_response_len(cdb, buf, 32), 32);
	memset(buf, 0, 8);
	cdb[0] = SCSI_OP_MAINTENANCE_IN; /* REPORT SUPPORTED OPERATION CODES, all: 4 + 0x60 */
	cdb[1] = 0x0c;
	cdb[2] = 0;
	buf[3] = 0x60;
	assert_int_equal(cdb_response_len(cdb, buf, 4096), 100);
	memset(buf, 0, 8);
	cdb[2] = 1; /* one command: CDB SIZE 10, CTDP adds the 12-byte timeouts */
	buf[1] = 0x83;
	buf[3] = 10;
	assert_int_equal(cdb_response_len(cdb, buf, 4096), 26);
	buf[1] = 0x03;
	assert_int_equal(cdb_response_len(cdb, buf, 4096), 14);
	assert_int_equal(cdb_response_len(cdb, buf, 3), 3); /* too short to tell */
}

static void xfer_lengths(void **state)
{
	uint8_t r6[6] = { SCSI_OP_READ_6, 0, 0, 0, 0, 0 }, w10[10] = { SCSI_OP_WRITE_10 }, r16[16] = { SCSI_OP_READ_16 };
	bool rw;

	assert_true(cdb_xfer_len(r6, 512, &rw) == 256 * 512); /* 0 means 256 */
	assert_true(rw);
	put_be16(w10 + 7, 3);
	assert_true(cdb_xfer_len(w10, 4096, &rw) == 3 * 4096);
	put_be32(r16 + 10, 8);
	assert_true(cdb_xfer_len(r16, 512, &rw) == 4096);
	assert_true(cdb_set_blocks(r16, 2));
	assert_true(cdb_xfer_len(r16, 512, &rw) == 1024);
	assert_false(cdb_set_blocks(r6, 0));
	assert_true(cdb_set_blocks(r6, 256));
	assert_int_equal(r6[4], 0);
	uint8_t tur[6] = { 0 };
	assert_true(cdb_xfer_len(tur, 512, &rw) == 0);
	assert_false(rw);
	/* data-in: the allocation length, whatever the command */
	uint8_t inq[6] = { SCSI_OP_INQUIRY, 0, 0, 0x01, 0x02, 0 };
	assert_true(cdb_xfer_len(inq, 512, &rw) == 0x102);
	assert_false(rw);
	/* data-out other than READ/WRITE: the initiator's data decides, never the CDB */
	uint8_t ws[16] = { SCSI_OP_WRITE_SAME_16 }, wa[16] = { SCSI_OP_WRITE_ATOMIC_16 };
	assert_true(cdb_xfer_len(ws, 512, &rw) == XFER_LEN_UNKNOWN);
	wa[13] = 2;
	assert_true(cdb_xfer_len(wa, 512, &rw) == XFER_LEN_UNKNOWN);
	assert_false(rw);
	assert_false(cdb_set_blocks(wa, 1)); /* an atomic write is never cut short */
	uint8_t wb[10] = { SCSI_OP_WRITE_BUFFER };
	assert_true(cdb_xfer_len(wb, 512, &rw) == XFER_LEN_UNKNOWN);
	/* WRITE AND VERIFY(12) is in the READ/WRITE family */
	uint8_t wv12[12] = { SCSI_OP_WRITE_AND_VERIFY_12 };
	put_be32(wv12 + 6, 4);
	assert_true(cdb_xfer_len(wv12, 512, &rw) == 2048);
	assert_true(rw);
	assert_true(cdb_set_blocks(wv12, 1) && get_be32(wv12 + 6) == 1);
}

static void segmentation(void **state)
{
	struct conn *c = conn_new(-1, NULL);
	uint8_t bhs[48];
	struct icmd *ic;
	struct residual r = { ISCSI_FLAG_UNDERFLOW, 100 };
	static const uint32_t want_len[] = { 1000, 1000, 500, 1000, 1000, 500, 1000 };
	static const uint8_t want_f[] = { 0, 0, 1, 0, 0, 1, 1 };
	uint32_t off = 0, n = 0;

	c->state = CS_FFP;
	c->params.max_xmit_dsl = 1000;
	c->params.max_burst = 2500;
	c->stat_sn = 50;
	c->exp_cmd_sn = 9;
	memset(bhs, 0, sizeof(bhs));
	bhs[0] = ISCSI_OP_SCSI_CMD;
	put_be32(bhs + 16, 0xabc);
	bhs[9] = 2; /* LUN 2 */
	ic = icmd_new(c, bhs, IC_SCSI);
	ic->buf = malloc(6000);
	ic->buf_len = 6000;
	datain_queue(c, ic, 6000, true, 0x00, &r);
	for (struct txpdu *t = c->tx_head; t; t = t->next, n++) {
		assert_true(n < 7);
		assert_int_equal(t->hdr[0], ISCSI_OP_DATA_IN);
		assert_int_equal(t->dlen, want_len[n]);
		assert_int_equal(get_be24(t->hdr + 5), want_len[n]);
		assert_int_equal(!!(t->hdr[1] & ISCSI_FLAG_FINAL), want_f[n]);
		assert_int_equal(get_be32(t->hdr + 36), n);   /* DataSN */
		assert_int_equal(get_be32(t->hdr + 40), off); /* BufferOffset */
		assert_int_equal(get_be32(t->hdr + 16), 0xabc);
		assert_int_equal(get_be32(t->hdr + 20), 0xffffffff);
		assert_int_equal(t->hdr[9], 2);
		assert_ptr_equal(t->data, ic->buf + off);
		assert_int_equal(get_be32(t->hdr + 28), 9); /* ExpCmdSN */
		if (n < 6) {
			assert_int_equal(t->hdr[1] & ISCSI_DATAIN_STATUS, 0);
			assert_int_equal(get_be32(t->hdr + 24), 0); /* StatSN only with S */
		} else {
			assert_int_equal(t->hdr[1], ISCSI_FLAG_FINAL | ISCSI_DATAIN_STATUS | ISCSI_FLAG_UNDERFLOW);
			assert_int_equal(t->hdr[3], 0x00);
			assert_int_equal(get_be32(t->hdr + 24), 50);
			assert_int_equal(get_be32(t->hdr + 44), 100);
		}
		off += t->dlen;
	}
	assert_int_equal(n, 7);
	assert_int_equal(c->stat_sn, 51);
	assert_int_equal(ic->refs, 1 + 7); /* every PDU pins the buffer */

	/* SCSI Response with sense: SenseLength prefix, ExpDataSN */
	uint8_t sense[18] = { 0x70, 0, 0x05 };
	scsi_rsp_queue(c, ic, 0x02, sense, 18, &r);
	struct txpdu *t = c->tx_tail;
	assert_int_equal(t->hdr[0], ISCSI_OP_SCSI_RSP);
	assert_int_equal(t->hdr[3], 0x02);
	assert_int_equal(t->dlen, 20);
	assert_int_equal(get_be16(t->data), 18);
	assert_int_equal(t->data[4], 0x05);
	assert_int_equal(get_be32(t->hdr + 36), 7);
	assert_int_equal(get_be32(t->hdr + 24), 51);
	assert_int_equal(t->tlen, 0); /* 20 bytes need no pad */
	conn_close(c, "test over"); /* frees queue, task and connection */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(residuals),
		cmocka_unit_test(pdu_count),
		cmocka_unit_test(response_len_of_inquiry),
		cmocka_unit_test(response_len_of_other_pages),
		cmocka_unit_test(xfer_lengths),
		cmocka_unit_test(segmentation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
