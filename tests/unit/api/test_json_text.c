/* test_json_text.c — json_text.h writes the bytes json-c writes for the same
 * document with JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE
 * (what api_reply_json sends): empty and nested containers, every escaped
 * character, bytes above 0x7f, '/', negative and large integers, decimal
 * strings, a raw nested value; out of depth is refused, not overrun; and
 * xms_perf_text / xms_attrs_text match xms_perf_show / xms_attrs_show; jt_keep
 * leaves members out as json-c's copy of the objects without them reads. */
#include <json-c/json.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "target/api/json_text.h"
#include "target/api/xms_attrs.h"
#include "target/api/xms_perf.h"

static const char *jsonc(struct json_object *o)
{
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
}

static char *take(struct json_text *w)
{
	size_t len;
	char *s = jt_take(w, &len);

	assert_non_null(s);
	assert_int_equal(strlen(s), len);
	return s;
}

static void test_same_bytes_as_json_c(void **state)
{
	/* every control character, the named escapes, '/', UTF-8 and DEL */
	char odd[64];
	size_t n = 0;
	for (int c = 1; c < 0x20; c++)
		odd[n++] = (char)c;
	memcpy(odd + n, "\"\\/ \x7f\xc3\xa9", 8);
	n += 8;
	odd[n] = '\0';

	struct json_object *o = json_object_new_object(), *a = json_object_new_array(), *e = json_object_new_array();
	json_object_object_add(o, "name", json_object_new_string("vol/1"));
	json_object_object_add(o, "odd", json_object_new_string(odd));
	json_object_object_add(o, odd, json_object_new_int64(-9223372036854775807LL - 1));
	json_object_object_add(o, "empty-list", e);
	json_object_object_add(o, "empty-object", json_object_new_object());
	json_object_array_add(a, json_object_new_int64(1));
	json_object_array_add(a, json_object_new_string("18446744073709551615"));
	struct json_object *inner = json_object_new_array();
	json_object_array_add(inner, json_object_new_string("g"));
	json_object_array_add(a, inner);
	json_object_object_add(o, "list", a);
	json_object_object_add(o, "raw", json_tokener_parse("{\"k\": [1, {\"x\": \"y\"}]}"));

	struct json_text w;
	jt_init(&w);
	jt_obj_open(&w);
	jt_kstr(&w, "name", "vol/1");
	jt_kstr(&w, "odd", odd);
	jt_kint(&w, odd, -9223372036854775807LL - 1);
	jt_key(&w, "empty-list");
	jt_arr_open(&w);
	jt_arr_close(&w);
	jt_key(&w, "empty-object");
	jt_obj_open(&w);
	jt_obj_close(&w);
	jt_key(&w, "list");
	jt_arr_open(&w);
	jt_int(&w, 1);
	jt_uint_str(&w, UINT64_MAX);
	jt_arr_open(&w);
	jt_str(&w, "g");
	jt_arr_close(&w);
	jt_arr_close(&w);
	jt_key(&w, "raw");
	const char *raw = "{ \"k\": [ 1, { \"x\": \"y\" } ] }";
	jt_raw(&w, raw, strlen(raw));
	jt_obj_close(&w);
	char *s = take(&w);
	assert_string_equal(s, jsonc(o));
	free(s);
	json_object_put(o);
}

static void test_too_deep_is_refused(void **state)
{
	struct json_text w;
	size_t len = 1;

	jt_init(&w);
	for (int i = 0; i <= JT_MAX_DEPTH; i++)
		jt_arr_open(&w);
	assert_null(jt_take(&w, &len));
	assert_int_equal(len, 0);
}

static void test_perf_and_attrs_text_match_show(void **state)
{
	struct xms_perf_sample s1 = { 0 }, s2 = { 0 };
	struct xms_perf_counters c0 = { .rd_n = 10, .wr_n = 5, .rd_bytes = 40960, .wr_bytes = 8192,
					.rd_lat_ns = 10 * 300000, .wr_lat_ns = 5 * 700000 };
	struct xms_perf_counters c1 = { .rd_n = 110, .wr_n = 55, .rd_bytes = 40960 * 11, .wr_bytes = 8192 * 11,
					.rd_lat_ns = 110 * 300000, .wr_lat_ns = 55 * 700000 };
	struct xms_attrs a = { 0 };
	char err[200];
	struct json_object *body = json_tokener_parse(
		"{\"small-io-alerts\": \"enabled\", \"vol-access\": \"read_access\"}");

	assert_true(xms_attrs_parse(body, XMS_ATTR_VOLUME, &a, err, sizeof(err)));
	/* two readings 2 s apart, so the rates are not 0 */
	for (int round = 0; round < 2; round++) {
		const struct xms_perf_counters *c = round ? &c1 : &c0;
		struct json_object *o = json_object_new_object();
		struct json_text w;

		xms_perf_show(&s1, c, 1000 + 2000 * (uint64_t)round, o);
		xms_attrs_show(&a, XMS_ATTR_VOLUME, o);
		jt_init(&w);
		jt_obj_open(&w);
		xms_perf_text(&s2, c, 1000 + 2000 * (uint64_t)round, &w);
		xms_attrs_text(&a, XMS_ATTR_VOLUME, &w);
		jt_obj_close(&w);
		char *s = take(&w);
		assert_string_equal(s, jsonc(o));
		if (round)
			assert_non_null(strstr(s, "\"rd-iops\": \"50\"")); /* 100 reads in 2 s */
		free(s);
		json_object_put(o);
	}
	json_object_put(body);
}

/* the members jt_keep lets through: "a", "list", "deep" */
static bool keep_some(const void *arg, const char *key)
{
	(void)arg;
	return strcmp(key, "a") == 0 || strcmp(key, "list") == 0 || strcmp(key, "deep") == 0;
}

/* one object of the list below, written member by member */
static void obj_text(struct json_text *w, int i)
{
	jt_obj_open(w);
	jt_kint(w, "gone-first", i);
	jt_kstr(w, "a", "kept");
	jt_key(w, "gone-obj"); /* a refused value with kept names and containers inside */
	jt_obj_open(w);
	jt_kstr(w, "a", "inside a refused member: gone");
	jt_key(w, "list");
	jt_arr_open(w);
	jt_obj_open(w);
	jt_obj_close(w);
	jt_arr_close(w);
	jt_obj_close(w);
	jt_key(w, "list"); /* kept: the names inside are not at the filtered depth */
	jt_arr_open(w);
	jt_uint_str(w, 7);
	jt_obj_open(w);
	jt_kstr(w, "gone-first", "deeper: kept");
	jt_obj_close(w);
	jt_arr_close(w);
	jt_key(w, "gone-raw");
	jt_raw(w, "{ \"a\": 1 }", 10);
	jt_key(w, "deep");
	jt_arr_open(w);
	jt_arr_close(w);
	jt_kuint_str(w, "gone-last", UINT64_MAX);
	jt_obj_close(w);
}

static void test_keep_leaves_members_out(void **state)
{
	struct json_text all, kept;
	char *full, *s;

	(void)state;
	/* { "objs": [ {...}, {...} ], "gone-first": 1 } : the filter applies to the list's objects only */
	jt_init(&all);
	jt_init(&kept);
	for (int pass = 0; pass < 2; pass++) {
		struct json_text *w = pass ? &kept : &all;
		jt_obj_open(w);
		jt_key(w, "objs");
		jt_arr_open(w);
		if (pass) {
			jt_keep(w, jt_depth(w) + 1, keep_some, NULL);
			assert_true(jt_keeps(w, "a"));
			assert_false(jt_keeps(w, "gone-first"));
			assert_true(jt_wants(w, "gone-first")); /* not at the filtered depth yet */
		}
		for (int i = 0; i < 2; i++)
			obj_text(w, i);
		if (pass) {
			jt_obj_open(w);
			assert_false(jt_wants(w, "gone-first"));
			assert_true(jt_wants(w, "deep"));
			jt_kint(w, "gone-first", 3); /* every member refused: "{ }" as json-c writes it */
			jt_obj_close(w);
			jt_keep(w, 0, NULL, NULL);
			assert_true(jt_keeps(w, "gone-first"));
		} else {
			jt_obj_open(w);
			jt_kint(w, "gone-first", 3);
			jt_obj_close(w);
		}
		jt_arr_close(w);
		jt_kint(w, "gone-first", 1); /* at depth 1: kept */
		jt_obj_close(w);
	}
	full = take(&all);
	s = take(&kept);
	/* the expected bytes: json-c's copy of the full document, each list object's refused members deleted */
	struct json_object *o = json_tokener_parse(full), *objs;
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "objs", &objs));
	for (size_t i = 0; i < json_object_array_length(objs); i++) {
		struct json_object *e = json_object_array_get_idx(objs, i);
		json_object_object_del(e, "gone-first");
		json_object_object_del(e, "gone-obj");
		json_object_object_del(e, "gone-raw");
		json_object_object_del(e, "gone-last");
	}
	assert_string_equal(s, jsonc(o));
	assert_non_null(strstr(s, "\"deeper: kept\""));
	/* the refused names left are those not at the filtered depth: one inside each
	 * kept "list", and the outer object's */
	int gone = 0;
	for (const char *p = s; (p = strstr(p, "\"gone-")); p++)
		gone++;
	assert_int_equal(gone, 3);
	assert_non_null(strstr(s, "\"gone-first\": 1 }"));
	assert_null(strstr(s, "inside a refused"));
	assert_non_null(strstr(s, "{ }"));
	free(full);
	free(s);
	json_object_put(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_bytes_as_json_c),
		cmocka_unit_test(test_too_deep_is_refused),
		cmocka_unit_test(test_perf_and_attrs_text_match_show),
		cmocka_unit_test(test_keep_leaves_members_out),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
