/* test_mode.c — MODE SENSE/SELECT (spc_mode.c): page images per PC, block
 * descriptors, MODE SELECT round trip and its field pointers, SWP. */
#include "fixture.h"
#include "handlers/array/store_db.h"
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"

static void sense6_sub(struct fix_cmd *fc, struct scsi_lu *lu, uint8_t dbd, uint8_t pc, uint8_t page, uint8_t sub,
		       uint8_t *b, size_t len)
{
	uint8_t cdb[6] = { SCSI_OP_MODE_SENSE_6, dbd ? 0x08 : 0, (uint8_t)(pc << 6 | page), sub, (uint8_t)len, 0 };
	memset(b, 0xcc, len);
	fix_run(fc, lu, cdb, 6, b, len);
}

static void sense6(struct fix_cmd *fc, struct scsi_lu *lu, uint8_t dbd, uint8_t pc, uint8_t page, uint8_t *b,
		   size_t len)
{
	sense6_sub(fc, lu, dbd, pc, page, 0, b, len);
}

static void test_all_pages(void **state)
{
	struct scsi_lu *lu = fix_lu_new("mode-a", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	uint8_t b[255];
	sense6(&fc, lu, 0, 0, 0x3f, b, sizeof(b));
	assert_int_equal(fc.status, TCMU_STS_OK);
	assert_int_equal(b[0], 4 + 8 + 20 + 12 - 1);
	assert_int_equal(b[2], 0x10);           /* DPOFUA, not write protected */
	assert_int_equal(b[3], 8);
	assert_int_equal(get_be32(b + 4), FIX_LBAS);
	assert_int_equal(get_be24(b + 9), FIX_BS);
	assert_int_equal(b[12], 0x08);          /* caching */
	assert_int_equal(b[13], 18);
	assert_int_equal(b[14], 0x04);          /* WCE */
	assert_int_equal(b[32], 0x0a);          /* control */
	assert_int_equal(b[33], 10);
	assert_int_equal(b[34] & 0x04, 0);      /* D_SENSE 0: fixed sense */
	assert_int_equal(b[36] & 0x08, 0);      /* SWP 0 */
	assert_int_equal(fc.c.bytes_moved, 44);
	/* truncation to the allocation length */
	sense6(&fc, lu, 0, 0, 0x3f, b, 4);
	assert_int_equal(fc.c.bytes_moved, 4);
	assert_int_equal(b[0], 43);
	fix_lu_free(lu);
}

static void test_changeable_saved_unknown(void **state)
{
	struct scsi_lu *lu = fix_lu_new("mode-b", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	uint8_t b[64];
	sense6(&fc, lu, 1, 1, 0x0a, b, sizeof(b));
	assert_int_equal(b[3], 0);              /* DBD: no block descriptor */
	assert_int_equal(b[4], 0x0a);
	const uint8_t mask[12] = { 0x0a, 10, 0, 0, 0x08, 0, 0, 0, 0, 0, 0, 0 }; /* control mode page (scsi-literals: not SCSI) */
	assert_memory_equal(b + 4, mask, 12);
	sense6(&fc, lu, 1, 3, 0x08, b, sizeof(b));
	fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_SAVING_PARAMETERS_NOT_SUPPORTED);
	sense6(&fc, lu, 1, 0, 0x19, b, sizeof(b));
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 2, 5);
	fix_lu_free(lu);
}

/* In a state directory the caching and control pages are saveable (PS=1):
 * SP=1 saves, PC=3 reads the saved values, SP=0 changes only the current
 * ones (SPC-4 6.13, docs/persistence.md "Saved mode pages"). */
static void test_saved_pages_in_a_state_dir(void **state)
{
	char dir[] = "/tmp/lunlab-mode-state.XXXXXX", cmd[64];
	struct fix_cmd fc;
	uint8_t b[64], sel[24];

	assert_non_null(mkdtemp(dir));
	struct scsi_lu *lu = fix_lu_new_state("mode-state", FIX_BS, FIX_LBAS, dir);
	sense6(&fc, lu, 1, 0, 0x08, b, sizeof(b));
	assert_int_equal(b[4], 0x80 | 0x08);    /* PS */
	assert_int_equal(b[6] & 0x04, 0x04);    /* WCE on */
	sense6(&fc, lu, 1, 3, 0x08, b, sizeof(b));
	assert_int_equal(fc.status, TCMU_STS_OK);
	assert_int_equal(b[6] & 0x04, 0x04);    /* saved: the default */
	/* SP=1: WCE off, saved */
	memset(sel, 0, sizeof(sel));
	sel[4] = 0x08;
	sel[5] = 18;
	uint8_t ms[6] = { SCSI_OP_MODE_SELECT_6, 0x11, 0, 0, 24, 0 };
	fix_run(&fc, lu, ms, 6, sel, 24);
	assert_int_equal(fc.status, TCMU_STS_OK);
	sense6(&fc, lu, 1, 3, 0x08, b, sizeof(b));
	assert_int_equal(b[6] & 0x04, 0);
	sense6(&fc, lu, 1, 0, 0x08, b, sizeof(b));
	assert_int_equal(b[6] & 0x04, 0);
	/* SP=0: WCE on again, the saved value stays off */
	sel[6] = 0x04;
	ms[1] = 0x10;
	fix_run(&fc, lu, ms, 6, sel, 24);
	assert_int_equal(fc.status, TCMU_STS_OK);
	sense6(&fc, lu, 1, 0, 0x08, b, sizeof(b));
	assert_int_equal(b[6] & 0x04, 0x04);
	sense6(&fc, lu, 1, 3, 0x08, b, sizeof(b));
	assert_int_equal(b[6] & 0x04, 0);
	assert_int_equal(array_volume_flags(lu->dev.vol) & STORE_VOL_WCE_OFF, STORE_VOL_WCE_OFF);
	/* the control page's SWP saved the same way */
	uint8_t ctl[16] = { 0, 0, 0, 0, 0x0a, 10, 0x02, 0x10, 0x08, 0x40, 0, 0, 0xff, 0xff, 0, 0 };
	ms[1] = 0x11;
	ms[4] = 16;
	fix_run(&fc, lu, ms, 6, ctl, 16);
	assert_int_equal(fc.status, TCMU_STS_OK);
	sense6(&fc, lu, 1, 3, 0x0a, b, sizeof(b));
	assert_int_equal(b[4], 0x80 | 0x0a);
	assert_int_equal(b[8] & 0x08, 0x08);
	fix_lu_free(lu);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_sense10_long_lba(void **state)
{
	struct scsi_lu *lu = fix_lu_new("mode-c", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	uint8_t b[128];
	uint8_t cdb[10] = { SCSI_OP_MODE_SENSE_10, 0x10, 0x08, 0, 0, 0, 0, 0, 128, 0 };
	fix_run(&fc, lu, cdb, 10, b, sizeof(b));
	assert_int_equal(fc.status, TCMU_STS_OK);
	assert_int_equal(get_be16(b), 8 + 16 + 20 - 2);
	assert_int_equal(b[4], 0x01);           /* LONGLBA */
	assert_int_equal(get_be16(b + 6), 16);
	assert_true(get_be64(b + 8) == FIX_LBAS);
	assert_int_equal(get_be32(b + 20), FIX_BS);
	assert_int_equal(b[24], 0x08);
	fix_lu_free(lu);
}

static void test_select_round_trip(void **state)
{
	struct scsi_lu *lu = fix_lu_new("mode-d", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	uint8_t b[64], p[64];
	/* read the current caching page, clear WCE, write it back */
	sense6(&fc, lu, 1, 0, 0x08, b, sizeof(b));
	memset(p, 0, sizeof(p));
	memcpy(p + 4, b + 4, 20);
	p[4 + 2] &= (uint8_t)~0x04;
	uint8_t sel[6] = { SCSI_OP_MODE_SELECT_6, 0x10, 0, 0, 24, 0 };
	assert_int_equal(fix_run(&fc, lu, sel, 6, p, 24), TCMU_STS_OK);
	sense6(&fc, lu, 1, 0, 0x08, b, sizeof(b));
	assert_int_equal(b[6] & 0x04, 0);
	assert_false(lu->dev.write_cache);

	/* change a bit that is not changeable (RCD, caching byte 2 bit 0) */
	p[4 + 2] |= 0x01;
	fix_run(&fc, lu, sel, 6, p, 24);
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, false, 6, 0);
	/* wrong page length */
	p[4 + 2] &= (uint8_t)~0x01;
	p[5] = 17;
	fix_run(&fc, lu, sel, 6, p, 24);
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, false, 5, -1);
	/* page cut short by the parameter list length */
	p[5] = 18;
	sel[4] = 12;
	fix_run(&fc, lu, sel, 6, p, 12);
	fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_PARAMETER_LIST_LENGTH_ERROR);
	/* the list cut short by the EDTL (fewer bytes than PARAMETER LIST
	 * LENGTH): INVALID FIELD IN CDB at that length, nothing applied */
	p[4 + 2] |= 0x04;
	sel[4] = 24;
	fix_run(&fc, lu, sel, 6, p, 20);
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 4, -1);
	uint8_t sel10[10] = { SCSI_OP_MODE_SELECT_10, 0x10, 0, 0, 0, 0, 0, 0, 28, 0 };
	uint8_t p10[28] = { 0 };
	memcpy(p10 + 8, p + 4, 20);
	fix_run(&fc, lu, sel10, 10, p10, 27);
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 7, -1);
	assert_false(atomic_load(&lu->wce));
	assert_int_equal(fix_run(&fc, lu, sel10, 10, p10, 28), TCMU_STS_OK);
	assert_true(atomic_load(&lu->wce));
	p10[8 + 2] &= (uint8_t)~0x04;
	assert_int_equal(fix_run(&fc, lu, sel10, 10, p10, 28), TCMU_STS_OK);
	p[4 + 2] &= (uint8_t)~0x04;
	/* a list whose second page is bad applies nothing: WCE stays off */
	uint8_t two[4 + 20 + 12];
	memset(two, 0, sizeof(two));
	memcpy(two + 4, b + 4, 20);
	two[4 + 2] |= 0x04;                     /* caching: WCE on (valid) */
	two[24] = 0x0a;
	two[25] = 10;
	two[24 + 2] = 0x07;                     /* control byte 2: not changeable */
	uint8_t sel2[6] = { SCSI_OP_MODE_SELECT_6, 0x10, 0, 0, sizeof(two), 0 };
	fix_run(&fc, lu, sel2, 6, two, sizeof(two));
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, false, 26, 2);
	assert_false(atomic_load(&lu->wce));

	/* SP=1: nothing can be saved */
	sel[1] = 0x11;
	sel[4] = 24;
	fix_run(&fc, lu, sel, 6, p, 24);
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 1, 0);
	fix_lu_free(lu);
}

static void test_swp_blocks_writes(void **state)
{
	struct scsi_lu *lu = fix_lu_new("mode-e", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	uint8_t b[64], p[16], data[512];
	sense6(&fc, lu, 1, 0, 0x0a, b, sizeof(b));
	memset(p, 0, sizeof(p));
	memcpy(p + 4, b + 4, 12);
	p[4 + 4] |= 0x08;
	uint8_t sel[6] = { SCSI_OP_MODE_SELECT_6, 0x10, 0, 0, 16, 0 };
	assert_int_equal(fix_run(&fc, lu, sel, 6, p, 16), TCMU_STS_OK);
	sense6(&fc, lu, 1, 0, 0x3f, b, sizeof(b));
	assert_int_equal(b[2], 0x90);           /* WP | DPOFUA */
	memset(data, 0x5a, sizeof(data));
	uint8_t w10[10] = { SCSI_OP_WRITE_10, 0, 0, 0, 0, 0, 0, 0, 1, 0 };
	fix_run(&fc, lu, w10, 10, data, sizeof(data));
	fix_assert_sense(&fc, SCSI_SK_DATA_PROTECT, SCSI_ASC_SOFTWARE_WRITE_PROTECTED);
	uint8_t r10[10] = { SCSI_OP_READ_10, 0, 0, 0, 0, 0, 0, 0, 1, 0 };
	assert_int_equal(fix_run(&fc, lu, r10, 10, data, sizeof(data)), TCMU_STS_OK);
	fix_lu_free(lu);
}

/* Logical Block Provisioning (1Ch/02h): present when the array has a
 * capacity, one descriptor holding the soft threshold as a count of
 * threshold sets of available resources, nothing changeable; subpage
 * addressing (exact, FFh = all subpages) and its field pointers. */
static void test_lbp_subpage(void **state)
{
	struct scsi_lu *lu = fix_lu_new("mode-lbp", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	uint8_t b[255];
	char *err = NULL;

	sense6_sub(&fc, lu, 0, 0, 0x1c, 0x02, b, sizeof(b));
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 2, 5);                /* no capacity: no thresholds, no page */
	assert_int_equal(array_set_capacity(lu->dev.array, 64ull << 20, 48ull << 20, &err), 0);
	/* changed by other means than MODE SELECT: first MODE PARAMETERS CHANGED */
	sense6_sub(&fc, lu, 0, 0, 0x1c, 0x02, b, sizeof(b));
	fix_assert_sense(&fc, SCSI_SK_UNIT_ATTENTION, SCSI_ASC_MODE_PARAMETERS_CHANGED);
	sense6_sub(&fc, lu, 0, 0, 0x1c, 0x02, b, sizeof(b));
	assert_int_equal(fc.status, TCMU_STS_OK);
	assert_int_equal(b[0], 4 + 8 + 24 - 1);
	const uint8_t page[24] = { 0x5c, 0x02, 0, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
				   0x80, 0x01, 0, 0, 0, 0, 0x04, 0x00 }; /* ENABLED, available, 1024 sets */
	assert_memory_equal(b + 12, page, 24);
	/* every page and subpage; every page without subpages */
	sense6_sub(&fc, lu, 0, 0, 0x3f, 0xff, b, sizeof(b));
	assert_int_equal(b[0], 4 + 8 + 20 + 12 + 24 - 1);
	assert_memory_equal(b + 12 + 20 + 12, page, 24);
	sense6_sub(&fc, lu, 0, 0, 0x3f, 0x00, b, sizeof(b));
	assert_int_equal(b[0], 4 + 8 + 20 + 12 - 1);
	sense6_sub(&fc, lu, 0, 0, 0x1c, 0xff, b, sizeof(b));
	assert_int_equal(b[0], 4 + 8 + 24 - 1);
	sense6_sub(&fc, lu, 0, 0, 0x08, 0xff, b, sizeof(b));
	assert_int_equal(b[0], 4 + 8 + 20 - 1);
	sense6_sub(&fc, lu, 0, 0, 0x1c, 0x00, b, sizeof(b));     /* 1Ch/00h (informational exceptions): none */
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 3, -1);
	sense6_sub(&fc, lu, 0, 0, 0x3f, 0x05, b, sizeof(b));
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 3, -1);
	/* nothing changeable; the default is the current */
	sense6_sub(&fc, lu, 0, 1, 0x1c, 0x02, b, sizeof(b));
	const uint8_t mask[24] = { 0x5c, 0x02, 0, 20 };
	assert_memory_equal(b + 12, mask, 24);
	sense6_sub(&fc, lu, 0, 2, 0x1c, 0x02, b, sizeof(b));
	assert_memory_equal(b + 12, page, 24);
	/* no soft threshold: the descriptor is there, not enabled */
	assert_int_equal(array_set_capacity(lu->dev.array, 64ull << 20, 0, &err), 0);
	sense6_sub(&fc, lu, 0, 0, 0x1c, 0x02, b, sizeof(b));
	fix_assert_sense(&fc, SCSI_SK_UNIT_ATTENTION, SCSI_ASC_MODE_PARAMETERS_CHANGED);
	sense6_sub(&fc, lu, 0, 0, 0x1c, 0x02, b, sizeof(b));
	assert_int_equal(b[28], 0x00);
	assert_int_equal(get_be32(b + 32), 4096);
	fix_lu_free(lu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lbp_subpage),
		cmocka_unit_test(test_all_pages),
		cmocka_unit_test(test_changeable_saved_unknown),
		cmocka_unit_test(test_saved_pages_in_a_state_dir),
		cmocka_unit_test(test_sense10_long_lba),
		cmocka_unit_test(test_select_round_trip),
		cmocka_unit_test(test_swp_blocks_writes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
