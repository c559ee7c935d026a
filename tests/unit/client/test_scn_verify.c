/* test_scn_verify.c - the verify stream's data: the same seed, piece and LBA give the same
 * bytes; every 512 bytes carry the piece and the LBA (a misplaced block differs); another
 * seed gives other data.  The stream itself runs against lunlab-target in
 * integration-scenarios-* (tests/scenarios/run.sh). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "client/scn_verify.h"

static void pattern(void **state)
{
	static uint8_t a[65536], b[65536];
	scn_verify_pattern(1, 3, 384, 512, a, sizeof(a));
	scn_verify_pattern(1, 3, 384, 512, b, sizeof(b));
	assert_memory_equal(a, b, sizeof(a));                 /* deterministic */
	scn_verify_pattern(2, 3, 384, 512, b, sizeof(b));
	assert_memory_not_equal(a, b, 512);                   /* the seed matters in every block */
	assert_memory_not_equal(a + 8, b + 8, 504);
	scn_verify_pattern(1, 4, 384, 512, b, sizeof(b));
	assert_memory_not_equal(a, b, 8);                     /* the piece number is in the header */
	/* each 512-byte block's header differs from the next one's by its LBA */
	uint64_t h0, h1;
	memcpy(&h0, a, 8);
	memcpy(&h1, a + 512, 8);
	assert_int_equal(h0 ^ h1, 384u ^ 385u);
	/* 4096-byte blocks: the LBA advances every 8 headers */
	scn_verify_pattern(1, 3, 48, 4096, b, sizeof(b));
	memcpy(&h0, b + 4096 - 512, 8);
	memcpy(&h1, b + 4096, 8);
	assert_int_equal(h0 ^ h1, 48u ^ 49u);
	/* the body is not constant (it would dedup and compress to nothing) */
	int same = 0;
	for (size_t i = 16; i < 512; i += 8)
		same += !memcmp(a + 8, a + i, 8);
	assert_int_equal(same, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pattern),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
