/* test_cmdsn.c — CmdSN window verdicts (edges, wrap-around, immediate) and
 * the ordered pending queue. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "target/iscsi/conn.h"

static void window_edges(void **state)
{
	uint32_t exp = 100;

	assert_int_equal(cmdsn_check(exp, exp + CONN_CMDSN_WINDOW - 1, 100, false), CMDSN_DELIVER);
	assert_int_equal(cmdsn_check(exp, exp + CONN_CMDSN_WINDOW - 1, 101, false), CMDSN_QUEUE);
	assert_int_equal(cmdsn_check(exp, exp + CONN_CMDSN_WINDOW - 1, exp + CONN_CMDSN_WINDOW - 1, false), CMDSN_QUEUE);
	assert_int_equal(cmdsn_check(exp, exp + CONN_CMDSN_WINDOW - 1, exp + CONN_CMDSN_WINDOW, false), CMDSN_DROP); /* > MaxCmdSN */
	assert_int_equal(cmdsn_check(exp, exp + CONN_CMDSN_WINDOW - 1, 99, false), CMDSN_DROP); /* < ExpCmdSN */
	assert_int_equal(cmdsn_check(exp, exp + CONN_CMDSN_WINDOW - 1, 99, true), CMDSN_DELIVER); /* immediate */
}

static void advertised_window_bounds(void **state)
{
	struct conn *c = conn_new(-1, NULL);
	uint8_t bhs[48] = { ISCSI_OP_NOP_OUT };
	uint32_t first;

	c->exp_cmd_sn = 50;
	first = conn_max_cmd_sn(c);
	assert_int_equal(first, 50 + CONN_CMDSN_WINDOW - 1);
	/* busy tasks shrink the room, but the advertised value never goes back */
	for (int i = 0; i < 10; i++)
		icmd_new(c, bhs, IC_NOP);
	assert_int_equal(conn_max_cmd_sn(c), first);
	c->exp_cmd_sn = 60;
	assert_int_equal(conn_max_cmd_sn(c), 60 + CONN_CMDSN_WINDOW - 1 - 10);
	assert_int_equal(cmdsn_check(60, conn_max_cmd_sn(c), 60 + CONN_CMDSN_WINDOW - 10, false), CMDSN_DROP);
	conn_close(c, "test over"); /* frees the tasks */
}

static void window_wraps(void **state)
{
	uint32_t exp = 0xfffffffe;

	assert_int_equal(cmdsn_check(exp, exp + CONN_CMDSN_WINDOW - 1, 0xfffffffe, false), CMDSN_DELIVER);
	assert_int_equal(cmdsn_check(exp, exp + CONN_CMDSN_WINDOW - 1, 0xffffffff, false), CMDSN_QUEUE);
	assert_int_equal(cmdsn_check(exp, exp + CONN_CMDSN_WINDOW - 1, 5, false), CMDSN_QUEUE);
	assert_int_equal(cmdsn_check(exp, exp + CONN_CMDSN_WINDOW - 1, 0xfffffffd, false), CMDSN_DROP);
	/* a closed window (MaxCmdSN = ExpCmdSN - 1) takes nothing, not even ExpCmdSN */
	assert_int_equal(cmdsn_check(100, 99, 100, false), CMDSN_DROP);
}

static void pending_sorted(void **state)
{
	struct icmd a, b, c, d, *head = NULL;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&c, 0, sizeof(c));
	memset(&d, 0, sizeof(d));
	a.cmdsn = 7;
	b.cmdsn = 5;
	c.cmdsn = 0xffffffff; /* before 5 and 7 in serial order */
	d.cmdsn = 6;
	cmdsn_insert_sorted(&head, &a);
	cmdsn_insert_sorted(&head, &b);
	cmdsn_insert_sorted(&head, &c);
	cmdsn_insert_sorted(&head, &d);
	assert_ptr_equal(head, &c);
	assert_ptr_equal(head->pend_next, &b);
	assert_ptr_equal(head->pend_next->pend_next, &d);
	assert_ptr_equal(head->pend_next->pend_next->pend_next, &a);
	assert_null(a.pend_next);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(window_edges),
		cmocka_unit_test(window_wraps),
		cmocka_unit_test(advertised_window_bounds),
		cmocka_unit_test(pending_sorted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
