/* test_rsoc.c — TEST UNIT READY, REQUEST SENSE and REPORT SUPPORTED
 * OPERATION CODES (spc_misc.c): both formats, RCTD, reporting options, and
 * the commands the host answers before the handler (listed, not run). */
#include "fixture.h"
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"
#include "models/profile.h"
#include "handlers/copy/copy.h"
#include "handlers/copy/odx_token.h"

static struct scsi_lu *lu;
static int setup(void **state) { lu = fix_lu_new("rsoc", FIX_BS, FIX_LBAS); return 0; }
static int teardown(void **state) { fix_lu_free(lu); return 0; }

static void rsoc(struct fix_cmd *fc, uint8_t opts, uint8_t op, uint16_t sa, uint8_t *b, uint32_t len)
{
	uint8_t cdb[12] = { SCSI_OP_MAINTENANCE_IN, SCSI_SA_REPORT_SUPPORTED_OPCODES, opts, op };
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
	uint8_t rs[6] = { SCSI_OP_REQUEST_SENSE, 0, 0, 0, 32, 0 };
	memset(b, 0xcc, sizeof(b));
	assert_int_equal(fix_run(&fc, lu, rs, 6, b, sizeof(b)), TCMU_STS_OK);
	assert_int_equal(fc.c.bytes_moved, 18);
	assert_int_equal(b[0], 0x70);
	assert_int_equal(b[2], 0);              /* NO SENSE */
	assert_int_equal(b[7], 10);
}

/* The commands this LU serves: all of the table but ODX's four, as the
 * fixture's LU has no profile offering ODX (test_odx_rsoc has one). */
static size_t offered_count(void)
{
	size_t n = 0;
	for (size_t i = 0; i < scsi_op_count(); i++)
		n += scsi_op_offered(scsi_op_at(i), &lu->dev);
	return n;
}

static void test_all_commands(void **state)
{
	struct fix_cmd fc;
	static uint8_t b[4096];
	rsoc(&fc, 0, 0, 0, b, sizeof(b));
	assert_int_equal(fc.status, TCMU_STS_OK);
	uint32_t len = get_be32(b);
	assert_int_equal(offered_count(), scsi_op_count() - 4);
	assert_int_equal(len, offered_count() * 8);
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
	assert_int_equal(get_be32(b), offered_count() * 20);
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
	const uint8_t usage[10] = { SCSI_OP_READ_10, 0x1e, 0xff, 0xff, 0xff, 0xff, 0x1f, 0xff, 0xff, 0 };
	assert_memory_equal(b + 4, usage, 10);
	/* option 1 on an opcode with service actions: invalid field */
	rsoc(&fc, 1, 0x9e, 0x10, b, sizeof(b));
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 2, 2);
	/* option 2 with its SA: usage data carries the SA value */
	rsoc(&fc, 2, 0x9e, 0x10, b, sizeof(b));
	assert_int_equal(fc.status, TCMU_STS_OK);
	assert_int_equal(b[4], 0x9e);
	assert_int_equal(b[5], 0x10);
	/* option 2 on an opcode without SAs: invalid field */
	rsoc(&fc, 2, 0x28, 0, b, sizeof(b));
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 2, 2);
	/* unsupported opcode: SUPPORT 001b */
	rsoc(&fc, 1, 0x3b, 0, b, sizeof(b));
	assert_int_equal(fc.status, TCMU_STS_OK);
	assert_int_equal(b[1], 0x01);
	assert_int_equal(fc.c.bytes_moved, 4);
	/* reserved reporting option */
	rsoc(&fc, 4, 0x28, 0, b, sizeof(b));
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 2, 2);
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
			uint8_t cdb[16] = { SCSI_OP_READ_16 };
			put_be32(cdb + 10, 1);
			cdb[byte] |= (uint8_t)(1u << bit);
			fix_run(&fc, lu, cdb, 16, data, sizeof(data));
			if (usage[byte] & (1u << bit))
				assert_int_equal(fc.status, TCMU_STS_OK);
			else
				fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, (uint16_t)byte, bit);
		}
	}
}

/* Commands the host answers before the handler (PR IN/OUT, RESERVE/RELEASE,
 * REPORT LUNS, opcodes.c LU_LAYER) are listed with their SPC-4 usage data
 * but never dispatched: sent to the handler they still get INVALID COMMAND
 * OPERATION CODE, as before they were listed. */
static void expect_one(uint8_t opts, uint8_t op, uint16_t sa, const uint8_t *usage, size_t cdb_len)
{
	struct fix_cmd fc;
	uint8_t b[64];
	uint8_t head[4] = { 0, 0x03, 0, (uint8_t)cdb_len };

	rsoc(&fc, opts, op, sa, b, sizeof(b));
	assert_int_equal(fc.status, TCMU_STS_OK);
	assert_int_equal(fc.c.bytes_moved, 4 + cdb_len);
	assert_memory_equal(b, head, 4);
	assert_memory_equal(b + 4, usage, cdb_len);
}

static void test_lu_layer_commands_listed(void **state)
{
	static const uint8_t pri[4][10] = {
		{ 0x5e, 0x00, 0, 0, 0, 0, 0, 0xff, 0xff, 0 }, { 0x5e, 0x01, 0, 0, 0, 0, 0, 0xff, 0xff, 0 },
		{ 0x5e, 0x02, 0, 0, 0, 0, 0, 0xff, 0xff, 0 }, { 0x5e, 0x03, 0, 0, 0, 0, 0, 0xff, 0xff, 0 },
	};
	/* SCOPE/TYPE: used by RESERVE, RELEASE, PREEMPT (AND ABORT); ignored by
	 * REGISTER, CLEAR, REGISTER AND IGNORE EXISTING KEY */
	static const uint8_t pro[7][10] = {
		{ 0x5f, 0x00, 0x00, 0, 0, 0xff, 0xff, 0xff, 0xff, 0 },
		{ 0x5f, 0x01, 0xff, 0, 0, 0xff, 0xff, 0xff, 0xff, 0 },
		{ 0x5f, 0x02, 0xff, 0, 0, 0xff, 0xff, 0xff, 0xff, 0 },
		{ 0x5f, 0x03, 0x00, 0, 0, 0xff, 0xff, 0xff, 0xff, 0 },
		{ 0x5f, 0x04, 0xff, 0, 0, 0xff, 0xff, 0xff, 0xff, 0 },
		{ 0x5f, 0x05, 0xff, 0, 0, 0xff, 0xff, 0xff, 0xff, 0 },
		{ 0x5f, 0x06, 0x00, 0, 0, 0xff, 0xff, 0xff, 0xff, 0 },
	};
	static const uint8_t res6[6] = { SCSI_OP_RESERVE_6 }, rel6[6] = { SCSI_OP_RELEASE_6 };
	static const uint8_t res10[10] = { SCSI_OP_RESERVE_10 }, rel10[10] = { SCSI_OP_RELEASE_10 };
	static const uint8_t rluns[12] = { SCSI_OP_REPORT_LUNS, 0, 0xff, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0 };
	struct fix_cmd fc;
	uint8_t b[64];

	for (uint16_t sa = 0; sa < 4; sa++) {
		expect_one(2, 0x5e, sa, pri[sa], 10);
		expect_one(3, 0x5e, sa, pri[sa], 10);
	}
	for (uint16_t sa = 0; sa < 7; sa++)
		expect_one(2, 0x5f, sa, pro[sa], 10);
	expect_one(1, 0x16, 0, res6, 6);
	expect_one(1, 0x17, 0, rel6, 6);
	expect_one(1, 0x56, 0, res10, 10);
	expect_one(3, 0x57, 0, rel10, 10);
	expect_one(1, 0xa0, 0, rluns, 12);
	/* PR IN 04h and REGISTER AND MOVE (5Fh/07h): not supported */
	rsoc(&fc, 2, 0x5e, 4, b, sizeof(b));
	assert_int_equal(fc.status, TCMU_STS_OK);
	assert_int_equal(b[1], 0x01);
	assert_int_equal(fc.c.bytes_moved, 4);
	rsoc(&fc, 2, 0x5f, 7, b, sizeof(b));
	assert_int_equal(b[1], 0x01);
	assert_int_equal(fc.c.bytes_moved, 4);
	/* they have service actions: option 1 is an invalid field */
	rsoc(&fc, 1, 0x5e, 0, b, sizeof(b));
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 2, 2);
	/* RESERVE(6) has none: option 2 is an invalid field */
	rsoc(&fc, 2, 0x16, 0, b, sizeof(b));
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 2, 2);
}

/* each appears exactly once in the all-commands list, with SERVACTV and the
 * service action for PR IN/OUT */
static void test_lu_layer_commands_in_all(void **state)
{
	struct fix_cmd fc;
	static uint8_t b[4096];
	int seen_pri[4] = { 0 }, seen_pro[7] = { 0 }, seen[256] = { 0 };

	rsoc(&fc, 0, 0, 0, b, sizeof(b));
	assert_int_equal(fc.status, TCMU_STS_OK);
	uint32_t len = get_be32(b);
	for (uint32_t p = 4; p < 4 + len; p += 8) {
		uint16_t sa = get_be16(b + p + 2);
		if (b[p] == 0x5e || b[p] == 0x5f) {
			assert_int_equal(b[p + 5], 0x01); /* SERVACTV */
			assert_int_equal(get_be16(b + p + 6), 10);
			if (b[p] == 0x5e) {
				assert_true(sa < 4);
				seen_pri[sa]++;
			} else {
				assert_true(sa < 7);
				seen_pro[sa]++;
			}
			continue;
		}
		seen[b[p]]++;
	}
	for (int i = 0; i < 4; i++)
		assert_int_equal(seen_pri[i], 1);
	for (int i = 0; i < 7; i++)
		assert_int_equal(seen_pro[i], 1);
	assert_int_equal(seen[0x16], 1);
	assert_int_equal(seen[0x17], 1);
	assert_int_equal(seen[0x56], 1);
	assert_int_equal(seen[0x57], 1);
	assert_int_equal(seen[0xa0], 1);
}

static void test_lu_layer_commands_not_dispatched(void **state)
{
	static const uint8_t cdbs[][12] = {
		{ 0x5e, 0x00, 0, 0, 0, 0, 0, 0, 8, 0 },          /* PR IN READ KEYS */
		{ 0x5e, 0x03, 0, 0, 0, 0, 0, 0, 8, 0 },          /* PR IN READ FULL STATUS */
		{ 0x5f, 0x00, 0, 0, 0, 0, 0, 0, 24, 0 },         /* PR OUT REGISTER */
		{ 0x5f, 0x01, 0x01, 0, 0, 0, 0, 0, 24, 0 },      /* PR OUT RESERVE, WE */
		{ 0x5f, 0x06, 0, 0, 0, 0, 0, 0, 24, 0 },         /* PR OUT REGISTER AND IGNORE */
		{ 0x16 }, { 0x17 }, { 0x56 }, { 0x57 },
		{ 0xa0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0 },    /* REPORT LUNS */
	};
	static const uint8_t lens[] = { 10, 10, 10, 10, 10, 6, 6, 10, 10, 12 };
	struct fix_cmd fc;
	uint8_t b[64];

	for (size_t i = 0; i < sizeof(lens); i++) {
		memset(b, 0xcc, sizeof(b));
		fix_run(&fc, lu, cdbs[i], lens[i], b, sizeof(b));
		fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_OPCODE);
		assert_int_equal(fc.c.bytes_moved, 0);
		assert_int_equal(b[0], 0xcc);                          /* nothing written */
	}
}

/* ODX's commands: listed with their usage data, and served, only when the
 * LU's profile offers ODX; otherwise "not supported" and 05/20/00. */
static void tb_put32_rrti(uint8_t *cdb)
{
	put_be32(cdb + 2, 0x7777);   /* a list identifier nothing used */
	put_be32(cdb + 10, 64);
}

static void test_odx_rsoc(void **state)
{
	struct fix_cmd fc;
	uint8_t b[64];
	struct lunlab_profile prof = { .odx = true, .odx_max_ranges = 8, .odx_max_token_bytes = 1 << 20,
				       .odx_default_timeout_s = 10, .odx_max_timeout_s = 20 };
	uint8_t rrti[16] = { SCSI_OP_THIRD_PARTY_COPY_IN, SCSI_SA_RECEIVE_ROD_TOKEN_INFORMATION };

	rsoc(&fc, 2, SCSI_OP_THIRD_PARTY_COPY_OUT, SCSI_SA_POPULATE_TOKEN, b, sizeof(b));
	assert_int_equal(fc.status, TCMU_STS_OK);
	assert_int_equal(b[1] & 0x07, 0x01);     /* not supported */
	tb_put32_rrti(rrti);
	fix_run(&fc, lu, rrti, 16, b, sizeof(b));
	fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_OPCODE);

	const struct lunlab_profile *saved = lu->dev.profile;
	lu->dev.profile = &prof;
	static const uint8_t usage_pt[16] = { SCSI_OP_THIRD_PARTY_COPY_OUT, SCSI_SA_POPULATE_TOKEN, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,
					      0xff, 0xff, 0xff, 0xff, 0x1f, 0 };
	rsoc(&fc, 2, SCSI_OP_THIRD_PARTY_COPY_OUT, SCSI_SA_POPULATE_TOKEN, b, sizeof(b));
	assert_int_equal(b[1] & 0x07, 0x03);
	assert_int_equal(get_be16(b + 2), 16);
	assert_memory_equal(b + 4, usage_pt, 16);
	static const uint8_t usage_rrti[16] = { SCSI_OP_THIRD_PARTY_COPY_IN, SCSI_SA_RECEIVE_ROD_TOKEN_INFORMATION, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0,
						0xff, 0xff, 0xff, 0xff, 0, 0 };
	rsoc(&fc, 2, SCSI_OP_THIRD_PARTY_COPY_IN, SCSI_SA_RECEIVE_ROD_TOKEN_INFORMATION, b, sizeof(b));
	assert_memory_equal(b + 4, usage_rrti, 16);
	rsoc(&fc, 2, SCSI_OP_THIRD_PARTY_COPY_OUT, SCSI_SA_WRITE_USING_TOKEN, b, sizeof(b));
	assert_int_equal(b[1] & 0x07, 0x03);
	rsoc(&fc, 2, SCSI_OP_THIRD_PARTY_COPY_OUT, SCSI_SA_COPY_OPERATION_ABORT, b, sizeof(b));
	assert_int_equal(b[1] & 0x07, 0x03);
	/* all four in the full list now */
	static uint8_t all[4096];
	rsoc(&fc, 0, 0, 0, all, sizeof(all));
	assert_int_equal(get_be32(all), scsi_op_count() * 8);
	/* served: an unknown list identifier is 05/24/00 at CDB byte 2, not 05/20/00 */
	fix_run(&fc, lu, rrti, 16, b, sizeof(b));
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 2, -1);
	/* dispatch's checks apply: a reserved CDB bit, and WRITE USING TOKEN to a
	 * write-protected LU answers as a WRITE would (07/27/00, SWP 07/27/02) */
	static uint8_t wut_list[552];
	uint8_t wut[16] = { SCSI_OP_THIRD_PARTY_COPY_OUT, SCSI_SA_WRITE_USING_TOKEN };
	put_be32(wut + 10, sizeof(wut_list));
	wut[2] = 0x01;
	fix_run(&fc, lu, wut, 16, wut_list, sizeof(wut_list));
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 2, 0);
	wut[2] = 0;
	lu->readonly = true;
	fix_run(&fc, lu, wut, 16, wut_list, sizeof(wut_list));
	fix_assert_sense(&fc, SCSI_SK_DATA_PROTECT, SCSI_ASC_WRITE_PROTECTED);
	lu->readonly = false;
	atomic_store(&lu->swp, true);
	fix_run(&fc, lu, wut, 16, wut_list, sizeof(wut_list));
	fix_assert_sense(&fc, SCSI_SK_DATA_PROTECT, SCSI_ASC_SOFTWARE_WRITE_PROTECTED);
	atomic_store(&lu->swp, false);
	/* a read-only LU may still be a token's source: POPULATE TOKEN is no write */
	lu->readonly = true;
	static uint8_t pt_list[32] = { 0, 30 };
	pt_list[15] = 16;
	pt_list[27] = 8;                         /* LBA 0, 8 blocks */
	uint8_t pt[16] = { SCSI_OP_THIRD_PARTY_COPY_OUT, SCSI_SA_POPULATE_TOKEN };
	put_be32(pt + 10, sizeof(pt_list));
	assert_int_equal(fix_run(&fc, lu, pt, 16, pt_list, sizeof(pt_list)), TCMU_STS_OK);
	lu->readonly = false;
	assert_int_equal(odx_tokens_live(&lu->dev), 1);
	copy_dev_forget(&lu->dev);               /* the LU closes: its token goes (and its hold) */
	assert_int_equal(odx_tokens_live(&lu->dev), 0);
	lu->dev.profile = saved;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tur_request_sense),
		cmocka_unit_test(test_all_commands),
		cmocka_unit_test(test_one_command),
		cmocka_unit_test(test_usage_matches_dispatch),
		cmocka_unit_test(test_lu_layer_commands_listed),
		cmocka_unit_test(test_lu_layer_commands_in_all),
		cmocka_unit_test(test_lu_layer_commands_not_dispatched),
		cmocka_unit_test(test_odx_rsoc),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
