/* test_verify.c — VERIFY and WRITE AND VERIFY (sbc_verify.c): BYTCHK 01b
 * compares the data-out with the medium (MISCOMPARE with the offset of the
 * first differing byte), 11b compares one block with every block, and a
 * data-out shorter than what BYTCHK needs is refused, never compared as
 * zeros (which made a VERIFY of unwritten blocks GOOD without its data). */
#include "fixture.h"
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"

static void vcdb(uint8_t *cdb, uint8_t op, uint8_t bytchk, uint64_t lba, uint32_t n)
{
	memset(cdb, 0, 16);
	cdb[0] = op;
	cdb[1] = (uint8_t)(bytchk << 1);
	put_be64(cdb + 2, lba);
	put_be32(cdb + 10, n);
}

static void test_compare(void **state)
{
	struct scsi_lu *lu = fix_lu_new("verify-a", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	static uint8_t w[4 * 512], v[4 * 512];
	uint8_t cdb[16];
	for (size_t i = 0; i < sizeof(w); i++)
		w[i] = (uint8_t)(i * 13 + 1);
	vcdb(cdb, 0x8a, 0, 100, 4);
	assert_int_equal(fix_run(&fc, lu, cdb, 16, w, sizeof(w)), TCMU_STS_OK);
	memcpy(v, w, sizeof(v));
	vcdb(cdb, 0x8f, 1, 100, 4);
	assert_int_equal(fix_run(&fc, lu, cdb, 16, v, sizeof(v)), TCMU_STS_OK);
	v[1500] ^= 1;
	fix_run(&fc, lu, cdb, 16, v, sizeof(v));
	fix_assert_sense(&fc, SCSI_SK_MISCOMPARE, SCSI_ASC_MISCOMPARE_DURING_VERIFY);
	assert_int_equal(get_be32(fc.sense + 3), 1500);
	/* BYTCHK 11b: one block against each block of the range */
	uint8_t same[512];
	memset(same, 0x77, sizeof(same));
	uint8_t ws[16] = { SCSI_OP_WRITE_SAME_16 };
	put_be64(ws + 2, 200);
	put_be32(ws + 10, 8);
	assert_int_equal(fix_run(&fc, lu, ws, 16, same, 512), TCMU_STS_OK);
	vcdb(cdb, 0x8f, 3, 200, 8);
	assert_int_equal(fix_run(&fc, lu, cdb, 16, same, 512), TCMU_STS_OK);
	fix_lu_free(lu);
}

static void test_short_dataout_refused(void **state)
{
	struct scsi_lu *lu = fix_lu_new("verify-b", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	static uint8_t zeros[4 * 512];
	uint8_t cdb[16];
	/* unwritten blocks read as zeros: comparing a short data-out padded
	 * with zeros would "verify" data the initiator never sent */
	vcdb(cdb, 0x8f, 1, 300, 4);
	fix_run(&fc, lu, cdb, 16, zeros, 3 * 512);
	fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CMD_IU);
	vcdb(cdb, 0x8f, 3, 300, 4);
	fix_run(&fc, lu, cdb, 16, zeros, 100);
	fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CMD_IU);
	fix_run(&fc, lu, cdb, 16, NULL, 0);
	fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CMD_IU);
	/* the whole data-out: GOOD */
	vcdb(cdb, 0x8f, 1, 300, 4);
	assert_int_equal(fix_run(&fc, lu, cdb, 16, zeros, sizeof(zeros)), TCMU_STS_OK);
	/* BYTCHK 00b needs no data-out */
	vcdb(cdb, 0x8f, 0, 300, 4);
	assert_int_equal(fix_run(&fc, lu, cdb, 16, NULL, 0), TCMU_STS_OK);
	/* WRITE AND VERIFY(16) of 4 blocks with 3 blocks of data: nothing written */
	static uint8_t w[4 * 512];
	memset(w, 0xab, sizeof(w));
	vcdb(cdb, 0x8e, 1, 300, 4);
	fix_run(&fc, lu, cdb, 16, w, 1536);
	fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CMD_IU);
	assert_int_equal(volume_mapped_bytes(lu->dev.vol), 0);
	fix_lu_free(lu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_short_dataout_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
