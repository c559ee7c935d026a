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

	assert_int_equal(cmdsn_check(exp, 100, false), CMDSN_DELIVER);
	assert_int_equal(cmdsn_check(exp, 101, false), CMDSN_QUEUE);
	assert_int_equal(cmdsn_check(exp, exp + CONN_CMDSN_WINDOW - 1, false), CMDSN_QUEUE);
	assert_int_equal(cmdsn_check(exp, exp + CONN_CMDSN_WINDOW, false), CMDSN_DROP); /* > MaxCmdSN */
	assert_int_equal(cmdsn_check(exp, 99, false), CMDSN_DROP); /* < ExpCmdSN */
	assert_int_equal(cmdsn_check(exp, 99, true), CMDSN_DELIVER); /* immediate */
}

static void window_wraps(void **state)
{
	uint32_t exp = 0xfffffffe;

	assert_int_equal(cmdsn_check(exp, 0xfffffffe, false), CMDSN_DELIVER);
	assert_int_equal(cmdsn_check(exp, 0xffffffff, false), CMDSN_QUEUE);
	assert_int_equal(cmdsn_check(exp, 5, false), CMDSN_QUEUE);
	assert_int_equal(cmdsn_check(exp, 0xfffffffd, false), CMDSN_DROP);
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
		cmocka_unit_test(pending_sorted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
