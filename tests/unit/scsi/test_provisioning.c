/* test_provisioning.c — WRITE SAME (sbc_write_same.c), UNMAP (sbc_unmap.c)
 * and GET LBA STATUS (sbc_lba_status.c) on a real thin volume. */
#include "fixture.h"
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"

/* 16 KiB dedup blocks = 32 LBAs of 512 bytes */
#define GRAN 32

static void write_pattern(struct scsi_lu *lu, uint64_t lba, uint32_t n, uint8_t v)
{
	struct fix_cmd fc;
	uint8_t *d = malloc(n * 512);
	memset(d, v, n * 512);
	uint8_t cdb[16] = { SCSI_OP_WRITE_16 };
	put_be64(cdb + 2, lba);
	put_be32(cdb + 10, n);
	assert_int_equal(fix_run(&fc, lu, cdb, 16, d, n * 512), TCMU_STS_OK);
	free(d);
}

static void lba_status(struct scsi_lu *lu, uint64_t lba, uint64_t *first, uint32_t *count, uint8_t *prov)
{
	struct fix_cmd fc;
	uint8_t b[24];
	uint8_t cdb[16] = { SCSI_OP_SERVICE_ACTION_IN_16, SCSI_SA_GET_LBA_STATUS };
	put_be64(cdb + 2, lba);
	put_be32(cdb + 10, sizeof(b));
	assert_int_equal(fix_run(&fc, lu, cdb, 16, b, sizeof(b)), TCMU_STS_OK);
	assert_int_equal(get_be32(b), 20);
	*first = get_be64(b + 8);
	*count = get_be32(b + 16);
	*prov = b[20];
}

static void test_unmap_then_status(void **state)
{
	struct scsi_lu *lu = fix_lu_new("prov-a", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	uint64_t first;
	uint32_t count;
	uint8_t prov;

	write_pattern(lu, 0, 4 * GRAN, 0x61);
	lba_status(lu, 0, &first, &count, &prov);
	assert_true(first == 0);
	assert_int_equal(prov, 0);
	assert_int_equal(count, 4 * GRAN);

	uint8_t list[24] = { 0 };
	put_be16(list, 22);
	put_be16(list + 2, 16);
	put_be64(list + 8, GRAN);
	put_be32(list + 16, 2 * GRAN);
	uint8_t cdb[10] = { SCSI_OP_UNMAP, 0, 0, 0, 0, 0, 0, 0, 24, 0 };
	assert_int_equal(fix_run(&fc, lu, cdb, 10, list, sizeof(list)), TCMU_STS_OK);
	lba_status(lu, GRAN, &first, &count, &prov);
	assert_true(first == GRAN);
	assert_int_equal(prov, 1);              /* deallocated */
	assert_int_equal(count, 2 * GRAN);
	lba_status(lu, 3 * GRAN, &first, &count, &prov);
	assert_int_equal(prov, 0);

	/* unmapped blocks read as zeros (LBPRZ) */
	uint8_t r[512];
	uint8_t rd[16] = { SCSI_OP_READ_16 };
	put_be64(rd + 2, GRAN + 5);
	put_be32(rd + 10, 1);
	memset(r, 0xcc, sizeof(r));
	assert_int_equal(fix_run(&fc, lu, rd, 16, r, sizeof(r)), TCMU_STS_OK);
	for (int i = 0; i < 512; i++)
		assert_int_equal(r[i], 0);
	fix_lu_free(lu);
}

static void test_unmap_bad_lists(void **state)
{
	struct scsi_lu *lu = fix_lu_new("prov-b", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	uint8_t list[24] = { 0 };
	uint8_t cdb[10] = { SCSI_OP_UNMAP, 0, 0, 0, 0, 0, 0, 0, 24, 0 };

	cdb[8] = 4;                             /* shorter than the header */
	fix_run(&fc, lu, cdb, 10, list, 4);
	fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_PARAMETER_LIST_LENGTH_ERROR);
	cdb[8] = 24;
	put_be16(list, 22);
	put_be16(list + 2, 32);                 /* two descriptors claimed, one sent */
	fix_run(&fc, lu, cdb, 10, list, 24);
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, false, 2, -1);
	put_be16(list + 2, 16);
	put_be64(list + 8, FIX_LBAS - 1);
	put_be32(list + 16, 2);                 /* past the end */
	fix_run(&fc, lu, cdb, 10, list, 24);
	fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_LBA_OUT_OF_RANGE);
	cdb[1] = 0x01;                          /* ANCHOR: not supported */
	fix_run(&fc, lu, cdb, 10, list, 24);
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 1, 0);
	cdb[1] = 0;
	/* the list cut short by the EDTL: refused before anything is unmapped
	 * (INVALID FIELD IN CDB at the PARAMETER LIST LENGTH) */
	write_pattern(lu, 64, GRAN, 0x33);
	put_be16(list, 22);
	put_be16(list + 2, 16);
	put_be64(list + 8, 64);
	put_be32(list + 16, GRAN);
	fix_run(&fc, lu, cdb, 10, list, 20);
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 7, -1);
	uint64_t first;
	uint32_t count;
	uint8_t prov;
	lba_status(lu, 64, &first, &count, &prov);
	assert_int_equal(prov, 0);              /* still mapped */
	assert_int_equal(fix_run(&fc, lu, cdb, 10, list, 24), TCMU_STS_OK);
	lba_status(lu, 64, &first, &count, &prov);
	assert_int_equal(prov, 1);
	cdb[8] = 0;                             /* no list: nothing to do */
	assert_int_equal(fix_run(&fc, lu, cdb, 10, NULL, 0), TCMU_STS_OK);
	fix_lu_free(lu);
}

static void test_write_same(void **state)
{
	struct scsi_lu *lu = fix_lu_new("prov-c", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	uint8_t pat[512], r[512 * 3];
	uint64_t first;
	uint32_t count;
	uint8_t prov;

	for (int i = 0; i < 512; i++)
		pat[i] = (uint8_t)i;
	uint8_t ws[16] = { SCSI_OP_WRITE_SAME_16 };
	put_be64(ws + 2, 10);
	put_be32(ws + 10, 3);
	assert_int_equal(fix_run(&fc, lu, ws, 16, pat, 512), TCMU_STS_OK);
	uint8_t rd[16] = { SCSI_OP_READ_16 };
	put_be64(rd + 2, 10);
	put_be32(rd + 10, 3);
	assert_int_equal(fix_run(&fc, lu, rd, 16, r, sizeof(r)), TCMU_STS_OK);
	for (int b = 0; b < 3; b++)
		assert_memory_equal(r + b * 512, pat, 512);

	/* UNMAP bit with a zero pattern deallocates whole dedup blocks */
	write_pattern(lu, 2 * GRAN, GRAN, 0x77);
	memset(pat, 0, sizeof(pat));
	uint8_t ws10[10] = { SCSI_OP_WRITE_SAME_10, 0x08 };
	put_be32(ws10 + 2, 2 * GRAN);
	put_be16(ws10 + 7, GRAN);
	assert_int_equal(fix_run(&fc, lu, ws10, 10, pat, 512), TCMU_STS_OK);
	lba_status(lu, 2 * GRAN, &first, &count, &prov);
	assert_int_equal(prov, 1);

	/* UNMAP bit with a non-zero pattern deallocates too (as LIO) */
	write_pattern(lu, 4 * GRAN, GRAN, 0x78);
	memset(pat, 0xff, sizeof(pat));
	put_be32(ws10 + 2, 4 * GRAN);
	assert_int_equal(fix_run(&fc, lu, ws10, 10, pat, 512), TCMU_STS_OK);
	lba_status(lu, 4 * GRAN, &first, &count, &prov);
	assert_int_equal(prov, 1);

	/* zero blocks: from the LBA to the end of the LU */
	for (int i = 0; i < 512; i++)
		pat[i] = (uint8_t)(i ^ 0x5a);
	put_be64(ws + 2, FIX_LBAS - 3);
	put_be32(ws + 10, 0);
	assert_int_equal(fix_run(&fc, lu, ws, 16, pat, 512), TCMU_STS_OK);
	put_be64(rd + 2, FIX_LBAS - 3);
	assert_int_equal(fix_run(&fc, lu, rd, 16, r, sizeof(r)), TCMU_STS_OK);
	for (int b = 0; b < 3; b++)
		assert_memory_equal(r + b * 512, pat, 512);
	/* ANCHOR rejected; data-out must be one block */
	put_be64(ws + 2, 10);
	put_be32(ws + 10, 1);
	ws[1] = 0x10;
	fix_run(&fc, lu, ws, 16, pat, 512);
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 1, 4);
	ws[1] = 0;
	fix_run(&fc, lu, ws, 16, pat, 256);     /* half a block of data-out */
	fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CMD_IU);
	fix_run(&fc, lu, ws, 16, r, 1024);      /* two blocks */
	fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CMD_IU);
	/* NDOB: zeros without a data-out buffer */
	ws[1] = 0x01;
	assert_int_equal(fix_run(&fc, lu, ws, 16, NULL, 0), TCMU_STS_OK);
	put_be64(rd + 2, 10);
	put_be32(rd + 10, 1);
	assert_int_equal(fix_run(&fc, lu, rd, 16, r, 512), TCMU_STS_OK);
	for (int i = 0; i < 512; i++)
		assert_int_equal(r[i], 0);
	fix_lu_free(lu);
}

/* MAXIMUM WRITE SAME LENGTH (16 MiB = 32768 blocks) is enforced, also for
 * a zero block count that reaches further */
static void test_write_same_limit(void **state)
{
	struct scsi_lu *lu = fix_lu_new("prov-e", FIX_BS, 1u << 17);
	struct fix_cmd fc;
	uint8_t pat[512] = { 0 };
	uint8_t ws[16] = { SCSI_OP_WRITE_SAME_16, 0x08 };
	put_be32(ws + 10, 32768);
	assert_int_equal(fix_run(&fc, lu, ws, 16, pat, 512), TCMU_STS_OK);
	put_be32(ws + 10, 32769);
	fix_run(&fc, lu, ws, 16, pat, 512);
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 10, -1);
	put_be32(ws + 10, 0);                   /* 0 = 131072 blocks to the end */
	fix_run(&fc, lu, ws, 16, pat, 512);
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 10, -1);
	put_be64(ws + 2, (1u << 17) - 100);     /* 0 = 100 blocks to the end */
	assert_int_equal(fix_run(&fc, lu, ws, 16, pat, 512), TCMU_STS_OK);
	fix_lu_free(lu);
}

static void test_get_lba_status_range(void **state)
{
	struct scsi_lu *lu = fix_lu_new("prov-d", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	uint8_t b[24];
	uint8_t cdb[16] = { SCSI_OP_SERVICE_ACTION_IN_16, SCSI_SA_GET_LBA_STATUS };
	put_be64(cdb + 2, FIX_LBAS);
	put_be32(cdb + 10, 24);
	fix_run(&fc, lu, cdb, 16, b, sizeof(b));
	fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_LBA_OUT_OF_RANGE);
	fix_lu_free(lu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unmap_then_status),
		cmocka_unit_test(test_unmap_bad_lists),
		cmocka_unit_test(test_write_same),
		cmocka_unit_test(test_write_same_limit),
		cmocka_unit_test(test_get_lba_status_range),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
