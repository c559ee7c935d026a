/* test_api_json.c — JSON in and out of the API: the XMS error body, the
 * bounded body parser (empty, trailing bytes, depth, NUL, not an object),
 * the typed field readers and XMS sizes. */
#include <json-c/json.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "target/api/api_json.h"

static void error_body(void **state)
{
	struct api_response r;

	memset(&r, 0, sizeof(r));
	assert_false(api_error(&r, 400, "obj_not_found"));
	assert_int_equal(r.status, 400);
	assert_string_equal(r.body, "{ \"message\": \"obj_not_found\", \"error_code\": 400 }");
	assert_int_equal(r.body_len, strlen(r.body));
	/* control characters from a request never break the one line */
	api_errorf(&r, 400, "Command Syntax Error: '%s'", "a\nb\"c");
	assert_string_equal(r.body, "{ \"message\": \"Command Syntax Error: 'a?b\\\"c'\", \"error_code\": 400 }");
	free(r.body);
}

static void bad_body(const char *text, size_t len, const char *msg)
{
	char err[256];

	assert_null(api_json_parse_body(text, len, err, sizeof(err)));
	assert_string_equal(err, msg);
}

static void parse_body(void **state)
{
	struct json_object *o;
	char err[256], deep[64];

	o = api_json_parse_body("", 0, err, sizeof(err));
	assert_non_null(o);
	assert_int_equal(json_object_object_length(o), 0);
	json_object_put(o);
	o = api_json_parse_body("{\"a\": 1}\r\n", 10, err, sizeof(err));
	assert_non_null(o);
	json_object_put(o);
	/* a body of JSON null (DELETE from goxtremio, docbert's modules) is {} */
	o = api_json_parse_body("null", 4, err, sizeof(err));
	assert_non_null(o);
	assert_true(json_object_is_type(o, json_type_object));
	assert_int_equal(json_object_object_length(o), 0);
	json_object_put(o);
	o = api_json_parse_body(" null\n", 6, err, sizeof(err));
	assert_non_null(o);
	assert_int_equal(json_object_object_length(o), 0);
	json_object_put(o);
	bad_body("nul", 3, "body: not JSON at byte 3: null expected");
	bad_body("5", 1, "body: want a JSON object");
	bad_body("null x", 6, "body: not JSON at byte 5: unexpected character");
	bad_body("{\"a\": 1} x", 10, "body: not JSON at byte 9: unexpected character");
	bad_body("[1]", 3, "body: want a JSON object");
	bad_body("{\"a\"", 4, "body: JSON ends early (at byte 4)");
	bad_body("{\"a\":\0}", 7, "body: contains a NUL byte");
	bad_body("{a: 1}", 6, "body: not JSON at byte 1: quoted object property name expected");
	memset(deep, 0, sizeof(deep));
	for (int i = 0; i < 17; i++)
		strcat(deep, "[");
	char d2[80];
	snprintf(d2, sizeof(d2), "{\"a\":%s", deep);
	assert_null(api_json_parse_body(d2, strlen(d2), err, sizeof(err)));
	assert_non_null(strstr(err, "nesting too deep"));
}

static void fields(void **state)
{
	char err[256];
	static const char text[] =
		"{\"s\": \"vol1\", \"e\": \"\", \"n\": 7, \"ns\": \"12\", \"neg\": -1, \"f\": 1.5, \"l\": [\"a\", [\"g\", \"b\", 3]],"
		" \"one\": \"x\", \"bad\": [1], \"nul\": null, \"ctl\": \"a\\u0001b\"}";
	struct json_object *o = api_json_parse_body(text, strlen(text), err, sizeof(err));
	const char *s, *list[4];
	uint64_t u;
	size_t n;

	assert_non_null(o);
	assert_int_equal(api_json_string(o, "s", 16, &s, err, sizeof(err)), 1);
	assert_string_equal(s, "vol1");
	assert_int_equal(api_json_string(o, "missing", 16, &s, err, sizeof(err)), 0);
	assert_int_equal(api_json_string(o, "nul", 16, &s, err, sizeof(err)), 0);
	assert_int_equal(api_json_string(o, "s", 3, &s, err, sizeof(err)), -1);
	assert_string_equal(err, "s: want 1..3 characters");
	assert_int_equal(api_json_string(o, "e", 3, &s, err, sizeof(err)), -1);
	assert_int_equal(api_json_string(o, "n", 3, &s, err, sizeof(err)), -1);
	assert_string_equal(err, "n: want a string");
	assert_int_equal(api_json_string(o, "ctl", 9, &s, err, sizeof(err)), -1);
	assert_string_equal(err, "ctl: control characters or a NUL byte in the string");
	assert_int_equal(api_json_uint(o, "n", 10, &u, err, sizeof(err)), 1);
	assert_true(u == 7);
	assert_int_equal(api_json_uint(o, "ns", 100, &u, err, sizeof(err)), 1);
	assert_true(u == 12);
	assert_int_equal(api_json_uint(o, "ns", 10, &u, err, sizeof(err)), -1);
	assert_string_equal(err, "ns: want a number 0..10");
	assert_int_equal(api_json_uint(o, "neg", 10, &u, err, sizeof(err)), -1);
	assert_int_equal(api_json_uint(o, "f", 10, &u, err, sizeof(err)), -1);
	assert_int_equal(api_json_string_list(o, "l", 4, 8, list, &n, err, sizeof(err)), 1);
	assert_int_equal(n, 2);
	assert_string_equal(list[1], "b"); /* an object id [guid, name, index] gives its name */
	assert_int_equal(api_json_string_list(o, "one", 4, 8, list, &n, err, sizeof(err)), 1);
	assert_int_equal(n, 1);
	assert_int_equal(api_json_string_list(o, "bad", 4, 8, list, &n, err, sizeof(err)), -1);
	assert_string_equal(err, "bad[0]: want a name");
	assert_int_equal(api_json_string_list(o, "l", 1, 8, list, &n, err, sizeof(err)), -1);
	assert_string_equal(err, "l: want 1..1 names");
	json_object_put(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(error_body),
		cmocka_unit_test(parse_body),
		cmocka_unit_test(fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
