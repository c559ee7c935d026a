/* test_auth_chap.c — CHAP-MD5 responses against known answers computed
 * independently with Python's hashlib, and the binary-value encodings of
 * RFC 7143 section 6.1 (0x hex, 0b base64) with their error cases.
 *
 * Known answers (each line: python3 -c "<expression>"):
 *   import hashlib; print(hashlib.md5(bytes([1])+b'alicesecret123'+bytes(range(16))).hexdigest())
 *     -> 4b72725ad71b5c4cdcd0c700c1a0d4af
 *   import hashlib; print(hashlib.md5(bytes([0x2a])+b'0123456789ab'+bytes.fromhex('deadbeef'*4)).hexdigest())
 *     -> 5864656a33a9253a7768f41142e4b07c
 *   import hashlib; print(hashlib.md5(bytes([255])+b'x'*255+bytes(range(256))*4).hexdigest())
 *     -> 9312d2706a0351978528fa75746cb7a9
 *   import base64; print(base64.b64encode(bytes(range(16))).decode())  -> AAECAwQFBgcICQoLDA0ODw==
 *   import base64; print(base64.b64encode(b'\xff\xfe\xfd\xfc\xfb').decode()) -> //79/Ps=
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "target/iscsi/auth_chap.h"

static void hex_to(const char *hex, uint8_t *out)
{
	for (size_t i = 0; hex[2 * i]; i++) {
		unsigned v;
		sscanf(hex + 2 * i, "%2x", &v);
		out[i] = (uint8_t)v;
	}
}

static void known_answers(void **state)
{
	uint8_t chal[1024], out[16], want[16];

	for (int i = 0; i < 16; i++)
		chal[i] = (uint8_t)i;
	assert_true(chap_response(1, (const uint8_t *)"alicesecret123", 14, chal, 16, out));
	hex_to("4b72725ad71b5c4cdcd0c700c1a0d4af", want);
	assert_memory_equal(out, want, 16);
	assert_true(chap_response_ok(out, 16, want));

	hex_to("deadbeefdeadbeefdeadbeefdeadbeef", chal);
	assert_true(chap_response(0x2a, (const uint8_t *)"0123456789ab", 12, chal, 16, out));
	hex_to("5864656a33a9253a7768f41142e4b07c", want);
	assert_memory_equal(out, want, 16);

	/* the largest inputs: a 255-byte secret and a 1024-byte challenge */
	uint8_t secret[255];
	memset(secret, 'x', sizeof(secret));
	for (int i = 0; i < 1024; i++)
		chal[i] = (uint8_t)i;
	assert_true(chap_response(255, secret, 255, chal, 1024, out));
	hex_to("9312d2706a0351978528fa75746cb7a9", want);
	assert_memory_equal(out, want, 16);
	/* beyond them: refused, not truncated */
	assert_false(chap_response(1, secret, 256, chal, 16, out));
}

static void response_compare(void **state)
{
	uint8_t want[16], got[16];

	for (int i = 0; i < 16; i++)
		want[i] = got[i] = (uint8_t)(i * 7);
	assert_true(chap_response_ok(got, 16, want));
	got[15] ^= 1;
	assert_false(chap_response_ok(got, 16, want));
	got[15] ^= 1;
	got[0] ^= 0x80;
	assert_false(chap_response_ok(got, 16, want));
	got[0] ^= 0x80;
	assert_false(chap_response_ok(got, 15, want)); /* a prefix is not a match */
	assert_false(chap_response_ok(got, 0, want));
}

static void hex_values(void **state)
{
	uint8_t b[32];
	char s[80];

	assert_int_equal(chap_decode_binary("0x00ff10", b, sizeof(b)), 3);
	assert_memory_equal(b, "\x00\xff\x10", 3);
	assert_int_equal(chap_decode_binary("0XABcd", b, sizeof(b)), 2);
	assert_memory_equal(b, "\xab\xcd", 2);
	/* odd digit count: a leading zero nibble */
	assert_int_equal(chap_decode_binary("0xabc", b, sizeof(b)), 2);
	assert_memory_equal(b, "\x0a\xbc", 2);
	assert_int_equal(chap_decode_binary("0x", b, sizeof(b)), -1);
	assert_int_equal(chap_decode_binary("0xg0", b, sizeof(b)), -1);
	assert_int_equal(chap_decode_binary("0x12 ", b, sizeof(b)), -1);
	assert_int_equal(chap_decode_binary("1234", b, sizeof(b)), -1);
	assert_int_equal(chap_decode_binary("0y1234", b, sizeof(b)), -1);
	assert_int_equal(chap_decode_binary("", b, sizeof(b)), -1);
	/* longer than the room given: refused */
	assert_int_equal(chap_decode_binary("0x010203", b, 2), -1);
	assert_int_equal(chap_decode_binary("0x0102", b, 2), 2);

	assert_true(chap_encode_hex((const uint8_t *)"\x00\x9f\xff", 3, s, sizeof(s)));
	assert_string_equal(s, "0x009fff");
	assert_false(chap_encode_hex((const uint8_t *)"\x00\x9f\xff", 3, s, 8)); /* needs 9 */
	assert_true(chap_encode_hex((const uint8_t *)"\x00\x9f\xff", 3, s, 9));
}

static void base64_values(void **state)
{
	uint8_t b[32], want[16];

	for (int i = 0; i < 16; i++)
		want[i] = (uint8_t)i;
	assert_int_equal(chap_decode_binary("0bAAECAwQFBgcICQoLDA0ODw==", b, sizeof(b)), 16);
	assert_memory_equal(b, want, 16);
	assert_int_equal(chap_decode_binary("0B//79/Ps=", b, sizeof(b)), 5);
	assert_memory_equal(b, "\xff\xfe\xfd\xfc\xfb", 5);
	assert_int_equal(chap_decode_binary("0bYWI=", b, sizeof(b)), 2);
	assert_memory_equal(b, "ab", 2);
	/* strictness: whitespace, bad characters, missing padding, '=' inside */
	assert_int_equal(chap_decode_binary("0bYW I=", b, sizeof(b)), -1);
	assert_int_equal(chap_decode_binary("0bYWI", b, sizeof(b)), -1);
	assert_int_equal(chap_decode_binary("0bY=I=", b, sizeof(b)), -1);
	assert_int_equal(chap_decode_binary("0bYW*=", b, sizeof(b)), -1);
	assert_int_equal(chap_decode_binary("0b====", b, sizeof(b)), -1);
	assert_int_equal(chap_decode_binary("0b", b, sizeof(b)), -1);
	/* 16 bytes do not fit in 15 */
	assert_int_equal(chap_decode_binary("0bAAECAwQFBgcICQoLDA0ODw==", b, 15), -1);
}

static void random_bytes(void **state)
{
	uint8_t a[16], b[16];

	assert_true(auth_random(a, sizeof(a)));
	assert_true(auth_random(b, sizeof(b)));
	/* two 128-bit draws are equal with probability 2^-128 */
	assert_memory_not_equal(a, b, sizeof(a));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(known_answers),
		cmocka_unit_test(response_compare),
		cmocka_unit_test(hex_values),
		cmocka_unit_test(base64_values),
		cmocka_unit_test(random_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
