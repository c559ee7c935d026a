/* text.h — iSCSI text key=value lists (RFC 7143 section 6): what Login and
 * Text PDUs carry.  Parsing copies nothing: keys and values point into the
 * caller's buffer, whose '=' and separators become NULs. */
#ifndef LUNLAB_ISCSI_TEXT_H
#define LUNLAB_ISCSI_TEXT_H

#include <stddef.h>
#include <stdint.h>

#define TEXT_MAX_KEYS 64
#define TEXT_KEY_MAX 63     /* RFC 7143 6.1: key names up to 63 bytes */
#define TEXT_VALUE_MAX 8192 /* longest value we accept (the RFC's text-value limit) */

struct text_kv {
	const char *key;
	const char *val;
};

struct text_list {
	struct text_kv kv[TEXT_MAX_KEYS];
	int n;
};

/* Parses len bytes of buf (NUL-separated key=value; a missing final NUL is
 * tolerated, buf must have room for one more byte).  Returns 0, or -1 with
 * *err naming what is wrong (no '=', empty key, key too long, duplicate key,
 * too many keys). */
int text_parse(char *buf, size_t len, struct text_list *out, const char **err);

const char *text_get(const struct text_list *l, const char *key);

/* Output buffer for a response's key=value pairs. */
struct text_buf {
	char *data;
	size_t len, cap;
	int overflow; /* set when an append did not fit */
};

void text_buf_init(struct text_buf *tb, char *storage, size_t cap);
void text_add(struct text_buf *tb, const char *key, const char *val);
void text_add_u32(struct text_buf *tb, const char *key, uint32_t val);

#endif
