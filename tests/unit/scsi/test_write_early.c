/* test_write_early.c — sbc_write_early.c: what lunlab-target's early
 * Data-Out hook makes of a CDB before the command runs.  CDBs it must not
 * act on (other opcodes, no blocks, an LBA range outside the LU or one
 * that wraps, a read-only LU) get no state and store nothing; a WRITE fed
 * burst by burst and then run with its state reads back with no block left
 * over; a WRITE refused when it runs (software write protect) leaves
 * nothing behind once the host drops its state. */
#include "fixture.h"
#include "handlers/array/array_admin.h"
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"

#define LEN (1u << 20) /* 2048 blocks of 512 bytes: four 256 KiB bursts */

static uint64_t unique_blocks(struct scsi_lu *lu)
{
	struct array_stats s;
	array_flush_accounting(lu->dev.array);
	array_get_stats(lu->dev.array, &s);
	return s.unique_blocks;
}

static void write16(uint8_t *cdb, uint64_t lba, uint32_t n)
{
	memset(cdb, 0, 16);
	cdb[0] = SCSI_OP_WRITE_16;
	put_be64(cdb + 2, lba);
	put_be32(cdb + 10, n);
}

/* Feed buf (len bytes) to the hook as the transport does: after each
 * 256 KiB burst but the last.  The state it kept, or NULL. */
static void *feed(struct scsi_lu *lu, const uint8_t *cdb, uint8_t *buf, size_t len)
{
	struct iovec io = { buf, len };
	void *state = NULL;
	for (size_t got = 256u << 10; got < len; got += 256u << 10)
		sbc_write_early_feed(&lu->dev, cdb, &io, 1, got, &state);
	return state;
}

static void test_cdbs_it_must_not_act_on(void **state)
{
	(void)state;
	struct scsi_lu *lu = fix_lu_new("early-a", FIX_BS, FIX_LBAS);
	static uint8_t buf[LEN];
	uint8_t cdb[16];
	memset(buf, 0x5a, sizeof(buf));

	write16(cdb, 0, LEN / FIX_BS);
	cdb[0] = SCSI_OP_READ_16;
	assert_null(feed(lu, cdb, buf, LEN));
	write16(cdb, 0, LEN / FIX_BS);
	cdb[0] = SCSI_OP_WRITE_SAME_16;
	assert_null(feed(lu, cdb, buf, LEN));
	write16(cdb, 0, 0); /* no blocks */
	assert_null(feed(lu, cdb, buf, LEN));
	write16(cdb, FIX_LBAS, LEN / FIX_BS); /* starts past the end */
	assert_null(feed(lu, cdb, buf, LEN));
	write16(cdb, FIX_LBAS - 100, LEN / FIX_BS); /* runs past the end */
	assert_null(feed(lu, cdb, buf, LEN));
	write16(cdb, UINT64_MAX - 10, LEN / FIX_BS); /* wraps */
	assert_null(feed(lu, cdb, buf, LEN));
	write16(cdb, 0, 0xffffffffu); /* more blocks than the LU */
	assert_null(feed(lu, cdb, buf, LEN));
	lu->readonly = true;
	write16(cdb, 0, LEN / FIX_BS);
	assert_null(feed(lu, cdb, buf, LEN));
	lu->readonly = false;
	assert_int_equal(unique_blocks(lu), 0);
	fix_lu_free(lu);
}

/* Run the WRITE with its state, as handle_cmd does. */
static int run_with(struct fix_cmd *fc, struct scsi_lu *lu, const uint8_t *cdb, uint8_t *buf, void *early)
{
	enum cost_kind kind;
	memset(fc, 0, sizeof(*fc));
	memcpy(fc->cdb, cdb, 16);
	fc->iov.iov_base = buf;
	fc->iov.iov_len = LEN;
	fc->c.dev = &lu->dev;
	fc->c.cdb = fc->cdb;
	fc->c.iov = &fc->iov;
	fc->c.iov_cnt = 1;
	fc->c.iov_len = LEN;
	fc->c.sense = fc->sense;
	fc->c.early = early;
	fc->status = scsi_dispatch(&fc->c, &kind);
	return fc->status;
}

static void test_write_through_its_state(void **state)
{
	(void)state;
	struct scsi_lu *lu = fix_lu_new("early-b", FIX_BS, FIX_LBAS);
	static uint8_t buf[LEN], back[LEN];
	struct fix_cmd fc;
	uint8_t cdb[16];
	uint64_t seed = 0x1234;
	for (size_t i = 0; i < LEN; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		buf[i] = (uint8_t)(seed >> 56);
	}

	write16(cdb, 65, LEN / FIX_BS);
	void *st = feed(lu, cdb, buf, LEN);
	assert_non_null(st);
	assert_int_equal(run_with(&fc, lu, cdb, buf, st), TCMU_STS_OK);
	sbc_write_early_drop(st);
	uint8_t rcdb[16];
	write16(rcdb, 65, LEN / FIX_BS);
	rcdb[0] = 0x88;
	assert_int_equal(fix_run(&fc, lu, rcdb, 16, back, LEN), TCMU_STS_OK);
	assert_memory_equal(back, buf, LEN);
	/* from byte 65 x 512, 1 MiB spans 65 blocks of 16 KiB, none shared */
	assert_int_equal(unique_blocks(lu), 65);

	/* refused when it runs: nothing of what the state stored stays */
	atomic_store(&lu->swp, true);
	for (size_t i = 0; i < LEN; i++)
		buf[i] ^= 0xa5;
	st = feed(lu, cdb, buf, LEN);
	assert_non_null(st);
	run_with(&fc, lu, cdb, buf, st);
	fix_assert_sense(&fc, SCSI_SK_DATA_PROTECT, SCSI_ASC_SOFTWARE_WRITE_PROTECTED);
	sbc_write_early_drop(st);
	assert_int_equal(unique_blocks(lu), 65);
	sbc_write_early_drop(NULL);
	fix_lu_free(lu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cdbs_it_must_not_act_on),
		cmocka_unit_test(test_write_through_its_state),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
