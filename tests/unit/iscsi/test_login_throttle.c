/* test_login_throttle.c — failed logins per address (login_throttle.h), on
 * a clock the test drives: 3 free failures, then waits of 1, 2, 4, 8, 16 s,
 * the 10th failure in a row locks the address for 900 s, a try inside a
 * wait is refused unchecked and does not lengthen it, a success or 900 s
 * without a failure forgets the address, another address is never slowed,
 * the counters, a full table, and peer strings with ports. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "target/iscsi/login_throttle.h"

#define A LOGIN_THROTTLE_API
#define C LOGIN_THROTTLE_CHAP

static int reset(void **state)
{
	(void)state;
	login_throttle_reset();
	return 0;
}

static void test_waits_then_lockout(void **state)
{
	static const uint64_t want[] = { 0, 0, 0, 1000, 2000, 4000, 8000, 16000, 30000, 900000 };
	uint64_t t = 1000000;
	unsigned row = 0;

	(void)state;
	for (unsigned i = 0; i < 10; i++) {
		assert_int_equal(login_throttle_check(A, "10.0.0.1", t), 0); /* the wait is over */
		assert_int_equal(login_throttle_fail(A, "10.0.0.1", t, &row), want[i]);
		assert_int_equal(row, i + 1);
		if (want[i]) {
			/* inside the wait: refused unchecked, the wait unchanged */
			assert_int_equal(login_throttle_check(A, "10.0.0.1", t + want[i] - 1), 1);
			assert_int_equal(login_throttle_check(A, "10.0.0.1", t + 1), want[i] - 1);
		}
		/* another address is never slowed */
		assert_int_equal(login_throttle_check(A, "10.0.0.2", t), 0);
		t += want[i];
	}
	assert_int_equal(login_throttle_locked(t - 1), 1);
	assert_int_equal(login_throttle_locked(t), 0);
	assert_int_equal(login_throttle_failures(A), 10);
	assert_int_equal(login_throttle_refused(A), 2 * 7);
	assert_int_equal(login_throttle_failures(C), 0);
	/* after the lockout (900 s without a failure) the address starts afresh */
	assert_int_equal(login_throttle_check(A, "10.0.0.1", t), 0);
	assert_int_equal(login_throttle_fail(C, "10.0.0.1", t, &row), 0);
	assert_int_equal(row, 1);
}

static void test_success_forgets(void **state)
{
	unsigned row;

	(void)state;
	for (int i = 0; i < 5; i++)
		login_throttle_fail(C, "fe80::1", 0, &row);
	assert_int_equal(row, 5);
	assert_int_equal(login_throttle_check(C, "fe80::1", 0), 2000);
	login_throttle_ok("fe80::1");
	assert_int_equal(login_throttle_check(C, "fe80::1", 0), 0);
	assert_int_equal(login_throttle_fail(C, "fe80::1", 0, &row), 0);
	assert_int_equal(row, 1);
}

static void test_forgotten_after_quiet(void **state)
{
	unsigned row;

	(void)state;
	login_throttle_fail(A, "h", 0, &row);
	login_throttle_fail(A, "h", 1, &row);
	login_throttle_fail(A, "h", 2, &row);
	/* one ms short of FORGET_S: the row goes on */
	assert_int_equal(login_throttle_fail(A, "h", 2 + LOGIN_THROTTLE_FORGET_S * 1000u - 1, &row), 1000);
	assert_int_equal(row, 4);
	/* FORGET_S after the last failure: forgotten */
	assert_int_equal(login_throttle_fail(A, "h", 2 + 2 * LOGIN_THROTTLE_FORGET_S * 1000u - 1, &row), 0);
	assert_int_equal(row, 1);
}

static void test_full_table(void **state)
{
	char host[32];
	unsigned row;

	(void)state;
	for (unsigned i = 0; i < LOGIN_THROTTLE_ADDRS; i++) {
		snprintf(host, sizeof(host), "10.1.%u.%u", i / 256, i % 256);
		for (int k = 0; k < 4; k++)
			login_throttle_fail(A, host, 100 + i, &row);
	}
	/* one more address takes the place of the oldest failure (10.1.0.0) */
	login_throttle_fail(A, "192.0.2.9", 100000, &row);
	assert_int_equal(login_throttle_check(A, "10.1.0.0", 100 + 500), 0);
	assert_int_not_equal(login_throttle_check(A, "10.1.0.1", 101), 0);
}

static void test_host_of_peer(void **state)
{
	char h[LOGIN_THROTTLE_HOST_MAX];

	(void)state;
	login_throttle_host("127.0.0.1:51234", h, sizeof(h));
	assert_string_equal(h, "127.0.0.1");
	login_throttle_host("[::1]:3260", h, sizeof(h));
	assert_string_equal(h, "::1");
	login_throttle_host("fe80::2", h, sizeof(h));
	assert_string_equal(h, "fe80::2");
	login_throttle_host("10.0.0.1", h, sizeof(h));
	assert_string_equal(h, "10.0.0.1");
	login_throttle_host("?", h, sizeof(h));
	assert_string_equal(h, "?");
	assert_string_equal(login_throttle_kind_name(A), "api");
	assert_string_equal(login_throttle_kind_name(C), "chap");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_waits_then_lockout, reset),
		cmocka_unit_test_setup(test_success_forgets, reset),
		cmocka_unit_test_setup(test_forgotten_after_quiet, reset),
		cmocka_unit_test_setup(test_full_table, reset),
		cmocka_unit_test_setup(test_host_of_peer, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
