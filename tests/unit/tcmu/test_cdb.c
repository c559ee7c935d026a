/* test_cdb.c — CDB helpers: length by group code, LBA and TRANSFER LENGTH
 * at their place for 6/10/12/16-byte CDBs, bad groups refused. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "lunlab/tcmu_abi.h"
#include "lunlab/scsi_vocab.h"

static void test_lengths(void **state)
{
	uint8_t cdb[32] = { 0 };

	(void)state;
	cdb[0] = SCSI_OP_READ_6; assert_int_equal(tcmu_cdb_get_length(cdb), 6);
	cdb[0] = SCSI_OP_READ_10; assert_int_equal(tcmu_cdb_get_length(cdb), 10);
	cdb[0] = SCSI_OP_MODE_SENSE_10; assert_int_equal(tcmu_cdb_get_length(cdb), 10);
	cdb[0] = SCSI_OP_READ_12; assert_int_equal(tcmu_cdb_get_length(cdb), 12);
	cdb[0] = SCSI_OP_READ_16; assert_int_equal(tcmu_cdb_get_length(cdb), 16);
	cdb[0] = SCSI_OP_VARIABLE_LENGTH_CDB; cdb[7] = 0x18; assert_int_equal(tcmu_cdb_get_length(cdb), 32);
	cdb[0] = 0x60; assert_int_equal(tcmu_cdb_get_length(cdb), -EINVAL);
	cdb[0] = 0xc0; assert_int_equal(tcmu_cdb_get_length(cdb), -EINVAL);
	cdb[0] = 0xe5; assert_int_equal(tcmu_cdb_get_length(cdb), -EINVAL);
}

static void test_lba_xfer_6(void **state)
{
	/* READ(6): 21-bit LBA, top 3 bits of byte 1 are not LBA */
	uint8_t cdb[6] = { SCSI_OP_READ_6, 0xff, 0x34, 0x56, 0x80, 0 };

	(void)state;
	assert_int_equal(tcmu_cdb_get_lba(cdb), 0x1f3456);
	assert_int_equal(tcmu_cdb_get_xfer_length(cdb), 0x80);
	cdb[4] = 0; /* 0 stays 0 (upstream does not translate to 256) */
	assert_int_equal(tcmu_cdb_get_xfer_length(cdb), 0);
}

static void test_lba_xfer_10(void **state)
{
	uint8_t cdb[10] = { SCSI_OP_READ_10, 0, 0xde, 0xad, 0xbe, 0xef, 0x11, 0x12, 0x34, 0 };

	(void)state;
	assert_int_equal(tcmu_cdb_get_lba(cdb), 0xdeadbeefu);
	assert_int_equal(tcmu_cdb_get_xfer_length(cdb), 0x1234);
}

static void test_lba_xfer_12(void **state)
{
	uint8_t cdb[12] = { SCSI_OP_READ_12, 0, 0x01, 0x02, 0x03, 0x04, 0x87, 0x65, 0x43, 0x21, 0, 0 };

	(void)state;
	assert_int_equal(tcmu_cdb_get_lba(cdb), 0x01020304);
	assert_int_equal(tcmu_cdb_get_xfer_length(cdb), 0x87654321u);
}

static void test_lba_xfer_16(void **state)
{
	uint8_t cdb[16] = { SCSI_OP_READ_16, 0, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
			    0xfe, 0xdc, 0xba, 0x98, 0, 0 };

	(void)state;
	assert_true(tcmu_cdb_get_lba(cdb) == 0x0123456789abcdefull);
	assert_int_equal(tcmu_cdb_get_xfer_length(cdb), 0xfedcba98u);
}

static void test_bad_group_is_zero(void **state)
{
	uint8_t cdb[16] = { 0xc0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };

	(void)state;
	/* upstream asserts; the host must survive a vendor CDB */
	assert_int_equal(tcmu_cdb_get_lba(cdb), 0);
	assert_int_equal(tcmu_cdb_get_xfer_length(cdb), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lengths),
		cmocka_unit_test(test_lba_xfer_6),
		cmocka_unit_test(test_lba_xfer_10),
		cmocka_unit_test(test_lba_xfer_12),
		cmocka_unit_test(test_lba_xfer_16),
		cmocka_unit_test(test_bad_group_is_zero),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
