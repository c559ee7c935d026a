/* test_xms_names.c — the name index (target/api/xms_names.c): keys per
 * kind and cluster plus the every-cluster key, duplicates in index order,
 * moves that keep or change a key, iSCSI names without case, all-or-none
 * changes, and nothing left behind once every object is gone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "target/api/xms_names.h"

static struct xms_names t;

static int teardown(void **state)
{
	xms_names_free(&t);
	return 0;
}

static void add(enum xms_name_kind k, uint64_t index, uint64_t cluster, const char *name)
{
	assert_true(xms_names_move(&t, k, index, 0, NULL, cluster, name));
}

static uint64_t first(enum xms_name_kind k, uint64_t cluster, const char *name)
{
	return xms_names_first(&t, k, cluster, name);
}

static void per_kind_and_cluster(void **state)
{
	add(XMS_NAME_VOLUME, 1, 1, "v");
	add(XMS_NAME_VOLUME, 2, 2, "v");
	add(XMS_NAME_IG, 3, 1, "v");
	assert_int_equal(first(XMS_NAME_VOLUME, 1, "v"), 1);
	assert_int_equal(first(XMS_NAME_VOLUME, 2, "v"), 2);
	assert_int_equal(first(XMS_NAME_VOLUME, 0, "v"), 1); /* every cluster: the lowest index */
	assert_int_equal(first(XMS_NAME_VOLUME, 3, "v"), 0);
	assert_int_equal(first(XMS_NAME_IG, 1, "v"), 3);
	assert_int_equal(first(XMS_NAME_IG, 2, "v"), 0);
	assert_int_equal(first(XMS_NAME_VOLUME, 1, "V"), 0);  /* names keep their case */
	assert_int_equal(first(XMS_NAME_VOLUME, 1, "v "), 0);
	assert_int_equal(t.pairs, 6);                         /* each under its cluster and under 0 */
}

static void duplicates_in_order(void **state)
{
	const uint64_t *v;
	size_t n;

	add(XMS_NAME_VOLUME, 9, 1, "d");
	add(XMS_NAME_VOLUME, 4, 1, "d");
	add(XMS_NAME_VOLUME, 6, 1, "d");
	add(XMS_NAME_VOLUME, 6, 1, "d"); /* the same pair twice is one */
	v = xms_names_find(&t, XMS_NAME_VOLUME, 1, "d", &n);
	assert_int_equal(n, 3);
	assert_int_equal(v[0], 4);
	assert_int_equal(v[1], 6);
	assert_int_equal(v[2], 9);
	assert_true(xms_names_move(&t, XMS_NAME_VOLUME, 4, 1, "d", 0, NULL));
	assert_int_equal(first(XMS_NAME_VOLUME, 1, "d"), 6);
	assert_int_equal(first(XMS_NAME_VOLUME, 0, "d"), 6);
	assert_null(xms_names_find(&t, XMS_NAME_VOLUME, 1, "none", &n));
	assert_int_equal(n, 0);
}

static void moves(void **state)
{
	add(XMS_NAME_INITIATOR, 5, 1, "h");
	/* the same key: nothing changes (an add before the remove must not lose it) */
	assert_true(xms_names_move(&t, XMS_NAME_INITIATOR, 5, 1, "h", 1, "h"));
	assert_int_equal(first(XMS_NAME_INITIATOR, 1, "h"), 5);
	assert_int_equal(t.pairs, 2);
	/* another cluster, same name: the every-cluster key stays */
	assert_true(xms_names_move(&t, XMS_NAME_INITIATOR, 5, 1, "h", 2, "h"));
	assert_int_equal(first(XMS_NAME_INITIATOR, 1, "h"), 0);
	assert_int_equal(first(XMS_NAME_INITIATOR, 2, "h"), 5);
	assert_int_equal(first(XMS_NAME_INITIATOR, 0, "h"), 5);
	assert_int_equal(t.pairs, 2);
	/* a rename in place */
	assert_true(xms_names_move(&t, XMS_NAME_INITIATOR, 5, 2, "h", 2, "h2"));
	assert_int_equal(first(XMS_NAME_INITIATOR, 0, "h"), 0);
	assert_int_equal(first(XMS_NAME_INITIATOR, 2, "h2"), 5);
	assert_int_equal(t.pairs, 2);
	/* out of the index: nothing left */
	assert_true(xms_names_move(&t, XMS_NAME_INITIATOR, 5, 2, "h2", 0, NULL));
	assert_int_equal(t.pairs, 0);
	assert_null(t.root);
}

static void ports_without_case(void **state)
{
	add(XMS_NAME_PORT, 1, 1, "iqn.1993-08.org.debian:01:AbC");
	assert_int_equal(first(XMS_NAME_PORT, 1, "IQN.1993-08.ORG.DEBIAN:01:abc"), 1);
	assert_int_equal(first(XMS_NAME_INITIATOR, 1, "iqn.1993-08.org.debian:01:abc"), 0);
	/* a change of case only is the same key */
	assert_true(xms_names_move(&t, XMS_NAME_PORT, 1, 1, "iqn.1993-08.org.debian:01:AbC", 1,
				   "iqn.1993-08.org.debian:01:abc"));
	assert_int_equal(first(XMS_NAME_PORT, 0, "iqn.1993-08.org.debian:01:ABC"), 1);
	assert_int_equal(t.pairs, 2);
}

static void changes_together(void **state)
{
	struct xms_name_change c[2] = {
		{ XMS_NAME_INITIATOR, 7, 0, NULL, 3, "n" },
		{ XMS_NAME_PORT, 7, 0, NULL, 3, "iqn.2000-01.com.example:n" },
	};
	struct xms_name_change many[XMS_NAMES_CHANGES_MAX + 1];

	assert_true(xms_names_apply(&t, c, 2));
	assert_int_equal(first(XMS_NAME_INITIATOR, 3, "n"), 7);
	assert_int_equal(first(XMS_NAME_PORT, 3, "iqn.2000-01.com.example:n"), 7);
	assert_int_equal(t.pairs, 4);
	/* more changes than it takes: refused, nothing changed */
	for (size_t i = 0; i < XMS_NAMES_CHANGES_MAX + 1; i++)
		many[i] = (struct xms_name_change){ XMS_NAME_CG, 1, 0, NULL, 1, "g" };
	assert_false(xms_names_apply(&t, many, XMS_NAMES_CHANGES_MAX + 1));
	assert_int_equal(first(XMS_NAME_CG, 1, "g"), 0);
	assert_int_equal(t.pairs, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(per_kind_and_cluster, teardown),
		cmocka_unit_test_teardown(duplicates_in_order, teardown),
		cmocka_unit_test_teardown(moves, teardown),
		cmocka_unit_test_teardown(ports_without_case, teardown),
		cmocka_unit_test_teardown(changes_together, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
