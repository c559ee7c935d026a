/* test_xcopy_parse.c — every parameter-list check of xcopy_parse.c, with the
 * exact sense it must produce (key, ASC, ASCQ, SKSV, field byte/bit), the
 * order in which checks win, and a full parse of a valid list. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "handlers/copy/xcopy_parse.h"
#include "tests/unit/copy/xcopy_list_builder.h"

#define BUF_LEN (16 + 8192 + 256)
static uint8_t buf[BUF_LEN];
static struct xcopy_list list;

/* A valid list: ntgt 0xE4 descriptors, nseg 0x02 segments; returns length. */
static size_t valid_list(unsigned ntgt, unsigned nseg)
{
	uint8_t naa[16];

	memset(buf, 0, sizeof(buf));
	tb_header(buf, 7, 2, (uint16_t)(ntgt * 32), nseg * 28, 0);
	for (unsigned i = 0; i < ntgt; i++) {
		tb_naa(naa, (uint8_t)i);
		tb_tgt(buf + 16 + i * 32, naa, 512);
	}
	for (unsigned i = 0; i < nseg; i++)
		tb_seg(buf + 16 + ntgt * 32 + i * 28, 0, (uint16_t)(ntgt - 1), false, 8, i * 8, 1000 + i * 8);
	return 16 + ntgt * 32 + nseg * 28;
}

static void expect(size_t len, uint8_t asc, uint8_t ascq, bool sksv, uint16_t byte, int bit)
{
	struct xcopy_err e;

	assert_false(xcopy_parse(buf, len, &list, &e));
	assert_int_equal(e.key, 0x05);
	assert_int_equal(e.asc, asc);
	assert_int_equal(e.ascq, ascq);
	assert_int_equal(e.sksv, sksv);
	if (sksv) {
		assert_int_equal(e.field_byte, byte);
		assert_int_equal(e.field_bit, bit);
	}
}

static void test_valid_two_targets_three_segments(void **state)
{
	struct xcopy_err e;
	size_t len = valid_list(2, 3);

	tb_seg(buf + 16 + 64 + 28, 1, 0, true, 65535, 0x0102030405060708ull, 0x1112131415161718ull);
	assert_true(xcopy_parse(buf, len, &list, &e));
	assert_int_equal(list.list_id, 7);
	assert_int_equal(list.usage, XCOPY_LIST_DISCARD);
	assert_int_equal(list.ntgt, 2);
	assert_int_equal(list.nseg, 3);
	assert_int_equal(list.tgt[1].naa[0], 0x60);
	assert_int_equal(list.tgt[1].naa[15], 1);
	assert_int_equal(list.tgt[1].block_len, 512);
	assert_int_equal(list.tgt[1].pdt, 0);
	assert_int_equal(list.tgt[1].offset, 48);
	assert_int_equal(list.seg[0].src_index, 0);
	assert_int_equal(list.seg[0].dst_index, 1);
	assert_false(list.seg[0].dc);
	assert_int_equal(list.seg[0].nblocks, 8);
	assert_int_equal(list.seg[2].src_lba, 16);
	assert_int_equal(list.seg[2].dst_lba, 1016);
	assert_int_equal(list.seg[1].src_index, 1);
	assert_int_equal(list.seg[1].dst_index, 0);
	assert_true(list.seg[1].dc);
	assert_int_equal(list.seg[1].nblocks, 65535);
	assert_true(list.seg[1].src_lba == 0x0102030405060708ull);
	assert_true(list.seg[1].dst_lba == 0x1112131415161718ull);
	assert_int_equal(list.seg[1].offset, 16 + 64 + 28);
}

static void test_limits_exactly_fit(void **state)
{
	struct xcopy_err e;
	size_t len = valid_list(XCOPY_MAX_TGT_DESC, XCOPY_MAX_SEG_DESC);

	assert_true(xcopy_parse(buf, len, &list, &e));
	assert_int_equal(list.ntgt, XCOPY_MAX_TGT_DESC);
	assert_int_equal(list.nseg, XCOPY_MAX_SEG_DESC);
}

static void test_trailing_bytes_ignored(void **state)
{
	struct xcopy_err e;
	size_t len = valid_list(1, 1);

	assert_true(xcopy_parse(buf, len + 40, &list, &e));
}

static void test_list_shorter_than_header(void **state)
{
	valid_list(1, 1);
	expect(15, 0x1A, 0x00, false, 0, -1);
	expect(1, 0x1A, 0x00, false, 0, -1);
}

static void test_descriptor_lists_too_long(void **state)
{
	valid_list(1, 1);
	tb_put32(buf + 8, XCOPY_MAX_DESC_LIST_LEN - 32 + 28);
	expect(BUF_LEN, 0x1A, 0x00, false, 0, -1);
	/* 32-bit sdll must not wrap the sum */
	tb_put32(buf + 8, 0xFFFFFFF0u);
	expect(BUF_LEN, 0x1A, 0x00, false, 0, -1);
}

static void test_inline_data(void **state)
{
	size_t len = valid_list(1, 1);

	tb_put32(buf + 12, 4);
	expect(len + 4, 0x26, 0x00, true, 12, -1);
}

static void test_list_shorter_than_descriptors(void **state)
{
	size_t len = valid_list(1, 1);

	expect(len - 1, 0x1A, 0x00, false, 0, -1);
	expect(16, 0x1A, 0x00, false, 0, -1);
}

static void test_list_id_usage(void **state)
{
	struct xcopy_err e;
	size_t len = valid_list(1, 1);

	buf[1] = 1 << 3;                            /* 01b reserved */
	expect(len, 0x26, 0x00, true, 1, 4);
	buf[1] = 3 << 3;                            /* 11b with list id 7 */
	expect(len, 0x26, 0x00, true, 0, -1);
	buf[0] = 0;                                 /* 11b with list id 0 */
	assert_true(xcopy_parse(buf, len, &list, &e));
	assert_int_equal(list.usage, XCOPY_LIST_NONE);
	buf[1] = 0;                                 /* 00b hold */
	buf[0] = 9;
	assert_true(xcopy_parse(buf, len, &list, &e));
	assert_int_equal(list.usage, XCOPY_LIST_HOLD);
	assert_int_equal(list.list_id, 9);
}

static void test_segment_list_not_multiple_of_28(void **state)
{
	/* libiscsi DescrType: a 20-byte stream->stream descriptor */
	valid_list(1, 1);
	tb_put32(buf + 8, 20);
	buf[48] = 0x03;
	expect(16 + 32 + 20, 0x26, 0x09, true, 8, -1);
}

static void test_too_many_segments(void **state)
{
	size_t len = valid_list(1, XCOPY_MAX_SEG_DESC + 1);

	expect(len, 0x26, 0x08, true, 8, -1);
}

static void test_segment_type(void **state)
{
	size_t len = valid_list(1, 2);

	buf[16 + 32 + 28] = 0x03;                   /* second segment */
	expect(len, 0x26, 0x09, true, 16 + 32 + 28, -1);
}

static void test_segment_descriptor_length(void **state)
{
	size_t len = valid_list(1, 1);

	tb_put16(buf + 48 + 2, 0x14);
	expect(len, 0x26, 0x00, true, 48 + 2, -1);
}

static void test_cscd_index_above_7ff(void **state)
{
	size_t len = valid_list(1, 1);

	tb_put16(buf + 48 + 4, 0x0800);
	expect(len, 0x26, 0x00, true, 48 + 4, -1);
	tb_put16(buf + 48 + 4, 0x07FF);            /* allowed by the parser: exec says 0A/0D/02 */
	tb_put16(buf + 48 + 6, 0xF800);
	expect(len, 0x26, 0x00, true, 48 + 6, -1);
}

static void test_no_segments(void **state)
{
	valid_list(1, 0);
	expect(16 + 32, 0x26, 0x00, true, 8, -1);
}

static void test_target_list_not_multiple_of_32(void **state)
{
	uint8_t naa[16];

	memset(buf, 0, sizeof(buf));
	tb_naa(naa, 0);
	tb_header(buf, 1, 2, 16, 28, 0);
	tb_seg(buf + 32, 0, 0, false, 1, 0, 1);
	expect(16 + 16 + 28, 0x26, 0x07, true, 2, -1);
}

static void test_too_many_targets(void **state)
{
	size_t len = valid_list(XCOPY_MAX_TGT_DESC + 1, 1);

	expect(len, 0x26, 0x06, true, 2, -1);
}

static void test_target_type(void **state)
{
	size_t len = valid_list(2, 1);

	buf[16 + 32] = 0xE0;                        /* second descriptor */
	expect(len, 0x26, 0x07, true, 48, -1);
}

static void test_malformed_e4(void **state)
{
	size_t len = valid_list(1, 1);

	buf[20] = 0x02;                             /* code set ASCII */
	expect(len, 0x26, 0x00, true, 20, 3);
	buf[20] = 0x01;
	buf[21] = 0x13;                             /* association: target port */
	expect(len, 0x26, 0x00, true, 21, 5);
	buf[21] = 0x01;                             /* designator type: T10 vendor id */
	expect(len, 0x26, 0x00, true, 21, 3);
	buf[21] = 0x03;
	buf[23] = 8;                                /* designator length */
	expect(len, 0x26, 0x00, true, 23, -1);
	buf[23] = 16;
	buf[24] = 0x50;                             /* NAA 5 */
	expect(len, 0x26, 0x00, true, 24, 7);
}

static void test_no_targets(void **state)
{
	memset(buf, 0, sizeof(buf));
	tb_header(buf, 1, 2, 0, 28, 0);
	tb_seg(buf + 16, 0, 0, false, 1, 0, 1);
	expect(16 + 28, 0x26, 0x00, true, 2, -1);
}

static void test_ignored_target_fields(void **state)
{
	struct xcopy_err e;
	size_t len = valid_list(1, 1);

	buf[17] = 0x80 | 0x20;                      /* LU ID TYPE 10b (reserved), NUL */
	buf[18] = 0x12;                             /* relative initiator port */
	buf[44] = 0x04;                             /* PAD */
	assert_true(xcopy_parse(buf, len, &list, &e));
}

/* When several fields are wrong, LIO's order decides. */
static void test_precedence(void **state)
{
	size_t len = valid_list(1, 1);

	/* bad segment type and bad target type: segments are checked first */
	buf[48] = 0x03;
	buf[16] = 0xE0;
	expect(len, 0x26, 0x09, true, 48, -1);
	/* plus inline data: header checks come first */
	tb_put32(buf + 12, 4);
	expect(len + 4, 0x26, 0x00, true, 12, -1);
	/* plus a too-long descriptor list: the length check is first */
	tb_put32(buf + 8, XCOPY_MAX_DESC_LIST_LEN);
	expect(BUF_LEN, 0x1A, 0x00, false, 0, -1);
	/* inline data beats a short list */
	len = valid_list(1, 1);
	tb_put32(buf + 12, 4);
	expect(len - 5, 0x26, 0x00, true, 12, -1);
	/* list id usage 01b loses to a short list, beats a bad segment */
	len = valid_list(1, 1);
	buf[1] = 1 << 3;
	expect(len - 1, 0x1A, 0x00, false, 0, -1);
	buf[48] = 0x03;
	expect(len, 0x26, 0x00, true, 1, 4);
	/* too many targets beats a bad target type */
	len = valid_list(XCOPY_MAX_TGT_DESC + 1, 1);
	buf[16] = 0xE0;
	expect(len, 0x26, 0x06, true, 2, -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_two_targets_three_segments),
		cmocka_unit_test(test_limits_exactly_fit),
		cmocka_unit_test(test_trailing_bytes_ignored),
		cmocka_unit_test(test_list_shorter_than_header),
		cmocka_unit_test(test_descriptor_lists_too_long),
		cmocka_unit_test(test_inline_data),
		cmocka_unit_test(test_list_shorter_than_descriptors),
		cmocka_unit_test(test_list_id_usage),
		cmocka_unit_test(test_segment_list_not_multiple_of_28),
		cmocka_unit_test(test_too_many_segments),
		cmocka_unit_test(test_segment_type),
		cmocka_unit_test(test_segment_descriptor_length),
		cmocka_unit_test(test_cscd_index_above_7ff),
		cmocka_unit_test(test_no_segments),
		cmocka_unit_test(test_target_list_not_multiple_of_32),
		cmocka_unit_test(test_too_many_targets),
		cmocka_unit_test(test_target_type),
		cmocka_unit_test(test_malformed_e4),
		cmocka_unit_test(test_no_targets),
		cmocka_unit_test(test_ignored_target_fields),
		cmocka_unit_test(test_precedence),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
