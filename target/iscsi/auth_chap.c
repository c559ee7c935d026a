/* auth_chap.c — see auth_chap.h. */
#include "target/iscsi/auth_chap.h"

#include <string.h>

static int hex_nibble(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

static int decode_hex(const char *s, size_t len, uint8_t *out, size_t cap)
{
	size_t n = (len + 1) / 2, o = 0, i = 0;

	if (len == 0 || n > cap)
		return -1;
	if (len % 2) { /* odd: the first digit is a whole byte's low nibble */
		int v = hex_nibble(s[0]);
		if (v < 0)
			return -1;
		out[o++] = (uint8_t)v;
		i = 1;
	}
	for (; i < len; i += 2) {
		int hi = hex_nibble(s[i]), lo = hex_nibble(s[i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		out[o++] = (uint8_t)(hi << 4 | lo);
	}
	return (int)o;
}

int chap_decode_binary(const char *s, uint8_t *out, size_t cap)
{
	size_t len = strnlen(s, 4 * CHAP_BIN_MAX);

	if (len < 3 || s[0] != '0' || len >= 4 * CHAP_BIN_MAX)
		return -1;
	if (s[1] == 'x' || s[1] == 'X')
		return decode_hex(s + 2, len - 2, out, cap);
	if (s[1] == 'b' || s[1] == 'B')
		return auth_base64_decode(s + 2, len - 2, out, cap);
	return -1;
}

bool chap_encode_hex(const uint8_t *in, size_t n, char *out, size_t cap)
{
	static const char digits[] = "0123456789abcdef";

	if (cap < 2 * n + 3)
		return false;
	out[0] = '0';
	out[1] = 'x';
	for (size_t i = 0; i < n; i++) {
		out[2 + 2 * i] = digits[in[i] >> 4];
		out[3 + 2 * i] = digits[in[i] & 15];
	}
	out[2 + 2 * n] = '\0';
	return true;
}

bool chap_response(uint8_t id, const uint8_t *secret, size_t secret_len, const uint8_t *challenge,
		   size_t challenge_len, uint8_t out[AUTH_MD5_LEN])
{
	uint8_t buf[1 + CHAP_SECRET_MAX + CHAP_BIN_MAX];
	bool ok;

	if (secret_len > CHAP_SECRET_MAX || challenge_len > CHAP_BIN_MAX)
		return false;
	buf[0] = id;
	memcpy(buf + 1, secret, secret_len);
	memcpy(buf + 1 + secret_len, challenge, challenge_len);
	ok = auth_md5(buf, 1 + secret_len + challenge_len, out);
	explicit_bzero(buf, sizeof(buf)); /* it held the secret */
	return ok;
}

bool chap_response_ok(const uint8_t *got, size_t got_len, const uint8_t want[AUTH_MD5_LEN])
{
	if (got_len != AUTH_MD5_LEN)
		return false;
	return auth_equal_ct(got, want, AUTH_MD5_LEN);
}
