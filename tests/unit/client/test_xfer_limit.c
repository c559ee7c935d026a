/* test_xfer_limit.c - VPD B0h MAXIMUM TRANSFER LENGTH decoding and the split sizes that
 * lunlab-bench derives from it (a LIO + tcmu-runner LU refuses a 4 MiB WRITE(16) with
 * 05/24/00: every READ/WRITE lunlab-bench sizes itself must fit the limit). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "client/xfer_limit.h"

/* A B0h page as a LU sends it: PAGE LENGTH 3Ch, MAXIMUM TRANSFER LENGTH `max`. */
static void b0_page(uint8_t *p, uint32_t max)
{
	memset(p, 0, 64);
	p[1] = 0xb0;
	p[3] = 0x3c;
	p[8] = (uint8_t)(max >> 24);
	p[9] = (uint8_t)(max >> 16);
	p[10] = (uint8_t)(max >> 8);
	p[11] = (uint8_t)max;
	p[12] = 0xaa;   /* OPTIMAL TRANSFER LENGTH: must not be mistaken for the maximum */
}

static void decodes_max_transfer(void **state)
{
	uint8_t p[64];
	uint32_t max = 7;
	char err[200];
	b0_page(p, 128);              /* tcmu-runner's default: 128 x 512 B = 64 KiB */
	assert_int_equal(vpd_b0_max_transfer(p, sizeof(p), &max, err, sizeof(err)), 0);
	assert_int_equal(max, 128);
	b0_page(p, 0x01020304);
	assert_int_equal(vpd_b0_max_transfer(p, 12, &max, err, sizeof(err)), 0);
	assert_int_equal(max, 0x01020304);
	b0_page(p, 0);                /* 0: no limit reported */
	assert_int_equal(vpd_b0_max_transfer(p, sizeof(p), &max, err, sizeof(err)), 0);
	assert_int_equal(max, 0);
}

static void refuses_malformed_pages(void **state)
{
	uint8_t p[64];
	uint32_t max = 99;
	char err[200];
	b0_page(p, 128);
	/* received bytes end before byte 11 */
	assert_int_equal(vpd_b0_max_transfer(p, 11, &max, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "MAXIMUM TRANSFER LENGTH"));
	/* PAGE LENGTH says the page ends before byte 11 */
	p[3] = 4;
	assert_int_equal(vpd_b0_max_transfer(p, sizeof(p), &max, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "PAGE LENGTH 4"));
	/* another page */
	b0_page(p, 128);
	p[1] = 0xb2;
	assert_int_equal(vpd_b0_max_transfer(p, sizeof(p), &max, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "PAGE CODE"));
	assert_int_equal(vpd_b0_max_transfer(p, 3, &max, err, sizeof(err)), -1);
	assert_int_equal(max, 99);    /* untouched on error */
}

static void vpd00_listing(void **state)
{
	const uint8_t list[] = { 0, 0x00, 0, 5, 0x00, 0x80, 0x83, 0xb0, 0xb2 };
	assert_true(vpd00_lists(list, sizeof(list), 0xb0));
	assert_false(vpd00_lists(list, sizeof(list), 0x8f));
	/* the PAGE LENGTH bounds the search: 0xb2 beyond a short PAGE LENGTH is not listed */
	const uint8_t shortlist[] = { 0, 0x00, 0, 3, 0x00, 0x80, 0x83, 0xb0 };
	assert_false(vpd00_lists(shortlist, sizeof(shortlist), 0xb0));
	/* received bytes bound it too */
	assert_false(vpd00_lists(list, 7, 0xb0));
	assert_false(vpd00_lists(list, 3, 0x00));
}

static void splits_to_the_limit(void **state)
{
	/* 4 MiB WRITE on a 512-byte LU limited to 128 blocks: 64 KiB pieces */
	assert_int_equal(xfer_clamp_bytes(4u << 20, 512, 128), 65536);
	/* no limit: the size asked for */
	assert_int_equal(xfer_clamp_bytes(1u << 20, 512, 0), 1u << 20);
	/* a limit above the size changes nothing */
	assert_int_equal(xfer_clamp_bytes(1u << 20, 4096, 8192), 1u << 20);
	/* 4096-byte blocks: limit in blocks, result in bytes */
	assert_int_equal(xfer_clamp_bytes(1u << 20, 4096, 16), 65536);
	/* never 0, even for a 1-block limit or a sub-block request */
	assert_int_equal(xfer_clamp_blocks(0, 0), 1);
	assert_int_equal(xfer_clamp_blocks(2048, 1), 1);
	assert_int_equal(xfer_clamp_blocks(100, 2048), 100);
	/* the byte count stays a 32-bit quantity */
	assert_true((uint64_t)xfer_clamp_bytes(1ull << 40, 512, 0) <= UINT32_MAX);
	assert_int_equal(xfer_clamp_bytes(1ull << 40, 512, 0) % 512, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(decodes_max_transfer),
		cmocka_unit_test(refuses_malformed_pages),
		cmocka_unit_test(vpd00_listing),
		cmocka_unit_test(splits_to_the_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
