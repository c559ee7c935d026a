/* test_defect_data.c — READ DEFECT DATA (10)/(12) (sbc_defect.c): an empty
 * list whose header echoes the lists and format asked for, truncated to the
 * allocation length. */
#include "fixture.h"
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"

static void test_rdd10(void **state)
{
	struct scsi_lu *lu = fix_lu_new("rdd-a", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	uint8_t buf[32];
	uint8_t cdb[10] = { SCSI_OP_READ_DEFECT_DATA_10, 0, 0x18 | 0x05, 0, 0, 0, 0, 0, 32, 0 }; /* P+G lists, format 101b */

	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(fix_run(&fc, lu, cdb, 10, buf, sizeof(buf)), TCMU_STS_OK);
	assert_int_equal(fc.c.bytes_moved, 4);
	assert_int_equal(buf[0], 0);
	assert_int_equal(buf[1], 0x1d);                  /* PLISTV GLISTV, format 101b */
	assert_int_equal(get_be16(buf + 2), 0);          /* DEFECT LIST LENGTH */
	for (size_t i = 4; i < sizeof(buf); i++)         /* the rest of the buffer is cleared */
		assert_int_equal(buf[i], 0);
	/* allocation length 2: two bytes */
	cdb[8] = 2;
	assert_int_equal(fix_run(&fc, lu, cdb, 10, buf, sizeof(buf)), TCMU_STS_OK);
	assert_int_equal(fc.c.bytes_moved, 2);
	/* a reserved bit of byte 2 */
	cdb[2] = 0x20;
	fix_run(&fc, lu, cdb, 10, buf, sizeof(buf));
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 2, 5);
	fix_lu_free(lu);
}

static void test_rdd12(void **state)
{
	struct scsi_lu *lu = fix_lu_new("rdd-b", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	uint8_t buf[64];
	uint8_t cdb[12] = { SCSI_OP_READ_DEFECT_DATA_12, 0x08 | 0x03, 0, 0, 0, 0, 0, 0, 0, 64, 0, 0 }; /* G list, format 011b */

	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(fix_run(&fc, lu, cdb, 12, buf, sizeof(buf)), TCMU_STS_OK);
	assert_int_equal(fc.c.bytes_moved, 8);
	assert_int_equal(buf[1], 0x0b);                  /* GLISTV, format 011b */
	assert_int_equal(get_be16(buf + 2), 0);          /* GENERATION CODE */
	assert_int_equal(get_be32(buf + 4), 0);          /* DEFECT LIST LENGTH */
	cdb[1] = 0x40;                                   /* reserved */
	fix_run(&fc, lu, cdb, 12, buf, sizeof(buf));
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 1, 6);
	fix_lu_free(lu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rdd10),
		cmocka_unit_test(test_rdd12),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
