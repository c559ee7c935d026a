/* test_log.c — LOG SENSE / LOG SELECT (spc_log.c): page list, page 0Ch and
 * 30h against the array's own figures after real writes, page 31h from a
 * real cost model, LOG SELECT PCR resetting it, parameter pointer, errors. */
#include "fixture.h"
#include "handlers/array/array_admin.h"
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"
#include "models/cost.h"
#include "models/cost_virtual.h"
#include "models/vsessions.h"
#include "models/profile.h"

static size_t log_sense(struct scsi_lu *lu, struct fix_cmd *fc, uint8_t page, uint16_t ptr, uint8_t *b, uint16_t len)
{
	uint8_t cdb[10] = { SCSI_OP_LOG_SENSE, 0, (uint8_t)(0x40 | page), 0, 0, 0, 0, 0, 0, 0 };
	put_be16(cdb + 5, ptr);
	put_be16(cdb + 7, len);
	memset(b, 0xcc, len);
	fix_run(fc, lu, cdb, 10, b, len);
	return fc->c.bytes_moved;
}

/* value of an 8-byte parameter code in a page, or fail */
static uint64_t param_u64(const uint8_t *b, uint16_t code)
{
	size_t end = 4 + get_be16(b + 2);
	for (size_t p = 4; p + 4 <= end; p += 4 + b[p + 3]) {
		if (get_be16(b + p) == code) {
			assert_int_equal(b[p + 3], 8);
			return get_be64(b + p + 4);
		}
	}
	fail_msg("parameter %04x missing", code);
	return 0;
}

static void write_blocks(struct scsi_lu *lu, uint64_t lba, uint32_t n, uint8_t v)
{
	struct fix_cmd fc;
	uint8_t *d = malloc(n * 512);
	memset(d, v, n * 512);
	uint8_t cdb[16] = { SCSI_OP_WRITE_16 };
	put_be64(cdb + 2, lba);
	put_be32(cdb + 10, n);
	assert_int_equal(fix_run(&fc, lu, cdb, 16, d, n * 512), TCMU_STS_OK);
	free(d);
}

static void test_supported_and_errors(void **state)
{
	struct scsi_lu *lu = fix_lu_new("log-a", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	uint8_t b[64];
	assert_int_equal(log_sense(lu, &fc, 0x00, 0, b, sizeof(b)), 9);
	const uint8_t want[9] = { 0x00, 0, 0, 5, 0x00, 0x0c, 0x30, 0x31, 0x32 };
	assert_memory_equal(b, want, 9);
	log_sense(lu, &fc, 0x2f, 0, b, sizeof(b));
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 2, 5);
	uint8_t sub[10] = { SCSI_OP_LOG_SENSE, 0, 0x4c, 1, 0, 0, 0, 0, 64, 0 };
	fix_run(&fc, lu, sub, 10, b, sizeof(b));
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 3, -1);
	fix_lu_free(lu);
}

static void test_capacity_pages(void **state)
{
	struct scsi_lu *lu = fix_lu_new("log-b", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	static uint8_t b[2048];
	struct array_stats st;

	/* 4 dedup blocks of one content + 1 of another: dedup 5:2 */
	write_blocks(lu, 0, 4 * 32, 0x11);
	write_blocks(lu, 4 * 32, 32, 0x22);
	array_flush_accounting(lu->dev.array); /* physical_bytes compared below must not move */
	array_get_stats(lu->dev.array, &st);
	assert_true(st.logical_bytes == 5 * 16384);
	assert_true(st.unique_bytes == 2 * 16384);

	log_sense(lu, &fc, 0x30, 0, b, sizeof(b));
	assert_int_equal(fc.status, TCMU_STS_OK);
	assert_int_equal(b[0], 0x30);
	assert_true(param_u64(b, 0x0001) == st.logical_bytes);
	assert_true(param_u64(b, 0x0002) == st.unique_bytes);
	assert_true(param_u64(b, 0x0003) == st.physical_bytes);
	assert_true(param_u64(b, 0x0005) == st.unique_blocks);
	assert_true(param_u64(b, 0x000a) == 16384);
	assert_true(param_u64(b, 0x0010) == 2500);   /* dedup ratio x1000 = 5/2 */
	assert_true(param_u64(b, 0x0020) == 5 * 16384);

	/* parameter pointer: only codes >= 0x0010 */
	log_sense(lu, &fc, 0x30, 0x0010, b, sizeof(b));
	assert_int_equal(get_be16(b + 4), 0x0010);

	/* 0Ch: 4-byte resource counts in blocks (the array has no capacity, so
	 * no thresholds: a threshold set is one block); used is the LU's (scope
	 * 01b), the others the array's (scope 10b) */
	log_sense(lu, &fc, 0x0c, 0, b, sizeof(b));
	assert_int_equal(get_be16(b + 2), 5 * 12);
	assert_int_equal(b[12], 0x02);                         /* available: shared */
	assert_int_equal(get_be16(b + 16), 0x0002);
	assert_int_equal(b[19], 8);
	assert_int_equal(get_be32(b + 20), 5 * 32);            /* used: LBAs mapped */
	assert_int_equal(b[24], 0x01);
	assert_int_equal(get_be16(b + 28), 0x0100);
	assert_int_equal(get_be32(b + 32), 3 * 32);            /* saved by dedup */
	assert_int_equal(b[36], 0x02);
	assert_int_equal(b[48], 0x02);                         /* compressed: shared */
	assert_int_equal(get_be16(b + 52), 0x0102);            /* total efficiency: logical - physical */
	assert_int_equal(get_be32(b + 56), (5 * 16384 - st.physical_bytes) / 512);
	assert_int_equal(b[60], 0x02);
	fix_lu_free(lu);
}

/* Two LUs of one array: each reports the LBAs it mapped itself as used
 * (SBC-4 used LBA mapping resource count, scope dedicated), not the array's
 * logical total; the dedup saving is the array's and the same on both. */
/* Ratios x1000 are rounded down, the rule of docs/accounting.md and drr_recompute.py:
 * 5 logical dedup blocks over 3 unique is 1666.67, reported 1666 (not 1667). */
static void test_ratios_round_down(void **state)
{
	struct scsi_lu *lu = fix_lu_new("log-floor", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	static uint8_t b[2048];
	struct array_stats st;

	write_blocks(lu, 0, 3 * 32, 0x41);
	write_blocks(lu, 3 * 32, 32, 0x42);
	write_blocks(lu, 4 * 32, 32, 0x43);
	array_flush_accounting(lu->dev.array);                 /* the background accounting done */
	array_get_stats(lu->dev.array, &st);
	assert_true(st.logical_bytes == 5 * 16384);
	assert_true(st.unique_bytes == 3 * 16384);
	log_sense(lu, &fc, 0x30, 0, b, sizeof(b));
	assert_int_equal(fc.status, TCMU_STS_OK);
	assert_true(param_u64(b, 0x0010) == 1666);
	assert_true(param_u64(b, 0x0011) == st.unique_bytes * 1000 / st.physical_bytes);
	assert_true(param_u64(b, 0x0012) == st.logical_bytes * 1000 / st.physical_bytes);
	fix_lu_free(lu);
}

static void test_lbp_used_per_lu(void **state)
{
	struct scsi_lu *a = fix_lu_new("log-lbp", FIX_BS, FIX_LBAS);
	struct scsi_lu *bl = fix_lu_new("log-lbp", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	static uint8_t b[512];

	write_blocks(a, 0, 5 * 32, 0x31);                      /* 5 dedup blocks, one content */
	write_blocks(bl, 64, 2 * 32 + 7, 0x31);                /* 2 dedup blocks and 7 LBAs */
	log_sense(a, &fc, 0x0c, 0x0002, b, sizeof(b));
	assert_int_equal(fc.status, TCMU_STS_OK);
	assert_int_equal(get_be16(b + 4), 0x0002);
	assert_int_equal(get_be32(b + 8), 5 * 32);
	assert_int_equal(b[12], 0x01);
	uint32_t saved_a = get_be32(b + 20);
	log_sense(bl, &fc, 0x0c, 0x0002, b, sizeof(b));
	/* the partial dedup block is mapped whole */
	assert_int_equal(get_be32(b + 8), 3 * 32);
	assert_int_equal(b[12], 0x01);
	assert_int_equal(get_be32(b + 20), saved_a);
	fix_lu_free(bl);
	fix_lu_free(a);
}

static void test_telemetry_and_reset(void **state)
{
	struct scsi_lu *lu = fix_lu_new("log-c", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	static uint8_t b[2048];
	char *err = NULL;
	const struct lunlab_profile *p = profile_get("x2", &err);
	assert_non_null(p);
	lu->dev.model = cost_model_get("log-c", p, 0);
	assert_non_null(lu->dev.model);
	struct cost_req r = { .kind = COST_READ, .bytes = 4096 };
	cost_model_charge(lu->dev.model, &r, 1000);
	cost_model_charge(lu->dev.model, &r, 2000);

	log_sense(lu, &fc, 0x31, 0, b, sizeof(b));
	assert_int_equal(fc.status, TCMU_STS_OK);
	assert_true(param_u64(b, 0x0001) == 2);
	assert_true(param_u64(b, 0x0200 + 3) == 2);            /* 4kb bucket */
	assert_true(param_u64(b, 0x0300 + 3) == 8192);
	assert_true(param_u64(b, 0x0008) == 0);                /* time scale 0 */
	assert_true(param_u64(b, 0x000a) == 0);                /* real clock */
	/* x2's host turnaround (13,180 ns per command; per MiB only for XCOPY), summed */
	assert_true(param_u64(b, 0x0009) == 2 * 13180);
	/* resource busy times (0x000B front-end, 0x000C back-end, 0x000D journal) */
	struct cost_telemetry t;
	cost_model_telemetry(lu->dev.model, &t);
	assert_true(t.frontend_busy_ns > 0);
	assert_true(param_u64(b, 0x000b) == t.frontend_busy_ns);
	assert_true(param_u64(b, 0x000c) == t.backend_busy_ns);
	assert_true(param_u64(b, 0x000d) == t.journal_busy_ns);

	uint8_t sel[10] = { SCSI_OP_LOG_SELECT, 0x02, 0x40 | 0x31 };
	assert_int_equal(fix_run(&fc, lu, sel, 10, NULL, 0), TCMU_STS_OK);
	log_sense(lu, &fc, 0x31, 0, b, sizeof(b));
	assert_true(param_u64(b, 0x0001) == 0);
	/* a reset (PCR=1) takes no parameter list (SPC-4 6.8) */
	put_be16(sel + 7, 8);
	uint8_t plist[8] = { 0 };
	fix_run(&fc, lu, sel, 10, plist, sizeof(plist));
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 1, 1);
	/* page 31h's pinned flag (000Eh) is 0 on a LU that did not configure host_streams */
	log_sense(lu, &fc, 0x31, 0, b, sizeof(b));
	assert_true(param_u64(b, 0x000e) == 0);
	cost_model_put(lu->dev.model);

	/* a virtual clock says so, with its number of host streams, and a time scale of 0 */
	lu->dev.model = cost_model_get("log-c-virtual", p, cost_time_virtual(6));
	assert_non_null(lu->dev.model);
	log_sense(lu, &fc, 0x31, 0, b, sizeof(b));
	assert_true(param_u64(b, 0x0008) == 0);
	assert_true(param_u64(b, 0x000a) == 6);
	cost_model_put(lu->dev.model);
	lu->dev.model = NULL;
	fix_lu_free(lu);
}

/* LOG SELECT of page 31h parameter 000Ah: the host says how many commands it keeps
 * outstanding and a virtual clock models that many host streams, unless the LU pinned them. */
static int select_streams(struct scsi_lu *lu, struct fix_cmd *fc, const uint8_t *list, uint16_t len)
{
	uint8_t cdb[10] = { SCSI_OP_LOG_SELECT, 0x00, 0x40 }; /* PCR 0, PC 01b, page code 0: the list names it */
	put_be16(cdb + 7, len);
	return fix_run(fc, lu, cdb, 10, (void *)list, len);
}

static void test_log_select_host_streams(void **state)
{
	struct scsi_lu *lu = fix_lu_new("log-d", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	static uint8_t b[2048];
	const struct lunlab_profile *p = profile_get("x2", NULL);
	uint8_t list[16] = { 0x31, 0x00, 0x00, 12, 0x00, 0x0a, 0x03, 8 };
	put_be64(list + 8, 3);

	lu->dev.model = cost_model_get("log-d-virtual", p, cost_time_virtual(4));
	assert_int_equal(select_streams(lu, &fc, list, sizeof(list)), TCMU_STS_OK);
	log_sense(lu, &fc, 0x31, 0, b, sizeof(b));
	assert_true(param_u64(b, 0x000a) == 3);
	assert_true(param_u64(b, 0x000e) == 0);

	/* every malformed list is refused before anything changes */
	uint8_t bad[16];
	struct { unsigned byte; uint8_t val; uint16_t ptr; int bit; } cases[] = {
		{ 0, 0x30, 0, -1 },       /* another page */
		{ 0, 0x71, 0, 6 },        /* SPF */
		{ 1, 0x01, 1, -1 },       /* a subpage */
		{ 3, 8, 2, -1 },          /* page length short of the list */
		{ 5, 0x09, 4, -1 },       /* another parameter */
		{ 7, 4, 7, -1 },          /* a 4-byte value */
		{ 15, 0, 8, -1 },         /* 0 streams */
	};
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memcpy(bad, list, sizeof(bad));
		bad[cases[i].byte] = cases[i].val;
		select_streams(lu, &fc, bad, sizeof(bad));
		fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, false, cases[i].ptr, cases[i].bit);
	}
	memcpy(bad, list, sizeof(bad));
	put_be64(bad + 8, COST_VIRTUAL_STREAMS_MAX + 1);
	select_streams(lu, &fc, bad, sizeof(bad));
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, false, 8, -1);
	/* a page running past the list, a list too short for its one parameter, or shorter
	 * than a header: PARAMETER LIST LENGTH ERROR */
	memcpy(bad, list, sizeof(bad));
	bad[3] = 13;
	select_streams(lu, &fc, bad, sizeof(bad));
	fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_PARAMETER_LIST_LENGTH_ERROR);
	select_streams(lu, &fc, list, 12);
	fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_PARAMETER_LIST_LENGTH_ERROR);
	select_streams(lu, &fc, list, 3);
	fix_assert_sense(&fc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_PARAMETER_LIST_LENGTH_ERROR);
	/* the CDB: page code must be 0 with a list, PC 01b */
	uint8_t cdb[10] = { SCSI_OP_LOG_SELECT, 0x00, 0x40 | 0x31 };
	put_be16(cdb + 7, sizeof(list));
	fix_run(&fc, lu, cdb, 10, list, sizeof(list));
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 2, 5);
	cdb[2] = 0xc0;
	fix_run(&fc, lu, cdb, 10, list, sizeof(list));
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_CDB, true, 2, 7);
	log_sense(lu, &fc, 0x31, 0, b, sizeof(b));
	assert_true(param_u64(b, 0x000a) == 3);

	/* pinned by the LU's configuration (host_streams=N): refused, unchanged, and said */
	cost_model_pin_virtual_streams(lu->dev.model);
	put_be64(list + 8, 8);
	select_streams(lu, &fc, list, sizeof(list));
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, false, 4, -1);
	log_sense(lu, &fc, 0x31, 0, b, sizeof(b));
	assert_true(param_u64(b, 0x000a) == 3);
	assert_true(param_u64(b, 0x000e) == 1);
	cost_model_put(lu->dev.model);

	/* a real clock has no modeled host */
	lu->dev.model = cost_model_get("log-d-real", p, 1.0);
	select_streams(lu, &fc, list, sizeof(list));
	fix_assert_field(&fc, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, false, 4, -1);
	cost_model_put(lu->dev.model);
	lu->dev.model = NULL;
	fix_lu_free(lu);
}

/* An array with a capacity: 0Ch counts threshold sets (one dedup block, 32
 * LBAs) and reports the free share; 30h the capacity figures. */
static void test_thresholds_and_capacity(void **state)
{
	struct scsi_lu *lu = fix_lu_new("log-cap", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	static uint8_t b[1024];
	char *err = NULL;
	const uint64_t cap = 64ull << 20;

	assert_int_equal(array_set_capacity(lu->dev.array, cap, cap / 2, &err), 0);
	write_blocks(lu, 0, 5 * 32, 0x31);                     /* 5 blocks, one content */
	write_blocks(lu, 5 * 32, 3 * 32 + 1, 0x44);           /* 3 more and 1 LBA of a 4th */
	array_flush_accounting(lu->dev.array);                 /* used = physical from here on */
	struct array_space sp;
	array_get_space(lu->dev.array, &sp);
	struct array_stats st;
	array_get_stats(lu->dev.array, &st);
	assert_int_equal(sp.used_bytes, st.physical_bytes);
	log_sense(lu, &fc, 0x0c, 0, b, sizeof(b));
	assert_int_equal(get_be16(b + 2), 6 * 12);
	assert_int_equal(get_be16(b + 4), 0x0001);
	assert_int_equal(get_be32(b + 8), (cap - sp.used_bytes) / 16384); /* available, in sets */
	assert_int_equal(b[12], 0x02);
	assert_int_equal(get_be16(b + 16), 0x0002);
	assert_int_equal(get_be32(b + 20), 9);                 /* this LU's 9 mapped blocks */
	assert_int_equal(b[24], 0x01);
	assert_int_equal(get_be16(b + 28), 0x0003);
	assert_int_equal(get_be16(b + 32), (cap - sp.used_bytes) * 100 / cap);
	assert_int_equal(b[36], 0x02);
	assert_int_equal(get_be16(b + 40), 0x0100);
	assert_int_equal(get_be32(b + 44), (st.logical_bytes - st.unique_bytes) / 16384);
	assert_int_equal(get_be16(b + 64), 0x0102);
	assert_int_equal(get_be32(b + 68), (st.logical_bytes - st.physical_bytes) / 16384);

	log_sense(lu, &fc, 0x30, 0x0030, b, sizeof(b));
	assert_true(param_u64(b, 0x0030) == cap);
	assert_true(param_u64(b, 0x0031) == cap / 2);
	assert_true(param_u64(b, 0x0032) == sp.used_bytes);
	assert_true(param_u64(b, 0x0033) == 0);
	assert_true(param_u64(b, 0x0034) == FIX_LBAS * FIX_BS);
	assert_true(param_u64(b, 0x0035) == 1);
	fix_lu_free(lu);
}

/* Page 32h: one 56-byte parameter per session that moved data, in nexus order, on a virtual
 * clock whose host is one stream per session; empty otherwise.  Page 31h 0010h says which. */
static void test_sessions_page(void **state)
{
	struct scsi_lu *lu = fix_lu_new("log-s", FIX_BS, FIX_LBAS);
	struct fix_cmd fc;
	static uint8_t b[2048];
	const struct lunlab_profile *p = profile_get("fa420", NULL);

	lu->dev.model = cost_model_get("log-s-pooled", p, cost_time_virtual(4));
	assert_int_equal(log_sense(lu, &fc, 0x32, 0, b, sizeof(b)), 4);
	assert_int_equal(b[0], 0x32);
	assert_int_equal(get_be16(b + 2), 0);
	log_sense(lu, &fc, 0x31, 0, b, sizeof(b));
	assert_true(param_u64(b, 0x0010) == 0);
	cost_model_put(lu->dev.model);

	lu->dev.model = cost_model_get("log-s-sessions", p, cost_time_virtual(1));
	assert_int_equal(cost_model_use_sessions(lu->dev.model), 0);
	const struct cost_req look = { .kind = COST_OTHER }, rd = { .kind = COST_READ, .bytes = 1 << 20 };
	/* sessions 9 and 5 look, then 9 reads twice and 5 once (delivered out of modeled order) */
	cost_model_charge_session(lu->dev.model, &look, 9, NULL, NULL);
	cost_model_charge_session(lu->dev.model, &look, 5, NULL, NULL);
	cost_model_charge_session(lu->dev.model, &rd, 9, NULL, NULL);
	cost_model_charge_session(lu->dev.model, &rd, 9, NULL, NULL);
	cost_model_charge_session(lu->dev.model, &rd, 5, NULL, NULL);
	assert_int_equal(log_sense(lu, &fc, 0x32, 0, b, sizeof(b)), 4 + 2 * 60);
	assert_int_equal(get_be16(b + 2), 120);
	struct vsess_stats st[2];
	uint64_t overflows;
	assert_int_equal(cost_model_session_stats(lu->dev.model, st, 2, &overflows), 2);
	for (unsigned i = 0; i < 2; i++) {
		const uint8_t *q = b + 4 + 60 * i;
		assert_int_equal(get_be16(q), i);
		assert_int_equal(q[2], 0x03);
		assert_int_equal(q[3], 56);
		const uint64_t want[7] = { st[i].nexus, st[i].commands, st[i].bytes, st[i].first_bytes,
					   st[i].first_arrival_ns, st[i].first_completion_ns, st[i].last_completion_ns };
		for (unsigned f = 0; f < 7; f++)
			assert_true(get_be64(q + 4 + 8 * f) == want[f]);
	}
	/* 5 (the lower nexus) was served first, at 0: 1 MiB at 820 MB/s + the fixed 1.6255 ms */
	assert_int_equal(st[0].nexus, 5);
	assert_int_equal(st[0].commands, 1);
	assert_int_equal(st[0].first_arrival_ns, 0);
	assert_int_equal(st[0].first_completion_ns, 1048576000 / 820 + 1625500);
	assert_int_equal(st[1].nexus, 9);
	assert_int_equal(st[1].commands, 2);
	assert_int_equal(st[1].bytes, 2 << 20);
	assert_int_equal(st[1].first_completion_ns, 2 * (1048576000 / 820) + 1625500);
	log_sense(lu, &fc, 0x31, 0, b, sizeof(b));
	assert_true(param_u64(b, 0x0010) == 1);
	assert_true(param_u64(b, 0x0011) == 0);
	/* PARAMETER POINTER: from the second session on */
	uint8_t cdb[10] = { SCSI_OP_LOG_SENSE, 0, 0x40 | 0x32, 0, 0, 0, 1, 0x08, 0 };
	fix_run(&fc, lu, cdb, 10, b, sizeof(b));
	assert_int_equal(get_be16(b + 2), 60);
	assert_true(get_be64(b + 8) == 9);
	cost_model_put(lu->dev.model);
	lu->dev.model = NULL;
	fix_lu_free(lu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_supported_and_errors),
		cmocka_unit_test(test_capacity_pages),
		cmocka_unit_test(test_ratios_round_down),
		cmocka_unit_test(test_thresholds_and_capacity),
		cmocka_unit_test(test_lbp_used_per_lu),
		cmocka_unit_test(test_telemetry_and_reset),
		cmocka_unit_test(test_log_select_host_streams),
		cmocka_unit_test(test_sessions_page),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
