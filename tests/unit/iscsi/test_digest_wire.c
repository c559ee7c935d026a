/* test_digest_wire.c — target/iscsi/crc32c.h: the digest goes on the wire
 * least significant byte first (RFC 3720 B.4's example). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "target/iscsi/crc32c.h"

static void wire_order_is_little_endian(void **state)
{
	uint8_t zeros[32] = { 0 }, out[4];

	crc32c_put_wire(out, ll_crc32c(0, zeros, 32));
	/* RFC 3720 B.4 shows this digest as the bytes aa 36 91 8a */
	assert_int_equal(out[0], 0xaa);
	assert_int_equal(out[1], 0x36);
	assert_int_equal(out[2], 0x91);
	assert_int_equal(out[3], 0x8a);
	assert_int_equal(crc32c_get_wire(out), 0x8a9136aa);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(wire_order_is_little_endian),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
