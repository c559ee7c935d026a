/* test_inquiry.c — standard INQUIRY and VPD pages (spc_inquiry.c), NAA
 * designator (naa.c): exact bytes and allocation-length truncation. */
#include "fixture.h"
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"

static struct scsi_lu *lu;

static int setup(void **state) { lu = fix_lu_new("inq", FIX_BS, FIX_LBAS); return 0; }
static int teardown(void **state) { fix_lu_free(lu); return 0; }

static int inquiry(struct fix_cmd *fc, bool evpd, uint8_t page, uint16_t alloc, uint8_t *buf, size_t len)
{
	uint8_t cdb[6] = { SCSI_OP_INQUIRY, evpd ? 1 : 0, page, (uint8_t)(alloc >> 8), (uint8_t)alloc, 0 };
	memset(buf, 0xcc, len);
	return fix_run(fc, lu, cdb, 6, buf, len);
}

static void test_standard(void **state)
{
	struct fix_cmd fc;
	uint8_t b[256];
	assert_int_equal(inquiry(&fc, false, 0, 255, b, sizeof(b)), TCMU_STS_OK);
	assert_int_equal(fc.c.bytes_moved, 96);
	assert_int_equal(b[0], 0x00);
	assert_int_equal(b[2], 0x06);           /* SPC-4 */
	assert_int_equal(b[3], 0x12);
	assert_int_equal(b[4], 91);
	assert_int_equal(b[5], 0x08);           /* 3PC, TPGS 0 */
	assert_memory_equal(b + 8, "LUNLAB  ", 8);
	assert_memory_equal(b + 16, "XtremIO-X2 emu  ", 16);
	assert_int_equal(get_be16(b + 62), 0x0460); /* SPC-4 */
	assert_int_equal(get_be16(b + 64), 0x04c0); /* SBC-3 */
	assert_int_equal(b[96], 0x00);          /* past the page: cleared (opcodes.c) */
}

static void test_alloc_truncates(void **state)
{
	struct fix_cmd fc;
	uint8_t b[64];
	assert_int_equal(inquiry(&fc, false, 0, 5, b, sizeof(b)), TCMU_STS_OK);
	assert_int_equal(fc.c.bytes_moved, 5);
	assert_int_equal(b[4], 91);             /* full length still reported */
	assert_int_equal(b[5], 0x00);          /* past the allocation: cleared */
	assert_int_equal(inquiry(&fc, false, 0, 0, b, sizeof(b)), TCMU_STS_OK);
	assert_int_equal(fc.c.bytes_moved, 0);
	/* data-in buffer smaller than the allocation length: never overflow */
	memset(b, 0xcc, sizeof(b));
	assert_int_equal(inquiry(&fc, false, 0, 255, b, 10), TCMU_STS_OK);
	assert_int_equal(fc.c.bytes_moved, 10);
	assert_int_equal(b[10], 0xcc);
}

static void test_page_without_evpd(void **state)
{
	struct fix_cmd fc;
	uint8_t b[64];
	inquiry(&fc, false, 0x80, 64, b, sizeof(b));
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 2, -1);
	inquiry(&fc, true, 0x99, 64, b, sizeof(b));
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 2, -1);
}

static void test_vpd_list_and_serial(void **state)
{
	struct fix_cmd fc;
	uint8_t b[64];
	inquiry(&fc, true, 0x00, 64, b, sizeof(b));
	const uint8_t want[] = { 0, 0, 0, 7, 0x00, 0x80, 0x83, 0x8f, 0xb0, 0xb1, 0xb2 };
	assert_memory_equal(b, want, sizeof(want));
	inquiry(&fc, true, 0x80, 64, b, sizeof(b));
	assert_int_equal(b[1], 0x80);
	assert_int_equal(get_be16(b + 2), strlen("unit-serial-1"));
	assert_memory_equal(b + 4, "unit-serial-1", strlen("unit-serial-1"));
}

static void test_vpd_devid(void **state)
{
	struct fix_cmd fc;
	uint8_t b[128], naa[16];
	inquiry(&fc, true, 0x83, 128, b, sizeof(b));
	naa_from_serial("unit-serial-1", naa);
	assert_int_equal(b[4], 0x01);           /* binary */
	assert_int_equal(b[5], 0x03);           /* LU, NAA */
	assert_int_equal(b[7], 16);
	assert_memory_equal(b + 8, naa, 16);
	assert_int_equal(b[8] >> 4, 6);         /* NAA IEEE Registered Extended */
	assert_int_equal(b[24], 0x02);          /* T10 vendor id, ASCII */
	assert_int_equal(b[25], 0x01);
	assert_int_equal(b[27], 8 + strlen("unit-serial-1"));
	assert_memory_equal(b + 28, "LUNLAB  unit-serial-1", 21);
	assert_int_equal(get_be16(b + 2), 20 + 4 + 21);
}

static void test_naa_stable_and_distinct(void **state)
{
	uint8_t a[16], b[16], c[16];
	naa_from_serial("abc", a);
	naa_from_serial("abc", b);
	naa_from_serial("abd", c);
	assert_memory_equal(a, b, 16);
	assert_memory_not_equal(a, c, 16);
	assert_int_equal(a[0], 0x60);           /* NAA 6, CID 0A-4C-55 */
	assert_int_equal(a[1], 0xa4);
	assert_int_equal(a[2], 0xc5);
	assert_int_equal(a[3] >> 4, 0x5);
}

static void test_vpd_block_limits(void **state)
{
	struct fix_cmd fc;
	uint8_t b[64];
	inquiry(&fc, true, 0xb0, 64, b, sizeof(b));
	assert_int_equal(get_be16(b + 2), 0x3c);
	assert_int_equal(b[4] & 1, 0);          /* WSNZ 0: zero blocks = to the end */
	assert_int_equal(b[5], SCSI_MAX_CAW_BLOCKS);
	assert_int_equal(get_be16(b + 6), 32);  /* 16 KiB dedup / 512 */
	assert_int_equal(get_be32(b + 8), 2048);
	assert_int_equal(get_be32(b + 20), SCSI_MAX_UNMAP_LBA_COUNT);
	assert_int_equal(get_be32(b + 24), SCSI_MAX_UNMAP_DESCRIPTORS);
	assert_int_equal(get_be32(b + 28), 32);
	assert_int_equal(get_be32(b + 32), 0x80000000u);
	assert_true(get_be64(b + 36) == 32768);  /* 16 MiB of 512-byte blocks */
}

/* OPTIMAL UNMAP GRANULARITY is the dedup block in logical blocks (the map
 * tracks whole dedup blocks), aligned at LBA 0 (UGAVALID=1, alignment 0),
 * for every block size and dedup granularity: a 4096-byte LU on an 8 KiB
 * (x1-like) array has 2. */
static void test_vpd_block_limits_4k_on_8k_dedup(void **state)
{
	struct array_params ap = { .dedup_block = 8192, .zlib_level = 1, .zlib_window_bits = 15, .alloc_unit = 512 };
	char *err = NULL;
	struct scsi_lu *l4 = fix_lu_new("inq-4k", 4096, 1024);
	struct fix_cmd fc;
	uint8_t b[64], cdb[6] = { SCSI_OP_INQUIRY, 1, 0xb0, 0, 64, 0 };

	/* the fixture's array has 16 KiB blocks: swap in an 8 KiB one */
	volume_destroy(l4->dev.vol);
	array_put(l4->dev.array);
	l4->dev.array = array_get("inq-4k-8k", &ap, &err);
	assert_non_null(l4->dev.array);
	l4->dev.vol = volume_create(l4->dev.array, 1024 * 4096ull, 4096);
	assert_non_null(l4->dev.vol);
	assert_int_equal(fix_run(&fc, l4, cdb, 6, b, sizeof(b)), TCMU_STS_OK);
	assert_int_equal(get_be16(b + 6), 2);
	assert_int_equal(get_be32(b + 28), 2);
	assert_int_equal(get_be32(b + 32), 0x80000000u);
	fix_lu_free(l4);
}

static void test_vpd_b1_b2(void **state)
{
	struct fix_cmd fc;
	uint8_t b[64];
	inquiry(&fc, true, 0xb1, 64, b, sizeof(b));
	assert_int_equal(get_be16(b + 4), 1);   /* non-rotating */
	inquiry(&fc, true, 0xb2, 64, b, sizeof(b));
	const uint8_t want[8] = { 0, 0xb2, 0, 4, 0, 0xe4, 0x02, 0 };
	assert_memory_equal(b, want, 8);   /* the array has no capacity: no thresholds */
	assert_int_equal(fc.c.bytes_moved, 8);
}

/* With a capacity, thresholds exist: a threshold set is one dedup block (32
 * LBAs of 512 bytes: exponent 5; 4 of 4096: exponent 2), larger when the LU
 * would count 2^32 sets (SBC-4: capacity / 2^exponent < 2^32). */
static void test_vpd_b2_thresholds(void **state)
{
	struct fix_cmd fc;
	uint8_t b[64];
	char *err = NULL;
	struct scsi_lu *save = lu;
	const struct { uint32_t bs; uint64_t lbas; uint8_t exp; } cases[] = {
		{ 512, FIX_LBAS, 5 }, { 4096, 1024, 2 }, { 512, (1ull << 37) - 1, 5 }, { 512, 1ull << 37, 6 },
		{ 4096, (1ull << 34) + 1, 3 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char name[32];
		snprintf(name, sizeof(name), "inq-thr-%zu", i);
		lu = fix_lu_new(name, cases[i].bs, 1024);
		assert_int_equal(array_set_capacity(lu->dev.array, 64ull << 20, 32ull << 20, &err), 0);
		lu->dev.num_lbas = cases[i].lbas; /* as READ CAPACITY reports it (thin: never written) */
		inquiry(&fc, true, 0xb2, 64, b, sizeof(b));
		const uint8_t want[8] = { 0, 0xb2, 0, 4, cases[i].exp, 0xe4, 0x02, 0 };
		assert_memory_equal(b, want, 8);
		fix_lu_free(lu);
	}
	lu = save;
}

/* identity=xtremio: the vendor and product an XtremIO reports (what
 * multipath-tools' hwtable and REX-Ray match), in the standard data and in
 * VPD 83h's T10 vendor id designator; the rest of the page unchanged */
static void test_xtremio_identity(void **state)
{
	struct fix_cmd fc;
	uint8_t b[128];

	lu->dev.xtremio_identity = true;
	assert_int_equal(inquiry(&fc, false, 0, 255, b, sizeof(b)), TCMU_STS_OK);
	assert_int_equal(fc.c.bytes_moved, 96);
	assert_memory_equal(b + 8, "XtremIO XtremApp        0100", 28);
	assert_int_equal(b[5], 0x08);
	assert_int_equal(get_be16(b + 62), 0x0460);
	inquiry(&fc, true, 0x83, 128, b, sizeof(b));
	assert_int_equal(b[27], 8 + strlen("unit-serial-1"));
	assert_memory_equal(b + 28, "XtremIO unit-serial-1", 21);
	inquiry(&fc, true, 0x80, 128, b, sizeof(b)); /* the serial is the LU's either way */
	assert_memory_equal(b + 4, "unit-serial-1", strlen("unit-serial-1"));
	lu->dev.xtremio_identity = false;
	assert_int_equal(inquiry(&fc, false, 0, 255, b, sizeof(b)), TCMU_STS_OK);
	assert_memory_equal(b + 8, "LUNLAB  XtremIO-X2 emu  0100", 28);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_standard),
		cmocka_unit_test(test_alloc_truncates),
		cmocka_unit_test(test_page_without_evpd),
		cmocka_unit_test(test_vpd_list_and_serial),
		cmocka_unit_test(test_vpd_devid),
		cmocka_unit_test(test_naa_stable_and_distinct),
		cmocka_unit_test(test_vpd_block_limits),
		cmocka_unit_test(test_vpd_block_limits_4k_on_8k_dedup),
		cmocka_unit_test(test_vpd_b1_b2),
		cmocka_unit_test(test_vpd_b2_thresholds),
		cmocka_unit_test(test_xtremio_identity),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
