/* api_json.c — see api_json.h. */
#include "target/api/api_json.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set_body(struct api_response *rsp, unsigned status, const char *text, size_t len)
{
	free(rsp->body);
	rsp->body = malloc(len + 1);
	rsp->body_len = rsp->body ? len : 0;
	if (rsp->body) {
		memcpy(rsp->body, text, len);
		rsp->body[len] = '\0';
	}
	rsp->status = rsp->body ? status : 500;
	rsp->content_type = NULL;
}

void api_reply_json(struct api_response *rsp, unsigned status, struct json_object *obj)
{
	size_t len = 0;
	const char *s;

	if (!obj) {
		set_body(rsp, 500, "{\"message\": \"out of memory\", \"error_code\": 500}", 46);
		return;
	}
	s = json_object_to_json_string_length(obj, JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE,
					      &len);
	if (s)
		set_body(rsp, status, s, len);
	else
		set_body(rsp, 500, "{\"message\": \"out of memory\", \"error_code\": 500}", 46);
	json_object_put(obj);
}

bool api_error(struct api_response *rsp, unsigned status, const char *message)
{
	struct json_object *o = json_object_new_object();

	if (o) {
		json_object_object_add(o, "message", json_object_new_string(message));
		json_object_object_add(o, "error_code", json_object_new_int((int)status));
	}
	api_reply_json(rsp, status, o);
	return false;
}

bool api_errorf(struct api_response *rsp, unsigned status, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* one line: text from a request may be quoted in it */
	for (char *p = msg; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return api_error(rsp, status, msg);
}

struct json_object *api_json_parse_body(const char *body, size_t len, char *err, size_t errlen)
{
	struct json_tokener *tok;
	struct json_object *obj;
	enum json_tokener_error jerr;
	size_t used;

	while (len && (body[len - 1] == ' ' || body[len - 1] == '\n' || body[len - 1] == '\r' ||
		       body[len - 1] == '\t'))
		len--;
	if (len == 0)
		return json_object_new_object();
	if (memchr(body, '\0', len)) {
		snprintf(err, errlen, "body: contains a NUL byte");
		return NULL;
	}
	if (len > API_BODY_MAX) {
		snprintf(err, errlen, "body: larger than %u bytes", API_BODY_MAX);
		return NULL;
	}
	tok = json_tokener_new_ex(API_JSON_MAX_DEPTH);
	if (!tok) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	obj = json_tokener_parse_ex(tok, body, (int)len);
	jerr = json_tokener_get_error(tok);
	used = json_tokener_get_parse_end(tok);
	if (!obj && jerr == json_tokener_continue) {
		/* a bare literal ("null", a number) is complete only once something
		 * follows it: the end of the body is that something */
		obj = json_tokener_parse_ex(tok, " ", 1);
		jerr = json_tokener_get_error(tok);
		if (jerr == json_tokener_success)
			used = len;
	}
	if (!obj && jerr == json_tokener_success && used == len) {
		/* a body of JSON null: no fields, as XMS takes it (docbert's modules
		 * and goxtremio send DELETE with "null") */
		json_tokener_free(tok);
		return json_object_new_object();
	}
	if (!obj || jerr != json_tokener_success) {
		if (jerr == json_tokener_continue)
			snprintf(err, errlen, "body: JSON ends early (at byte %zu)", len);
		else
			snprintf(err, errlen, "body: not JSON at byte %zu: %s", used, json_tokener_error_desc(jerr));
		json_object_put(obj);
		json_tokener_free(tok);
		return NULL;
	}
	json_tokener_free(tok);
	if (used < len) {
		snprintf(err, errlen, "body: unexpected bytes after the JSON value (at byte %zu)", used);
		json_object_put(obj);
		return NULL;
	}
	if (!json_object_is_type(obj, json_type_object)) {
		snprintf(err, errlen, "body: want a JSON object");
		json_object_put(obj);
		return NULL;
	}
	return obj;
}

/* 0: absent or null; 1: *v set */
static int field(struct json_object *obj, const char *name, struct json_object **v)
{
	if (!obj || !json_object_object_get_ex(obj, name, v) || !*v || json_object_is_type(*v, json_type_null))
		return 0;
	return 1;
}

static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

int api_json_string(struct json_object *obj, const char *name, size_t maxlen, const char **out, char *err,
		    size_t errlen)
{
	struct json_object *v;

	if (!field(obj, name, &v))
		return 0;
	if (!json_object_is_type(v, json_type_string)) {
		snprintf(err, errlen, "%s: want a string", name);
		return -1;
	}
	*out = json_object_get_string(v);
	if ((size_t)json_object_get_string_len(v) != strlen(*out) || !printable(*out)) {
		snprintf(err, errlen, "%s: control characters or a NUL byte in the string", name);
		return -1;
	}
	if (strlen(*out) > maxlen || !**out) {
		snprintf(err, errlen, "%s: want 1..%zu characters", name, maxlen);
		return -1;
	}
	return 1;
}

static bool parse_decimal(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return false;
	*out = v;
	return true;
}

int api_json_uint(struct json_object *obj, const char *name, uint64_t max, uint64_t *out, char *err,
		  size_t errlen)
{
	struct json_object *v;

	if (!field(obj, name, &v))
		return 0;
	if (json_object_is_type(v, json_type_int)) {
		int64_t i = json_object_get_int64(v);
		if (i < 0 || (uint64_t)i > max) {
			snprintf(err, errlen, "%s: want a number 0..%llu", name, (unsigned long long)max);
			return -1;
		}
		*out = (uint64_t)i;
		return 1;
	}
	if (json_object_is_type(v, json_type_string) && parse_decimal(json_object_get_string(v), max, out))
		return 1;
	snprintf(err, errlen, "%s: want a number 0..%llu", name, (unsigned long long)max);
	return -1;
}

int api_json_string_list(struct json_object *obj, const char *name, size_t maxn, size_t maxlen,
			 const char **out, size_t *n, char *err, size_t errlen)
{
	struct json_object *v;
	size_t len;

	*n = 0;
	if (!field(obj, name, &v))
		return 0;
	if (json_object_is_type(v, json_type_string)) {
		int rc = api_json_string(obj, name, maxlen, &out[0], err, errlen);
		if (rc == 1)
			*n = 1;
		return rc;
	}
	if (!json_object_is_type(v, json_type_array)) {
		snprintf(err, errlen, "%s: want a list of names", name);
		return -1;
	}
	len = json_object_array_length(v);
	if (len == 0 || len > maxn) {
		snprintf(err, errlen, "%s: want 1..%zu names", name, maxn);
		return -1;
	}
	for (size_t i = 0; i < len; i++) {
		struct json_object *e = json_object_array_get_idx(v, i);
		const char *s;

		/* an element may be a name or an XMS object id [guid, name, index] */
		if (e && json_object_is_type(e, json_type_array) && json_object_array_length(e) == 3)
			e = json_object_array_get_idx(e, 1);
		if (!e || !json_object_is_type(e, json_type_string)) {
			snprintf(err, errlen, "%s[%zu]: want a name", name, i);
			return -1;
		}
		s = json_object_get_string(e);
		if (!*s || strlen(s) > maxlen || (size_t)json_object_get_string_len(e) != strlen(s) ||
		    !printable(s)) {
			snprintf(err, errlen, "%s[%zu]: want 1..%zu printable characters", name, i, maxlen);
			return -1;
		}
		out[i] = s;
	}
	*n = len;
	return 1;
}

