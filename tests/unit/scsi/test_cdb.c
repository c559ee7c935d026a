/* test_cdb.c — the table-driven checks of scsi_dispatch (opcodes.c) and cdb.c:
 * unknown opcodes, reserved bits, ranges.  The decoding itself is
 * test_cdb_decode.c's. */
#include "fixture.h"
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"

static void test_unknown_opcode(void **state)
{
	struct scsi_lu *lu = fix_lu_new("cdb-a", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	uint8_t cdb[10] = { SCSI_OP_WRITE_BUFFER };  /* WRITE BUFFER: not supported */
	fix_run(&fc, lu, cdb, 10, NULL, 0);
	fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_OPCODE);
	uint8_t sa[16] = { SCSI_OP_SERVICE_ACTION_IN_16, SCSI_SA_READ_LONG_16 };  /* SERVICE ACTION IN(16), unknown SA */
	fix_run(&fc, lu, sa, 16, NULL, 0);
	fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_OPCODE);
	fix_lu_free(lu);
}

static void test_reserved_bits(void **state)
{
	struct scsi_lu *lu = fix_lu_new("cdb-b", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	uint8_t buf[512];
	/* READ(10) with RDPROTECT=1: byte 1 bit 5 */
	uint8_t cdb[10] = { SCSI_OP_READ_10, 0x20, 0, 0, 0, 0, 0, 0, 1, 0 };
	fix_run(&fc, lu, cdb, 10, buf, sizeof(buf));
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 1, 5);
	/* NACA in the control byte */
	uint8_t tur[6] = { 0x00, 0, 0, 0, 0, 0x04 };
	fix_run(&fc, lu, tur, 6, NULL, 0);
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 5, 2);
	/* DPO+FUA are accepted */
	cdb[1] = 0x18;
	assert_int_equal(fix_run(&fc, lu, cdb, 10, buf, sizeof(buf)), TCMU_STS_OK);
	fix_lu_free(lu);
}

static void test_range(void **state)
{
	struct scsi_lu *lu = fix_lu_new("cdb-c", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	uint8_t buf[2 * 512];
	uint8_t cdb[16] = { SCSI_OP_READ_16 };
	put_be64(cdb + 2, FIX_LBAS - 1);
	put_be32(cdb + 10, 2);
	fix_run(&fc, lu, cdb, 16, buf, sizeof(buf));
	fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_LBA_OUT_OF_RANGE);
	put_be64(cdb + 2, ~0ull);              /* wraps if added naively */
	put_be32(cdb + 10, 1);
	fix_run(&fc, lu, cdb, 16, buf, sizeof(buf));
	fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_LBA_OUT_OF_RANGE);
	put_be64(cdb + 2, FIX_LBAS);           /* zero blocks at the end: fine */
	put_be32(cdb + 10, 0);
	assert_int_equal(fix_run(&fc, lu, cdb, 16, buf, sizeof(buf)), TCMU_STS_OK);
	put_be64(cdb + 2, FIX_LBAS + 1);       /* zero blocks past the end: not */
	fix_run(&fc, lu, cdb, 16, buf, sizeof(buf));
	fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_LBA_OUT_OF_RANGE);
	/* longer than MAXIMUM TRANSFER LENGTH: field pointer at the length */
	put_be64(cdb + 2, 0);
	put_be32(cdb + 10, lu->dev.max_xfer_len + 1);
	fix_run(&fc, lu, cdb, 16, buf, sizeof(buf));
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 10, -1);
	fix_lu_free(lu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unknown_opcode),
		cmocka_unit_test(test_reserved_bits),
		cmocka_unit_test(test_range),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
