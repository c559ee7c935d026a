/* auth_crypto.c — see auth_crypto.h.  MD5, base64 and the constant-time
 * compare come from GnuTLS, which the management API's HTTPS already links:
 * well-kept implementations, nothing hand-rolled here but the strictness
 * checks around them. */
#include "target/iscsi/auth_crypto.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>

bool auth_md5(const uint8_t *buf, size_t n, uint8_t out[AUTH_MD5_LEN])
{
	/* CHAP (RFC 1994) is defined on MD5; refused only in FIPS mode */
	return gnutls_hash_fast(GNUTLS_DIG_MD5, buf, n, out) == 0;
}

static bool b64_char(char ch)
{
	return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
	       ch == '+' || ch == '/';
}

int auth_base64_decode(const char *in, size_t inlen, uint8_t *out, size_t cap)
{
	size_t pad = 0;
	gnutls_datum_t b64, bin = { NULL, 0 };
	int rc = -1;

	/* accept only the strict form, checked here before GnuTLS decodes it,
	 * so what we check is what it decodes */
	if (inlen == 0 || inlen % 4 != 0 || inlen > UINT_MAX / 2)
		return -1;
	while (pad < 2 && in[inlen - 1 - pad] == '=')
		pad++;
	for (size_t i = 0; i < inlen - pad; i++)
		if (!b64_char(in[i]))
			return -1;
	if ((inlen / 4) * 3 - pad > cap)
		return -1;
	b64.data = (unsigned char *)(uintptr_t)in;
	b64.size = (unsigned int)inlen;
	if (gnutls_base64_decode2(&b64, &bin) == 0 && bin.size == (inlen / 4) * 3 - pad) {
		memcpy(out, bin.data, bin.size);
		rc = (int)bin.size;
	}
	if (bin.data) {
		explicit_bzero(bin.data, bin.size); /* it may be a secret */
		gnutls_free(bin.data);
	}
	return rc;
}

bool auth_equal_ct(const uint8_t *a, const uint8_t *b, size_t n)
{
	return gnutls_memcmp(a, b, n) == 0;
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
