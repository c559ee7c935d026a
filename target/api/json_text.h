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
	/* jt_keep(): the members of objects open at keep_depth whose key keep()
	 * refuses are left out, value and all */
	int keep_depth;                /* 0: every member kept */
	bool (*keep)(const void *arg, const char *key);
	const void *keep_arg;
	int skip_depth;                /* >0: a refused member's value is being passed over; its depth */
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

/* From now on, in every object open at depth (1: the outermost container
 * written), a member whose key keep(arg, key) refuses is not written, nor
 * anything of its value: the same bytes as the object with those members
 * removed (what a ?prop= projection of the object's json-c form sends).
 * depth 0 or keep NULL: everything is written again. */
void jt_keep(struct json_text *w, int depth, bool (*keep)(const void *arg, const char *key), const void *arg);
/* open containers now (a depth for jt_keep) */
int jt_depth(const struct json_text *w);
/* false when a member named key, written now, would be left out (jt_keep):
 * a writer may then spare the work of its value */
bool jt_wants(const struct json_text *w, const char *key);
/* false when jt_keep's filter refuses key (at whatever depth it applies):
 * a writer may spare the work of a value before it writes its objects */
bool jt_keeps(const struct json_text *w, const char *key);

/* shorthands for an object's member */
void jt_kstr(struct json_text *w, const char *key, const char *s);
void jt_kint(struct json_text *w, const char *key, int64_t v);
void jt_kuint_str(struct json_text *w, const char *key, uint64_t v);

#endif
