/* test_xms_model.c — the XMS object model: indexes never reused, lookups by
 * name and by index ("12" is a name when an object has it), removals that
 * keep groups and sets consistent, and the JSON document it is stored as:
 * a round trip keeps everything, and every bad field is refused by name. */
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
	xms_model_free(&m);
	return 0;
}

static void fill(void)
{
	struct xms_cluster *c = xms_cluster_add(&m);
	struct xms_volume *v;
	struct xms_ig *g;
	struct xms_initiator *n;
	struct xms_lunmap *l;
	struct xms_cg *cg;
	struct xms_snapset *s;

	snprintf(c->name, sizeof(c->name), "xbrick1");
	snprintf(c->keys, sizeof(c->keys), "model=x2");
	c->lb_size = 512;
	c->chap_auth = XMS_CHAP_INITIATOR;
	for (int i = 0; i < 3; i++) {
		v = xms_volume_add(&m);
		assert_true(xms_volume_set_name(&m, v, 1, i == 2 ? "1" : i ? "vol1" : "vol0"));
		v->size = 1 << 30;
		v->lb_size = 512;
	}
	v = xms_volume_get(&m, 2);
	v->ancestor = 1;
	v->snapshot = v->readonly = true;
	v->snapset = 1;
	v->attrs.small_io = XMS_TOGGLE_ENABLED;
	snprintf(v->attrs.access, sizeof(v->attrs.access), "no_access");
	/* tags: the root /Volume and /Volume/gold, which volume 2 carries */
	struct xms_tag *t = xms_tag_add(&m);
	snprintf(t->caption, sizeof(t->caption), "Volume");
	t = xms_tag_add(&m);
	snprintf(t->caption, sizeof(t->caption), "gold");
	t->parent = 1;
	snprintf(t->color, sizeof(t->color), "#FF0000");
	t->created_ms = 1764900000123;
	v->attrs.tags[0] = 2;
	v->attrs.ntags = 1;
	g = xms_ig_add(&m);
	assert_true(xms_ig_set_name(&m, g, 1, "host1"));
	snprintf(g->attrs.os, sizeof(g->attrs.os), "esx");
	n = xms_initiator_add(&m);
	assert_true(xms_initiator_set_name(&m, n, 1, "h1", "iqn.1993-08.org.debian:01:h1"));
	n->ig = 1;
	snprintf(n->auth_user, sizeof(n->auth_user), "chap_user");
	snprintf(n->auth_pass, sizeof(n->auth_pass), "secret123456");
	l = xms_lunmap_add(&m);
	assert_true(xms_lunmap_set(&m, l, 1, 1, 1));
	l->lun = 5;
	cg = xms_cg_add(&m);
	assert_true(xms_cg_set_name(&m, cg, 1, "cg1"));
	assert_true(xms_idlist_add(&cg->vols, 1) && xms_idlist_add(&cg->vols, 3));
	s = xms_snapset_add(&m);
	assert_true(xms_snapset_set_name(&m, s, 1, "set1"));
	assert_true(xms_idlist_add(&s->vols, 2));
}

static void objects(void **state)
{
	fill();
	assert_int_equal(xms_volume_by_name(&m, "vol1")->index, 2);
	/* "1" names volume 3; "2" (no such name) is index 2 */
	assert_int_equal(xms_volume_ref(&m, "1")->index, 3);
	assert_int_equal(xms_volume_ref(&m, "2")->index, 2);
	assert_null(xms_volume_ref(&m, "9"));
	assert_null(xms_volume_ref(&m, "01"));
	assert_int_equal(xms_initiator_by_port(&m, "IQN.1993-08.org.debian:01:H1")->index, 1);
	assert_non_null(xms_lunmap_find(&m, 1, 1));
	assert_null(xms_lunmap_find(&m, 2, 1));
	assert_int_equal(strlen(xms_volume_get(&m, 1)->guid), XMS_GUID_LEN);
	assert_string_not_equal(xms_volume_get(&m, 1)->guid, xms_volume_get(&m, 2)->guid);
	/* a removed volume leaves its group and set; its index is never reused */
	xms_volume_del(&m, 3);
	assert_int_equal(xms_cg_get(&m, 1)->vols.n, 1);
	xms_volume_del(&m, 2);
	assert_int_equal(xms_snapset_get(&m, 1)->vols.n, 0);
	assert_int_equal(xms_volume_add(&m)->index, 4);
	assert_null(xms_volume_get(&m, 3));
	xms_snapset_del(&m, 1);
	assert_null(xms_snapset_by_name(&m, "set1"));
}

/* names and IQNs are per cluster: lookups see the model's scope */
static void scoped_lookups(void **state)
{
	struct xms_volume *v;
	struct xms_initiator *n;

	fill();
	assert_non_null(xms_cluster_add(&m)); /* cluster 2 */
	v = xms_volume_add(&m);               /* volume 4: "vol1" again, in cluster 2 */
	assert_true(xms_volume_set_name(&m, v, 2, "vol1"));
	n = xms_initiator_add(&m);            /* the same IQN in cluster 2 */
	assert_true(xms_initiator_set_name(&m, n, 2, "h1", "iqn.1993-08.org.debian:01:h1"));
	m.scope = 0;                          /* every cluster: the first */
	assert_int_equal(xms_volume_by_name(&m, "vol1")->index, 2);
	m.scope = 2;
	assert_int_equal(xms_volume_by_name(&m, "vol1")->index, 4);
	assert_int_equal(xms_volume_ref(&m, "vol1")->index, 4);
	assert_null(xms_volume_by_name(&m, "vol0"));
	assert_int_equal(xms_volume_ref(&m, "1")->index, 1); /* an index names any cluster's object */
	assert_int_equal(xms_initiator_by_port(&m, "iqn.1993-08.org.debian:01:h1")->index, 2);
	assert_int_equal(xms_initiator_by_name(&m, "h1")->index, 2);
	assert_null(xms_ig_by_name(&m, "host1"));
	m.scope = 1;
	assert_int_equal(xms_initiator_by_port(&m, "iqn.1993-08.org.debian:01:h1")->index, 1);
	assert_int_equal(xms_volume_by_name(&m, "vol1")->index, 2);
	assert_non_null(xms_ig_by_name(&m, "host1"));
	assert_string_equal(xms_cluster_by_name(&m, "xbrick1")->name, "xbrick1"); /* clusters: never scoped */
	m.scope = 0;
}

/* the name index against a scan of the objects (xms_model_names_check),
 * and the lookups through it, after each kind of change */
static void index_follows(void)
{
	char why[256];

	if (xms_model_names_check(&m, why, sizeof(why)) != 0)
		fail_msg("%s", why);
}

static void names_follow_changes(void **state)
{
	struct xms_volume *v;
	struct xms_initiator *n;
	struct xms_snapset *s;
	struct json_object *doc;
	struct xms_model m2;
	char err[256];

	fill();
	index_follows();
	snprintf(xms_cluster_add(&m)->name, 64, "xbrick2"); /* cluster 2 */
	/* rename: the old name is free, the new one found, in its cluster only */
	v = xms_volume_get(&m, 2);
	assert_true(xms_volume_set_name(&m, v, v->cluster, "renamed"));
	index_follows();
	assert_null(xms_volume_by_name(&m, "vol1"));
	assert_int_equal(xms_volume_by_name(&m, "renamed")->index, 2);
	m.scope = 2;
	assert_null(xms_volume_by_name(&m, "renamed"));
	m.scope = 0;
	/* the same name again (a PUT that names what it has) changes nothing */
	assert_true(xms_volume_set_name(&m, v, v->cluster, "renamed"));
	index_follows();
	/* a move to cluster 2 with a new name and IQN (case kept, found without case) */
	n = xms_initiator_get(&m, 1);
	assert_true(xms_initiator_set_name(&m, n, 2, "h1b", "IQN.2000-01.com.example:b"));
	index_follows();
	m.scope = 1;
	assert_null(xms_initiator_by_name(&m, "h1b"));
	assert_null(xms_initiator_by_port(&m, "iqn.1993-08.org.debian:01:h1"));
	m.scope = 2;
	assert_int_equal(xms_initiator_by_name(&m, "h1b")->index, 1);
	assert_int_equal(xms_initiator_by_port(&m, "iqn.2000-01.com.EXAMPLE:b")->index, 1);
	assert_string_equal(n->port_address, "IQN.2000-01.com.example:b");
	m.scope = 0;
	/* a snapshot: a new volume named in its cluster, in its set */
	v = xms_volume_add(&m);
	assert_true(xms_volume_set_name(&m, v, 1, "vol0.snap"));
	v->size = 1 << 30;
	v->lb_size = 512;
	s = xms_snapset_add(&m);
	assert_true(xms_snapset_set_name(&m, s, 1, "set2"));
	index_follows();
	assert_int_equal(xms_volume_by_name(&m, "vol0.snap")->index, v->index);
	/* deletes: each object and its map leave the index */
	xms_lunmap_del(&m, 1);
	assert_null(xms_lunmap_find(&m, 1, 1));
	xms_volume_del(&m, 1);
	xms_initiator_del(&m, 1);
	xms_ig_del(&m, 1);
	xms_cg_del(&m, 1);
	xms_snapset_del(&m, 1);
	index_follows();
	assert_null(xms_volume_by_name(&m, "vol0"));
	assert_null(xms_ig_by_name(&m, "host1"));
	assert_null(xms_cg_by_name(&m, "cg1"));
	assert_null(xms_snapset_by_name(&m, "set1"));
	m.scope = 2;
	assert_null(xms_initiator_by_port(&m, "iqn.2000-01.com.example:b"));
	m.scope = 0;
	/* a restart: the loaded model's index is built from the document */
	doc = xms_model_to_json(&m);
	if (xms_model_from_json(&m2, doc, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	if (xms_model_names_check(&m2, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(xms_volume_by_name(&m2, "renamed")->index, 2);
	assert_int_equal(xms_snapset_by_name(&m2, "set2")->index, s->index);
	xms_model_free(&m2);
	json_object_put(doc);
}

/* A stored model with one name twice in a cluster (nothing refuses it on
 * load): the lookup answers the lowest index, as the scan did, and the
 * other is found once the first is gone.  A name changed behind the
 * setters' back is what the check reports. */
static void duplicates_and_stale(void **state)
{
	struct json_object *doc, *objs;
	struct xms_model m2;
	char err[256];

	fill();
	doc = xms_model_to_json(&m);
	objs = json_object_object_get(json_object_object_get(doc, "volumes"), "objects");
	json_object_object_add(json_object_array_get_idx(objs, 2), "name", json_object_new_string("vol0"));
	assert_int_equal(xms_model_from_json(&m2, doc, err, sizeof(err)), 0);
	assert_int_equal(xms_model_names_check(&m2, err, sizeof(err)), 0);
	assert_int_equal(xms_volume_by_name(&m2, "vol0")->index, 1);
	xms_volume_del(&m2, 1);
	assert_int_equal(xms_volume_by_name(&m2, "vol0")->index, 3);
	assert_int_equal(xms_model_names_check(&m2, err, sizeof(err)), 0);
	snprintf(xms_volume_get(&m2, 3)->name, XMS_NAME_MAX, "behind");
	assert_int_equal(xms_model_names_check(&m2, err, sizeof(err)), -1);
	assert_string_equal(err, "volume 3 ('behind', cluster 1) is not in the name index under cluster 1");
	xms_model_free(&m2);
	json_object_put(doc);
}

static void round_trip(void **state)
{
	struct json_object *doc, *again;
	struct xms_model m2;
	char err[256];
	const char *a, *b;

	fill();
	doc = xms_model_to_json(&m);
	assert_non_null(doc);
	assert_int_equal(xms_model_from_json(&m2, doc, err, sizeof(err)), 0);
	again = xms_model_to_json(&m2);
	a = json_object_to_json_string(doc);
	b = json_object_to_json_string(again);
	assert_string_equal(a, b);
	assert_string_equal(xms_initiator_get(&m2, 1)->auth_pass, "secret123456");
	assert_int_equal(xms_cluster_get(&m2, 1)->chap_auth, XMS_CHAP_INITIATOR);
	assert_true(xms_volume_get(&m2, 2)->readonly && !xms_volume_get(&m2, 3)->readonly);
	/* the kept settings come back; objects without any store none */
	assert_memory_equal(&xms_volume_get(&m2, 2)->attrs, &xms_volume_get(&m, 2)->attrs, sizeof(struct xms_attrs));
	assert_string_equal(xms_ig_get(&m2, 1)->attrs.os, "esx");
	assert_false(json_object_object_get_ex(json_object_array_get_idx(json_object_object_get(
		json_object_object_get(doc, "volumes"), "objects"), 0), "attrs", NULL));
	assert_int_equal(m2.tags.n, 2);
	assert_string_equal(xms_tag_get(&m2, 2)->color, "#FF0000");
	assert_int_equal(xms_volume_get(&m2, 2)->attrs.ntags, 1);
	/* a model stored before tags existed loads, with none */
	xms_model_free(&m2);
	json_object_object_del(doc, "tags");
	assert_int_equal(xms_model_from_json(&m2, doc, err, sizeof(err)), -1); /* volume 2 names tag 2 */
	assert_string_equal(err, "Volume vol1: attrs.tag-ids[0]: no tag of its kind has index 2");
	json_object_object_del(json_object_array_get_idx(json_object_object_get(json_object_object_get(doc, "volumes"),
										   "objects"), 1), "attrs");
	assert_int_equal(xms_model_from_json(&m2, doc, err, sizeof(err)), 0);
	assert_int_equal(m2.tags.n, 0);
	/* the next index survives: no reuse after a reload */
	assert_int_equal(xms_volume_add(&m2)->index, 4);
	json_object_put(again);
	json_object_put(doc);
	xms_model_free(&m2);
}

/* doc with one change made by edit, then loaded: the message must be msg */
static void refused(const char *path_type, int i, const char *field, struct json_object *val, const char *msg)
{
	struct json_object *doc = xms_model_to_json(&m), *t, *objs, *o;
	struct xms_model m2;
	char err[256];

	assert_true(json_object_object_get_ex(doc, path_type, &t));
	assert_true(json_object_object_get_ex(t, "objects", &objs));
	o = json_object_array_get_idx(objs, (size_t)i);
	if (val)
		json_object_object_add(o, field, val);
	else
		json_object_object_del(o, field);
	assert_int_equal(xms_model_from_json(&m2, doc, err, sizeof(err)), -1);
	assert_string_equal(err, msg);
	assert_int_equal(m2.volumes.n, 0); /* left empty */
	json_object_put(doc);
}

static void bad_documents(void **state)
{
	struct xms_model m2;
	char err[256];
	struct json_object *doc;

	fill();
	refused("volumes", 1, "name", NULL, "volumes[1].name: missing or not a string");
	refused("volumes", 0, "size", json_object_new_int(100), "volumes[0].size: want a positive multiple of lb-size");
	refused("volumes", 0, "lb-size", json_object_new_int(1024), "volumes[0].lb-size: want 512 or 4096");
	refused("volumes", 2, "index", json_object_new_int(2),
		"volumes[2].index: 2 is not above the one before (2) and below next-index (4)");
	refused("volumes", 0, "cluster", json_object_new_int(7), "volumes[0].cluster: no such cluster");
	refused("clusters", 0, "chap-authentication-mode", json_object_new_string("always"),
		"clusters[0].chap-authentication-mode: want disabled, initiator or mutual");
	refused("lun-maps", 0, "vol", json_object_new_int(9),
		"lun-maps[0]: names a volume or initiator group that does not exist");
	refused("snapshot-sets", 0, "vols", json_object_new_string("2"), "snapshot-sets[0].vols: missing or not a array");
	refused("initiators", 0, "auth-pass", json_object_new_int(1), "initiators[0].auth-pass: missing or not a string");
	refused("initiator-groups", 0, "attrs", json_tokener_parse("{\"operating-system\": \"os2\"}"),
		"initiator-groups[0].attrs.operating-system: want linux, windows, esx, solaris, aix, hpux or other");
	refused("tags", 1, "parent", json_object_new_int(2),
		"tags[1].parent: no older tag of the same kind has index 2");
	refused("tags", 1, "kind", json_object_new_int(1), "tags[1].parent: no older tag of the same kind has index 1");
	refused("tags", 0, "kind", json_object_new_int(15), "tags[0].kind: want 0..14");
	refused("tags", 0, "caption", json_object_new_string("Disk"),
		"tags[0].caption: a root tag is named after its kind (Volume)");
	refused("volumes", 1, "attrs", json_tokener_parse("{\"tag-ids\": [1]}"),
		"Volume vol1: attrs.tag-ids[0]: no tag of its kind has index 1");
	refused("volumes", 1, "attrs", json_tokener_parse("{\"tag-ids\": [\"2\"]}"),
		"volumes[1].attrs.tag-ids[0]: want a tag index >= 1");
	doc = json_object_new_array();
	assert_int_equal(xms_model_from_json(&m2, doc, err, sizeof(err)), -1);
	assert_string_equal(err, "(document): want a JSON object");
	json_object_put(doc);
	doc = json_tokener_parse("{\"format\": 2}");
	assert_int_equal(xms_model_from_json(&m2, doc, err, sizeof(err)), -1);
	assert_string_equal(err, "format: want 1");
	json_object_put(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(objects, teardown),
		cmocka_unit_test_teardown(scoped_lookups, teardown),
		cmocka_unit_test_teardown(names_follow_changes, teardown),
		cmocka_unit_test_teardown(duplicates_and_stale, teardown),
		cmocka_unit_test_teardown(round_trip, teardown),
		cmocka_unit_test_teardown(bad_documents, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
