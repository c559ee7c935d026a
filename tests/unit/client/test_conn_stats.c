/* test_conn_stats.c - adding up and differencing the connection layer's counters
 * (client/conn_stats.c): the per-run figures of clone come from a difference of totals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "client/conn_stats.h"

static void add_and_diff(void **state)
{
	(void)state;
	struct conn_stats a = { .reconnects = 1, .outage_s = 2.5, .longest_outage_s = 2.5, .resent = 4,
				.timeouts = 1, .aborts = 1, .busy = 7, .task_set_full = 2,
				.unit_attentions = 3, .resets = 1, .not_ready = 5, .aborted_commands = 6 };
	struct conn_stats b = { .reconnects = 2, .outage_s = 1.0, .longest_outage_s = 0.75, .resent = 1,
				.busy = 1 };
	struct conn_stats sum = { 0 };
	conn_stats_add(&sum, &a);
	conn_stats_add(&sum, &b);
	assert_int_equal(sum.reconnects, 3);
	assert_true(sum.outage_s == 3.5);
	assert_true(sum.longest_outage_s == 2.5);     /* a maximum, not a sum */
	assert_int_equal(sum.resent, 5);
	assert_int_equal(sum.timeouts, 1);
	assert_int_equal(sum.aborts, 1);
	assert_int_equal(sum.busy, 8);
	assert_int_equal(sum.task_set_full, 2);
	assert_int_equal(sum.unit_attentions, 3);
	assert_int_equal(sum.resets, 1);
	assert_int_equal(sum.not_ready, 5);
	assert_int_equal(sum.aborted_commands, 6);

	struct conn_stats d;
	conn_stats_diff(&d, &sum, &a);
	assert_int_equal(d.reconnects, 2);
	assert_true(d.outage_s == 1.0);
	assert_int_equal(d.resent, 1);
	assert_int_equal(d.busy, 1);
	assert_int_equal(d.timeouts, 0);
	assert_true(d.longest_outage_s == 2.5);       /* the interval had a loss: the total's longest */
	conn_stats_diff(&d, &a, &a);
	assert_int_equal(d.reconnects, 0);
	assert_true(d.longest_outage_s == 0);
	assert_false(conn_stats_any(&d));
}

static void anything(void **state)
{
	(void)state;
	struct conn_stats s = { 0 };
	assert_false(conn_stats_any(&s));
	s.unit_attentions = 1;
	assert_true(conn_stats_any(&s));
	s = (struct conn_stats){ .aborted_commands = 1 };
	assert_true(conn_stats_any(&s));
	s = (struct conn_stats){ .outage_s = 0.2 };
	assert_true(conn_stats_any(&s));
}

/* a power-on UNIT ATTENTION retried on a fresh session leaves a run's timings alone; a
 * re-login, an outage or a backoff does not */
static void disturbed(void **state)
{
	(void)state;
	struct conn_stats s = { .unit_attentions = 3, .resets = 2 };
	assert_true(conn_stats_any(&s));
	assert_false(conn_stats_disturbed(&s));
	s.reconnects = 1;
	assert_true(conn_stats_disturbed(&s));
	s = (struct conn_stats){ .busy = 1 };
	assert_true(conn_stats_disturbed(&s));
	s = (struct conn_stats){ .task_set_full = 1 };
	assert_true(conn_stats_disturbed(&s));
	s = (struct conn_stats){ .not_ready = 1 };
	assert_true(conn_stats_disturbed(&s));
	s = (struct conn_stats){ .timeouts = 1 };
	assert_true(conn_stats_disturbed(&s));
	s = (struct conn_stats){ .outage_s = 0.01 };
	assert_true(conn_stats_disturbed(&s));
	s = (struct conn_stats){ 0 };
	assert_false(conn_stats_disturbed(&s));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(add_and_diff),
		cmocka_unit_test(anything),
		cmocka_unit_test(disturbed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
