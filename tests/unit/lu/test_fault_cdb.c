/* test_fault_cdb.c — command kinds and LBA ranges as fault rules see them
 * (target/lu/fault_cdb.c): every opcode of each kind, the LBA/length fields
 * of each CDB size, the "0 blocks" cases, and UNMAP parameter lists that
 * lie about their length. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lunlab/scsi_vocab.h"
#include "target/lu/fault_rules.h"

static void kinds(void **state)
{
	static const struct {
		uint8_t op;
		enum fault_op kind;
	} k[] = {
		{ 0x08, FAULT_OP_READ }, { 0x28, FAULT_OP_READ }, { 0xa8, FAULT_OP_READ }, { 0x88, FAULT_OP_READ },
		{ 0x0a, FAULT_OP_WRITE }, { 0x2a, FAULT_OP_WRITE }, { 0xaa, FAULT_OP_WRITE }, { 0x8a, FAULT_OP_WRITE },
		{ 0x2e, FAULT_OP_WRITE }, { 0xae, FAULT_OP_WRITE }, { 0x8e, FAULT_OP_WRITE }, { 0x41, FAULT_OP_WRITE },
		{ 0x93, FAULT_OP_WRITE }, { 0x9c, FAULT_OP_WRITE }, { 0x83, FAULT_OP_XCOPY }, { 0x42, FAULT_OP_UNMAP },
		{ 0x89, FAULT_OP_CAW }, { 0x00, FAULT_OP_TUR }, { 0x35, FAULT_OP_SYNC }, { 0x91, FAULT_OP_SYNC },
		{ 0x12, FAULT_OP_OPCODE }, { 0x84, FAULT_OP_OPCODE }, { 0x9e, FAULT_OP_OPCODE },
	};
	uint8_t cdb[16] = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		cdb[0] = k[i].op;
		assert_int_equal(fault_cdb_kind(cdb, sizeof(cdb)), k[i].kind);
	}
	/* ODX's service actions by name; EXTENDED COPY stays op=xcopy */
	static const struct {
		uint8_t op, sa;
		enum fault_op kind;
	} odx[] = {
		{ SCSI_OP_THIRD_PARTY_COPY_OUT, SCSI_SA_EXTENDED_COPY_LID1, FAULT_OP_XCOPY },
		{ SCSI_OP_THIRD_PARTY_COPY_OUT, SCSI_SA_POPULATE_TOKEN, FAULT_OP_POPULATE_TOKEN },
		{ SCSI_OP_THIRD_PARTY_COPY_OUT, SCSI_SA_WRITE_USING_TOKEN, FAULT_OP_WRITE_USING_TOKEN },
		{ SCSI_OP_THIRD_PARTY_COPY_OUT, SCSI_SA_COPY_OPERATION_ABORT, FAULT_OP_COPY_ABORT },
		{ SCSI_OP_THIRD_PARTY_COPY_IN, SCSI_SA_RECEIVE_ROD_TOKEN_INFORMATION, FAULT_OP_RRTI },
		{ SCSI_OP_THIRD_PARTY_COPY_IN, SCSI_SA_RECEIVE_COPY_STATUS_LID1, FAULT_OP_OPCODE },
	};
	for (size_t i = 0; i < sizeof(odx) / sizeof(odx[0]); i++) {
		cdb[0] = odx[i].op;
		cdb[1] = odx[i].sa;
		assert_int_equal(fault_cdb_kind(cdb, sizeof(cdb)), odx[i].kind);
	}
	cdb[1] = 0;
	cdb[0] = SCSI_OP_INQUIRY;
	assert_true(fault_cdb_exempt(cdb, sizeof(cdb)));
	cdb[0] = SCSI_OP_REPORT_LUNS;
	assert_true(fault_cdb_exempt(cdb, sizeof(cdb)));
	cdb[0] = SCSI_OP_REQUEST_SENSE;
	assert_true(fault_cdb_exempt(cdb, sizeof(cdb)));
	cdb[0] = SCSI_OP_TEST_UNIT_READY;
	assert_false(fault_cdb_exempt(cdb, sizeof(cdb)));
}

static void ranges(void **state)
{
	uint8_t c6[6] = { SCSI_OP_READ_6, 0x1f, 0xff, 0xfe, 0 }, c10[10] = { SCSI_OP_WRITE_10, 0, 0x12, 0x34, 0x56, 0x78, 0, 0x01, 0x00 };
	uint8_t c12[12] = { SCSI_OP_READ_12, 0, 0, 0, 0, 9, 0, 0x01, 0, 0 };
	uint8_t c16[16] = { SCSI_OP_WRITE_16, 0, 0x00, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0x10, 0 };
	uint8_t caw[16] = { SCSI_OP_COMPARE_AND_WRITE, 0, 0, 0, 0, 0, 0, 0, 0, 0x20, 0, 0, 0, 4 };
	uint8_t sync10[10] = { SCSI_OP_SYNCHRONIZE_CACHE_10, 0, 0, 0, 0, 100, 0, 0, 0 }, tur[6] = { 0 };
	uint64_t lba, n;

	(void)state;
	assert_true(fault_cdb_range(c6, sizeof(c6), &lba, &n)); /* 21-bit LBA, 0 blocks = 256 */
	assert_true(lba == 0x1ffffe && n == 256);
	assert_true(fault_cdb_range(c10, sizeof(c10), &lba, &n));
	assert_true(lba == 0x12345678 && n == 256);
	assert_true(fault_cdb_range(c12, sizeof(c12), &lba, &n));
	assert_true(lba == 9 && n == 0x10000);
	assert_true(fault_cdb_range(c16, sizeof(c16), &lba, &n));
	assert_true(lba == 0x100000000ull && n == 0x1000);
	assert_true(fault_cdb_range(caw, sizeof(caw), &lba, &n));
	assert_true(lba == 0x20 && n == 4);
	assert_true(fault_cdb_range(sync10, sizeof(sync10), &lba, &n)); /* 0 blocks: to the end of the LU */
	assert_true(lba == 100 && n == UINT64_MAX - 100);
	c10[7] = c10[8] = 0;                               /* a READ/WRITE of nothing still names its LBA */
	assert_true(fault_cdb_range(c10, sizeof(c10), &lba, &n) && n == 1);
	assert_false(fault_cdb_range(tur, sizeof(tur), &lba, &n));

	/* WRITE ATOMIC(16): TRANSFER LENGTH in bytes 12..13, after the BOUNDARY */
	uint8_t wa[16] = { SCSI_OP_WRITE_ATOMIC_16, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 1, 0, 3 };
	assert_true(fault_cdb_range(wa, sizeof(wa), &lba, &n));
	assert_true(lba == 7 && n == 3);
	/* PRE-FETCH and ORWRITE address blocks too; PRE-FETCH 0 blocks is to the end */
	uint8_t pf[10] = { SCSI_OP_PRE_FETCH_10, 0, 0, 0, 0, 50, 0, 0, 0 };
	assert_true(fault_cdb_range(pf, sizeof(pf), &lba, &n));
	assert_true(lba == 50 && n == UINT64_MAX - 50);
	uint8_t orw[16] = { SCSI_OP_ORWRITE_16, 0, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 2 };
	assert_true(fault_cdb_range(orw, sizeof(orw), &lba, &n));
	assert_true(lba == 9 && n == 2);
	/* an LBA with an allocation length names no range (GET LBA STATUS) */
	uint8_t gls[16] = { SCSI_OP_SERVICE_ACTION_IN_16, SCSI_SA_GET_LBA_STATUS, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 32 };
	assert_false(fault_cdb_range(gls, sizeof(gls), &lba, &n));
}

static void unmap_lists(void **state)
{
	uint8_t d[8 + 16 * 2];
	uint64_t at = 0;

	(void)state;
	memset(d, 0, sizeof(d));
	d[3] = 0xff;          /* claims far more descriptors than sent: bounded by len */
	d[8 + 7] = 10;        /* 10..19 */
	d[8 + 11] = 10;
	d[24 + 0] = 0xff;     /* LBA near 2^64 with blocks past it: no wrap */
	memset(d + 24, 0xff, 8);
	d[24 + 11] = 8;
	assert_true(fault_unmap_overlaps(d, sizeof(d), 15, 30, &at) && at == 15);
	assert_true(fault_unmap_overlaps(d, sizeof(d), 0, 10, &at) && at == 10);
	assert_false(fault_unmap_overlaps(d, sizeof(d), 20, 1000, &at));
	assert_true(fault_unmap_overlaps(d, sizeof(d), UINT64_MAX, UINT64_MAX, &at) && at == UINT64_MAX);
	assert_false(fault_unmap_overlaps(d, 7, 0, UINT64_MAX, &at)); /* not even a header */
	assert_false(fault_unmap_overlaps(d, 23, 0, UINT64_MAX, &at)); /* half a descriptor */
	assert_false(fault_unmap_overlaps(NULL, 40, 0, UINT64_MAX, &at));
	d[8 + 11] = 0; /* zero blocks names nothing */
	assert_false(fault_unmap_overlaps(d, 24, 0, UINT64_MAX, &at));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kinds),
		cmocka_unit_test(ranges),
		cmocka_unit_test(unmap_lists),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
