/* test_rsoc.c — TEST UNIT READY, REQUEST SENSE and REPORT SUPPORTED
 * OPERATION CODES (spc_misc.c): both formats, RCTD, reporting options. */
#include "fixture.h"
#include "handlers/scsi/bytes.h"

static struct scsi_lu *lu;
static int setup(void **state) { lu = fix_lu_new("rsoc", FIX_BS, FIX_LBAS); return 0; }
static int teardown(void **state) { fix_lu_free(lu); return 0; }

static void rsoc(struct fix_cmd *fc, uint8_t opts, uint8_t op, uint16_t sa, uint8_t *b, uint32_t len)
{
	uint8_t cdb[12] = { 0xa3, 0x0c, opts, op };
	put_be16(cdb + 4, sa);
	put_be32(cdb + 6, len);
	memset(b, 0xcc, len);
	fix_run(fc, lu, cdb, 12, b, len);
}

static void test_tur_request_sense(void **state)
{
	struct fix_cmd fc;
	uint8_t b[32];
	uint8_t tur[6] = { 0 };
	assert_int_equal(fix_run(&fc, lu, tur, 6, NULL, 0), TCMU_STS_OK);
	uint8_t rs[6] = { 0x03, 0, 0, 0, 32, 0 };
	memset(b, 0xcc, sizeof(b));
	assert_int_equal(fix_run(&fc, lu, rs, 6, b, sizeof(b)), TCMU_STS_OK);
	assert_int_equal(fc.c.bytes_moved, 18);
	assert_int_equal(b[0], 0x70);
	assert_int_equal(b[2], 0);              /* NO SENSE */
	assert_int_equal(b[7], 10);
}

static void test_all_commands(void **state)
{
	struct fix_cmd fc;
	static uint8_t b[4096];
	rsoc(&fc, 0, 0, 0, b, sizeof(b));
	assert_int_equal(fc.status, TCMU_STS_OK);
	uint32_t len = get_be32(b);
	assert_int_equal(len, scsi_op_count() * 8);
	bool saw_read16 = false, saw_rc16 = false;
	for (uint32_t p = 4; p < 4 + len; p += 8) {
		if (b[p] == 0x88) {
			saw_read16 = true;
			assert_int_equal(b[p + 5], 0);          /* no SA, no CTDP */
			assert_int_equal(get_be16(b + p + 6), 16);
		}
		if (b[p] == 0x9e && get_be16(b + p + 2) == 0x10) {
			saw_rc16 = true;
			assert_int_equal(b[p + 5], 0x01);       /* SERVACTV */
		}
	}
	assert_true(saw_read16 && saw_rc16);
	/* RCTD: 20-byte descriptors with a timeouts descriptor of length 0Ah */
	rsoc(&fc, 0x80, 0, 0, b, sizeof(b));
	assert_int_equal(get_be32(b), scsi_op_count() * 20);
	assert_int_equal(b[4 + 5] & 0x02, 0x02);
	assert_int_equal(get_be16(b + 4 + 8), 0x0a);
}

static void test_one_command(void **state)
{
	struct fix_cmd fc;
	uint8_t b[64];
	rsoc(&fc, 1, 0x28, 0, b, sizeof(b));
	assert_int_equal(fc.status, TCMU_STS_OK);
	assert_int_equal(b[1], 0x03);           /* supported */
	assert_int_equal(get_be16(b + 2), 10);
	const uint8_t usage[10] = { 0x28, 0x1e, 0xff, 0xff, 0xff, 0xff, 0x1f, 0xff, 0xff, 0 };
	assert_memory_equal(b + 4, usage, 10);
	/* option 1 on an opcode with service actions: invalid field */
	rsoc(&fc, 1, 0x9e, 0x10, b, sizeof(b));
	fix_assert_field(&fc, 0x24, true, 2, 2);
	/* option 2 with its SA: usage data carries the SA value */
	rsoc(&fc, 2, 0x9e, 0x10, b, sizeof(b));
	assert_int_equal(fc.status, TCMU_STS_OK);
	assert_int_equal(b[4], 0x9e);
	assert_int_equal(b[5], 0x10);
	/* option 2 on an opcode without SAs: invalid field */
	rsoc(&fc, 2, 0x28, 0, b, sizeof(b));
	fix_assert_field(&fc, 0x24, true, 2, 2);
	/* unsupported opcode: SUPPORT 001b */
	rsoc(&fc, 1, 0x3b, 0, b, sizeof(b));
	assert_int_equal(fc.status, TCMU_STS_OK);
	assert_int_equal(b[1], 0x01);
	assert_int_equal(fc.c.bytes_moved, 4);
	/* reserved reporting option */
	rsoc(&fc, 4, 0x28, 0, b, sizeof(b));
	fix_assert_field(&fc, 0x24, true, 2, 2);
	/* RCTD on one command appends timeouts */
	rsoc(&fc, 0x81, 0x2a, 0, b, sizeof(b));
	assert_int_equal(b[1], 0x83);
	assert_int_equal(fc.c.bytes_moved, 4 + 10 + 12);
}

/* the usage bitmaps are what dispatch accepts: setting any bit outside them
 * in a READ(16) CDB is rejected, setting any bit inside is not */
static void test_usage_matches_dispatch(void **state)
{
	struct fix_cmd fc;
	uint8_t b[64], data[512];
	rsoc(&fc, 1, 0x88, 0, b, sizeof(b));
	const uint8_t *usage = b + 4;
	for (int byte = 1; byte < 16; byte++) {
		for (int bit = 0; bit < 8; bit++) {
			if (byte >= 2 && byte <= 13)
				continue;               /* LBA and length: range checks, not usage */
			uint8_t cdb[16] = { 0x88 };
			put_be32(cdb + 10, 1);
			cdb[byte] |= (uint8_t)(1u << bit);
			fix_run(&fc, lu, cdb, 16, data, sizeof(data));
			if (usage[byte] & (1u << bit))
				assert_int_equal(fc.status, TCMU_STS_OK);
			else
				fix_assert_field(&fc, 0x24, true, (uint16_t)byte, bit);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tur_request_sense),
		cmocka_unit_test(test_all_commands),
		cmocka_unit_test(test_one_command),
		cmocka_unit_test(test_usage_matches_dispatch),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
