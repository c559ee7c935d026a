/* test_xcopy_builder.c - the EXTENDED COPY parameter list, byte for byte (SPC-4 6.4 / LID1),
 * its decoder, and the VPD 0x83 NAA finder on crafted and hostile pages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lunlab/scsi_vocab.h"
#include "client/xcopy_builder.h"

static const uint8_t naa_a[16] = { 0x60, 0x01, 0x40, 0x50, 0x11, 0x22, 0x33, 0x44,
				   0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc };
static const uint8_t naa_b[16] = { 0x60, 0x01, 0x40, 0x50, 0xde, 0xad, 0xbe, 0xef,
				   0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02 };

static void one_lu_exact_bytes(void **state)
{
	struct xcopy_lu lu = { .naa_len = 16, .block_size = 512, .peripheral_type = 0 };
	memcpy(lu.naa, naa_a, 16);
	struct xcopy_segment seg = { .src_index = 0, .dst_index = 0, .blocks = 512,
				     .src_lba = 0x1234, .dst_lba = 0x0102030405060708ull };
	uint8_t buf[256];
	memset(buf, 0xee, sizeof(buf));
	int len = xcopy_build(&lu, 1, &seg, 1, buf, sizeof(buf));
	assert_int_equal(len, 76);
	static const uint8_t want[76] = {
		/* header: list id 0, LIST ID USAGE 11b, tdll 32, sdll 28, inline 0 */
		0x00, 0x18, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1c, 0x00, 0x00, 0x00, 0x00,
		/* 0xE4 identification descriptor: binary, LU association, NAA, 16 bytes, block 512 */
		0xe4, 0x00, 0x00, 0x00, 0x01, 0x03, 0x00, 0x10,
		0x60, 0x01, 0x40, 0x50, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00,
		/* 0x02 segment: length 0x18, src 0, dst 0, 512 blocks, src LBA, dst LBA */
		0x02, 0x00, 0x00, 0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x12, 0x34,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	};
	assert_memory_equal(buf, want, sizeof(want));
	assert_int_equal(buf[76], 0xee);     /* nothing written past the list */

	uint8_t cdb[16];
	xcopy_cdb(cdb, (uint32_t)len);
	static const uint8_t want_cdb[16] = { SCSI_OP_THIRD_PARTY_COPY_OUT, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 76, 0, 0 };
	assert_memory_equal(cdb, want_cdb, 16);
}

static void two_lus(void **state)
{
	struct xcopy_lu lus[2] = { { .naa_len = 16, .block_size = 4096 }, { .naa_len = 16, .block_size = 4096 } };
	memcpy(lus[0].naa, naa_a, 16);
	memcpy(lus[1].naa, naa_b, 16);
	struct xcopy_segment seg = { .src_index = 0, .dst_index = 1, .blocks = 65535, .src_lba = 7, .dst_lba = 9 };
	uint8_t buf[256];
	int len = xcopy_build(lus, 2, &seg, 1, buf, sizeof(buf));
	assert_int_equal(len, 16 + 64 + 28);
	assert_int_equal(buf[3], 64);                       /* tdll */
	assert_int_equal(buf[16 + 32], 0xe4);
	assert_memory_equal(buf + 16 + 32 + 8, naa_b, 16);
	assert_int_equal(buf[16 + 32 + 29], 0x00);          /* block 4096 = 0x001000 */
	assert_int_equal(buf[16 + 32 + 30], 0x10);
	const uint8_t *s = buf + 16 + 64;
	assert_int_equal(s[6], 0);
	assert_int_equal(s[7], 1);                          /* destination CSCD index 1 */
	assert_int_equal(s[10], 0xff);
	assert_int_equal(s[11], 0xff);
	char text[2048];
	assert_int_equal(xcopy_describe(buf, (size_t)len, text, sizeof(text)), 0);
	assert_non_null(strstr(text, "LIST ID USAGE 11b"));
	assert_non_null(strstr(text, "CSCD 1: type 0xE4, NAA 60014050deadbeef0000000000000002, block 4096"));
	assert_non_null(strstr(text, "CSCD 0 LBA 7 -> CSCD 1 LBA 9, 65535 blocks"));
}

static void rejects_bad_arguments(void **state)
{
	struct xcopy_lu lu = { .naa_len = 16, .block_size = 512 };
	struct xcopy_segment seg = { .blocks = 1 };
	uint8_t buf[256];
	assert_int_equal(xcopy_build(&lu, 1, &seg, 1, buf, 75), -1);          /* does not fit */
	assert_int_equal(xcopy_build(&lu, 0, &seg, 1, buf, sizeof(buf)), -1);
	assert_int_equal(xcopy_build(&lu, 1, &seg, 0, buf, sizeof(buf)), -1);
	seg.dst_index = 1;                                                     /* no CSCD 1 */
	assert_int_equal(xcopy_build(&lu, 1, &seg, 1, buf, sizeof(buf)), -1);
	seg.dst_index = 0;
	seg.blocks = 0;
	assert_int_equal(xcopy_build(&lu, 1, &seg, 1, buf, sizeof(buf)), -1);
	seg.blocks = 1;
	lu.naa_len = 0;
	assert_int_equal(xcopy_build(&lu, 1, &seg, 1, buf, sizeof(buf)), -1);
}

static void describe_truncated(void **state)
{
	uint8_t buf[76] = { 0x00, 0x18, 0x00, 0x20, 0, 0, 0, 0, 0, 0, 0, 0x1c };
	char text[512];
	assert_int_equal(xcopy_describe(buf, 10, text, sizeof(text)), -1);
	assert_non_null(strstr(text, "shorter than the 16-byte header"));
	assert_int_equal(xcopy_describe(buf, 60, text, sizeof(text)), -1);
	assert_non_null(strstr(text, "exceed"));
	/* tiny output buffer: truncated, still terminated */
	assert_int_equal(xcopy_describe(buf, sizeof(buf), text, 8), 0);
	assert_true(strlen(text) < 8);
}

static void vpd83(void **state)
{
	/* T10 vendor id (ASCII), a target-port NAA (association 1), then the LU's binary NAA. */
	uint8_t page[] = {
		0x00, 0x83, 0x00, 0x00,
		0x02, 0x01, 0x00, 0x04, 'L', 'U', 'N', 'L',
		0x01, 0x13, 0x00, 0x08, 1, 2, 3, 4, 5, 6, 7, 8,
		0x01, 0x03, 0x00, 0x10,
		0x60, 0x01, 0x40, 0x50, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc,
	};
	page[3] = sizeof(page) - 4;
	struct xcopy_lu lu = { 0 };
	assert_int_equal(vpd83_find_naa(page, sizeof(page), &lu), 0);
	assert_int_equal(lu.naa_len, 16);
	assert_memory_equal(lu.naa, naa_a, 16);
	/* truncated inside the NAA descriptor: not found, no read past the buffer */
	struct xcopy_lu lu2 = { 0 };
	assert_int_equal(vpd83_find_naa(page, sizeof(page) - 3, &lu2), -1);
	/* wrong page code, empty, garbage lengths */
	page[1] = 0x80;
	assert_int_equal(vpd83_find_naa(page, sizeof(page), &lu2), -1);
	assert_int_equal(vpd83_find_naa(page, 2, &lu2), -1);
	uint8_t garbage[8] = { 0x00, 0x83, 0xff, 0xff, 0x01, 0x03, 0x00, 0xff };
	assert_int_equal(vpd83_find_naa(garbage, sizeof(garbage), &lu2), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_lu_exact_bytes),
		cmocka_unit_test(two_lus),
		cmocka_unit_test(rejects_bad_arguments),
		cmocka_unit_test(describe_truncated),
		cmocka_unit_test(vpd83),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
