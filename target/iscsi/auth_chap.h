/* auth_chap.h — CHAP with MD5 (RFC 1994, as iSCSI uses it: RFC 7143
 * section 12.1.3): the response computation and the encodings of the binary
 * values CHAP_C and CHAP_R (RFC 7143 section 6.1: "0x" hex or "0b" base64). */
#ifndef LUNLAB_ISCSI_AUTH_CHAP_H
#define LUNLAB_ISCSI_AUTH_CHAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "target/iscsi/auth_crypto.h"

#define CHAP_ALG_MD5 5          /* CHAP_A value for MD5 */
#define CHAP_CHALLENGE_LEN 16   /* bytes in the challenges we send */
#define CHAP_BIN_MAX 1024       /* longest binary value we accept (CHAP_C) */
#define CHAP_SECRET_MIN 12      /* 96 bits, RFC 7143 section 12.1.3 */
#define CHAP_SECRET_MAX 255
#define CHAP_NAME_MAX 255

/* Decodes a binary value ("0x..." hex, odd digit count meaning a leading
 * zero nibble, or "0b..." base64) into at most cap bytes.  Returns the
 * length, or -1 when the prefix, a character, or the length is wrong (an
 * empty value is wrong too). */
int chap_decode_binary(const char *s, uint8_t *out, size_t cap);

/* "0x" + lower-case hex of n bytes into out (needs 2n + 3 bytes).  false
 * when it does not fit. */
bool chap_encode_hex(const uint8_t *in, size_t n, char *out, size_t cap);

/* MD5(id || secret || challenge), the CHAP response (RFC 1994 4.1). */
bool chap_response(uint8_t id, const uint8_t *secret, size_t secret_len, const uint8_t *challenge,
		   size_t challenge_len, uint8_t out[AUTH_MD5_LEN]);

/* Compares a received response with the expected one in constant time;
 * a wrong length is simply unequal. */
bool chap_response_ok(const uint8_t *got, size_t got_len, const uint8_t want[AUTH_MD5_LEN]);

#endif
