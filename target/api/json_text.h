/* json_text.h — JSON written straight into a growing buffer, byte for byte
 * as json-c writes the same document with JSON_C_TO_STRING_SPACED |
 * JSON_C_TO_STRING_NOSLASHESCAPE (what api_reply_json sends): `{ "k": v,
 * "k2": [ 1, 2 ] }`, `{ }` and `[ ]` when empty, strings escaped as json-c
 * escapes them.  Why: a listing of 10,000 volumes built as json-c objects
 * spent most of its time allocating, hashing and freeing ~60 objects per
 * volume only to serialise them once (docs/api.md "Benchmarks"); written
 * here, the same bytes come out without them.  Out of memory is sticky:
 * every call after it is a no-op and jt_take() answers NULL. */
#ifndef LUNLAB_JSON_TEXT_H
#define LUNLAB_JSON_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JT_MAX_DEPTH 16

struct json_text {
	char *buf;
	size_t len, cap;
	bool oom;
	int depth;                     /* open containers */
	bool has[JT_MAX_DEPTH];        /* the container at each depth has a member already */
	bool after_key;                /* a key was written: its value comes next, no separator */
};

void jt_init(struct json_text *w);
void jt_free(struct json_text *w);
/* the text (NUL-terminated, len bytes) handed over to the caller; NULL when
 * out of memory (w is emptied either way) */
char *jt_take(struct json_text *w, size_t *len);

void jt_obj_open(struct json_text *w);
void jt_obj_close(struct json_text *w);
void jt_arr_open(struct json_text *w);
void jt_arr_close(struct json_text *w);
void jt_key(struct json_text *w, const char *key);
void jt_str(struct json_text *w, const char *s);
void jt_int(struct json_text *w, int64_t v);
void jt_uint_str(struct json_text *w, uint64_t v); /* "123": how XMS sends most numbers */
/* an already serialised value (in the same format), e.g. a nested document */
void jt_raw(struct json_text *w, const char *text, size_t len);

/* shorthands for an object's member */
void jt_kstr(struct json_text *w, const char *key, const char *s);
void jt_kint(struct json_text *w, const char *key, int64_t v);
void jt_kuint_str(struct json_text *w, const char *key, uint64_t v);

#endif
