/* auth_crypto.c — see auth_crypto.h.  MD5, base64 and the constant-time
 * compare come from OpenSSL's libcrypto (linked through libcrypto_dep):
 * well-kept implementations, nothing hand-rolled here but the strictness
 * checks around them. */
#include "target/iscsi/auth_crypto.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

bool auth_md5(const uint8_t *buf, size_t n, uint8_t out[AUTH_MD5_LEN])
{
	unsigned int len = 0;

	if (EVP_Digest(buf, n, out, &len, EVP_md5(), NULL) != 1 || len != AUTH_MD5_LEN)
		return false;
	return true;
}

static bool b64_char(char ch)
{
	return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
	       ch == '+' || ch == '/';
}

int auth_base64_decode(const char *in, size_t inlen, uint8_t *out, size_t cap)
{
	size_t pad = 0;
	int n1 = 0, n2 = 0, rc;
	uint8_t *tmp;
	EVP_ENCODE_CTX *ctx;

	/* libcrypto's decoder skips whitespace and stops at '-': accept only
	 * the strict form, so what we check is what it decodes */
	if (inlen == 0 || inlen % 4 != 0 || inlen > INT_MAX / 2)
		return -1;
	while (pad < 2 && in[inlen - 1 - pad] == '=')
		pad++;
	for (size_t i = 0; i < inlen - pad; i++)
		if (!b64_char(in[i]))
			return -1;
	if ((inlen / 4) * 3 - pad > cap)
		return -1;
	tmp = malloc(inlen); /* at least (inlen / 4) * 3 */
	ctx = EVP_ENCODE_CTX_new();
	if (!tmp || !ctx) {
		free(tmp);
		if (ctx)
			EVP_ENCODE_CTX_free(ctx);
		return -1;
	}
	EVP_DecodeInit(ctx);
	rc = EVP_DecodeUpdate(ctx, tmp, &n1, (const unsigned char *)in, (int)inlen);
	if (rc >= 0 && EVP_DecodeFinal(ctx, tmp + n1, &n2) == 1 &&
	    (size_t)(n1 + n2) == (inlen / 4) * 3 - pad) {
		memcpy(out, tmp, (size_t)(n1 + n2));
		rc = n1 + n2;
	} else {
		rc = -1;
	}
	EVP_ENCODE_CTX_free(ctx);
	free(tmp);
	return rc;
}

bool auth_equal_ct(const uint8_t *a, const uint8_t *b, size_t n)
{
	return CRYPTO_memcmp(a, b, n) == 0;
}

bool auth_random(uint8_t *buf, size_t n)
{
	while (n) {
		ssize_t r = getrandom(buf, n, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return false;
		}
		buf += r;
		n -= (size_t)r;
	}
	return true;
}

void auth_wipe(void *p, size_t n)
{
	explicit_bzero(p, n);
}
