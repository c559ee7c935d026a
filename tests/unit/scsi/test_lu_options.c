/* test_lu_options.c — the per-LU options of lu.c: readonly=1 (every command
 * that writes the medium fails with DATA PROTECT / WRITE PROTECTED, MODE
 * SENSE shows WP, the data stays as it was) and physical_block= (LOGICAL
 * BLOCKS PER PHYSICAL BLOCK EXPONENT in READ CAPACITY(16), VPD B0
 * granularities a multiple of the physical block). */
#include "fixture.h"
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"

static void test_readonly_refuses_every_write(void **state)
{
	struct scsi_lu *lu = fix_lu_new("opt-ro", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	uint8_t w[1024], r[512];

	memset(w, 0x3c, sizeof(w));
	const uint8_t wr10[10] = { SCSI_OP_WRITE_10, 0, 0, 0, 0, 8, 0, 0, 1, 0 };
	assert_int_equal(fix_run(&fc, lu, wr10, 10, w, 512), TCMU_STS_OK);
	lu->readonly = true;

	uint8_t unmap_list[24] = { 0, 22, 0, 16 };
	put_be64(unmap_list + 8, 8);
	put_be32(unmap_list + 16, 1);
	const struct {
		uint8_t cdb[16];
		size_t len, data;
		void *buf;
	} writes[] = {
		{ { 0x0a, 0, 0, 8, 1, 0 }, 6, 512, w },                                      /* WRITE(6) */
		{ { 0x2a, 0, 0, 0, 0, 8, 0, 0, 1, 0 }, 10, 512, w },                         /* WRITE(10) */
		{ { 0xaa, 0, 0, 0, 0, 8, 0, 0, 0, 1, 0, 0 }, 12, 512, w },                   /* WRITE(12) */
		{ { 0x8a, 0, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 1, 0, 0 }, 16, 512, w },      /* WRITE(16) */
		{ { 0x2e, 0, 0, 0, 0, 8, 0, 0, 1, 0 }, 10, 512, w },                         /* WRITE AND VERIFY(10) */
		{ { 0x41, 0, 0, 0, 0, 8, 0, 0, 1, 0 }, 10, 512, w },                         /* WRITE SAME(10) */
		{ { 0x41, 0x08, 0, 0, 0, 8, 0, 0, 1, 0 }, 10, 512, w },                      /* WRITE SAME(10) UNMAP */
		{ { 0x93, 0x08, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 1, 0, 0 }, 16, 512, w },   /* WRITE SAME(16) UNMAP */
		{ { 0x42, 0, 0, 0, 0, 0, 0, 0, 24, 0 }, 10, 24, unmap_list },               /* UNMAP */
		{ { 0x89, 0, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 1, 0, 0 }, 16, 1024, w },     /* COMPARE AND WRITE */
		{ { 0x8b, 0, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 1, 0, 0 }, 16, 512, w },      /* ORWRITE(16) */
		{ { 0x9c, 0, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 1, 0, 0 }, 16, 512, w },      /* WRITE ATOMIC(16) */
	};
	memset(w, 0xa5, sizeof(w));
	for (size_t i = 0; i < sizeof(writes) / sizeof(writes[0]); i++) {
		fix_run(&fc, lu, writes[i].cdb, writes[i].len, writes[i].buf, writes[i].data);
		fix_assert_sense(&fc, SCSI_SK_DATA_PROTECT, SCSI_ASC_WRITE_PROTECTED);
	}
	/* block 8 still holds what was written before */
	const uint8_t rd10[10] = { SCSI_OP_READ_10, 0, 0, 0, 0, 8, 0, 0, 1, 0 };
	assert_int_equal(fix_run(&fc, lu, rd10, 10, r, sizeof(r)), TCMU_STS_OK);
	for (size_t i = 0; i < sizeof(r); i++)
		assert_int_equal(r[i], 0x3c);
	/* MODE SENSE(6): WP in the device-specific parameter, DPOFUA kept */
	uint8_t ms[64] = { 0 };
	const uint8_t ms6[6] = { SCSI_OP_MODE_SENSE_6, 0x08, 0x3f, 0, 64, 0 };
	assert_int_equal(fix_run(&fc, lu, ms6, 6, ms, sizeof(ms)), TCMU_STS_OK);
	assert_int_equal(ms[2], 0x90);
	/* without readonly but with SWP the ASCQ says "by software" */
	lu->readonly = false;
	atomic_store(&lu->swp, true);
	fix_run(&fc, lu, wr10, 10, w, 512);
	fix_assert_sense(&fc, SCSI_SK_DATA_PROTECT, SCSI_ASC_SOFTWARE_WRITE_PROTECTED);
	atomic_store(&lu->swp, false);
	assert_int_equal(fix_run(&fc, lu, ms6, 6, ms, sizeof(ms)), TCMU_STS_OK);
	assert_int_equal(ms[2], 0x10);
	fix_lu_free(lu);
}

static void expect_geometry(uint32_t bs, uint32_t physical, uint8_t want_exp, uint32_t want_gran)
{
	struct scsi_lu *lu = fix_lu_new(bs == 512 ? "opt-pb512" : "opt-pb4k", bs, 4096);
	struct fix_cmd fc;
	uint8_t rc16[32] = { 0 }, b0[64] = { 0 };
	const uint8_t cdb16[16] = { SCSI_OP_SERVICE_ACTION_IN_16, SCSI_SA_READ_CAPACITY_16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 32, 0, 0 };
	const uint8_t inq[6] = { SCSI_OP_INQUIRY, 0x01, 0xb0, 0x00, 64, 0 };

	assert_int_equal(scsi_lu_set_physical_block(lu, physical), 0);
	assert_int_equal(scsi_lbppb(&lu->dev), 1u << want_exp);
	assert_int_equal(fix_run(&fc, lu, cdb16, 16, rc16, sizeof(rc16)), TCMU_STS_OK);
	assert_int_equal(get_be32(rc16 + 8), bs);
	assert_int_equal(rc16[13] & 0x0f, want_exp);         /* LBPPBE */
	assert_int_equal(get_be16(rc16 + 14) & 0x3fff, 0);    /* LOWEST ALIGNED LBA */
	assert_int_equal(fix_run(&fc, lu, inq, 6, b0, sizeof(b0)), TCMU_STS_OK);
	assert_int_equal(get_be16(b0 + 6), want_gran);        /* OPTIMAL TRANSFER LENGTH GRANULARITY */
	assert_int_equal(get_be32(b0 + 28), want_gran);       /* OPTIMAL UNMAP GRANULARITY */
	assert_int_equal(want_gran % (1u << want_exp), 0);
	fix_lu_free(lu);
}

static void test_physical_block(void **state)
{
	/* fixture arrays use 16 KiB dedup blocks: 32 x 512 or 4 x 4096 */
	expect_geometry(512, 0, 0, 32);
	expect_geometry(512, 512, 0, 32);
	expect_geometry(512, 4096, 3, 32);
	expect_geometry(512, 65536, 7, 128);       /* physical block above the dedup block */
	expect_geometry(4096, 4096, 0, 4);
	expect_geometry(4096, 65536, 4, 16);
	expect_geometry(4096, 4096u << 15, 15, 1u << 15);
}

static void test_physical_block_rejects(void **state)
{
	struct scsi_lu *lu = fix_lu_new("opt-pbbad", 4096, 1024);
	assert_int_equal(scsi_lu_set_physical_block(lu, 512), -1);       /* smaller than the logical block */
	assert_int_equal(scsi_lu_set_physical_block(lu, 12288), -1);     /* not a power-of-two multiple */
	assert_int_equal(scsi_lu_set_physical_block(lu, 4096u << 16), -1); /* exponent above 15 */
	assert_int_equal(lu->lbppbe, 0);
	fix_lu_free(lu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_readonly_refuses_every_write),
		cmocka_unit_test(test_physical_block),
		cmocka_unit_test(test_physical_block_rejects),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
