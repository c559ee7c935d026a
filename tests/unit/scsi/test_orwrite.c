/* test_orwrite.c — ORWRITE(16) (sbc_orwrite.c): the OR reads back, range and
 * length checks give exact sense, zero blocks write nothing, and concurrent
 * ORWRITEs of different bits to the same blocks lose none of them (the
 * compare-and-write retry loop). */
#include <pthread.h>

#include "fixture.h"
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"

static void orw_cdb(uint8_t *cdb, uint64_t lba, uint32_t n)
{
	memset(cdb, 0, 16);
	cdb[0] = SCSI_OP_ORWRITE_16;
	put_be64(cdb + 2, lba);
	put_be32(cdb + 10, n);
}

static void rw_cdb(uint8_t *cdb, uint8_t op, uint64_t lba, uint32_t n)
{
	memset(cdb, 0, 16);
	cdb[0] = op;
	put_be64(cdb + 2, lba);
	put_be32(cdb + 10, n);
}

static void test_or_reads_back(void **state)
{
	struct scsi_lu *lu = fix_lu_new("orw-a", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	static uint8_t w[5 * 512], o[5 * 512], r[5 * 512];
	uint8_t cdb[16];

	for (size_t i = 0; i < sizeof(w); i++) {
		w[i] = (uint8_t)(i * 13);
		o[i] = (uint8_t)(0x81 ^ (i * 7));
	}
	rw_cdb(cdb, 0x8a, 33, 5); /* unaligned to the 16 KiB dedup block */
	assert_int_equal(fix_run(&fc, lu, cdb, 16, w, sizeof(w)), TCMU_STS_OK);
	orw_cdb(cdb, 33, 5);
	assert_int_equal(fix_run(&fc, lu, cdb, 16, o, sizeof(o)), TCMU_STS_OK);
	assert_int_equal(fc.c.bytes_moved, sizeof(o));
	rw_cdb(cdb, 0x88, 33, 5);
	assert_int_equal(fix_run(&fc, lu, cdb, 16, r, sizeof(r)), TCMU_STS_OK);
	for (size_t i = 0; i < sizeof(r); i++)
		assert_int_equal(r[i], (uint8_t)(w[i] | o[i]));
	/* the blocks next to the range are untouched (still unmapped zeros) */
	rw_cdb(cdb, 0x88, 32, 1);
	assert_int_equal(fix_run(&fc, lu, cdb, 16, r, 512), TCMU_STS_OK);
	for (size_t i = 0; i < 512; i++)
		assert_int_equal(r[i], 0);
	fix_lu_free(lu);
}

static void test_or_onto_unmapped_is_the_data(void **state)
{
	struct scsi_lu *lu = fix_lu_new("orw-b", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	uint8_t o[512], r[512], cdb[16];

	memset(o, 0x5a, sizeof(o));
	orw_cdb(cdb, FIX_LBAS - 1, 1); /* the last block */
	assert_int_equal(fix_run(&fc, lu, cdb, 16, o, sizeof(o)), TCMU_STS_OK);
	rw_cdb(cdb, 0x88, FIX_LBAS - 1, 1);
	assert_int_equal(fix_run(&fc, lu, cdb, 16, r, sizeof(r)), TCMU_STS_OK);
	assert_memory_equal(r, o, sizeof(o));
	fix_lu_free(lu);
}

static void test_checks(void **state)
{
	struct scsi_lu *lu = fix_lu_new("orw-c", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	uint8_t o[1024], cdb[16];

	memset(o, 0xff, sizeof(o));
	orw_cdb(cdb, FIX_LBAS - 1, 2); /* one block past the end */
	fix_run(&fc, lu, cdb, 16, o, sizeof(o));
	fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_LBA_OUT_OF_RANGE);
	orw_cdb(cdb, 0x8000000000000000ull, 1);
	fix_run(&fc, lu, cdb, 16, o, 512);
	fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_LBA_OUT_OF_RANGE);
	orw_cdb(cdb, 0, lu->dev.max_xfer_len + 1); /* above MAXIMUM TRANSFER LENGTH */
	fix_run(&fc, lu, cdb, 16, o, sizeof(o));
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 10, -1);
	orw_cdb(cdb, 0, 1);
	cdb[1] = 0x20; /* ORPROTECT 001b: no protection information */
	fix_run(&fc, lu, cdb, 16, o, 512);
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 1, 5);
	/* zero blocks: GOOD, nothing written, even at the capacity */
	orw_cdb(cdb, FIX_LBAS, 0);
	assert_int_equal(fix_run(&fc, lu, cdb, 16, NULL, 0), TCMU_STS_OK);
	assert_int_equal(volume_mapped_bytes(lu->dev.vol), 0);
	(void)rw_cdb;
	/* a data-out shorter than the blocks named: refused, nothing ORed (it
	 * used to OR zeros into the missing part: GOOD for data never sent) */
	uint8_t base[1024], back[1024];
	memset(base, 0x11, sizeof(base));
	rw_cdb(cdb, 0x8a, 8, 2);
	assert_int_equal(fix_run(&fc, lu, cdb, 16, base, sizeof(base)), TCMU_STS_OK);
	orw_cdb(cdb, 8, 2);
	fix_run(&fc, lu, cdb, 16, o, 700);
	fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CMD_IU);
	rw_cdb(cdb, 0x88, 8, 2);
	assert_int_equal(fix_run(&fc, lu, cdb, 16, back, sizeof(back)), TCMU_STS_OK);
	assert_memory_equal(back, base, sizeof(base));
	/* DPO and FUA are accepted */
	orw_cdb(cdb, 0, 1);
	cdb[1] = 0x18;
	assert_int_equal(fix_run(&fc, lu, cdb, 16, o, 512), TCMU_STS_OK);
	fix_lu_free(lu);
}

#define OR_THREADS 8
#define OR_ROUNDS 200

struct or_arg {
	struct scsi_lu *lu;
	int bit;
	int failures;
};

/* Every thread ORs its own bit into each of OR_ROUNDS blocks, one ORWRITE
 * per block, all threads walking the blocks together: every block gets each
 * bit exactly once, so an OR lost to a concurrent read-modify-write leaves a
 * block without that bit for good (adjacent blocks also share one dedup
 * block, whose read-modify-write must not lose a neighbour either). */
static void *or_worker(void *p)
{
	struct or_arg *a = p;
	uint8_t o[512], cdb[16];
	struct fix_cmd fc;

	memset(o, 1 << a->bit, sizeof(o));
	for (int r = 0; r < OR_ROUNDS; r++) {
		orw_cdb(cdb, 100 + (uint64_t)r, 1);
		if (fix_run(&fc, a->lu, cdb, 16, o, sizeof(o)) != TCMU_STS_OK)
			a->failures++;
	}
	return NULL;
}

static void test_concurrent_or_loses_no_bit(void **state)
{
	struct scsi_lu *lu = fix_lu_new("orw-d", FIX_BS, FIX_LBAS);
	pthread_t t[OR_THREADS];
	struct or_arg a[OR_THREADS];
	static uint8_t r[OR_ROUNDS * 512];
	uint8_t cdb[16];
	struct fix_cmd fc;

	for (int i = 0; i < OR_THREADS; i++) {
		a[i] = (struct or_arg){ lu, i, 0 };
		assert_int_equal(pthread_create(&t[i], NULL, or_worker, &a[i]), 0);
	}
	for (int i = 0; i < OR_THREADS; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(a[i].failures, 0);
	}
	rw_cdb(cdb, 0x88, 100, OR_ROUNDS);
	assert_int_equal(fix_run(&fc, lu, cdb, 16, r, sizeof(r)), TCMU_STS_OK);
	for (size_t i = 0; i < sizeof(r); i++)
		if (r[i] != 0xff)
			fail_msg("block %zu byte %zu: 0x%02x, want 0xff (an OR was lost)", 100 + i / 512, i % 512, r[i]);
	fix_lu_free(lu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_or_reads_back),
		cmocka_unit_test(test_or_onto_unmapped_is_the_data),
		cmocka_unit_test(test_checks),
		cmocka_unit_test(test_concurrent_or_loses_no_bit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
