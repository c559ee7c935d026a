/* test_odx_parse.c — every check of odx_parse.c on POPULATE TOKEN and WRITE
 * USING TOKEN parameter lists, with the exact sense of docs/xcopy.md's table
 * (key, ASC, ASCQ, SKSV, field byte), and full parses of valid lists. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "handlers/copy/odx_parse.h"
#include "tests/unit/copy/odx_list_builder.h"

static uint8_t buf[536 + 16 * 32];
static uint8_t token[512];
/* an LU of 10000 blocks, 4 ranges, 5000 blocks per token, timeouts 60/600 */
static const struct odx_limits lim = {
	.offered = true, .max_ranges = 4, .max_token_blocks = 5000,
	.default_timeout_s = 60, .max_timeout_s = 600, .num_lbas = 10000,
};

static void expect_pt(size_t len, uint8_t asc, uint8_t ascq, bool sksv, uint16_t byte)
{
	struct odx_pt_list l;
	struct xcopy_err e;

	assert_false(odx_parse_pt(buf, len, &lim, &l, &e));
	assert_int_equal(e.key, 0x05);
	assert_int_equal(e.asc, asc);
	assert_int_equal(e.ascq, ascq);
	assert_int_equal(e.sksv, sksv);
	if (sksv) {
		assert_int_equal(e.field_byte, byte);
		assert_int_equal(e.field_bit, -1);
	}
}

static void expect_wut(size_t len, uint8_t asc, uint8_t ascq, bool sksv, uint16_t byte)
{
	struct odx_wut_list l;
	struct xcopy_err e;

	assert_false(odx_parse_wut(buf, len, &lim, &l, &e));
	assert_int_equal(e.key, 0x05);
	assert_int_equal(e.asc, asc);
	assert_int_equal(e.ascq, ascq);
	assert_int_equal(e.sksv, sksv);
	if (sksv)
		assert_int_equal(e.field_byte, byte);
}

static void test_pt_valid(void **state)
{
	uint64_t lba[3] = { 0, 100, 9990 };
	uint32_t nb[3] = { 8, 0, 10 };
	struct odx_pt_list l;
	struct xcopy_err e;
	size_t len = ob_pt(buf, true, true, 30, 0x00800000, 3, lba, nb);

	assert_true(odx_parse_pt(buf, len, &lim, &l, &e));
	assert_true(l.immed);
	assert_true(l.rtv);
	assert_int_equal(l.timeout_s, 30);
	assert_int_equal(l.rod_type, 0x00800000);
	assert_int_equal(l.ranges.n, 3);
	assert_int_equal(l.ranges.r[2].lba, 9990);
	assert_int_equal(l.ranges.r[2].nblocks, 10);
	assert_int_equal(l.ranges.total_blocks, 18);
	/* RTV clear: the ROD type field is not looked at */
	len = ob_pt(buf, false, false, 0, 0x12345678, 1, lba, nb);
	assert_true(odx_parse_pt(buf, len, &lim, &l, &e));
	assert_false(l.immed);
	assert_int_equal(l.ranges.total_blocks, 8);
}

static void test_pt_lengths(void **state)
{
	uint64_t lba[2] = { 0, 100 };
	uint32_t nb[2] = { 8, 8 };
	size_t len = ob_pt(buf, false, false, 0, 0, 2, lba, nb);

	/* shorter than the header: 05/26/00 at the DATA LENGTH */
	expect_pt(15, 0x26, 0x00, true, 0);
	/* DATA LENGTH beyond what arrived */
	tb_put16(buf, (uint16_t)len);
	expect_pt(len, 0x26, 0x00, true, 0);
	/* DATA LENGTH below the header */
	tb_put16(buf, 10);
	expect_pt(len, 0x26, 0x00, true, 0);
	tb_put16(buf, (uint16_t)(len - 2));
	/* range descriptor length: 0, not a multiple of 16, past the data */
	tb_put16(buf + 14, 0);
	expect_pt(len, 0x26, 0x00, true, 14);
	tb_put16(buf + 14, 24);
	expect_pt(len, 0x26, 0x00, true, 14);
	tb_put16(buf + 14, 48);
	expect_pt(len, 0x26, 0x00, true, 14);
}

static void test_pt_too_many_ranges(void **state)
{
	uint64_t lba[5] = { 0, 10, 20, 30, 40 };
	uint32_t nb[5] = { 1, 1, 1, 1, 1 };
	struct odx_pt_list l;
	struct xcopy_err e;

	assert_true(odx_parse_pt(buf, ob_pt(buf, false, false, 0, 0, 4, lba, nb), &lim, &l, &e));
	/* one more than the profile's maximum: 05/26/08 TOO MANY SEGMENT DESCRIPTORS */
	expect_pt(ob_pt(buf, false, false, 0, 0, 5, lba, nb), 0x26, 0x08, true, 14);
}

static void test_pt_ranges_beyond_and_overlapping(void **state)
{
	uint64_t lba[2] = { 9999, 0 };
	uint32_t nb[2] = { 2, 1 };

	/* past the end of the LU: 05/21/00 */
	expect_pt(ob_pt(buf, false, false, 0, 0, 1, lba, nb), 0x21, 0x00, false, 0);
	lba[0] = 10001;   /* even with no blocks, the LBA must be inside the LU */
	nb[0] = 0;
	expect_pt(ob_pt(buf, false, false, 0, 0, 1, lba, nb), 0x21, 0x00, false, 0);
	lba[0] = UINT64_MAX;
	nb[0] = 2;
	expect_pt(ob_pt(buf, false, false, 0, 0, 1, lba, nb), 0x21, 0x00, false, 0);
	/* the last block exactly: fine */
	lba[0] = 9999;
	nb[0] = 1;
	struct odx_pt_list l;
	struct xcopy_err e;
	assert_true(odx_parse_pt(buf, ob_pt(buf, false, false, 0, 0, 1, lba, nb), &lim, &l, &e));
	/* overlapping ranges: 05/26/00 without a field pointer */
	uint64_t olba[3] = { 100, 200, 150 };
	uint32_t onb[3] = { 60, 10, 10 };
	expect_pt(ob_pt(buf, false, false, 0, 0, 3, olba, onb), 0x26, 0x00, false, 0);
	/* touching is not overlapping */
	onb[0] = 50;
	assert_true(odx_parse_pt(buf, ob_pt(buf, false, false, 0, 0, 3, olba, onb), &lim, &l, &e));
}

static void test_pt_token_size_type_timeout(void **state)
{
	uint64_t lba[2] = { 0, 4000 };
	uint32_t nb[2] = { 4000, 1001 };

	/* total over the maximum token transfer size: field on that range's NUMBER OF BLOCKS */
	expect_pt(ob_pt(buf, false, false, 0, 0, 2, lba, nb), 0x26, 0x00, true, 16 + 16 + 8);
	nb[1] = 1000;
	struct odx_pt_list l;
	struct xcopy_err e;
	assert_true(odx_parse_pt(buf, ob_pt(buf, false, false, 0, 0, 2, lba, nb), &lim, &l, &e));
	/* a ROD type lunlab does not issue */
	expect_pt(ob_pt(buf, false, true, 0, 0xFFFF0001, 1, lba, nb), 0x26, 0x00, true, 8);
	expect_pt(ob_pt(buf, false, true, 0, 0x00800001, 1, lba, nb), 0x26, 0x00, true, 8);
	/* inactivity timeout above the maximum; the maximum itself is fine */
	expect_pt(ob_pt(buf, false, false, 601, 0, 1, lba, nb), 0x26, 0x00, true, 4);
	assert_true(odx_parse_pt(buf, ob_pt(buf, false, false, 600, 0, 1, lba, nb), &lim, &l, &e));
}

static void test_wut_valid(void **state)
{
	uint64_t lba[2] = { 50, 500 };
	uint32_t nb[2] = { 16, 32 };
	struct odx_wut_list l;
	struct xcopy_err e;

	for (unsigned i = 0; i < sizeof(token); i++)
		token[i] = (uint8_t)(i * 7);
	size_t len = ob_wut(buf, true, true, 12345, token, 2, lba, nb);
	assert_true(odx_parse_wut(buf, len, &lim, &l, &e));
	assert_true(l.immed);
	assert_true(l.del_tkn);
	assert_int_equal(l.rod_offset, 12345);
	assert_ptr_equal(l.token, buf + 16);
	assert_memory_equal(l.token, token, 512);
	assert_int_equal(l.ranges.n, 2);
	assert_int_equal(l.ranges.total_blocks, 48);
}

static void test_wut_errors(void **state)
{
	uint64_t lba[5] = { 0, 10, 20, 30, 40 };
	uint32_t nb[5] = { 1, 1, 1, 1, 1 };
	size_t len = ob_wut(buf, false, false, 0, token, 1, lba, nb);

	expect_wut(535, 0x26, 0x00, true, 0);          /* shorter than its header */
	tb_put16(buf, (uint16_t)len);
	expect_wut(len, 0x26, 0x00, true, 0);          /* DATA LENGTH past the list */
	tb_put16(buf, (uint16_t)(len - 2));
	tb_put16(buf + 534, 8);
	expect_wut(len, 0x26, 0x00, true, 534);        /* descriptor length not a multiple of 16 */
	tb_put16(buf + 534, 0);
	expect_wut(len, 0x26, 0x00, true, 534);
	expect_wut(ob_wut(buf, false, false, 0, token, 5, lba, nb), 0x26, 0x08, true, 534);
	lba[0] = 9999;
	nb[0] = 5;
	expect_wut(ob_wut(buf, false, false, 0, token, 1, lba, nb), 0x21, 0x00, false, 0);
	lba[0] = 5;
	nb[0] = 10;
	expect_wut(ob_wut(buf, false, false, 0, token, 2, lba, nb), 0x26, 0x00, false, 0); /* 5..14 and 10 */
	lba[0] = 0;
	nb[0] = 5001;
	expect_wut(ob_wut(buf, false, false, 0, token, 1, lba, nb), 0x26, 0x00, true, 536 + 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pt_valid),
		cmocka_unit_test(test_pt_lengths),
		cmocka_unit_test(test_pt_too_many_ranges),
		cmocka_unit_test(test_pt_ranges_beyond_and_overlapping),
		cmocka_unit_test(test_pt_token_size_type_timeout),
		cmocka_unit_test(test_wut_valid),
		cmocka_unit_test(test_wut_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
