/* api_json.h — JSON in and out of the HTTP API, with json-c (docs/api.md
 * says why json-c): the XMS-shaped error body, bounded parsing of request
 * bodies, and typed field readers whose errors name the field. */
#ifndef LUNLAB_API_JSON_H
#define LUNLAB_API_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "target/api/api_router.h"

struct json_object;

#define API_JSON_MAX_DEPTH 16     /* nesting a request body may have */
#define API_BODY_MAX (1u << 20)   /* request bodies larger than this: 413 */

/* {"message": message, "error_code": status} with that HTTP status.  The
 * message is XMS's token where XMS has one (obj_not_found,
 * vol_obj_name_not_unique, ...), else a one-line reason naming the field.
 * Returns false (so a handler can `return api_error(...)` from a bool). */
bool api_error(struct api_response *rsp, unsigned status, const char *message);
bool api_errorf(struct api_response *rsp, unsigned status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* obj serialised into rsp->body (pretty: no), status; obj is released. */
void api_reply_json(struct api_response *rsp, unsigned status, struct json_object *obj);

/* Parses a request body: NULL with a reason in err when it is not exactly one
 * JSON object (trailing bytes, nesting deeper than API_JSON_MAX_DEPTH, a
 * NUL byte, not an object).  An empty body is an empty object. */
struct json_object *api_json_parse_body(const char *body, size_t len, char *err, size_t errlen);

/* Field readers.  Each returns 1 when the field is there and valid (value
 * in *out), 0 when it is absent (or JSON null), -1 when it is there but
 * wrong, with a reason naming the field in err. */
int api_json_string(struct json_object *obj, const char *field, size_t maxlen, const char **out,
		    char *err, size_t errlen);
/* a non-negative integer, or a string of decimal digits (XMS clients send
 * both: "index": 3, "lun": "3") */
int api_json_uint(struct json_object *obj, const char *field, uint64_t max, uint64_t *out, char *err,
		  size_t errlen);
/* an array of strings, or a single string as a one-element list */
int api_json_string_list(struct json_object *obj, const char *field, size_t maxn, size_t maxlen,
			 const char **out, size_t *n, char *err, size_t errlen);

#endif
