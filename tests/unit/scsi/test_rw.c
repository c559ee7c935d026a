/* test_rw.c — READ/WRITE 6/10/12/16 (sbc_rw.c), READ CAPACITY (sbc_capacity.c)
 * and SYNCHRONIZE CACHE (sbc_sync.c) against a real volume. */
#include "fixture.h"
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"

static void fill(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed * 131 + i * 7 + (i >> 9));
}

/* the CDB length the layout table gives a READ/WRITE opcode */
static unsigned len_of(uint8_t op)
{
	return cdb_layout_find(op, 0)->cdb_len;
}

static void test_write_read_each_size(void **state)
{
	struct scsi_lu *lu = fix_lu_new("rw-a", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	static uint8_t w[8 * 512], r[8 * 512];
	const uint8_t wops[] = { 0x0a, 0x2a, 0xaa, 0x8a }, rops[] = { 0x08, 0x28, 0xa8, 0x88 };
	for (int k = 0; k < 4; k++) {
		uint8_t cdb[16] = { 0 };
		uint64_t lba = 100 + 37 * (uint64_t)k;   /* unaligned to the 16 KiB dedup block */
		uint32_t n = 3 + (uint32_t)k;
		cdb[0] = wops[k];
		switch (len_of(cdb[0])) {
		case 6: put_be24(cdb + 1, (uint32_t)lba); cdb[4] = (uint8_t)n; break;
		case 10: put_be32(cdb + 2, (uint32_t)lba); put_be16(cdb + 7, (uint16_t)n); break;
		case 12: put_be32(cdb + 2, (uint32_t)lba); put_be32(cdb + 6, n); break;
		default: put_be64(cdb + 2, lba); put_be32(cdb + 10, n); break;
		}
		fill(w, n * 512, (unsigned)k + 1);
		assert_int_equal(fix_run(&fc, lu, cdb, len_of(cdb[0]), w, n * 512), TCMU_STS_OK);
		assert_int_equal(fc.c.bytes_moved, n * 512);
		cdb[0] = rops[k];
		memset(r, 0, sizeof(r));
		assert_int_equal(fix_run(&fc, lu, cdb, len_of(cdb[0]), r, n * 512), TCMU_STS_OK);
		assert_memory_equal(r, w, n * 512);
	}
	fix_lu_free(lu);
}

static void test_rw6_zero_is_256(void **state)
{
	struct scsi_lu *lu = fix_lu_new("rw-b", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	size_t len = 256 * 512;
	uint8_t *w = malloc(len), *r = calloc(1, len);
	fill(w, len, 9);
	uint8_t cdb[6] = { SCSI_OP_WRITE_6, 0, 0, 0, 0, 0 };
	assert_int_equal(fix_run(&fc, lu, cdb, 6, w, len), TCMU_STS_OK);
	assert_int_equal(fc.c.bytes_moved, len);
	cdb[0] = SCSI_OP_READ_6;
	assert_int_equal(fix_run(&fc, lu, cdb, 6, r, len), TCMU_STS_OK);
	assert_memory_equal(r, w, len);
	free(w);
	free(r);
	fix_lu_free(lu);
}

static void test_short_buffer(void **state)
{
	struct scsi_lu *lu = fix_lu_new("rw-c", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	uint8_t w[1024], r[1024];
	fill(w, sizeof(w), 3);
	uint8_t cdb[10] = { SCSI_OP_WRITE_10, 0, 0, 0, 0, 8, 0, 0, 2, 0 };
	assert_int_equal(fix_run(&fc, lu, cdb, 10, w, sizeof(w)), TCMU_STS_OK);
	/* initiator expects only 200 bytes of a 2-block read */
	cdb[0] = SCSI_OP_READ_10;
	memset(r, 0xcc, sizeof(r));
	assert_int_equal(fix_run(&fc, lu, cdb, 10, r, 200), TCMU_STS_OK);
	assert_memory_equal(r, w, 200);
	assert_int_equal(r[200], 0xcc);
	fix_lu_free(lu);
}

/* A data-out shorter than the blocks the CDB names (EDTL below the CDB's
 * transfer length): written exactly as far as it reaches when it reaches
 * into the last block named (what lunlab-target's transport sends after
 * trimming the CDB), else refused with INVALID FIELD IN COMMAND INFORMATION
 * UNIT and nothing written; never zeros in place of the missing data. */
static void test_short_dataout_refused(void **state)
{
	struct scsi_lu *lu = fix_lu_new("rw-d", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	static uint8_t w[4 * 512], r[4 * 512], old[4 * 512];
	const uint8_t ops[] = { 0x0a, 0x2a, 0xaa, 0x8a, 0x2e, 0xae, 0x8e };
	fill(old, sizeof(old), 5);
	uint8_t cdb[16] = { SCSI_OP_WRITE_16 };
	put_be64(cdb + 2, 40);
	put_be32(cdb + 10, 4);
	assert_int_equal(fix_run(&fc, lu, cdb, 16, old, sizeof(old)), TCMU_STS_OK);
	fill(w, sizeof(w), 6);
	for (size_t k = 0; k < sizeof(ops); k++) {
		memset(cdb, 0, sizeof(cdb));
		cdb[0] = ops[k];
		switch (len_of(cdb[0])) {
		case 6: put_be24(cdb + 1, 40); cdb[4] = 3; break;
		case 10: put_be32(cdb + 2, 40); put_be16(cdb + 7, 3); break;
		case 12: put_be32(cdb + 2, 40); put_be32(cdb + 6, 3); break;
		default: put_be64(cdb + 2, 40); put_be32(cdb + 10, 3); break;
		}
		/* 2 whole blocks of data for 3: refused, nothing written */
		fix_run(&fc, lu, cdb, len_of(cdb[0]), w, 1024);
		fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CMD_IU);
		assert_int_equal(fc.c.bytes_moved, 0);
		uint8_t rd[16] = { SCSI_OP_READ_16 };
		put_be64(rd + 2, 40);
		put_be32(rd + 10, 4);
		assert_int_equal(fix_run(&fc, lu, rd, 16, r, sizeof(r)), TCMU_STS_OK);
		assert_memory_equal(r, old, sizeof(old));
		/* 2.4 blocks for 3: exactly 1200 bytes written, the third block
		 * keeps its other bytes */
		assert_int_equal(fix_run(&fc, lu, cdb, len_of(cdb[0]), w, 1200), TCMU_STS_OK);
		assert_int_equal(fc.c.bytes_moved, 1200);
		assert_int_equal(fix_run(&fc, lu, rd, 16, r, sizeof(r)), TCMU_STS_OK);
		assert_memory_equal(r, w, 1200);
		assert_memory_equal(r + 1200, old + 1200, sizeof(old) - 1200);
		cdb[0] = SCSI_OP_WRITE_16;
		put_be64(cdb + 2, 40);
		put_be32(cdb + 10, 4);
		assert_int_equal(fix_run(&fc, lu, cdb, 16, old, sizeof(old)), TCMU_STS_OK);
	}
	/* more data than the CDB names: the CDB's blocks are written, the rest
	 * ignored (the transport reports the underflow) */
	memset(cdb, 0, sizeof(cdb));
	cdb[0] = SCSI_OP_WRITE_10;
	put_be32(cdb + 2, 40);
	put_be16(cdb + 7, 1);
	assert_int_equal(fix_run(&fc, lu, cdb, 10, w, sizeof(w)), TCMU_STS_OK);
	assert_int_equal(fc.c.bytes_moved, 512);
	uint8_t rd[16] = { SCSI_OP_READ_16 };
	put_be64(rd + 2, 40);
	put_be32(rd + 10, 2);
	assert_int_equal(fix_run(&fc, lu, rd, 16, r, 1024), TCMU_STS_OK);
	assert_memory_equal(r, w, 512);
	assert_memory_equal(r + 512, old + 512, 512);
	fix_lu_free(lu);
}

static void test_capacity(void **state)
{
	struct scsi_lu *lu = fix_lu_new("rw-d", 4096, 1000);
	struct fix_cmd fc;
	uint8_t b[32];
	uint8_t rc10[10] = { SCSI_OP_READ_CAPACITY_10 };
	assert_int_equal(fix_run(&fc, lu, rc10, 10, b, 8), TCMU_STS_OK);
	assert_int_equal(get_be32(b), 999);
	assert_int_equal(get_be32(b + 4), 4096);
	uint8_t rc16[16] = { SCSI_OP_SERVICE_ACTION_IN_16, SCSI_SA_READ_CAPACITY_16 };
	put_be32(rc16 + 10, 32);
	memset(b, 0xcc, sizeof(b));
	assert_int_equal(fix_run(&fc, lu, rc16, 16, b, 32), TCMU_STS_OK);
	assert_true(get_be64(b) == 999);
	assert_int_equal(get_be32(b + 8), 4096);
	assert_int_equal(b[12], 0);             /* no protection */
	assert_int_equal(b[13], 0);             /* LBPPBE 0 */
	assert_int_equal(b[14], 0xc0);          /* LBPME, LBPRZ */
	put_be32(rc16 + 10, 10);                /* allocation length 10 */
	assert_int_equal(fix_run(&fc, lu, rc16, 16, b, 32), TCMU_STS_OK);
	assert_int_equal(fc.c.bytes_moved, 10);
	fix_lu_free(lu);
}

static void test_sync_cache(void **state)
{
	struct scsi_lu *lu = fix_lu_new("rw-e", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	uint8_t s10[10] = { SCSI_OP_SYNCHRONIZE_CACHE_10, 0x02 };
	assert_int_equal(fix_run(&fc, lu, s10, 10, NULL, 0), TCMU_STS_OK);
	put_be32(s10 + 2, FIX_LBAS - 1);
	put_be16(s10 + 7, 2);
	fix_run(&fc, lu, s10, 10, NULL, 0);
	fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_LBA_OUT_OF_RANGE);
	/* PRE-FETCH: same range rules, IMMED accepted */
	uint8_t p10[10] = { SCSI_OP_PRE_FETCH_10, 0x02 };
	put_be32(p10 + 2, FIX_LBAS - 4);
	put_be16(p10 + 7, 4);
	assert_int_equal(fix_run(&fc, lu, p10, 10, NULL, 0), TCMU_STS_OK);
	put_be16(p10 + 7, 5);
	fix_run(&fc, lu, p10, 10, NULL, 0);
	fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_LBA_OUT_OF_RANGE);
	uint8_t p16[16] = { SCSI_OP_PRE_FETCH_16 };
	put_be64(p16 + 2, ~0ull);
	fix_run(&fc, lu, p16, 16, NULL, 0);
	fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_LBA_OUT_OF_RANGE);
	uint8_t s16[16] = { SCSI_OP_SYNCHRONIZE_CACHE_16 };
	put_be64(s16 + 2, FIX_LBAS - 1);
	put_be32(s16 + 10, 1);
	assert_int_equal(fix_run(&fc, lu, s16, 16, NULL, 0), TCMU_STS_OK);
	fix_lu_free(lu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_read_each_size),
		cmocka_unit_test(test_rw6_zero_is_256),
		cmocka_unit_test(test_short_buffer),
		cmocka_unit_test(test_short_dataout_refused),
		cmocka_unit_test(test_capacity),
		cmocka_unit_test(test_sync_cache),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
