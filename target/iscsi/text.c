/* text.c — key=value list parsing and building. */
#include "target/iscsi/text.h"

#include <stdio.h>
#include <string.h>

int text_parse(char *buf, size_t len, struct text_list *out, const char **err)
{
	size_t pos = 0;

	out->n = 0;
	buf[len] = '\0'; /* the caller reserved this byte */
	while (pos < len) {
		char *item = buf + pos;
		size_t ilen = strnlen(item, len - pos);
		char *eq;

		pos += ilen + 1;
		if (ilen == 0) /* padding NULs after the last pair */
			continue;
		eq = memchr(item, '=', ilen);
		if (!eq) {
			*err = "text item without '='";
			return -1;
		}
		if (eq == item) {
			*err = "empty key name";
			return -1;
		}
		if ((size_t)(eq - item) > TEXT_KEY_MAX) {
			*err = "key name longer than 63 bytes";
			return -1;
		}
		if (ilen - (size_t)(eq - item) - 1 > TEXT_VALUE_MAX) {
			*err = "value longer than 8192 bytes";
			return -1;
		}
		*eq = '\0';
		for (int i = 0; i < out->n; i++) {
			if (strcmp(out->kv[i].key, item) == 0) {
				*err = "key sent twice";
				return -1;
			}
		}
		if (out->n == TEXT_MAX_KEYS) {
			*err = "too many keys";
			return -1;
		}
		out->kv[out->n].key = item;
		out->kv[out->n].val = eq + 1;
		out->n++;
	}
	return 0;
}

const char *text_get(const struct text_list *l, const char *key)
{
	for (int i = 0; i < l->n; i++)
		if (strcmp(l->kv[i].key, key) == 0)
			return l->kv[i].val;
	return NULL;
}

void text_buf_init(struct text_buf *tb, char *storage, size_t cap)
{
	tb->data = storage;
	tb->len = 0;
	tb->cap = cap;
	tb->overflow = 0;
}

void text_add(struct text_buf *tb, const char *key, const char *val)
{
	size_t kl = strlen(key), vl = strlen(val);

	if (tb->len + kl + vl + 2 > tb->cap) {
		tb->overflow = 1;
		return;
	}
	memcpy(tb->data + tb->len, key, kl);
	tb->data[tb->len + kl] = '=';
	memcpy(tb->data + tb->len + kl + 1, val, vl);
	tb->data[tb->len + kl + 1 + vl] = '\0';
	tb->len += kl + vl + 2;
}

void text_add_u32(struct text_buf *tb, const char *key, uint32_t val)
{
	char num[16];

	snprintf(num, sizeof(num), "%u", val);
	text_add(tb, key, num);
}
