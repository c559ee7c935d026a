/* test_power_on.c — target/lu/power_on.c: each LU owes its power-on unit
 * attention once to each initiator port (name + ISID), a cold reset owes it
 * again, and LUNs that do not exist owe nothing; a --lun LU and a mapped LU
 * owe it only when armed (reopened from a state directory): a fresh array
 * owes nobody a power on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "target/lu/lu_table.h"
#include "target/lu/power_on.h"

static struct lu_backend be0, be1;
static const uint8_t isid1[6] = { 0x80, 0, 0, 1, 0, 1 }, isid2[6] = { 0x80, 0, 0, 1, 0, 2 };

static int setup(void **state)
{
	(void)state;
	lu_table_reset();
	assert_int_equal(lu_table_add(&be0), 0);
	assert_int_equal(lu_table_add(&be1), 1);
	/* a target restarted on its state directory (main.c arms each --lun LU) */
	lu_power_on_arm(0);
	lu_power_on_arm(1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	lu_table_reset();
	return 0;
}

static void test_once_per_port_and_lu(void **state)
{
	(void)state;
	assert_true(lu_power_on_owed(0, "iqn.x:a", isid1));
	assert_true(lu_power_on_owed(0, "iqn.x:a", isid1)); /* asking does not tell */
	assert_true(lu_power_on_claim(0, "iqn.x:a", isid1));
	assert_false(lu_power_on_owed(0, "iqn.x:a", isid1));
	assert_false(lu_power_on_claim(0, "iqn.x:a", isid1)); /* a second session of the port */
	/* the port is told on LU 0 only; another ISID or name is another port */
	assert_true(lu_power_on_owed(1, "iqn.x:a", isid1));
	assert_true(lu_power_on_owed(0, "iqn.x:a", isid2));
	assert_true(lu_power_on_owed(0, "iqn.x:b", isid1));
	assert_true(lu_power_on_claim(1, "iqn.x:a", isid1));
	assert_false(lu_power_on_owed(1, "iqn.x:a", isid1));
}

static void test_many_ports(void **state)
{
	char iqn[64];

	(void)state;
	for (int i = 0; i < 5000; i++) {
		snprintf(iqn, sizeof(iqn), "iqn.2026-11.org.example:host%d", i);
		assert_true(lu_power_on_claim(0, iqn, isid1));
	}
	for (int i = 0; i < 5000; i++) {
		snprintf(iqn, sizeof(iqn), "iqn.2026-11.org.example:host%d", i);
		assert_false(lu_power_on_owed(0, iqn, isid1));
		assert_true(lu_power_on_owed(0, iqn, isid2));
	}
}

static void test_cold_reset_owes_again(void **state)
{
	(void)state;
	assert_true(lu_power_on_claim(0, "iqn.x:a", isid1));
	assert_true(lu_power_on_claim(1, "iqn.x:a", isid2));
	lu_power_on_rearm();
	assert_true(lu_power_on_owed(0, "iqn.x:a", isid1));
	assert_true(lu_power_on_claim(1, "iqn.x:a", isid2));
}

static void test_no_such_lun(void **state)
{
	(void)state;
	assert_false(lu_power_on_owed(2, "iqn.x:a", isid1));
	assert_false(lu_power_on_claim(2, "iqn.x:a", isid1));
	assert_false(lu_power_on_owed(LU_TABLE_MAX + 5, "iqn.x:a", isid1));
}

/* a fresh array (never persisted: nothing armed) owes nobody its power on;
 * armed, it owes every port; a cold reset owes it again on every LU */
static void test_fresh_array_owes_none(void **state)
{
	(void)state;
	lu_table_reset();
	assert_int_equal(lu_table_add(&be0), 0);
	assert_int_equal(lu_table_add(&be1), 1);
	assert_false(lu_power_on_owed(0, "iqn.x:a", isid1));
	assert_false(lu_power_on_claim(0, "iqn.x:a", isid1));
	assert_false(lu_power_on_claim(1, "iqn.x:b", isid2));
	lu_power_on_arm(1);
	assert_false(lu_power_on_owed(0, "iqn.x:a", isid1));
	assert_true(lu_power_on_owed(1, "iqn.x:a", isid1));
	assert_true(lu_power_on_claim(1, "iqn.x:b", isid2));
	lu_power_on_rearm(); /* TARGET COLD RESET */
	assert_true(lu_power_on_claim(0, "iqn.x:a", isid1));
	assert_true(lu_power_on_claim(1, "iqn.x:b", isid2));
}

static void test_table_reset_forgets(void **state)
{
	(void)state;
	assert_true(lu_power_on_claim(0, "iqn.x:a", isid1));
	lu_table_reset();
	assert_int_equal(lu_table_add(&be0), 0);
	assert_false(lu_power_on_owed(0, "iqn.x:a", isid1)); /* disarmed */
	lu_power_on_arm(0);
	assert_true(lu_power_on_owed(0, "iqn.x:a", isid1)); /* and nobody told */
}

/* a mapped LU (an API volume): owes nothing unless armed (reopened from a
 * state directory), then once per port; a cold reset arms every mapped LU.
 * A session takes it with its other unit attentions (lu_nexus_take_ua). */
static void test_mapped_lu(void **state)
{
	static struct lu_backend bev;
	struct lu_entry *e = lu_entry_new(&bev), *made = lu_entry_new(&bev);
	struct lu_map_spec maps[] = { { "iqn.x:a", 5, e }, { "iqn.x:a", 6, made } };
	struct lu_nexus nx = { 0 };
	char err[128];
	uint8_t ua[3];

	(void)state;
	assert_non_null(e);
	assert_non_null(made);
	assert_int_equal(lu_table_set_maps(maps, 2, err, sizeof(err)), 0);
	assert_false(lu_entry_power_on_claim(e, "iqn.x:a", isid1)); /* made while running */
	assert_true(lu_entry_power_on_arm(e));
	lu_nexus_start(&nx, "iqn.x:a", isid1);
	assert_ptr_equal(lu_nexus_lookup(&nx, "iqn.x:a", 5, true), e);
	assert_true(lu_nexus_take_ua(&nx, e, 0x00, ua)); /* TEST UNIT READY: 06/29/01 */
	assert_int_equal(ua[0], 0x06);
	assert_int_equal(ua[1], 0x29);
	assert_int_equal(ua[2], 0x01);
	assert_false(lu_nexus_take_ua(&nx, e, 0x00, ua)); /* told */
	assert_false(lu_nexus_take_ua(&nx, made, 0x00, ua));
	assert_false(lu_entry_power_on_claim(e, "iqn.x:a", isid1)); /* the port is told */
	assert_true(lu_entry_power_on_claim(e, "iqn.x:a", isid2));
	assert_false(lu_entry_power_on_claim(made, "iqn.x:a", isid1));
	lu_nexus_free(&nx);
	/* TARGET COLD RESET: both owe it to every port again */
	lu_power_on_rearm();
	assert_true(lu_entry_power_on_claim(e, "iqn.x:a", isid1));
	assert_true(lu_entry_power_on_claim(made, "iqn.x:a", isid1));
	assert_int_equal(lu_table_set_maps(NULL, 0, err, sizeof(err)), 0);
	lu_entry_free(e);
	lu_entry_free(made);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_once_per_port_and_lu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_ports, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cold_reset_owes_again, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_such_lun, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fresh_array_owes_none, setup, teardown),
		cmocka_unit_test_setup_teardown(test_table_reset_forgets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mapped_lu, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
