/* test_xms_attrs.c — the settings XMS keeps on objects (xms_attrs.h):
 * each field parsed into what is kept, XMS's words only (a bad one named in
 * the error and nothing changed), absent fields leaving what was there,
 * how they are shown, and the stored form (with the tags' indexes) read
 * back equal.  The tag-list of bodies is the tags' (test: api-tags). */
#include <json-c/json.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "target/api/xms_attrs.h"

#define ALL (XMS_ATTR_OS | XMS_ATTR_VOLUME | XMS_ATTR_TAGS)

static bool parse(const char *json, unsigned set, struct xms_attrs *a, char *err)
{
	struct json_object *o = json_tokener_parse(json);
	bool ok;

	assert_non_null(o);
	ok = xms_attrs_parse(o, set, a, err, 200);
	json_object_put(o);
	return ok;
}

static void test_fields_kept(void **state)
{
	struct xms_attrs a;
	char err[200];

	(void)state;
	memset(&a, 0, sizeof(a));
	assert_true(parse("{\"operating-system\": \"esx\", \"small-io-alerts\": \"enabled\", \"vaai-tp-alerts\": "
			  "\"disabled\", \"management-locked\": \"enabled\", \"vol-access\": \"read_access\", "
			  "\"tag-list\": [\"/Volume/gold\"]}", ALL, &a, err));
	assert_string_equal(a.os, "esx");
	assert_int_equal(a.small_io, XMS_TOGGLE_ENABLED);
	assert_int_equal(a.unaligned_io, XMS_TOGGLE_UNSET);
	assert_int_equal(a.vaai_tp, XMS_TOGGLE_DISABLED);
	assert_int_equal(a.mgmt_locked, XMS_TOGGLE_ENABLED);
	assert_string_equal(a.access, "read_access");
	assert_int_equal(a.ntags, 0); /* not read here: it names the model's tags */
	/* absent fields stay; a field outside the set is not read */
	assert_true(parse("{\"small-io-alerts\": \"disabled\", \"operating-system\": \"nonsense\"}", XMS_ATTR_VOLUME,
			  &a, err));
	assert_int_equal(a.small_io, XMS_TOGGLE_DISABLED);
	assert_string_equal(a.os, "esx");
	assert_int_equal(a.mgmt_locked, XMS_TOGGLE_ENABLED);
	/* null is absent */
	assert_true(parse("{\"operating-system\": null}", ALL, &a, err));
	assert_string_equal(a.os, "esx");
}

static void test_bad_values(void **state)
{
	static const struct {
		const char *json, *err;
	} cases[] = {
		{ "{\"operating-system\": \"beos\"}", "operating-system: want linux, windows, esx, solaris, aix, hpux or other" },
		{ "{\"operating-system\": 1}", "operating-system: want linux, windows, esx, solaris, aix, hpux or other" },
		{ "{\"small-io-alerts\": true}", "small-io-alerts: want enabled or disabled" },
		{ "{\"management-locked\": \"on\"}", "management-locked: want enabled or disabled" },
		{ "{\"vol-access\": \"rw\"}", "vol-access: want no_access, read_access or write_access" },
	};
	struct xms_attrs a, before;
	char err[200];

	(void)state;
	memset(&a, 0, sizeof(a));
	assert_true(parse("{\"operating-system\": \"linux\"}", ALL, &a, err));
	before = a;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* a good field beside the bad one is not kept either */
		char json[256];
		snprintf(json, sizeof(json), "%.*s, \"unaligned-io-alerts\": \"enabled\"}", (int)strlen(cases[i].json) - 1,
			 cases[i].json);
		assert_false(parse(json, ALL, &a, err));
		assert_string_equal(err, cases[i].err);
		assert_memory_equal(&a, &before, sizeof(a));
	}
}

static void test_show_and_store(void **state)
{
	struct xms_attrs a, b;
	struct json_object *shown = json_object_new_object(), *stored, *v;
	char err[200];

	(void)state;
	memset(&a, 0, sizeof(a));
	/* nothing set: XMS's defaults shown, nothing stored */
	xms_attrs_show(&a, ALL, shown);
	assert_true(json_object_object_get_ex(shown, "operating-system", &v));
	assert_string_equal(json_object_get_string(v), "other");
	assert_true(json_object_object_get_ex(shown, "small-io-alerts", &v));
	assert_string_equal(json_object_get_string(v), "disabled");
	assert_false(json_object_object_get_ex(shown, "vol-access", NULL));
	assert_false(json_object_object_get_ex(shown, "tag-list", NULL)); /* xms_tag_list_show's */
	json_object_put(shown);
	assert_null(xms_attrs_to_json(&a));
	assert_true(parse("{\"operating-system\": \"aix\", \"management-locked\": \"enabled\", \"vol-access\": "
			  "\"no_access\"}", ALL, &a, err));
	a.tags[0] = 7;
	a.tags[1] = 3;
	a.ntags = 2;
	stored = xms_attrs_to_json(&a);
	assert_non_null(stored);
	assert_string_equal(json_object_to_json_string_ext(stored, JSON_C_TO_STRING_PLAIN),
			    "{\"operating-system\":\"aix\",\"vol-access\":\"no_access\",\"management-locked\":\"enabled\","
			    "\"tag-ids\":[7,3]}");
	assert_int_equal(xms_attrs_from_json(stored, &b, err, sizeof(err)), 0);
	assert_memory_equal(&a, &b, sizeof(a));
	json_object_put(stored);
	/* a damaged stored form names the field */
	stored = json_tokener_parse("{\"vol-access\": \"all\"}");
	assert_int_equal(xms_attrs_from_json(stored, &b, err, sizeof(err)), -1);
	assert_string_equal(err, "vol-access: want no_access, read_access or write_access");
	json_object_put(stored);
	/* tag-ids bounds-checked; an older version's tag-list text is dropped */
	static const struct {
		const char *json, *err;
	} bad[] = {
		{ "{\"tag-ids\": 3}", "tag-ids: want a list of at most 16 tag indexes" },
		{ "{\"tag-ids\": [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17]}",
		  "tag-ids: want a list of at most 16 tag indexes" },
		{ "{\"tag-ids\": [1, 0]}", "tag-ids[1]: want a tag index >= 1" },
		{ "{\"tag-ids\": [\"1\"]}", "tag-ids[0]: want a tag index >= 1" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		stored = json_tokener_parse(bad[i].json);
		assert_int_equal(xms_attrs_from_json(stored, &b, err, sizeof(err)), -1);
		assert_string_equal(err, bad[i].err);
		json_object_put(stored);
	}
	stored = json_tokener_parse("{\"operating-system\": \"linux\", \"tag-list\": [\"t1\", 2]}");
	assert_int_equal(xms_attrs_from_json(stored, &b, err, sizeof(err)), 0);
	assert_string_equal(b.os, "linux");
	assert_int_equal(b.ntags, 0);
	json_object_put(stored);
	assert_int_equal(xms_attrs_from_json(NULL, &b, err, sizeof(err)), 0);
	assert_null(xms_attrs_to_json(&b));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields_kept),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_show_and_store),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
