/* test_xms_attrs.c — the settings XMS keeps on objects (xms_attrs.h):
 * each field parsed into what is kept, XMS's words only (a bad one named in
 * the error and nothing changed), absent fields leaving what was there,
 * how they are shown, and the stored form read back equal. */
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
			  "\"tag-list\": [\"/Volume/gold\", 3, [\"g\", \"t\", 4]]}", ALL, &a, err));
	assert_string_equal(a.os, "esx");
	assert_int_equal(a.small_io, XMS_TOGGLE_ENABLED);
	assert_int_equal(a.unaligned_io, XMS_TOGGLE_UNSET);
	assert_int_equal(a.vaai_tp, XMS_TOGGLE_DISABLED);
	assert_int_equal(a.mgmt_locked, XMS_TOGGLE_ENABLED);
	assert_string_equal(a.access, "read_access");
	assert_string_equal(a.tags, "[\"\\/Volume\\/gold\",3,[\"g\",\"t\",4]]");
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
		{ "{\"tag-list\": \"gold\"}", "tag-list: want a list of tag names or ids" },
		{ "{\"tag-list\": [{}]}", "tag-list[0]: want a tag name, index or object id" },
		{ "{\"tag-list\": [\"a\", [1, 2, 3, 4]]}", "tag-list[1]: want a tag name, index or object id" },
	};
	struct xms_attrs a, before;
	char err[200], big[600];

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
	snprintf(big, sizeof(big), "{\"tag-list\": [\"%0300d\"]}", 0);
	assert_false(parse(big, ALL, &a, err));
	assert_string_equal(err, "tag-list: 304 bytes as JSON, at most 255 kept");
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
	assert_true(json_object_object_get_ex(shown, "tag-list", &v));
	assert_int_equal(json_object_array_length(v), 0);
	json_object_put(shown);
	assert_null(xms_attrs_to_json(&a));
	assert_true(parse("{\"operating-system\": \"aix\", \"management-locked\": \"enabled\", \"vol-access\": "
			  "\"no_access\", \"tag-list\": [\"t1\"]}", ALL, &a, err));
	stored = xms_attrs_to_json(&a);
	assert_non_null(stored);
	assert_string_equal(json_object_to_json_string_ext(stored, JSON_C_TO_STRING_PLAIN),
			    "{\"operating-system\":\"aix\",\"vol-access\":\"no_access\",\"management-locked\":\"enabled\","
			    "\"tag-list\":[\"t1\"]}");
	assert_int_equal(xms_attrs_from_json(stored, &b, err, sizeof(err)), 0);
	assert_memory_equal(&a, &b, sizeof(a));
	json_object_put(stored);
	/* a damaged stored form names the field */
	stored = json_tokener_parse("{\"vol-access\": \"all\"}");
	assert_int_equal(xms_attrs_from_json(stored, &b, err, sizeof(err)), -1);
	assert_string_equal(err, "vol-access: want no_access, read_access or write_access");
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
