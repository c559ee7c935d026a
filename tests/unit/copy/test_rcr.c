/* test_rcr.c — RECEIVE COPY RESULTS: OPERATING PARAMETERS byte for byte,
 * COPY STATUS for a held list id (and 05/24/00 @CDB byte 2 for an unknown
 * one), FAILED SEGMENT DETAILS, allocation-length truncation, bad SA. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lunlab/scsi_vocab.h"
#include "handlers/copy/copy.h"
#include "handlers/copy/copy_limits.h"
#include "handlers/copy/copy_registry.h"

static struct lunlab_dev dev;
static uint8_t cdb[16];
static uint8_t data[2048];
static uint8_t sense[96];
static struct iovec iov;
static struct scsi_cmd cmd;

static int setup(void **state)
{
	memset(&dev, 0, sizeof(dev));
	dev.block_size = 512;
	memset(data, 0xEE, sizeof(data));
	memset(sense, 0, sizeof(sense));
	iov.iov_base = data;
	iov.iov_len = sizeof(data);
	memset(&cmd, 0, sizeof(cmd));
	cmd.dev = &dev;
	cmd.cdb = cdb;
	cmd.iov = &iov;
	cmd.iov_cnt = 1;
	cmd.iov_len = sizeof(data);
	cmd.sense = sense;
	return 0;
}

static int teardown(void **state)
{
	copy_reg_forget_dev(&dev);
	return 0;
}

static int rcr(uint8_t sa, uint8_t list_id, uint32_t alloc)
{
	memset(cdb, 0, sizeof(cdb));
	cdb[0] = SCSI_OP_THIRD_PARTY_COPY_IN;
	cdb[1] = sa;
	cdb[2] = list_id;
	cdb[10] = (uint8_t)(alloc >> 24);
	cdb[11] = (uint8_t)(alloc >> 16);
	cdb[12] = (uint8_t)(alloc >> 8);
	cdb[13] = (uint8_t)alloc;
	memset(data, 0xEE, sizeof(data));
	return rcr_handle(&cmd);
}

/* fixed-format sense, ILLEGAL REQUEST 24/00, field pointer into the CDB */
static void expect_invalid_cdb(uint16_t byte, int bit)
{
	assert_int_equal(sense[0], 0x70);
	assert_int_equal(sense[2], 0x05);
	assert_int_equal(sense[7], 10);
	assert_int_equal(sense[12], 0x24);
	assert_int_equal(sense[13], 0x00);
	uint8_t sks = 0x80 | 0x40;                  /* SKSV, C/D = CDB */
	if (bit >= 0)
		sks |= 0x08 | (uint8_t)bit;
	assert_int_equal(sense[15], sks);
	assert_int_equal(sense[16], byte >> 8);
	assert_int_equal(sense[17], byte & 0xff);
}

static void test_op_params_exact_bytes(void **state)
{
	uint8_t want[46];

	/* SPC-4 RECEIVE COPY RESULTS operating parameters, field by field */
	memset(want, 0, sizeof(want));
	want[3] = 42;                               /* AVAILABLE DATA: 46 - 4 */
	want[4] = 0x01;                             /* SNLID */
	want[8] = XCOPY_MAX_TGT_DESC >> 8;
	want[9] = XCOPY_MAX_TGT_DESC & 0xff;
	want[10] = XCOPY_MAX_SEG_DESC >> 8;
	want[11] = XCOPY_MAX_SEG_DESC & 0xff;
	want[12] = (XCOPY_MAX_DESC_LIST_LEN >> 24) & 0xff;
	want[13] = (XCOPY_MAX_DESC_LIST_LEN >> 16) & 0xff;
	want[14] = (XCOPY_MAX_DESC_LIST_LEN >> 8) & 0xff;
	want[15] = XCOPY_MAX_DESC_LIST_LEN & 0xff;
	want[16] = (XCOPY_MAX_SEG_BYTES >> 24) & 0xff;
	want[17] = (XCOPY_MAX_SEG_BYTES >> 16) & 0xff;
	want[18] = (XCOPY_MAX_SEG_BYTES >> 8) & 0xff;
	want[19] = XCOPY_MAX_SEG_BYTES & 0xff;
	want[34] = XCOPY_TOTAL_CONCURRENT >> 8;
	want[35] = XCOPY_TOTAL_CONCURRENT & 0xff;
	want[36] = XCOPY_MAX_IDENTIFIED;
	want[37] = 9;                               /* 512-byte blocks: 2^9 */
	want[43] = 2;
	want[44] = 0x02;
	want[45] = 0xE4;

	assert_int_equal(rcr(0x03, 0, 1024), TCMU_STS_OK);
	assert_memory_equal(data, want, sizeof(want));
	assert_int_equal(data[46], 0xEE);

	/* LIST IDENTIFIER does not matter for SA 3; 4096-byte LU: granularity 12 */
	dev.block_size = 4096;
	want[37] = 12;
	assert_int_equal(rcr(0x03, 77, 1024), TCMU_STS_OK);
	assert_memory_equal(data, want, sizeof(want));

	/* truncated to the allocation length, no error (LIO's < 54 rule not applied) */
	assert_int_equal(rcr(0x03, 0, 10), TCMU_STS_OK);
	assert_memory_equal(data, want, 10);
	assert_int_equal(data[10], 0xEE);
	assert_int_equal(rcr(0x03, 0, 0), TCMU_STS_OK);
	assert_int_equal(data[0], 0xEE);
}

static void test_copy_status_unknown_list_id(void **state)
{
	assert_int_equal(rcr(0x00, 1, 1024), TCMU_STS_PASSTHROUGH_ERR);
	expect_invalid_cdb(2, -1);
}

static void test_copy_status_held(void **state)
{
	struct copy_status st;

	memset(&st, 0, sizeof(st));
	st.cm_status = COPY_DONE_OK;
	st.segments = 3;
	st.bytes = 3u << 20;
	int slot = copy_reg_begin(&dev, 0, COPY_KIND_XCOPY_LID1, true, 1, true);
	assert_true(slot >= 0);
	copy_reg_end_xcopy(slot, &st);

	/* a short allocation shows the start and keeps the status */
	assert_int_equal(rcr(0x00, 1, 8), TCMU_STS_OK);
	assert_int_equal(data[3], 8);
	assert_int_equal(data[8], 0xEE);
	assert_int_equal(rcr(0x00, 1, 1024), TCMU_STS_OK);
	const uint8_t want[12] = { 0, 0, 0, 8, 0x01, 0, 3, 0x00, 0x00, 0x30, 0x00, 0x00 };
	assert_memory_equal(data, want, sizeof(want));
	/* reported whole once: gone */
	assert_int_equal(rcr(0x00, 1, 1024), TCMU_STS_PASSTHROUGH_ERR);
	expect_invalid_cdb(2, -1);
}

static void test_copy_status_in_progress(void **state)
{
	int slot = copy_reg_begin(&dev, 0, COPY_KIND_XCOPY_LID1, true, 2, false);   /* 10b, still running */

	copy_reg_progress(slot, 1, 512);
	assert_int_equal(rcr(0x00, 2, 1024), TCMU_STS_OK);
	const uint8_t want[12] = { 0, 0, 0, 8, 0x00, 0, 1, 0x00, 0, 0, 0x02, 0x00 };
	assert_memory_equal(data, want, sizeof(want));
	struct copy_status st = { .cm_status = COPY_DONE_OK, .segments = 1, .bytes = 512 };
	copy_reg_end_xcopy(slot, &st);
	/* 10b: nothing held afterwards */
	assert_int_equal(rcr(0x00, 2, 1024), TCMU_STS_PASSTHROUGH_ERR);
}

static void test_failed_segment_details(void **state)
{
	struct copy_status st;

	/* nothing failed: AVAILABLE DATA 0, four bytes */
	assert_int_equal(rcr(0x04, 6, 1024), TCMU_STS_OK);
	assert_memory_equal(data, "\0\0\0\0", 4);
	assert_int_equal(data[4], 0xEE);

	memset(&st, 0, sizeof(st));
	st.cm_status = COPY_DONE_ERROR;
	st.scsi_status = SCSI_STAT_CHECK_CONDITION;
	st.sense_len = 18;
	for (unsigned i = 0; i < 18; i++)
		st.sense[i] = (uint8_t)(0xA0 + i);
	int slot = copy_reg_begin(&dev, 0, COPY_KIND_XCOPY_LID1, true, 6, true);
	copy_reg_end_xcopy(slot, &st);

	/* no COPY STATUS for a failed copy (05/24/00 on the LIST IDENTIFIER);
	 * its details stay for SA 4 */
	assert_int_equal(rcr(0x00, 6, 1024), TCMU_STS_PASSTHROUGH_ERR);
	assert_int_equal(sense[2], 0x05);
	assert_int_equal(sense[12], 0x24);

	/* too short to take it all: shown, kept */
	assert_int_equal(rcr(0x04, 6, 60), TCMU_STS_OK);
	assert_int_equal(data[3], 60 + 18 - 4);
	assert_int_equal(rcr(0x04, 6, 1024), TCMU_STS_OK);
	assert_int_equal(data[0], 0);
	assert_int_equal(data[3], 74);
	for (unsigned i = 4; i < 56; i++)
		assert_int_equal(data[i], 0);
	assert_int_equal(data[56], 0x02);            /* COPY COMMAND STATUS: CHECK CONDITION */
	assert_int_equal(data[58], 0);
	assert_int_equal(data[59], 18);              /* SENSE DATA LENGTH */
	assert_memory_equal(data + 60, st.sense, 18);
	assert_int_equal(data[78], 0xEE);
	/* transferred whole: released */
	assert_int_equal(rcr(0x04, 6, 1024), TCMU_STS_OK);
	assert_int_equal(data[3], 0);
}

static void test_unsupported_service_actions(void **state)
{
	assert_int_equal(rcr(0x01, 0, 1024), TCMU_STS_PASSTHROUGH_ERR);   /* RECEIVE DATA */
	expect_invalid_cdb(1, 4);
	assert_int_equal(rcr(0x07, 0, 1024), TCMU_STS_PASSTHROUGH_ERR);   /* ROD token info */
	expect_invalid_cdb(1, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_op_params_exact_bytes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy_status_unknown_list_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy_status_held, setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy_status_in_progress, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_segment_details, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unsupported_service_actions, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
