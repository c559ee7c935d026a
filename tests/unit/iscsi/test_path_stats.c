/* test_path_stats.c — target/iscsi/path_stats.c: a portal's and an
 * initiator's counters hold exactly what was recorded, an initiator is
 * made once and found case-insensitively, readers never make one, the
 * table stops at its bound (then the commands are counted as untracked),
 * and the walk sees every initiator in the order first seen. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "target/iscsi/path_stats.h"

static int reset(void **state)
{
	(void)state;
	path_stats_reset();
	return 0;
}

static void test_portal(void **state)
{
	struct lu_kind_figures f[LU_KINDS];
	struct lu_stats *p = path_stats_portal(2);

	(void)state;
	assert_non_null(p);
	assert_null(path_stats_portal(-1));
	assert_null(path_stats_portal(PATH_STATS_PORTALS));
	lu_stats_record(p, 0, LU_KIND_WRITE, 8192, true, 1000);
	lu_stats_record(p, 3, LU_KIND_WRITE, 4096, false, 3000);
	lu_stats_record(p, 1, LU_KIND_READ, 512, true, 500);
	lu_stats_read(path_stats_portal(2), f);
	assert_int_equal(f[LU_KIND_WRITE].commands, 2);
	assert_int_equal(f[LU_KIND_WRITE].errors, 1);
	assert_int_equal(f[LU_KIND_WRITE].bytes, 12288);
	assert_int_equal(f[LU_KIND_WRITE].latency_sum_ns, 4000);
	assert_int_equal(f[LU_KIND_READ].commands, 1);
	lu_stats_read(path_stats_portal(1), f);
	assert_int_equal(f[LU_KIND_WRITE].commands, 0);
}

static void count(const char *iqn, const struct lu_stats *s, void *arg)
{
	char *out = arg;

	(void)s;
	strcat(out, iqn);
	strcat(out, ";");
}

static void test_initiators(void **state)
{
	struct lu_kind_figures f[LU_KINDS];
	char seen[128] = "";

	(void)state;
	assert_null(path_stats_initiator_find("iqn.a"));    /* readers make none */
	struct lu_stats *a = path_stats_initiator("iqn.A");
	assert_non_null(a);
	assert_ptr_equal(path_stats_initiator("iqn.a"), a);  /* RFC 3722: case folds */
	assert_ptr_equal(path_stats_initiator_find("IQN.A"), a);
	struct lu_stats *b = path_stats_initiator("iqn.b");
	assert_ptr_not_equal(a, b);
	assert_null(path_stats_initiator(""));
	lu_stats_record(a, 0, LU_KIND_READ, 4096, true, 10);
	lu_stats_read(path_stats_initiator_find("iqn.a"), f);
	assert_int_equal(f[LU_KIND_READ].commands, 1);
	assert_int_equal(f[LU_KIND_READ].bytes, 4096);
	lu_stats_read(b, f);
	assert_int_equal(f[LU_KIND_READ].commands, 0);
	path_stats_each_initiator(count, seen);
	assert_string_equal(seen, "iqn.A;iqn.b;");
}

static void test_bound(void **state)
{
	char iqn[32];

	(void)state;
	for (int i = 0; i < PATH_STATS_INITIATORS; i++) {
		snprintf(iqn, sizeof(iqn), "iqn.n%d", i);
		assert_non_null(path_stats_initiator(iqn));
	}
	assert_null(path_stats_initiator("iqn.one-too-many"));
	assert_non_null(path_stats_initiator("iqn.n7")); /* those counted stay */
	assert_int_equal(path_stats_untracked(), 0);
	path_stats_untracked_add();
	path_stats_untracked_add();
	assert_int_equal(path_stats_untracked(), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_portal, reset),
		cmocka_unit_test_setup(test_initiators, reset),
		cmocka_unit_test_setup(test_bound, reset),
	};

	return cmocka_run_group_tests(tests, NULL, reset);
}
