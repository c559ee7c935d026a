/* json_text.c — see json_text.h.  The separators and the escaping follow
 * json-c 0.16's json_object_to_json_string_ext (Debian 12), which the rest
 * of the API answers with; tests/unit/test_json_text.c compares the two. */
#include "target/api/json_text.h"

#include <stdlib.h>
#include <string.h>

void jt_init(struct json_text *w)
{
	memset(w, 0, sizeof(*w));
}

void jt_free(struct json_text *w)
{
	free(w->buf);
	jt_init(w);
}

char *jt_take(struct json_text *w, size_t *len)
{
	char *b = w->oom ? NULL : w->buf;

	if (w->oom)
		free(w->buf);
	*len = b ? w->len : 0;
	jt_init(w);
	return b;
}

static bool room(struct json_text *w, size_t n)
{
	if (w->oom)
		return false;
	if (w->len + n + 1 > w->cap) {
		size_t nc = w->cap ? w->cap : 4096;
		char *nb;

		while (nc < w->len + n + 1)
			nc *= 2;
		nb = realloc(w->buf, nc);
		if (!nb) {
			w->oom = true;
			return false;
		}
		w->buf = nb;
		w->cap = nc;
	}
	return true;
}

static void put(struct json_text *w, const char *s, size_t n)
{
	if (!room(w, n))
		return;
	memcpy(w->buf + w->len, s, n);
	w->len += n;
	w->buf[w->len] = '\0';
}

#define PUTS(w, lit) put((w), (lit), sizeof(lit) - 1)

/* before a member of the open container: json-c writes "," between members
 * and " " before each (SPACED) */
static void sep(struct json_text *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->depth == 0)
		return;
	if (w->has[w->depth - 1])
		PUTS(w, ",");
	PUTS(w, " ");
	w->has[w->depth - 1] = true;
}

/* true when what is written now belongs to a refused member's value (and
 * is dropped); a value that ends here (a scalar at the member's depth, or
 * the close that returns there) ends the skipping */
static bool skipped_scalar(struct json_text *w)
{
	if (!w->skip_depth)
		return false;
	if (w->depth == w->skip_depth)
		w->skip_depth = 0;
	return true;
}

void jt_keep(struct json_text *w, int depth, bool (*keep)(const void *arg, const char *key), const void *arg)
{
	w->keep_depth = keep ? depth : 0;
	w->keep = keep;
	w->keep_arg = arg;
	w->skip_depth = 0;
}

int jt_depth(const struct json_text *w)
{
	return w->depth;
}

bool jt_keeps(const struct json_text *w, const char *key)
{
	return !w->keep_depth || w->keep(w->keep_arg, key);
}

bool jt_wants(const struct json_text *w, const char *key)
{
	if (w->skip_depth)
		return false;
	return !w->keep_depth || w->depth != w->keep_depth || w->keep(w->keep_arg, key);
}

static void open_c(struct json_text *w, const char *c)
{
	if (w->depth >= JT_MAX_DEPTH) {
		w->oom = true; /* deeper than any document written here: refused, not overrun */
		return;
	}
	if (w->skip_depth) { /* inside a refused member's value: counted, not written */
		w->depth++;
		return;
	}
	sep(w);
	put(w, c, 1);
	w->has[w->depth] = false;
	w->depth++;
}

static void close_c(struct json_text *w, const char *c)
{
	if (w->skip_depth) {
		if (w->depth > 0)
			w->depth--;
		if (w->depth == w->skip_depth)
			w->skip_depth = 0; /* the refused member's value is closed */
		return;
	}
	/* " }" / " ]" whether empty or not: json-c's "{ }" and "{ "a": 1 }" */
	put(w, c, 2);
	if (w->depth > 0)
		w->depth--;
}

void jt_obj_open(struct json_text *w) { open_c(w, "{"); }
void jt_obj_close(struct json_text *w) { close_c(w, " }"); }
void jt_arr_open(struct json_text *w) { open_c(w, "["); }
void jt_arr_close(struct json_text *w) { close_c(w, " ]"); }

/* json-c's json_escape_str with JSON_C_TO_STRING_NOSLASHESCAPE: the named
 * escapes, other control characters as \u00xx (lower-case hex), bytes from
 * 0x80 up as they are */
static void escaped(struct json_text *w, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const char *run = s;

	PUTS(w, "\"");
	for (const char *p = s; *p; p++) {
		unsigned char c = (unsigned char)*p;
		const char *e = NULL;
		char u[6];

		if (c >= ' ' && c != '"' && c != '\\')
			continue; /* most bytes: one test, not the switch */
		switch (c) {
		case '\b': e = "\\b"; break;
		case '\n': e = "\\n"; break;
		case '\r': e = "\\r"; break;
		case '\t': e = "\\t"; break;
		case '\f': e = "\\f"; break;
		case '"': e = "\\\""; break;
		case '\\': e = "\\\\"; break;
		default:
			if (c >= ' ')
				continue;
		}
		put(w, run, (size_t)(p - run));
		if (e) {
			put(w, e, 2);
		} else {
			memcpy(u, "\\u00", 4);
			u[4] = hex[c >> 4];
			u[5] = hex[c & 15];
			put(w, u, 6);
		}
		run = p + 1;
	}
	put(w, run, strlen(run));
	PUTS(w, "\"");
}

void jt_key(struct json_text *w, const char *key)
{
	if (w->skip_depth)
		return; /* a key inside a refused member's value */
	if (w->keep_depth && w->depth == w->keep_depth && !w->keep(w->keep_arg, key)) {
		w->skip_depth = w->depth; /* its value is passed over too */
		return;
	}
	sep(w);
	escaped(w, key);
	PUTS(w, ": ");
	w->after_key = true;
}

void jt_str(struct json_text *w, const char *s)
{
	if (skipped_scalar(w))
		return;
	sep(w);
	escaped(w, s);
}

/* decimal digits of v at the end of buf[24]; the first one returned
 * (snprintf's "%" PRIu64 without its cost: a listing writes ~30 numbers
 * per volume) */
static char *digits(uint64_t v, char buf[24])
{
	char *p = buf + 24;

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return p;
}

void jt_int(struct json_text *w, int64_t v)
{
	char b[24], *p;

	if (skipped_scalar(w))
		return;
	p = digits(v < 0 ? 0 - (uint64_t)v : (uint64_t)v, b);
	if (v < 0)
		*--p = '-';
	sep(w);
	put(w, p, (size_t)(b + 24 - p));
}

void jt_uint_str(struct json_text *w, uint64_t v)
{
	char b[25], *p;

	if (skipped_scalar(w))
		return;
	p = digits(v, b);
	*--p = '"';
	b[24] = '"';
	sep(w);
	put(w, p, (size_t)(b + 25 - p));
}

void jt_raw(struct json_text *w, const char *text, size_t len)
{
	if (skipped_scalar(w))
		return;
	sep(w);
	put(w, text, len);
}

void jt_kstr(struct json_text *w, const char *key, const char *s)
{
	jt_key(w, key);
	jt_str(w, s);
}

void jt_kint(struct json_text *w, const char *key, int64_t v)
{
	jt_key(w, key);
	jt_int(w, v);
}

void jt_kuint_str(struct json_text *w, const char *key, uint64_t v)
{
	jt_key(w, key);
	jt_uint_str(w, v);
}
