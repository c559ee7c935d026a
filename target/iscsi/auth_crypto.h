/* auth_crypto.h — the cryptographic primitives CHAP needs (MD5, base64
 * decoding, constant-time compare), all from GnuTLS, plus challenge bytes
 * from getrandom(). */
#ifndef LUNLAB_ISCSI_AUTH_CRYPTO_H
#define LUNLAB_ISCSI_AUTH_CRYPTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AUTH_MD5_LEN 16

/* MD5 of n bytes. */
bool auth_md5(const uint8_t *buf, size_t n, uint8_t out[AUTH_MD5_LEN]);

/* Standard base64 (RFC 4648 alphabet, '=' padding, no whitespace) of inlen
 * characters into at most cap bytes.  Returns the decoded length, or -1 on a
 * character outside the alphabet, bad padding, or output longer than cap. */
int auth_base64_decode(const char *in, size_t inlen, uint8_t *out, size_t cap);

/* Compares n bytes in time independent of where they differ. */
bool auth_equal_ct(const uint8_t *a, const uint8_t *b, size_t n);

/* n bytes from the kernel's CSPRNG (getrandom). */
bool auth_random(uint8_t *buf, size_t n);

#endif
