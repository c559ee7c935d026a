/* auth_crypto.c — see auth_crypto.h.
 *
 * Why dlopen: target/meson.build links the transport library without extra
 * dependencies (and the fuzz targets compile the transport sources bare), so
 * libcrypto is bound at run time here; the prototypes still come from
 * the OpenSSL headers through __typeof__, so every call is type-checked.  Linking
 * libcrypto directly instead only needs the loader below replaced by the
 * plain function names. */
#include "target/iscsi/auth_crypto.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#define LIBCRYPTO_SONAME "libcrypto.so.3"

static struct {
	__typeof__(&EVP_Digest) digest;
	__typeof__(&EVP_md5) md5;
	__typeof__(&EVP_ENCODE_CTX_new) enc_new;
	__typeof__(&EVP_ENCODE_CTX_free) enc_free;
	__typeof__(&EVP_DecodeInit) dec_init;
	__typeof__(&EVP_DecodeUpdate) dec_update;
	__typeof__(&EVP_DecodeFinal) dec_final;
	__typeof__(&CRYPTO_memcmp) memcmp_ct;
} lc;
static const char *load_err;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void)
{
	void *h = dlopen(LIBCRYPTO_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		load_err = "cannot load " LIBCRYPTO_SONAME " (install libssl3)";
		return;
	}
#define SYM(field, name)                                                      \
	do {                                                                  \
		*(void **)&lc.field = dlsym(h, name);                         \
		if (!lc.field) {                                              \
			load_err = LIBCRYPTO_SONAME " lacks " name;           \
			return;                                               \
		}                                                             \
	} while (0)
	SYM(digest, "EVP_Digest");
	SYM(md5, "EVP_md5");
	SYM(enc_new, "EVP_ENCODE_CTX_new");
	SYM(enc_free, "EVP_ENCODE_CTX_free");
	SYM(dec_init, "EVP_DecodeInit");
	SYM(dec_update, "EVP_DecodeUpdate");
	SYM(dec_final, "EVP_DecodeFinal");
	SYM(memcmp_ct, "CRYPTO_memcmp");
#undef SYM
	/* the handle stays open for the life of the process */
}

bool auth_crypto_load(const char **err)
{
	pthread_once(&load_once, load);
	if (load_err && err)
		*err = load_err;
	return load_err == NULL;
}

bool auth_md5(const uint8_t *buf, size_t n, uint8_t out[AUTH_MD5_LEN])
{
	unsigned int len = 0;

	if (!auth_crypto_load(NULL))
		return false;
	if (lc.digest(buf, n, out, &len, lc.md5(), NULL) != 1 || len != AUTH_MD5_LEN)
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

	if (!auth_crypto_load(NULL))
		return -1;
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
	ctx = lc.enc_new();
	if (!tmp || !ctx) {
		free(tmp);
		if (ctx)
			lc.enc_free(ctx);
		return -1;
	}
	lc.dec_init(ctx);
	rc = lc.dec_update(ctx, tmp, &n1, (const unsigned char *)in, (int)inlen);
	if (rc >= 0 && lc.dec_final(ctx, tmp + n1, &n2) == 1 &&
	    (size_t)(n1 + n2) == (inlen / 4) * 3 - pad) {
		memcpy(out, tmp, (size_t)(n1 + n2));
		rc = n1 + n2;
	} else {
		rc = -1;
	}
	lc.enc_free(ctx);
	free(tmp);
	return rc;
}

bool auth_equal_ct(const uint8_t *a, const uint8_t *b, size_t n)
{
	if (auth_crypto_load(NULL))
		return lc.memcmp_ct(a, b, n) == 0;
	/* never reached in practice (nothing to compare without MD5), but
	 * fail closed */
	return false;
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
