/* test_xms_dirty.c — the model's marks of what changed (xms_dirty.h):
 * each type's marks come back sorted and once each, adds and deletes mark
 * themselves and what a delete changes in other objects, a clear empties
 * them, "all" stands for every object; and one object's JSON is the same
 * text as its entry in the whole document (what the store relies on). */
#include <json-c/json.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "target/api/xms_model.h"

static struct xms_model m;

static int teardown(void **state)
{
	(void)state;
	xms_model_free(&m);
	return 0;
}

/* the marks of kind k as "1,2,5" */
static const char *marks(enum xms_kind k)
{
	static char out[256];
	size_t n, at = 0;
	const uint64_t *v = xms_dirty_of(&m, k, &n);

	out[0] = '\0';
	for (size_t i = 0; i < n && at < sizeof(out) - 24; i++)
		at += (size_t)snprintf(out + at, sizeof(out) - at, "%s%llu", i ? "," : "", (unsigned long long)v[i]);
	return out;
}

static void sorted_once(void **state)
{
	(void)state;
	xms_model_changed(&m, XMS_KIND_VOLUME, 9);
	xms_model_changed(&m, XMS_KIND_VOLUME, 2);
	xms_model_changed(&m, XMS_KIND_VOLUME, 9);
	xms_model_changed(&m, XMS_KIND_LUNMAP, 4);
	for (int i = 0; i < 100; i++) /* past the first growth */
		xms_model_changed(&m, XMS_KIND_VOLUME, 5);
	assert_int_equal(xms_dirty_count(&m), 104);
	assert_string_equal(marks(XMS_KIND_VOLUME), "2,5,9");
	assert_string_equal(marks(XMS_KIND_LUNMAP), "4");
	assert_string_equal(marks(XMS_KIND_CG), "");
	assert_int_equal(xms_dirty_count(&m), 4); /* the repeats are gone once read */
	xms_model_changed(&m, XMS_KINDS, 1);
	assert_int_equal(xms_dirty_count(&m), 4);
	xms_dirty_clear(&m);
	assert_int_equal(xms_dirty_count(&m), 0);
	assert_false(xms_dirty_all(&m));
	xms_model_changed_all(&m);
	assert_true(xms_dirty_all(&m));
	assert_int_equal(xms_dirty_count(&m), 0);
	xms_model_changed(&m, XMS_KIND_VOLUME, 3); /* all covers it */
	assert_string_equal(marks(XMS_KIND_VOLUME), "");
	xms_dirty_clear(&m);
	assert_false(xms_dirty_all(&m));
}

static void adds_and_deletes_mark(void **state)
{
	struct xms_volume *v;
	struct xms_cg *g;
	struct xms_snapset *s;

	(void)state;
	assert_non_null(xms_cluster_add(&m));
	for (int i = 0; i < 3; i++) {
		v = xms_volume_add(&m);
		v->cluster = 1;
	}
	g = xms_cg_add(&m);
	assert_true(xms_idlist_add(&g->vols, 2));
	s = xms_snapset_add(&m);
	assert_true(xms_idlist_add(&s->vols, 3));
	xms_volume_get(&m, 3)->snapset = 1;
	assert_non_null(xms_ig_add(&m));
	assert_non_null(xms_initiator_add(&m));
	assert_non_null(xms_lunmap_add(&m));
	assert_string_equal(marks(XMS_KIND_CLUSTER), "1");
	assert_string_equal(marks(XMS_KIND_VOLUME), "1,2,3");
	assert_string_equal(marks(XMS_KIND_CG), "1");
	assert_string_equal(marks(XMS_KIND_SNAPSET), "1");
	assert_string_equal(marks(XMS_KIND_IG), "1");
	assert_string_equal(marks(XMS_KIND_INITIATOR), "1");
	assert_string_equal(marks(XMS_KIND_LUNMAP), "1");
	xms_dirty_clear(&m);

	/* volume 2 leaves group 1: both marked, nothing else */
	xms_volume_del(&m, 2);
	assert_string_equal(marks(XMS_KIND_VOLUME), "2");
	assert_string_equal(marks(XMS_KIND_CG), "1");
	assert_string_equal(marks(XMS_KIND_SNAPSET), "");
	xms_dirty_clear(&m);
	/* the set goes: its snapshot (volume 3) forgets it */
	xms_snapset_del(&m, 1);
	assert_string_equal(marks(XMS_KIND_SNAPSET), "1");
	assert_string_equal(marks(XMS_KIND_VOLUME), "3");
	assert_int_equal(xms_volume_get(&m, 3)->snapset, 0);
	xms_dirty_clear(&m);
	xms_cg_del(&m, 1);
	xms_ig_del(&m, 1);
	xms_initiator_del(&m, 1);
	xms_lunmap_del(&m, 1);
	assert_string_equal(marks(XMS_KIND_CG), "1");
	assert_string_equal(marks(XMS_KIND_IG), "1");
	assert_string_equal(marks(XMS_KIND_INITIATOR), "1");
	assert_string_equal(marks(XMS_KIND_LUNMAP), "1");
	xms_dirty_clear(&m);
	/* deleting what is not there marks nothing */
	xms_volume_del(&m, 42);
	xms_ig_del(&m, 42);
	xms_lunmap_del(&m, 42);
	assert_int_equal(xms_dirty_count(&m), 0);
}

/* one object's text is its entry's text in the whole document, and head is
 * the document with every objects list empty */
static void object_text_is_the_documents(void **state)
{
	struct json_object *doc, *one, *t, *objs, *head;
	struct xms_volume *v;

	(void)state;
	assert_non_null(xms_cluster_add(&m));
	v = xms_volume_add(&m);
	snprintf(v->name, sizeof(v->name), "a\"b");
	v->cluster = 1;
	v->size = 1 << 20;
	v->lb_size = 512;
	v->attrs.mgmt_locked = 1;
	assert_non_null(xms_volume_add(&m));
	doc = xms_model_to_json(&m);
	assert_true(json_object_object_get_ex(doc, "volumes", &t));
	assert_true(json_object_object_get_ex(t, "objects", &objs));
	one = xms_model_object_json(&m, XMS_KIND_VOLUME, 1);
	assert_string_equal(json_object_to_json_string_ext(one, JSON_C_TO_STRING_PLAIN),
			    json_object_to_json_string_ext(json_object_array_get_idx(objs, 0), JSON_C_TO_STRING_PLAIN));
	json_object_put(one);
	assert_null(xms_model_object_json(&m, XMS_KIND_VOLUME, 3));
	assert_null(xms_model_object_json(&m, XMS_KIND_LUNMAP, 1));
	head = xms_model_head_json(&m);
	for (int k = 0; k < XMS_KINDS; k++) {
		assert_true(json_object_object_get_ex(doc, xms_kind_name((enum xms_kind)k), &t));
		json_object_object_add(t, "objects", json_object_new_array());
	}
	assert_string_equal(json_object_to_json_string_ext(head, JSON_C_TO_STRING_PLAIN),
			    json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN));
	assert_string_equal(xms_kind_name(XMS_KIND_SNAPSET), "snapshot-sets");
	assert_string_equal(xms_kind_name(XMS_KINDS), "");
	json_object_put(head);
	json_object_put(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(sorted_once, teardown),
		cmocka_unit_test_teardown(adds_and_deletes_mark, teardown),
		cmocka_unit_test_teardown(object_text_is_the_documents, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
