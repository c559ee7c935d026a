/* test_write_atomic.c — WRITE ATOMIC(16) (sbc_write_atomic.c): data reads
 * back, the VPD B0 atomic limits match what the command enforces (exact
 * sense for each), and a reader running beside it never sees half of one
 * atomic write and half of another. */
#include <pthread.h>
#include <stdatomic.h>

#include "fixture.h"
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"

static void wa_cdb(uint8_t *cdb, uint64_t lba, uint16_t n)
{
	memset(cdb, 0, 16);
	cdb[0] = SCSI_OP_WRITE_ATOMIC_16;
	put_be64(cdb + 2, lba);
	put_be16(cdb + 12, n); /* bytes 10-11: ATOMIC BOUNDARY */
}

static void rd_cdb(uint8_t *cdb, uint64_t lba, uint32_t n)
{
	memset(cdb, 0, 16);
	cdb[0] = SCSI_OP_READ_16;
	put_be64(cdb + 2, lba);
	put_be32(cdb + 10, n);
}

static void test_reads_back(void **state)
{
	struct scsi_lu *lu = fix_lu_new("wa-a", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	static uint8_t w[7 * 512], r[7 * 512];
	uint8_t cdb[16];

	for (size_t i = 0; i < sizeof(w); i++)
		w[i] = (uint8_t)(i * 31 + 5);
	wa_cdb(cdb, 61, 7);
	assert_int_equal(fix_run(&fc, lu, cdb, 16, w, sizeof(w)), TCMU_STS_OK);
	assert_int_equal(fc.c.bytes_moved, sizeof(w));
	rd_cdb(cdb, 61, 7);
	assert_int_equal(fix_run(&fc, lu, cdb, 16, r, sizeof(r)), TCMU_STS_OK);
	assert_memory_equal(r, w, sizeof(w));
	fix_lu_free(lu);
}

static void test_limits_and_sense(void **state)
{
	struct scsi_lu *lu = fix_lu_new("wa-b", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	uint8_t b0[64] = { 0 }, w[1024] = { 0 }, cdb[16];
	const uint8_t inq[6] = { SCSI_OP_INQUIRY, 0x01, 0xb0, 0x00, 64, 0 };

	assert_int_equal(fix_run(&fc, lu, inq, 6, b0, sizeof(b0)), TCMU_STS_OK);
	uint32_t max_atomic = get_be32(b0 + 44);
	assert_int_equal(max_atomic, lu->dev.max_xfer_len);         /* MAXIMUM ATOMIC TRANSFER LENGTH */
	assert_true(max_atomic <= get_be32(b0 + 8));                /* <= MAXIMUM TRANSFER LENGTH */
	assert_int_equal(get_be32(b0 + 48), 0);                     /* ATOMIC ALIGNMENT */
	assert_int_equal(get_be32(b0 + 52), 0);                     /* ATOMIC TRANSFER LENGTH GRANULARITY */
	assert_int_equal(get_be32(b0 + 60), 0);                     /* MAXIMUM ATOMIC BOUNDARY SIZE */

	wa_cdb(cdb, 0, (uint16_t)(max_atomic + 1));
	fix_run(&fc, lu, cdb, 16, w, sizeof(w));
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 12, -1);
	wa_cdb(cdb, 0, 1);
	put_be16(cdb + 10, 1);                                      /* an ATOMIC BOUNDARY */
	fix_run(&fc, lu, cdb, 16, w, 512);
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 10, -1);
	wa_cdb(cdb, FIX_LBAS - 1, 2);
	fix_run(&fc, lu, cdb, 16, w, 1024);
	fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_LBA_OUT_OF_RANGE);
	wa_cdb(cdb, FIX_LBAS + 1, 0);                               /* zero blocks past the end */
	fix_run(&fc, lu, cdb, 16, NULL, 0);
	fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_LBA_OUT_OF_RANGE);
	wa_cdb(cdb, 0, 1);
	cdb[1] = 0x40;                                              /* WRPROTECT 010b */
	fix_run(&fc, lu, cdb, 16, w, 512);
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 1, 6);
	wa_cdb(cdb, FIX_LBAS, 0);                                   /* zero blocks at the end: GOOD */
	assert_int_equal(fix_run(&fc, lu, cdb, 16, NULL, 0), TCMU_STS_OK);
	assert_int_equal(volume_mapped_bytes(lu->dev.vol), 0);
	/* a data-out shorter than the blocks named: refused, nothing written
	 * (it used to write zeros for the missing part) */
	memset(w, 0x5a, sizeof(w));
	wa_cdb(cdb, 0, 2);
	fix_run(&fc, lu, cdb, 16, w, 600);
	fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CMD_IU);
	assert_int_equal(volume_mapped_bytes(lu->dev.vol), 0);
	fix_lu_free(lu);
}

/* 48 blocks straddle three 16 KiB dedup blocks, so each write takes several
 * block locks: a reader must still see all A or all B. */
#define SPAN 48

struct race {
	struct scsi_lu *lu;
	atomic_bool stop;
	int torn;
	atomic_int reads;
};

static void *reader(void *p)
{
	struct race *x = p;
	static uint8_t r[SPAN * 512];
	uint8_t cdb[16];
	struct fix_cmd fc;

	while (!atomic_load(&x->stop)) {
		rd_cdb(cdb, 20, SPAN);
		if (fix_run(&fc, x->lu, cdb, 16, r, sizeof(r)) != TCMU_STS_OK)
			continue;
		atomic_fetch_add(&x->reads, 1);
		for (size_t i = 1; i < sizeof(r); i++)
			if (r[i] != r[0]) {
				x->torn++;
				break;
			}
	}
	return NULL;
}

static void test_reader_never_sees_a_torn_write(void **state)
{
	struct race x = { .lu = fix_lu_new("wa-c", FIX_BS, FIX_LBAS) };
	static uint8_t a[SPAN * 512], b[SPAN * 512];
	uint8_t cdb[16];
	struct fix_cmd fc;
	pthread_t t;

	memset(a, 0xaa, sizeof(a));
	memset(b, 0xbb, sizeof(b));
	wa_cdb(cdb, 20, SPAN);
	assert_int_equal(fix_run(&fc, x.lu, cdb, 16, a, sizeof(a)), TCMU_STS_OK);
	atomic_init(&x.stop, false);
	atomic_init(&x.reads, 0);
	assert_int_equal(pthread_create(&t, NULL, reader, &x), 0);
	/* at least 2000 writes, and on until the reader has checked 50 reads
	 * (a loaded machine may start it late) */
	for (int i = 0; i < 2000 || (atomic_load(&x.reads) < 50 && i < 1000000); i++)
		assert_int_equal(fix_run(&fc, x.lu, cdb, 16, (i & 1) ? a : b, sizeof(a)), TCMU_STS_OK);
	atomic_store(&x.stop, true);
	pthread_join(t, NULL);
	assert_true(atomic_load(&x.reads) >= 50);
	assert_int_equal(x.torn, 0);
	fix_lu_free(x.lu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reads_back),
		cmocka_unit_test(test_limits_and_sense),
		cmocka_unit_test(test_reader_never_sees_a_torn_write),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
