/* test_vpd8f.c - the Third-party Copy VPD page decoded from crafted pages; truncated and
 * garbage pages are refused with the field named. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "client/vpd8f.h"

/* A page in the layout SPC-4 gives (and lunlab's handlers/copy/vpd8f.c emits). */
static const uint8_t page[] = {
	0x00, 0x8f, 0x00, 0x5c,
	/* 0001h supported commands: 83h SA 00h; 84h SAs 00h 03h 04h (len 8 + pad to 12) */
	0x00, 0x01, 0x00, 0x0c, 0x08, 0x83, 0x01, 0x00, 0x84, 0x03, 0x00, 0x03, 0x04, 0x00, 0x00, 0x00,
	/* 0004h parameter data: 32 CSCD, 128 segments, 8192-byte lists, no inline */
	0x00, 0x04, 0x00, 0x1c, 0, 0, 0, 0, 0x00, 0x20, 0x00, 0x80, 0x00, 0x00, 0x20, 0x00,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 8001h general copy operations: 4 total, 2 identified, 16 MiB segments, granularity 2^9 */
	0x80, 0x01, 0x00, 0x20, 0, 0, 0, 4, 0, 0, 0, 2, 0x01, 0x00, 0x00, 0x00, 9, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 000Ch supported CSCD IDs: none */
	0x00, 0x0c, 0x00, 0x04, 0, 0, 0, 0,
};

static void decodes(void **state)
{
	struct tpc_vpd t;
	char err[160];
	assert_int_equal(sizeof(page), 4 + 0x5c);
	assert_int_equal(vpd8f_parse(page, sizeof(page), &t, err, sizeof(err)), 0);
	assert_int_equal(t.descriptors, 4);
	assert_true(t.have_commands);
	assert_true(t.lid1_xcopy);
	assert_false(t.populate_token);
	assert_true(t.have_params);
	assert_int_equal(t.max_cscd, 32);
	assert_int_equal(t.max_segments, 128);
	assert_int_equal(t.max_list_len, 8192);
	assert_int_equal(t.max_inline_len, 0);
	assert_true(t.have_general);
	assert_int_equal(t.total_concurrent, 4);
	assert_int_equal(t.max_identified, 2);
	assert_int_equal(t.max_segment_len, 16u << 20);
	assert_int_equal(t.data_granularity_log2, 9);
	assert_false(t.have_rod);
}

static void rod_limits(void **state)
{
	uint8_t p[4 + 36] = { 0x00, 0x8f, 0x00, 36, 0x00, 0x00, 0x00, 0x20 };
	p[4 + 11] = 64;                               /* max range descriptors */
	p[4 + 27] = 0x80;                             /* max token transfer 128 */
	p[4 + 35] = 0x10;                             /* optimal 16 */
	struct tpc_vpd t;
	char err[160];
	assert_int_equal(vpd8f_parse(p, sizeof(p), &t, err, sizeof(err)), 0);
	assert_true(t.have_rod);
	assert_int_equal(t.max_range_descriptors, 64);
	assert_int_equal(t.max_token_transfer, 128);
	assert_int_equal(t.optimal_transfer_count, 16);
}

/* The ODX descriptors of an array that offers tokens: commands (83h 10h 11h 1Ch, 84h 07h),
 * ROD limits with timeouts, two supported ROD types, ROD token features with the block
 * device's type-specific part. */
static size_t odx_page(uint8_t *p)
{
	size_t o = 4;
	memset(p, 0, 400);
	p[1] = 0x8f;
	/* 0001h: 83h SAs 10h 11h 1Ch, 84h SA 07h: 5 + 3 = 8 list bytes, padded to 12 */
	static const uint8_t cmds[] = { 0x00, 0x01, 0x00, 0x0c, 0x08, 0x83, 0x03, 0x10, 0x11, 0x1c, 0x84, 0x01, 0x07, 0, 0, 0 };
	memcpy(p + o, cmds, sizeof(cmds));
	o += sizeof(cmds);
	/* 0000h: 8 ranges, max timeout 3600 s, default 30 s, 2^21 blocks, optimal 2048 */
	uint8_t *d = p + o;
	d[3] = 0x20;
	d[11] = 8;
	d[14] = 0x0e; d[15] = 0x10;
	d[19] = 30;
	d[25] = 0x20;
	d[34] = 0x08;
	o += 36;
	/* 0108h: 00800000h token in/out preference 1; FFFF0001h token in */
	d = p + o;
	d[0] = 0x01; d[1] = 0x08; d[3] = 4 + 128; d[6] = 0; d[7] = 128;
	d[8] = 0x00; d[9] = 0x80; d[12] = 0x03; d[15] = 1;
	d[72] = 0xff; d[73] = 0xff; d[74] = 0x00; d[75] = 0x01; d[76] = 0x02;
	o += 8 + 128;
	/* 0106h: no remote tokens, lifetimes 1 s / 3600 s, inactivity 3600 s, one block-device part */
	d = p + o;
	d[0] = 0x01; d[1] = 0x06; d[3] = 44 + 48;
	d[19] = 1;
	d[22] = 0x0e; d[23] = 0x10;
	d[26] = 0x0e; d[27] = 0x10;
	d[47] = 48;
	uint8_t *f = d + 48;
	f[3] = 44;
	f[7] = 8;                     /* granularity 8 blocks */
	f[12] = 0x40;                 /* max bytes 1 GiB = 0x40000000 */
	f[20] = 0x01;                 /* optimal 16 MiB = 0x01000000 */
	f[28] = 0x01;                 /* to token 16 MiB */
	f[36] = 0x02;                 /* from token 32 MiB */
	o += 48 + 48;
	p[2] = (uint8_t)((o - 4) >> 8);
	p[3] = (uint8_t)(o - 4);
	return o;
}

static void odx_descriptors(void **state)
{
	uint8_t p[400];
	size_t n = odx_page(p);
	struct tpc_vpd t;
	char err[160];
	if (vpd8f_parse(p, n, &t, err, sizeof(err))) fail_msg("%s", err);
	assert_int_equal(t.descriptors, 4);
	assert_true(t.populate_token);
	assert_true(t.write_using_token);
	assert_true(t.copy_operation_abort);
	assert_true(t.rrti);
	assert_false(t.lid1_xcopy);
	assert_true(t.have_rod);
	assert_int_equal(t.max_range_descriptors, 8);
	assert_int_equal(t.max_inactivity_timeout_s, 3600);
	assert_int_equal(t.default_inactivity_timeout_s, 30);
	assert_int_equal(t.max_token_transfer, 0x200000);
	assert_int_equal(t.optimal_transfer_count, 2048);
	assert_true(t.have_rod_types);
	assert_int_equal(t.n_rod_types, 2);
	assert_int_equal(t.rod_types[0].type, 0x00800000u);
	assert_true(t.rod_types[0].token_in);
	assert_true(t.rod_types[0].token_out);
	assert_false(t.rod_types[0].ecpy_int);
	assert_int_equal(t.rod_types[0].preference, 1);
	assert_int_equal(t.rod_types[1].type, 0xffff0001u);
	assert_true(t.rod_types[1].token_in);
	assert_false(t.rod_types[1].token_out);
	assert_true(t.have_rod_features);
	assert_int_equal(t.remote_tokens, 0);
	assert_int_equal(t.min_token_lifetime_s, 1);
	assert_int_equal(t.max_token_lifetime_s, 3600);
	assert_int_equal(t.max_token_inactivity_s, 3600);
	assert_true(t.have_rod_block_features);
	assert_int_equal(t.optimal_length_granularity, 8);
	assert_int_equal(t.rod_max_bytes, 1u << 30);
	assert_int_equal(t.rod_optimal_bytes, 16u << 20);
	assert_int_equal(t.optimal_bytes_to_token, 16u << 20);
	assert_int_equal(t.optimal_bytes_from_token, 32u << 20);

	/* every truncation of the page (PAGE LENGTH kept): refused with a reason */
	for (size_t k = 4; k < n; k++) {
		err[0] = 0;
		assert_int_equal(vpd8f_parse(p, k, &t, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "PAGE LENGTH"));
	}
	/* ROD types length not a multiple of 64 / past the descriptor */
	size_t rt = 4 + 16 + 36;
	p[rt + 7] = 100;
	assert_int_equal(vpd8f_parse(p, n, &t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "ROD TYPE DESCRIPTORS LENGTH 100 is not a multiple of 64"));
	p[rt + 7] = 192;
	assert_int_equal(vpd8f_parse(p, n, &t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "ROD TYPE DESCRIPTORS LENGTH 192 runs past"));
	n = odx_page(p);
	/* features list longer than its descriptor; a features part longer than its list */
	size_t rf = rt + 8 + 128;
	p[rf + 47] = 60;
	assert_int_equal(vpd8f_parse(p, n, &t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "ROD DEVICE TYPE SPECIFIC FEATURES DESCRIPTORS LENGTH 60"));
	n = odx_page(p);
	p[rf + 48 + 3] = 60;
	assert_int_equal(vpd8f_parse(p, n, &t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "ROD device type 00h features of 64 bytes"));
	/* a features descriptor too short for its lifetimes */
	uint8_t s[4 + 24] = { 0x00, 0x8f, 0x00, 24, 0x01, 0x06, 0x00, 20 };
	assert_int_equal(vpd8f_parse(s, sizeof(s), &t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "ROD token features descriptor has 24 bytes"));
}

static void refuses_bad_pages(void **state)
{
	struct tpc_vpd t;
	char err[160];
	/* every truncation of the page: an error naming what ran out, never a crash */
	for (size_t n = 0; n < sizeof(page); n++) {
		uint8_t *copy = malloc(n ? n : 1);
		memcpy(copy, page, n);
		err[0] = 0;
		assert_int_equal(vpd8f_parse(copy, n, &t, err, sizeof(err)), -1);
		assert_true(err[0] != 0);
		free(copy);
	}
	uint8_t p[sizeof(page)];
	memcpy(p, page, sizeof(p));
	p[1] = 0x83;
	assert_int_equal(vpd8f_parse(p, sizeof(p), &t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "wrong page code"));
	memcpy(p, page, sizeof(p));
	p[7] = 0xff;                                  /* first descriptor longer than the page */
	assert_int_equal(vpd8f_parse(p, sizeof(p), &t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "descriptor 0001h of 259 bytes runs past the page"));
	memcpy(p, page, sizeof(p));
	p[8] = 0x0c;                                  /* command list longer than its descriptor */
	assert_int_equal(vpd8f_parse(p, sizeof(p), &t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "COMMANDS SUPPORTED LIST LENGTH 12"));
	memcpy(p, page, sizeof(p));
	p[10] = 0x09;                                 /* 83h claims 9 service actions */
	assert_int_equal(vpd8f_parse(p, sizeof(p), &t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "opcode 83h lists 9 service actions"));
	/* a parameter-data descriptor too short for its fields */
	uint8_t s[12] = { 0x00, 0x8f, 0x00, 8, 0x00, 0x04, 0x00, 0x04, 0, 0, 0, 0 };
	assert_int_equal(vpd8f_parse(s, sizeof(s), &t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "descriptor 0004h has 8 bytes"));
	/* garbage: no crash; a failure always says why */
	uint32_t seed = 99;
	for (int round = 0; round < 20000; round++) {
		uint8_t g[64] = { 0x00, 0x8f };
		size_t n = 4 + (size_t)(round % 60);
		for (size_t i = 4; i < n; i++) {
			seed = seed * 1664525u + 1013904223u;
			g[i] = (uint8_t)(seed >> 24);
		}
		g[3] = (uint8_t)(n - 4);
		err[0] = 0;
		if (vpd8f_parse(g, n, &t, err, sizeof(err)))
			assert_true(err[0] != 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(decodes),
		cmocka_unit_test(rod_limits),
		cmocka_unit_test(odx_descriptors),
		cmocka_unit_test(refuses_bad_pages),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
