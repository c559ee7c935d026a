/* test_caw.c — COMPARE AND WRITE (sbc_caw.c): success writes, a miscompare
 * writes nothing and reports the first differing byte in INFORMATION. */
#include <pthread.h>

#include "fixture.h"
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"

static void write_blocks(struct scsi_lu *lu, uint64_t lba, uint8_t *d, uint32_t n)
{
	struct fix_cmd fc;
	uint8_t cdb[16] = { SCSI_OP_WRITE_16 };
	put_be64(cdb + 2, lba);
	put_be32(cdb + 10, n);
	assert_int_equal(fix_run(&fc, lu, cdb, 16, d, n * 512), TCMU_STS_OK);
}

static void read_blocks(struct scsi_lu *lu, uint64_t lba, uint8_t *d, uint32_t n)
{
	struct fix_cmd fc;
	uint8_t cdb[16] = { SCSI_OP_READ_16 };
	put_be64(cdb + 2, lba);
	put_be32(cdb + 10, n);
	assert_int_equal(fix_run(&fc, lu, cdb, 16, d, n * 512), TCMU_STS_OK);
}

static void test_caw(void **state)
{
	struct scsi_lu *lu = fix_lu_new("caw", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	uint8_t buf[4 * 512], back[2 * 512];
	uint8_t cdb[16] = { SCSI_OP_COMPARE_AND_WRITE };
	put_be64(cdb + 2, 40);
	cdb[13] = 2;

	memset(buf, 'A', 2 * 512);
	write_blocks(lu, 40, buf, 2);
	/* compare 'A' (matches), write 'B' */
	memset(buf + 1024, 'B', 1024);
	assert_int_equal(fix_run(&fc, lu, cdb, 16, buf, sizeof(buf)), TCMU_STS_OK);
	read_blocks(lu, 40, back, 2);
	assert_memory_equal(back, buf + 1024, 1024);

	/* compare data differs at byte 700: MISCOMPARE, INFORMATION = 700 */
	memset(buf, 'B', 1024);
	buf[700] = 'C';
	memset(buf + 1024, 'D', 1024);
	fix_run(&fc, lu, cdb, 16, buf, sizeof(buf));
	fix_assert_sense(&fc, SCSI_SK_MISCOMPARE, SCSI_ASC_MISCOMPARE_DURING_VERIFY);
	assert_int_equal(fc.sense[0], 0xf0);    /* VALID */
	assert_int_equal(get_be32(fc.sense + 3), 700);
	read_blocks(lu, 40, back, 2);
	for (int i = 0; i < 1024; i++)
		assert_int_equal(back[i], 'B');     /* nothing written */

	/* data-out must be exactly 2 x NUMBER OF LOGICAL BLOCKS: shorter or
	 * longer is INVALID FIELD IN COMMAND INFORMATION UNIT, nothing written */
	fix_run(&fc, lu, cdb, 16, buf, 3 * 512);
	fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CMD_IU);
	fix_run(&fc, lu, cdb, 16, buf, 5 * 512);
	fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CMD_IU);
	read_blocks(lu, 40, back, 2);
	for (int i = 0; i < 1024; i++)
		assert_int_equal(back[i], 'B');
	/* zero blocks: nothing compared or written, and no data-out allowed (a
	 * count of 256 wraps to 0 in the one-byte field: libiscsi sends that) */
	cdb[13] = 0;
	assert_int_equal(fix_run(&fc, lu, cdb, 16, NULL, 0), TCMU_STS_OK);
	fix_run(&fc, lu, cdb, 16, buf, sizeof(buf));
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 13, -1);
	/* past the end */
	put_be64(cdb + 2, FIX_LBAS - 1);
	cdb[13] = 2;
	fix_run(&fc, lu, cdb, 16, buf, sizeof(buf));
	fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_LBA_OUT_OF_RANGE);
	fix_lu_free(lu);
}

/* Concurrent CAW as a lock (the VAAI ATS pattern): every thread reads the
 * counter in block 8, tries to CAW it to counter+1 and retries on MISCOMPARE.
 * Atomicity means no increment is lost: the final value equals the number of
 * successful CAWs, and each thread's successes add up. */
#define CAW_THREADS 4
#define CAW_INCREMENTS 200

static struct scsi_lu *shared_lu;

static void *caw_worker(void *arg)
{
	long done = 0;
	uint8_t cur[512], buf[1024];
	uint8_t rd[16] = { SCSI_OP_READ_16 }, caw[16] = { SCSI_OP_COMPARE_AND_WRITE };
	put_be64(rd + 2, 8);
	put_be32(rd + 10, 1);
	put_be64(caw + 2, 8);
	caw[13] = 1;
	while (done < CAW_INCREMENTS) {
		struct fix_cmd fc;
		if (fix_run(&fc, shared_lu, rd, 16, cur, sizeof(cur)) != TCMU_STS_OK)
			return (void *)-1L;
		uint64_t v = get_be64(cur);
		memcpy(buf, cur, 512);
		memcpy(buf + 512, cur, 512);
		put_be64(buf + 512, v + 1);
		int rc = fix_run(&fc, shared_lu, caw, 16, buf, sizeof(buf));
		if (rc == TCMU_STS_OK)
			done++;
		else if (fc.sense[2] != SCSI_SK_MISCOMPARE)
			return (void *)-1L;
	}
	return (void *)done;
}

static void test_caw_concurrent(void **state)
{
	pthread_t t[CAW_THREADS];
	long total = 0;
	uint8_t back[512];
	shared_lu = fix_lu_new("caw-mt", FIX_BS, FIX_LBAS);
	for (int i = 0; i < CAW_THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, caw_worker, NULL), 0);
	for (int i = 0; i < CAW_THREADS; i++) {
		void *r;
		pthread_join(t[i], &r);
		assert_true((long)r >= 0);
		total += (long)r;
	}
	assert_int_equal(total, CAW_THREADS * CAW_INCREMENTS);
	read_blocks(shared_lu, 8, back, 1);
	assert_true(get_be64(back) == (uint64_t)total);
	fix_lu_free(shared_lu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_caw),
		cmocka_unit_test(test_caw_concurrent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
