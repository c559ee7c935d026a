/* test_datain_padding.c — scsi_dispatch (opcodes.c) clears the Data-In
 * buffer of every command that returns parameter data: tcmu-runner passes
 * the handler an uncleared data area and LIO transfers all of it, so a byte
 * the answer does not cover must read 0, never what the buffer held before
 * (libiscsi: "Padding data is not zero").  Each command runs on a buffer
 * pre-filled with 0xAA, larger than its answer. */
#include "fixture.h"
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"

#define BUFLEN 1024u

static struct scsi_lu *lu;

static int setup(void **state) { lu = fix_lu_new("pad", FIX_BS, FIX_LBAS); return 0; }
static int teardown(void **state) { fix_lu_free(lu); return 0; }

/* How long each answer says it is, from its own header. */
enum hdr { LEN_STD_INQ, LEN_BE16_AT2, LEN_MODE6, LEN_BE16_AT0, LEN_BE32_AT0, LEN_FIXED };

static size_t answer_len(const uint8_t *b, enum hdr h, size_t fixed)
{
	switch (h) {
	case LEN_STD_INQ: return 5u + b[4];
	case LEN_BE16_AT2: return 4u + get_be16(b + 2);        /* VPD, LOG SENSE */
	case LEN_MODE6: return 1u + b[0];
	case LEN_BE16_AT0: return 2u + get_be16(b);             /* MODE SENSE(10) */
	case LEN_BE32_AT0: return 4u + get_be32(b);             /* GET LBA STATUS, RCR */
	default: return fixed;
	}
}

/* Run cdb on a 0xAA buffer; the command must succeed and every byte past
 * its answer must be 0.  Returns the answer's length. */
static size_t run_padded(const uint8_t *cdb, size_t cdblen, enum hdr h, size_t fixed)
{
	static uint8_t buf[BUFLEN];
	struct fix_cmd fc;

	memset(buf, 0xAA, sizeof(buf));
	assert_int_equal(fix_run(&fc, lu, cdb, cdblen, buf, sizeof(buf)), TCMU_STS_OK);
	size_t len = answer_len(buf, h, fixed);
	assert_true(len < BUFLEN);   /* else the test shows nothing */
	for (size_t i = len; i < BUFLEN; i++) {
		if (buf[i] != 0)
			fail_msg("opcode %02x: byte %zu of %u is %02x, want 00", cdb[0], i, BUFLEN, buf[i]);
	}
	return len;
}

static void test_inquiry_standard_and_vpd(void **state)
{
	const uint8_t std[6] = { SCSI_OP_INQUIRY, 0, 0, BUFLEN >> 8, BUFLEN & 0xff, 0 };
	assert_int_equal(run_padded(std, 6, LEN_STD_INQ, 0), 96);
	const uint8_t pages[] = { 0x00, 0x80, 0x83, 0x8f, 0xb0, 0xb1, 0xb2 };
	for (size_t i = 0; i < sizeof(pages); i++) {
		const uint8_t vpd[6] = { SCSI_OP_INQUIRY, 1, pages[i], BUFLEN >> 8, BUFLEN & 0xff, 0 };
		assert_true(run_padded(vpd, 6, LEN_BE16_AT2, 0) > 4);
	}
}

static void test_mode_and_log_sense(void **state)
{
	const uint8_t ms6[6] = { SCSI_OP_MODE_SENSE_6, 0, 0x3f, 0, 255, 0 };
	const uint8_t ms10[10] = { SCSI_OP_MODE_SENSE_10, 0, 0x3f, 0, 0, 0, 0, BUFLEN >> 8, BUFLEN & 0xff, 0 };
	const uint8_t ls[10] = { SCSI_OP_LOG_SENSE, 0, 0x40, 0, 0, 0, 0, BUFLEN >> 8, BUFLEN & 0xff, 0 };
	assert_true(run_padded(ms6, 6, LEN_MODE6, 0) > 4);
	assert_true(run_padded(ms10, 10, LEN_BE16_AT0, 0) > 8);
	assert_true(run_padded(ls, 10, LEN_BE16_AT2, 0) > 4);
}

static void test_capacity_lba_status_sense(void **state)
{
	const uint8_t rc10[10] = { SCSI_OP_READ_CAPACITY_10 };
	uint8_t rc16[16] = { SCSI_OP_SERVICE_ACTION_IN_16, SCSI_SA_READ_CAPACITY_16 }, gls[16] = { SCSI_OP_SERVICE_ACTION_IN_16, SCSI_SA_GET_LBA_STATUS };
	const uint8_t rs[6] = { SCSI_OP_REQUEST_SENSE, 0, 0, 0, 252, 0 };
	put_be32(rc16 + 10, BUFLEN);
	put_be32(gls + 10, BUFLEN);
	run_padded(rc10, 10, LEN_FIXED, 8);
	run_padded(rc16, 16, LEN_FIXED, 32);
	assert_int_equal(run_padded(gls, 16, LEN_BE32_AT0, 0), 24);   /* one descriptor */
	run_padded(rs, 6, LEN_FIXED, 18);
}

static void test_rsoc_and_rcr(void **state)
{
	/* RSOC, one command (INQUIRY): 4-byte header + its 6-byte CDB usage data */
	uint8_t one[12] = { SCSI_OP_MAINTENANCE_IN, SCSI_SA_REPORT_SUPPORTED_OPCODES, 0x01, 0x12 }, rcr[16] = { SCSI_OP_THIRD_PARTY_COPY_IN, SCSI_SA_RECEIVE_COPY_OPERATING_PARAMETERS };
	put_be32(one + 6, BUFLEN);
	put_be32(rcr + 10, BUFLEN);
	run_padded(one, 12, LEN_FIXED, 10);
	assert_true(run_padded(rcr, 16, LEN_BE32_AT0, 0) > 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inquiry_standard_and_vpd),
		cmocka_unit_test(test_mode_and_log_sense),
		cmocka_unit_test(test_capacity_lba_status_sense),
		cmocka_unit_test(test_rsoc_and_rcr),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
