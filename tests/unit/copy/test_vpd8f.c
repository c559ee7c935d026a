/* test_vpd8f.c — VPD page 0x8F parsed back descriptor by descriptor, the way
 * an initiator (sg_vpd, libiscsi) walks it, and checked against the limits
 * lunlab advertises elsewhere (copy_limits.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "handlers/copy/copy.h"
#include "handlers/copy/copy_limits.h"
#include "handlers/copy/odx_limits.h"
#include "models/profile.h"
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"

/* Find descriptor type in page; returns its start (header included). */
static const uint8_t *find_desc(const uint8_t *page, size_t total, unsigned type, unsigned *len)
{
	size_t off = 4;

	while (off + 4 <= total) {
		unsigned t = get_be16(page + off), l = get_be16(page + off + 2);
		assert_true(off + 4 + l <= total);     /* never runs past the page */
		assert_int_equal((4 + l) % 4, 0);      /* descriptors are padded to 4 bytes */
		if (t == type) {
			*len = l;
			return page + off;
		}
		off += 4 + l;
	}
	return NULL;
}

/* The descriptor of type that the page must have; *len its length. */
static const uint8_t *must_find(const uint8_t *page, size_t total, unsigned type, unsigned *len)
{
	const uint8_t *d = find_desc(page, total, type, len);

	assert_non_null(d);
	return d;
}

static void check_page(uint32_t block_size, uint8_t granularity_log2)
{
	struct lunlab_dev dev;
	uint8_t page[512];
	unsigned len;

	memset(&dev, 0, sizeof(dev));
	dev.block_size = block_size;
	memset(page, 0xEE, sizeof(page));
	size_t total = copy_vpd_8f(&dev, page, sizeof(page));

	assert_true(total > 4 && total < sizeof(page));
	assert_int_equal(page[0], 0x00);
	assert_int_equal(page[1], 0x8F);
	assert_int_equal(get_be16(page + 2), total - 4);
	assert_int_equal(page[total], 0xEE);       /* wrote nothing past the page */

	/* Supported Commands: 83h SA 00h; 84h SAs 00h 03h 04h */
	const uint8_t *d = must_find(page, total, 0x0001, &len);
	unsigned list_len = d[4];
	assert_true(list_len + 1 <= len);
	bool xcopy = false, rcr0 = false, rcr3 = false, rcr4 = false;
	for (unsigned j = 0; j < list_len;) {
		unsigned op = d[5 + j], nsa = d[6 + j];
		assert_true(j + 2 + nsa <= list_len);
		for (unsigned k = 0; k < nsa; k++) {
			unsigned sa = d[7 + j + k];
			xcopy |= op == SCSI_OP_THIRD_PARTY_COPY_OUT && sa == SCSI_SA_EXTENDED_COPY_LID1;
			rcr0 |= op == SCSI_OP_THIRD_PARTY_COPY_IN && sa == SCSI_SA_RECEIVE_COPY_STATUS_LID1;
			rcr3 |= op == SCSI_OP_THIRD_PARTY_COPY_IN && sa == SCSI_SA_RECEIVE_COPY_OPERATING_PARAMETERS;
			rcr4 |= op == SCSI_OP_THIRD_PARTY_COPY_IN && sa == SCSI_SA_RECEIVE_COPY_FAILURE_DETAILS_LID1;
			assert_false(op == SCSI_OP_THIRD_PARTY_COPY_OUT && sa != SCSI_SA_EXTENDED_COPY_LID1); /* no LID4 / ODX claimed */
		}
		j += 2 + nsa;
	}
	assert_true(xcopy && rcr0 && rcr3 && rcr4);

	/* Parameter Data */
	d = must_find(page, total, 0x0004, &len);
	assert_int_equal(len, 0x1C);
	assert_int_equal(get_be16(d + 8), XCOPY_MAX_TGT_DESC);
	assert_int_equal(get_be16(d + 10), XCOPY_MAX_SEG_DESC);
	assert_int_equal(get_be32(d + 12), XCOPY_MAX_DESC_LIST_LEN);
	assert_int_equal(get_be32(d + 16), 0);

	/* Supported Descriptors: exactly 02h and E4h */
	d = must_find(page, total, 0x0008, &len);
	assert_int_equal(d[4], 2);
	assert_int_equal(d[5], 0x02);
	assert_int_equal(d[6], 0xE4);

	/* Supported CSCD IDs: none */
	d = must_find(page, total, 0x000C, &len);
	assert_int_equal(get_be16(d + 4), 0);

	/* General Copy Operations */
	d = must_find(page, total, 0x8001, &len);
	assert_int_equal(len, 0x20);
	assert_int_equal(get_be32(d + 4), XCOPY_TOTAL_CONCURRENT);
	assert_int_equal(get_be32(d + 8), XCOPY_MAX_IDENTIFIED);
	assert_int_equal(get_be32(d + 12), XCOPY_MAX_SEG_BYTES);
	assert_int_equal(d[16], granularity_log2);
	assert_int_equal(d[17], 0);

	/* ROD descriptors must not appear: no POPULATE TOKEN support */
	assert_null(find_desc(page, total, 0x0000, &len));
	assert_null(find_desc(page, total, 0x0106, &len));
	assert_null(find_desc(page, total, 0x0108, &len));
}

/* A profile offering ODX: the ROD descriptors, read as ddpt and Windows
 * read them, agree with what the commands accept (odx_limits.h). */
static void test_page_odx(void **state)
{
	struct lunlab_profile prof = { .odx = true, .odx_max_ranges = 12, .odx_max_token_bytes = 1ull << 30,
				       .odx_default_timeout_s = 30, .odx_max_timeout_s = 300 };
	struct lunlab_dev dev;
	struct odx_limits lim;
	uint8_t page[512];
	unsigned len;

	memset(&dev, 0, sizeof(dev));
	dev.block_size = 4096;
	dev.num_lbas = 1000;
	dev.profile = &prof;
	assert_true(odx_limits_of(&dev, &lim));
	memset(page, 0xEE, sizeof(page));
	size_t total = copy_vpd_8f(&dev, page, sizeof(page));
	assert_true(total < sizeof(page));
	assert_int_equal(get_be16(page + 2), total - 4);

	/* Block Device ROD Token Limits */
	const uint8_t *d = must_find(page, total, 0x0000, &len);
	assert_int_equal(len, 0x20);
	assert_int_equal(get_be16(d + 10), 12);
	assert_int_equal(get_be16(d + 10), lim.max_ranges);
	assert_int_equal(get_be32(d + 12), 300);
	assert_int_equal(get_be32(d + 16), 30);
	assert_int_equal(get_be64(d + 20), (1ull << 30) / 4096);
	assert_int_equal(get_be64(d + 20), lim.max_token_blocks);
	assert_int_equal(get_be64(d + 28), (64u << 20) / 4096);

	/* ROD Token Features: no remote tokens, lifetimes, block ROD features */
	d = must_find(page, total, 0x0106, &len);
	assert_int_equal(len, 44 + 48);
	assert_int_equal(d[4] & 0x0f, 0);
	assert_int_equal(get_be32(d + 20), 300);
	assert_int_equal(get_be32(d + 24), 300);
	assert_int_equal(get_be16(d + 46), 48);
	assert_int_equal(d[48], 0x00);
	assert_int_equal(get_be16(d + 50), 0x2C);
	assert_int_equal(get_be64(d + 48 + 8), 1ull << 30);

	/* Supported ROD Types: point in time (in and out), block device zero (in) */
	d = must_find(page, total, 0x0108, &len);
	assert_int_equal(get_be16(d + 6), 128);
	assert_int_equal(get_be32(d + 8), 0x00800000);
	assert_int_equal(d[8 + 4], 0x03);
	assert_int_equal(get_be32(d + 8 + 64), 0xFFFF0001);
	assert_int_equal(d[8 + 64 + 4], 0x02);

	/* Supported Commands: the four ODX service actions beside LID1's */
	d = must_find(page, total, 0x0001, &len);
	static const uint8_t want[] = {
		SCSI_OP_THIRD_PARTY_COPY_OUT, 4, SCSI_SA_EXTENDED_COPY_LID1, SCSI_SA_POPULATE_TOKEN,
		SCSI_SA_WRITE_USING_TOKEN, SCSI_SA_COPY_OPERATION_ABORT,
		SCSI_OP_THIRD_PARTY_COPY_IN, 4, SCSI_SA_RECEIVE_COPY_STATUS_LID1,
		SCSI_SA_RECEIVE_COPY_OPERATING_PARAMETERS, SCSI_SA_RECEIVE_COPY_FAILURE_DETAILS_LID1,
		SCSI_SA_RECEIVE_ROD_TOKEN_INFORMATION,
	};
	assert_int_equal(d[4], sizeof(want));
	assert_memory_equal(d + 5, want, sizeof(want));

	/* General Copy Operations counts the token operations */
	d = must_find(page, total, 0x8001, &len);
	assert_int_equal(get_be32(d + 4), XCOPY_TOTAL_CONCURRENT + ODX_CONCURRENT);
	assert_int_equal(get_be32(d + 8), XCOPY_MAX_IDENTIFIED + ODX_CONCURRENT);

	/* odx: false in the profile: no ROD descriptors */
	prof.odx = false;
	total = copy_vpd_8f(&dev, page, sizeof(page));
	assert_null(find_desc(page, total, 0x0000, &len));
	assert_null(find_desc(page, total, 0x0108, &len));
}

static void test_page_512(void **state) { check_page(512, 9); }
static void test_page_4096(void **state) { check_page(4096, 12); }

static void test_truncated_to_allocation(void **state)
{
	struct lunlab_dev dev;
	uint8_t full[512], part[16];

	memset(&dev, 0, sizeof(dev));
	dev.block_size = 512;
	size_t total = copy_vpd_8f(&dev, full, sizeof(full));
	memset(part, 0xEE, sizeof(part));
	assert_int_equal(copy_vpd_8f(&dev, part, 10), total);
	assert_memory_equal(part, full, 10);
	assert_int_equal(part[10], 0xEE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_page_512),
		cmocka_unit_test(test_page_4096),
		cmocka_unit_test(test_truncated_to_allocation),
		cmocka_unit_test(test_page_odx),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
