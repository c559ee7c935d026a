/* test_xms_tag_model.c — tags as model data (xms_tag_model.h): the entity
 * words and the object-types shown for them, a tag's full name from its
 * parents (and after a parent's rename), lookups by that name, the objects
 * of a kind with their tags (clusters' and the inventory's records too),
 * untagging, and the load-time check that
 * refuses a damaged set of tags by naming the bad one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "target/api/xms_tag_model.h"

static struct xms_model m;

static int teardown(void **state)
{
	(void)state;
	xms_model_free(&m);
	return 0;
}

static struct xms_tag *tag(const char *caption, uint64_t parent, enum xms_tag_kind k)
{
	struct xms_tag *t = xms_tag_add(&m);

	assert_non_null(t);
	snprintf(t->caption, sizeof(t->caption), "%s", caption);
	t->parent = parent;
	t->kind = (uint8_t)k;
	return t;
}

static void kinds(void **state)
{
	(void)state;
	assert_int_equal(xms_tag_kind_parse("Volume"), XMS_TAG_VOLUME);
	assert_int_equal(xms_tag_kind_parse("X-Brick"), XMS_TAG_BRICK);
	assert_int_equal(xms_tag_kind_parse("BatteryBackupUnit"), XMS_TAG_BBU);
	assert_int_equal(xms_tag_kind_parse("volume"), -1); /* XMS's words, as sent */
	assert_int_equal(xms_tag_kind_parse(""), -1);
	assert_string_equal(xms_tag_entity(XMS_TAG_SNAPSET), "SnapshotSet");
	assert_string_equal(xms_tag_object_type(XMS_TAG_SNAPSET), "SnapSet");
	assert_string_equal(xms_tag_object_type(XMS_TAG_BBU), "UPS");
	assert_string_equal(xms_tag_object_type(XMS_TAG_BRICK), "Brick");
	assert_string_equal(xms_tag_entity(XMS_TAG_KINDS), "");
	for (int k = 0; k < XMS_TAG_KINDS; k++)
		assert_int_equal(xms_tag_kind_parse(xms_tag_entity((enum xms_tag_kind)k)), k);
}

static void names(void **state)
{
	char n[XMS_TAG_NAME_MAX + 1];

	(void)state;
	tag("Volume", 0, XMS_TAG_VOLUME);          /* 1 */
	tag("apps", 1, XMS_TAG_VOLUME);            /* 2 */
	tag("db", 2, XMS_TAG_VOLUME);              /* 3 */
	tag("InitiatorGroup", 0, XMS_TAG_IG);      /* 4 */
	xms_tag_name(&m, xms_tag_get(&m, 3), n);
	assert_string_equal(n, "/Volume/apps/db");
	assert_int_equal(xms_tag_depth(&m, xms_tag_get(&m, 3)), 3);
	assert_int_equal(xms_tag_depth(&m, xms_tag_get(&m, 4)), 1);
	assert_int_equal(xms_tag_by_name(&m, "/Volume/apps/db")->index, 3);
	assert_null(xms_tag_by_name(&m, "/Volume/apps/db/"));
	assert_null(xms_tag_by_name(&m, "apps"));
	/* a parent renamed: the child's name follows (names are not stored) */
	snprintf(xms_tag_get(&m, 2)->caption, XMS_NAME_MAX, "services");
	xms_tag_name(&m, xms_tag_get(&m, 3), n);
	assert_string_equal(n, "/Volume/services/db");
	assert_null(xms_tag_by_name(&m, "/Volume/apps/db"));
	/* the longest name fits: 4 levels of 128 */
	struct xms_tag *t = xms_tag_get(&m, 1);
	memset(t->caption, 'a', XMS_NAME_MAX);
	t->caption[XMS_NAME_MAX] = '\0';
	memset(xms_tag_get(&m, 2)->caption, 'b', XMS_NAME_MAX);
	memset(xms_tag_get(&m, 3)->caption, 'c', XMS_NAME_MAX);
	t = tag("d", 3, XMS_TAG_VOLUME);
	memset(t->caption, 'd', XMS_NAME_MAX);
	xms_tag_name(&m, xms_tag_get(&m, 5), n);
	assert_int_equal(strlen(n), XMS_TAG_NAME_MAX);
}

static void entities(void **state)
{
	struct xms_tag_entity e;
	struct xms_volume *v;
	char err[256];

	(void)state;
	tag("Volume", 0, XMS_TAG_VOLUME);
	tag("gold", 1, XMS_TAG_VOLUME);
	tag("silver", 1, XMS_TAG_VOLUME);
	v = xms_volume_add(&m);
	snprintf(v->name, sizeof(v->name), "v1");
	v->cluster = 1;
	v->attrs.tags[0] = 2;
	v->attrs.tags[1] = 3;
	v->attrs.ntags = 2;
	assert_true(xms_tag_entity_at(&m, XMS_TAG_VOLUME, 0, &e));
	assert_string_equal(e.name, "v1");
	assert_int_equal(e.cluster, 1);
	assert_true(xms_attrs_has_tag(e.attrs, 3));
	assert_false(xms_tag_entity_at(&m, XMS_TAG_VOLUME, 1, &e));
	assert_false(xms_tag_entity_at(&m, XMS_TAG_IG, 0, &e));
	assert_false(xms_tag_entity_at(&m, XMS_TAG_SSD, 0, &e)); /* no such objects in the model */
	assert_int_equal(xms_tags_check(&m, err, sizeof(err)), 0);
	xms_attrs_untag(&v->attrs, 2);
	assert_int_equal(v->attrs.ntags, 1);
	assert_int_equal(v->attrs.tags[0], 3);
	xms_attrs_untag(&v->attrs, 2); /* not carried: nothing */
	assert_int_equal(v->attrs.ntags, 1);
	/* a volume carrying a root tag, or another kind's tag, is refused at load */
	tag("InitiatorGroup", 0, XMS_TAG_IG);
	tag("esx", 4, XMS_TAG_IG);
	v->attrs.tags[1] = 5;
	v->attrs.ntags = 2;
	assert_int_equal(xms_tags_check(&m, err, sizeof(err)), -1);
	assert_string_equal(err, "Volume v1: attrs.tag-ids[1]: no tag of its kind has index 5");
	v->attrs.tags[1] = 1;
	assert_int_equal(xms_tags_check(&m, err, sizeof(err)), -1);
	assert_string_equal(err, "Volume v1: attrs.tag-ids[1]: no tag of its kind has index 1");
}

/* clusters carry their tags in their attrs; inventory objects in the
 * model's records, which the check refuses when they name no inventory
 * kind, no number or no cluster, and which go with their last tag */
static void inventory(void **state)
{
	struct xms_tag_entity e;
	struct xms_cluster *c;
	struct xms_inv_tagged *r;
	char err[256];

	(void)state;
	c = xms_cluster_add(&m);
	snprintf(c->name, sizeof(c->name), "xb1");
	tag("SSD", 0, XMS_TAG_SSD);                /* 1 */
	tag("hot", 1, XMS_TAG_SSD);                /* 2 */
	tag("Cluster", 0, XMS_TAG_CLUSTER);        /* 3 */
	tag("prod", 3, XMS_TAG_CLUSTER);           /* 4 */
	c->attrs.tags[0] = 4;
	c->attrs.ntags = 1;
	assert_true(xms_tag_entity_at(&m, XMS_TAG_CLUSTER, 0, &e));
	assert_string_equal(e.name, "xb1");
	assert_int_equal(e.cluster, c->index);
	assert_true(xms_attrs_has_tag(e.attrs, 4));
	r = xms_inv_tagged_add(&m);
	snprintf(r->name, sizeof(r->name), "wwn-0x1");
	r->obj_index = 7;
	r->cluster = 1;
	r->kind = XMS_TAG_SSD;
	r->n = 3;
	r->attrs.tags[0] = 2;
	r->attrs.ntags = 1;
	assert_true(xms_tag_entity_at(&m, XMS_TAG_SSD, 0, &e));
	assert_string_equal(e.name, "wwn-0x1");
	assert_int_equal(e.index, 7);
	assert_int_equal(e.cluster, 1);
	assert_true(xms_attrs_has_tag(e.attrs, 2));
	assert_false(xms_tag_entity_at(&m, XMS_TAG_SSD, 1, &e));
	assert_false(xms_tag_entity_at(&m, XMS_TAG_SC, 0, &e)); /* a record is of one kind */
	assert_true(xms_tag_kind_inventory(XMS_TAG_BBU));
	assert_false(xms_tag_kind_inventory(XMS_TAG_CLUSTER));
	assert_int_equal(xms_tags_check(&m, err, sizeof(err)), 0);
	r->attrs.tags[0] = 4; /* a Cluster tag on an SSD */
	assert_int_equal(xms_tags_check(&m, err, sizeof(err)), -1);
	assert_string_equal(err, "SSD wwn-0x1: attrs.tag-ids[0]: no tag of its kind has index 4");
	r->attrs.tags[0] = 2;
	r->cluster = 9;
	assert_int_equal(xms_tags_check(&m, err, sizeof(err)), -1);
	assert_string_equal(err, "inventory-tags[0]: want kind X-Brick, StorageController, SSD, BatteryBackupUnit or "
				 "Target, n >= 1 and a cluster that exists (none for a Target)");
	r->cluster = 1;
	r->kind = XMS_TAG_VOLUME;
	assert_int_equal(xms_tags_check(&m, err, sizeof(err)), -1);
	/* a target is every cluster's: its record names none */
	tag("Target", 0, XMS_TAG_TARGET);          /* 5 */
	tag("fast", 5, XMS_TAG_TARGET);            /* 6 */
	r->kind = XMS_TAG_TARGET;
	r->attrs.tags[0] = 6;
	assert_int_equal(xms_tags_check(&m, err, sizeof(err)), -1);
	r->cluster = 0;
	assert_int_equal(xms_tags_check(&m, err, sizeof(err)), 0);
	assert_true(xms_tag_entity_at(&m, XMS_TAG_TARGET, 0, &e));
	assert_int_equal(e.cluster, 0);
	r->cluster = 1;
	r->kind = XMS_TAG_SSD;
	r->attrs.tags[0] = 2;
	xms_inv_tagged_prune(&m); /* it carries a tag: kept */
	assert_int_equal(m.inv_tagged.n, 1);
	xms_attrs_untag(&r->attrs, 2);
	xms_inv_tagged_prune(&m);
	assert_int_equal(m.inv_tagged.n, 0);
}

static void damaged(void **state)
{
	char err[256];

	(void)state;
	tag("Volume", 0, XMS_TAG_VOLUME);          /* 1 */
	tag("a", 1, XMS_TAG_VOLUME);               /* 2 */
	tag("b", 2, XMS_TAG_VOLUME);               /* 3 */
	tag("c", 3, XMS_TAG_VOLUME);               /* 4: 4 levels, the most */
	assert_int_equal(xms_tags_check(&m, err, sizeof(err)), 0);
	tag("d", 4, XMS_TAG_VOLUME);               /* 5: a fifth */
	assert_int_equal(xms_tags_check(&m, err, sizeof(err)), -1);
	assert_string_equal(err, "tags[4].parent: more than 4 levels");
	xms_tag_get(&m, 5)->parent = 1;
	snprintf(xms_tag_get(&m, 5)->caption, XMS_NAME_MAX, "a"); /* /Volume/a twice */
	assert_int_equal(xms_tags_check(&m, err, sizeof(err)), -1);
	assert_string_equal(err, "tags[4]: the name /Volume/a is taken by tags[1]");
	xms_tag_get(&m, 5)->parent = 5; /* itself: not older */
	assert_int_equal(xms_tags_check(&m, err, sizeof(err)), -1);
	assert_string_equal(err, "tags[4].parent: no older tag of the same kind has index 5");
	xms_tag_get(&m, 5)->parent = 0; /* a root not named after its kind */
	assert_int_equal(xms_tags_check(&m, err, sizeof(err)), -1);
	assert_string_equal(err, "tags[4].caption: a root tag is named after its kind (Volume)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kinds),
		cmocka_unit_test_teardown(names, teardown),
		cmocka_unit_test_teardown(entities, teardown),
		cmocka_unit_test_teardown(inventory, teardown),
		cmocka_unit_test_teardown(damaged, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
