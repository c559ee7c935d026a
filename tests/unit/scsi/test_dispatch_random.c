/* test_dispatch_random.c — scsi_dispatch (opcodes.c) with random CDBs and
 * random parameter data for every opcode of the table, against a real LU:
 * every answer must be GOOD or CHECK CONDITION with well-formed fixed sense
 * (ILLEGAL REQUEST, MISCOMPARE, COPY ABORTED or DATA PROTECT), never a crash,
 * and a data-in answer never writes past the buffer it was given (guard
 * bytes).  Deterministic seed, so a failure reproduces. */
#include "lunlab/scsi_vocab.h"
#include "fixture.h"

#define ROUNDS 4000
#define BUF 8192
#define GUARD 64

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint32_t next32(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

static void test_random_cdbs(void **state)
{
	struct scsi_lu *lu = fix_lu_new("rand", FIX_BS, 4096);
	static uint8_t buf[BUF + GUARD];
	struct fix_cmd fc;

	for (int r = 0; r < ROUNDS; r++) {
		const struct scsi_op *op = scsi_op_at(next32() % scsi_op_count());
		uint8_t cdb[16];
		for (int i = 0; i < 16; i++)
			cdb[i] = (uint8_t)next32();
		cdb[0] = op->opcode;
		if (scsi_op_has_sa(op))
			cdb[1] = (uint8_t)((cdb[1] & 0xe0) | op->sa);
		if (next32() & 1)                   /* half the time: only legal bits */
			for (unsigned i = 1; i < scsi_op_cdb_len(op); i++)
				cdb[i] &= (uint8_t)(op->usage[i] | (i == 1 && scsi_op_has_sa(op) ? 0x1f : 0));
		if (next32() & 1) {                 /* and small LBAs / lengths */
			for (unsigned i = 2; i + 1 < scsi_op_cdb_len(op); i++)
				if (next32() % 4)
					cdb[i] = 0;
		}
		size_t len = next32() % (BUF + 1);
		for (size_t i = 0; i < len; i++)
			buf[i] = (uint8_t)next32();
		memset(buf + len, 0xa5, GUARD);
		int st = fix_run(&fc, lu, cdb, scsi_op_cdb_len(op), buf, len);
		for (int g = 0; g < GUARD; g++)
			assert_int_equal(buf[len + g], 0xa5);
		if (st == TCMU_STS_OK)
			continue;
		assert_int_equal(st, TCMU_STS_PASSTHROUGH_ERR);
		assert_int_equal(fc.sense[0] & 0x7f, 0x70);
		assert_int_equal(fc.sense[7], 10);
		uint8_t key = fc.sense[2] & 0x0f;
		if (key != SCSI_SK_ILLEGAL_REQUEST && key != SCSI_SK_MISCOMPARE && key != SCSI_SK_COPY_ABORTED &&
		    key != SCSI_SK_DATA_PROTECT && key != SCSI_SK_HARDWARE_ERROR)
			fail_msg("opcode %02x: sense key %x", op->opcode, key);
	}
	fix_lu_free(lu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_cdbs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
