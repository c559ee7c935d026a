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
		cmocka_unit_test(refuses_bad_pages),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
