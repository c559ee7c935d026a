/* test_sync.c — cache management (sbc_sync.c) and when scsi_dispatch makes
 * a command durable: in memory SYNCHRONIZE CACHE only checks its range; in a
 * state directory it commits the array, and so do a write with FUA, WRITE
 * AND VERIFY, and every write of a LU whose WCE is 0 (SBC-4 4.15,
 * docs/persistence.md).  A commit shows in the array's commit count. */
#include "fixture.h"
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"

static uint64_t commits(struct scsi_lu *lu)
{
	struct array_state_usage u;

	assert_int_equal(array_state_usage(lu->dev.array, &u), 0);
	return u.commits;
}

static void write10(struct fix_cmd *fc, struct scsi_lu *lu, uint8_t op, uint8_t flags, uint32_t lba)
{
	uint8_t cdb[10] = { op, flags }, data[512];

	put_be32(cdb + 2, lba);
	cdb[8] = 1;
	memset(data, (int)lba + 1, sizeof(data));
	fix_run(fc, lu, cdb, 10, data, sizeof(data));
	assert_int_equal(fc->status, TCMU_STS_OK);
}

static void test_memory(void **state)
{
	struct scsi_lu *lu = fix_lu_new("sync-mem", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	uint8_t sc10[10] = { SCSI_OP_SYNCHRONIZE_CACHE_10 }, sc16[16] = { SCSI_OP_SYNCHRONIZE_CACHE_16 };

	(void)state;
	fix_run(&fc, lu, sc10, 10, NULL, 0);
	assert_int_equal(fc.status, TCMU_STS_OK);
	put_be64(sc16 + 2, FIX_LBAS);               /* past the end */
	put_be32(sc16 + 10, 1);
	fix_run(&fc, lu, sc16, 16, NULL, 0);
	fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_LBA_OUT_OF_RANGE);
	write10(&fc, lu, 0x2a, 0x08, 7);            /* FUA: nothing to wait for */
	assert_int_equal(array_sync(lu->dev.array), 0);
	fix_lu_free(lu);
}

static void test_state_dir(void **state)
{
	char dir[] = "/tmp/lunlab-sync-state.XXXXXX", rm[64];
	struct fix_cmd fc;
	uint8_t sc10[10] = { SCSI_OP_SYNCHRONIZE_CACHE_10 };
	uint64_t c;

	(void)state;
	assert_non_null(mkdtemp(dir));
	struct scsi_lu *lu = fix_lu_new_state("sync-state", FIX_BS, FIX_LBAS, dir);
	/* SYNCHRONIZE CACHE after a write: a commit when it returns */
	write10(&fc, lu, 0x2a, 0x00, 1);
	c = commits(lu);
	fix_run(&fc, lu, sc10, 10, NULL, 0);
	assert_int_equal(fc.status, TCMU_STS_OK);
	assert_true(commits(lu) > c);
	/* FUA, WRITE AND VERIFY: each returns committed */
	c = commits(lu);
	write10(&fc, lu, 0x2a, 0x08, 2);
	assert_true(commits(lu) > c);
	c = commits(lu);
	write10(&fc, lu, 0x2e, 0x00, 3);
	assert_true(commits(lu) > c);
	/* WCE=0: every write */
	atomic_store(&lu->wce, false);
	c = commits(lu);
	write10(&fc, lu, 0x2a, 0x00, 4);
	assert_true(commits(lu) > c);
	c = commits(lu);
	uint8_t unmap[10] = { SCSI_OP_UNMAP, 0, 0, 0, 0, 0, 0, 0, 24, 0 }, ul[24] = { 0, 22, 0, 16 };
	put_be64(ul + 8, 4);
	put_be32(ul + 16, 1);
	fix_run(&fc, lu, unmap, 10, ul, sizeof(ul));
	assert_int_equal(fc.status, TCMU_STS_OK);
	assert_true(commits(lu) > c);
	fix_lu_free(lu);
	snprintf(rm, sizeof(rm), "rm -rf %s", dir);
	assert_int_equal(system(rm), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_state_dir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
