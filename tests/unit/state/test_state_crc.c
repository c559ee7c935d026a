/* test_state_crc.c — state/state_crc.c: the field serialisation that keeps
 * record checksums layout-independent (the CRC itself: tests/unit/common). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "state/state_crc.h"

static void test_u64s_little_endian(void **state)
{
	(void)state;
	uint64_t v[2] = { 0x0807060504030201ull, 0x100f0e0d0c0b0a09ull };
	unsigned char b[16];

	for (int i = 0; i < 16; i++)
		b[i] = (unsigned char)(i + 1);
	assert_int_equal(state_crc_u64s(0, v, 2), ll_crc32c(0, b, 16));
	/* one bit anywhere changes it */
	v[1] ^= 1ull << 63;
	assert_int_not_equal(state_crc_u64s(0, v, 2), ll_crc32c(0, b, 16));
}

/* more fields than one batch, from a chained starting value: the same
 * checksum as the whole serialisation in one piece (states written before
 * the batching keep their checksums) */
static void test_u64s_batches_equal_one_piece(void **state)
{
	(void)state;
	uint64_t v[37];
	unsigned char b[37 * 8];

	for (int i = 0; i < 37; i++) {
		v[i] = 0x0101010101010101ull * (uint64_t)(i + 1) ^ 0x8040201008040201ull;
		for (int k = 0; k < 8; k++)
			b[i * 8 + k] = (unsigned char)(v[i] >> (8 * k));
	}
	assert_int_equal(state_crc_u64s(0x1234abcd, v, 37), ll_crc32c(0x1234abcd, b, sizeof(b)));
	assert_int_equal(state_crc_u64s(0, v, 16), ll_crc32c(0, b, 16 * 8));
	assert_int_equal(state_crc_u64s(0, v, 17), ll_crc32c(0, b, 17 * 8));
	assert_int_equal(state_crc_u64s(7, v, 0), 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u64s_little_endian),
		cmocka_unit_test(test_u64s_batches_equal_one_piece),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
