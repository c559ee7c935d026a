/* test_odx_builder.c - the ODX CDBs and parameter lists byte for byte (SBC-3 POPULATE TOKEN,
 * WRITE USING TOKEN; SPC-4 RRTI, COPY OPERATION ABORT), the RRTI decoder on crafted and
 * truncated answers, and the --explain descriptions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lunlab/scsi_vocab.h"
#include "client/odx_builder.h"

static void pt_exact_bytes(void **state)
{
	struct odx_pt_args a = { .immed = false, .inactivity_timeout_s = 0, .rod_type = 0 };
	struct odx_range r[2] = { { .lba = 0x0102030405060708ull, .blocks = 0x8000 }, { .lba = 9, .blocks = 1 } };
	uint8_t buf[64];
	memset(buf, 0xee, sizeof(buf));
	int len = odx_pt_build(&a, r, 2, buf, sizeof(buf));
	assert_int_equal(len, 48);
	static const uint8_t want[48] = {
		/* DATA LENGTH 46, RTV 0 IMMED 0, timeout 0, ROD type 0, descriptor length 32 */
		0x00, 0x2e, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x00, 0x00, 0x20,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x00, 0x00, 0x80, 0x00, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 1, 0, 0, 0, 0,
	};
	assert_memory_equal(buf, want, sizeof(want));
	assert_int_equal(buf[48], 0xee);

	/* RTV with the point-in-time type, IMMED, a 30 s timeout */
	a = (struct odx_pt_args){ .immed = true, .inactivity_timeout_s = 30, .rod_type = ODX_ROD_TYPE_PIT_DEFAULT };
	len = odx_pt_build(&a, r, 1, buf, sizeof(buf));
	assert_int_equal(len, 32);
	static const uint8_t want_hdr[16] = { 0x00, 0x1e, 0x03, 0x00, 0, 0, 0, 30, 0x00, 0x80, 0x00, 0x00, 0, 0, 0x00, 0x10 };
	assert_memory_equal(buf, want_hdr, 16);

	uint8_t cdb[16];
	odx_pt_cdb(cdb, 0x11223344, 32);
	static const uint8_t want_cdb[16] = { SCSI_OP_THIRD_PARTY_COPY_OUT, SCSI_SA_POPULATE_TOKEN, 0, 0, 0, 0, 0x11, 0x22, 0x33, 0x44, 0, 0, 0, 32, 0, 0 };
	assert_memory_equal(cdb, want_cdb, 16);
}

static void wut_exact_bytes(void **state)
{
	uint8_t token[ODX_TOKEN_LEN];
	for (unsigned i = 0; i < sizeof(token); i++)
		token[i] = (uint8_t)(i * 7 + 1);
	struct odx_wut_args a = { .del_tkn = true, .offset_blocks = 0x10000, .token = token };
	struct odx_range r = { .lba = 0x20000, .blocks = 2048 };
	uint8_t *buf = malloc(600);
	memset(buf, 0xee, 600);
	int len = odx_wut_build(&a, &r, 1, buf, 600);
	assert_int_equal(len, 552);
	static const uint8_t want_hdr[16] = { 0x02, 0x26, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x00, 0x00 };
	assert_memory_equal(buf, want_hdr, 16);
	assert_memory_equal(buf + 16, token, ODX_TOKEN_LEN);
	static const uint8_t want_tail[8] = { 0, 0, 0, 0, 0, 0, 0x00, 0x10 };      /* 528-535 */
	assert_memory_equal(buf + 528, want_tail, 8);
	static const uint8_t want_range[16] = { 0, 0, 0, 0, 0, 0x02, 0x00, 0x00, 0, 0, 0x08, 0x00, 0, 0, 0, 0 };
	assert_memory_equal(buf + 536, want_range, 16);
	assert_int_equal(buf[552], 0xee);

	uint8_t cdb[16];
	odx_wut_cdb(cdb, 7, 552);
	static const uint8_t want_cdb[16] = { SCSI_OP_THIRD_PARTY_COPY_OUT, SCSI_SA_WRITE_USING_TOKEN, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0x02, 0x28, 0, 0 };
	assert_memory_equal(cdb, want_cdb, 16);
	free(buf);
}

static void other_cdbs(void **state)
{
	uint8_t cdb[16];
	odx_rrti_cdb(cdb, 0xa1b2c3d4, ODX_RRTI_ALLOC);
	static const uint8_t want_rrti[16] = { SCSI_OP_THIRD_PARTY_COPY_IN, SCSI_SA_RECEIVE_ROD_TOKEN_INFORMATION, 0xa1, 0xb2, 0xc3, 0xd4, 0, 0, 0, 0, 0, 0, 0x03, 0x22, 0, 0 };
	assert_int_equal(ODX_RRTI_ALLOC, 0x322);
	assert_memory_equal(cdb, want_rrti, 16);
	odx_abort_cdb(cdb, 5);
	static const uint8_t want_abort[16] = { SCSI_OP_THIRD_PARTY_COPY_OUT, SCSI_SA_COPY_OPERATION_ABORT, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	assert_memory_equal(cdb, want_abort, 16);
}

static void refuses_bad_arguments(void **state)
{
	struct odx_pt_args a = { 0 };
	struct odx_range r = { .lba = 0, .blocks = 0 };
	uint8_t buf[600];
	assert_int_equal(odx_pt_build(&a, &r, 1, buf, sizeof(buf)), -1);    /* empty range */
	r.blocks = 1;
	assert_int_equal(odx_pt_build(&a, &r, 0, buf, sizeof(buf)), -1);    /* no range */
	assert_int_equal(odx_pt_build(&a, &r, 1, buf, 31), -1);             /* does not fit */
	assert_int_equal(odx_pt_build(&a, &r, 1, buf, 32), 32);
	struct odx_wut_args w = { .token = NULL };
	assert_int_equal(odx_wut_build(&w, &r, 1, buf, sizeof(buf)), -1);   /* no token */
	uint8_t tok[ODX_TOKEN_LEN] = { 0 };
	w.token = tok;
	assert_int_equal(odx_wut_build(&w, &r, 1, buf, 551), -1);
	assert_int_equal(odx_wut_build(&w, &r, 1, buf, 552), 552);
	/* 4096 ranges need a 65536-byte descriptor length: more than 16 bits */
	struct odx_range *many = calloc(4096, sizeof(*many));
	uint8_t *big = malloc(16 + 4096 * 16);
	for (unsigned i = 0; i < 4096; i++)
		many[i] = (struct odx_range){ .lba = i, .blocks = 1 };
	assert_int_equal(odx_pt_build(&a, many, 4096, big, 16 + 4096 * 16), -1);
	free(many);
	free(big);
}

/* An RRTI answer as SPC-4 lays it out: header, sense_len bytes of sense, token part. */
static size_t rrti_answer(uint8_t *b, uint8_t status, uint64_t count, uint8_t sense_len, bool token)
{
	memset(b, 0, ODX_RRTI_ALLOC);
	size_t len = 32 + sense_len + 4 + (token ? 2 + ODX_TOKEN_LEN : 0);
	b[0] = (uint8_t)((len - 4) >> 24);
	b[1] = (uint8_t)((len - 4) >> 16);
	b[2] = (uint8_t)((len - 4) >> 8);
	b[3] = (uint8_t)(len - 4);
	b[4] = 0x10;                 /* response to POPULATE TOKEN */
	b[5] = status;
	b[7] = 3;                    /* operation counter */
	b[11] = 0;
	b[13] = sense_len;
	b[14] = sense_len;
	b[15] = 0xf1;                /* logical blocks */
	for (int i = 0; i < 8; i++)
		b[16 + i] = (uint8_t)(count >> (56 - 8 * i));
	if (sense_len >= 18) {
		b[32] = 0x70;
		b[34] = 0x05;
		b[44] = 0x23;
		b[45] = 0x07;
	}
	size_t off = 32 + sense_len;
	if (token) {
		b[off + 2] = (2 + ODX_TOKEN_LEN) >> 8;
		b[off + 3] = (2 + ODX_TOKEN_LEN) & 0xff;
		for (unsigned i = 0; i < ODX_TOKEN_LEN; i++)
			b[off + 6 + i] = (uint8_t)(0x5a ^ i);
	}
	return len;
}

static void rrti_decodes(void **state)
{
	uint8_t b[ODX_RRTI_ALLOC];
	struct odx_rrti r;
	char err[160];
	size_t len = rrti_answer(b, ODX_ST_GOOD, 32768, 0, true);
	assert_int_equal(len, 32 + 4 + 2 + 512);
	assert_int_equal(odx_rrti_parse(b, len, &r, err, sizeof(err)), 0);
	assert_int_equal(r.service_action, 0x10);
	assert_int_equal(r.status, ODX_ST_GOOD);
	assert_int_equal(r.operation_counter, 3);
	assert_int_equal(r.transfer_count_units, 0xf1);
	assert_int_equal(r.transfer_count, 32768);
	assert_true(r.have_token);
	assert_int_equal(r.token[0], 0x5a);
	assert_int_equal(r.token[511], (uint8_t)(0x5a ^ 511));
	assert_string_equal(odx_status_name(r.status), "completed without errors");

	/* a partial write with fixed-format sense, no token part */
	len = rrti_answer(b, ODX_ST_RESIDUAL, 100, 18, false);
	assert_int_equal(odx_rrti_parse(b, len, &r, err, sizeof(err)), 0);
	assert_int_equal(r.status, ODX_ST_RESIDUAL);
	assert_int_equal(r.transfer_count, 100);
	assert_int_equal(r.sense_key, 5);
	assert_int_equal(r.asc, 0x23);
	assert_int_equal(r.ascq, 0x07);
	assert_false(r.have_token);
	/* a header-only answer (no token descriptors length) still decodes */
	len = rrti_answer(b, ODX_ST_GOOD, 1, 0, false);
	assert_int_equal(odx_rrti_parse(b, 32, &r, err, sizeof(err)), 0);
	assert_false(r.have_token);
}

static void rrti_refuses_truncated(void **state)
{
	uint8_t b[ODX_RRTI_ALLOC];
	struct odx_rrti r;
	char err[160];
	size_t len = rrti_answer(b, ODX_ST_GOOD, 1, 0, true);
	/* cut in the header: refused; cut inside the token: refused with the field named */
	for (size_t n = 0; n < 32; n++) {
		err[0] = 0;
		assert_int_equal(odx_rrti_parse(b, n, &r, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "header"));
	}
	for (size_t n = 32 + 4 + 1; n < len; n++) {
		err[0] = 0;
		assert_int_equal(odx_rrti_parse(b, n, &r, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "ROD TOKEN DESCRIPTORS LENGTH"));
	}
	/* a sense length past the answer */
	len = rrti_answer(b, ODX_ST_ERROR, 0, 18, false);
	b[13] = 200;
	assert_int_equal(odx_rrti_parse(b, len, &r, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "LENGTH OF THE SENSE DATA FIELD 200"));
	/* AVAILABLE DATA below the header */
	memset(b, 0, 32);
	b[3] = 10;
	assert_int_equal(odx_rrti_parse(b, 32, &r, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "AVAILABLE DATA 10"));
	assert_int_equal(odx_rrti_parse(NULL, 0, &r, err, sizeof(err)), -1);
}

static void describes(void **state)
{
	struct odx_pt_args a = { .rod_type = ODX_ROD_TYPE_PIT_DEFAULT };
	struct odx_range r = { .lba = 256, .blocks = 2048 };
	uint8_t buf[600];
	char text[1024];
	int len = odx_pt_build(&a, &r, 1, buf, sizeof(buf));
	assert_int_equal(odx_pt_describe(buf, (size_t)len, text, sizeof(text)), 0);
	assert_non_null(strstr(text, "ROD type 00800000h (point in time copy)"));
	assert_non_null(strstr(text, "inactivity timeout 0 s (the array's default)"));
	assert_non_null(strstr(text, "range 0: LBA 256, 2048 blocks"));
	assert_int_equal(odx_pt_describe(buf, (size_t)len - 1, text, sizeof(text)), -1);
	assert_non_null(strstr(text, "16 bytes said, 15 there"));

	uint8_t tok[ODX_TOKEN_LEN] = { 0x00, 0x80, 0x00, 0x00, 0, 0, 0x01, 0xf8, 0xab };
	struct odx_wut_args w = { .offset_blocks = 4, .token = tok };
	len = odx_wut_build(&w, &r, 1, buf, sizeof(buf));
	assert_int_equal(odx_wut_describe(buf, (size_t)len, text, sizeof(text)), 0);
	assert_non_null(strstr(text, "offset into ROD 4 blocks"));
	assert_non_null(strstr(text, "ROD token: type 00800000h, length 504, first bytes ab00"));
	assert_int_equal(odx_wut_describe(buf, 100, text, sizeof(text)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pt_exact_bytes),
		cmocka_unit_test(wut_exact_bytes),
		cmocka_unit_test(other_cdbs),
		cmocka_unit_test(refuses_bad_arguments),
		cmocka_unit_test(rrti_decodes),
		cmocka_unit_test(rrti_refuses_truncated),
		cmocka_unit_test(describes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
