/* test_crc32c.c — common/crc32c.c: ll_crc32c (ISA-L's crc32_iscsi) against
 * the RFC 3720 appendix B.4 vectors and a bit-at-a-time reference written
 * from the polynomial, on every length and alignment, one shot and chained. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lunlab/crc32c.h"

static void rfc3720_vectors(void **state)
{
	uint8_t buf[48];

	memset(buf, 0, 32);
	assert_int_equal(ll_crc32c(0, buf, 32), 0x8a9136aa);
	memset(buf, 0xff, 32);
	assert_int_equal(ll_crc32c(0, buf, 32), 0x62a8ab43);
	for (int i = 0; i < 32; i++)
		buf[i] = (uint8_t)i;
	assert_int_equal(ll_crc32c(0, buf, 32), 0x46dd794e);
	for (int i = 0; i < 32; i++)
		buf[i] = (uint8_t)(31 - i);
	assert_int_equal(ll_crc32c(0, buf, 32), 0x113fdb5c);
	assert_int_equal(ll_crc32c(0, "123456789", 9), 0xe3069283);
	assert_int_equal(ll_crc32c(0, "", 0), 0);
}

/* The definition: reflected polynomial 0x82F63B78, one bit at a time. */
static uint32_t reference(const uint8_t *p, size_t n)
{
	uint32_t c = ~0u;
	while (n--) {
		c ^= *p++;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
	}
	return ~c;
}

static void equals_reference(void **state)
{
	enum { N = (1 << 20) + 64 };
	uint8_t *buf = malloc(N);

	srand(7);
	for (int i = 0; i < N; i++)
		buf[i] = (uint8_t)rand();
	for (size_t align = 0; align < 17; align++)
		for (size_t len = 0; len < 700; len += 7)
			assert_int_equal(ll_crc32c(0, buf + align, len), reference(buf + align, len));
	/* sizes of real digests: a BHS, 8 KiB and 256 KiB segments, 1 MiB */
	const size_t big[] = { 48, 8192, 262144, 1u << 20 };
	for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++)
		assert_int_equal(ll_crc32c(0, buf + 3, big[i]), reference(buf + 3, big[i]));
	/* incremental == one shot, split anywhere */
	for (size_t cut = 0; cut < 4000; cut += 333) {
		uint32_t c = ll_crc32c(0, buf, cut);
		assert_int_equal(ll_crc32c(c, buf + cut, 4000 - cut), ll_crc32c(0, buf, 4000));
	}
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rfc3720_vectors),
		cmocka_unit_test(equals_reference),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
