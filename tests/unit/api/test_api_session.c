/* test_api_session.c — the v3 session table (api_session.h): tokens are
 * 64 hex digits and differ, a token names its user, the idle timeout
 * (exactly at API_SESSION_IDLE_S it is gone; a use restarts the clock),
 * logout, removal of a user's sessions, forged and malformed tokens, and a
 * full table forgetting its least recently used session. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "target/api/api_session.h"

static int reset(void **state)
{
	(void)state;
	api_session_clear();
	return 0;
}

static void test_token_shape_and_user(void **state)
{
	char a[API_SESSION_TOKEN_LEN + 1], b[API_SESSION_TOKEN_LEN + 1], user[65];

	(void)state;
	assert_int_equal(api_session_open("admin", 100, a), 0);
	assert_int_equal(api_session_open("admin", 100, b), 0);
	assert_int_equal(strlen(a), API_SESSION_TOKEN_LEN);
	assert_int_equal(strspn(a, "0123456789abcdef"), API_SESSION_TOKEN_LEN);
	assert_string_not_equal(a, b);
	assert_true(api_session_check(a, 101, user, sizeof(user)));
	assert_string_equal(user, "admin");
	assert_int_equal(api_session_count(101), 2);
}

static void test_idle_timeout(void **state)
{
	char t[API_SESSION_TOKEN_LEN + 1], user[65];

	(void)state;
	assert_int_equal(api_session_open("u", 1000, t), 0);
	/* a use just before the timeout restarts the clock */
	assert_true(api_session_check(t, 1000 + API_SESSION_IDLE_S - 1, user, sizeof(user)));
	assert_true(api_session_check(t, 1000 + 2 * API_SESSION_IDLE_S - 2, user, sizeof(user)));
	/* exactly the idle time after the last use: gone, and stays gone */
	assert_false(api_session_check(t, 1000 + 3 * API_SESSION_IDLE_S - 2, user, sizeof(user)));
	assert_false(api_session_check(t, 1000 + 3 * API_SESSION_IDLE_S - 2, user, sizeof(user)));
	assert_int_equal(api_session_count(0), 0);
}

static void test_logout_and_user_removal(void **state)
{
	char a[API_SESSION_TOKEN_LEN + 1], b[API_SESSION_TOKEN_LEN + 1], c[API_SESSION_TOKEN_LEN + 1];
	char user[65];

	(void)state;
	assert_int_equal(api_session_open("u1", 5, a), 0);
	assert_int_equal(api_session_open("u1", 5, b), 0);
	assert_int_equal(api_session_open("u2", 5, c), 0);
	assert_true(api_session_close(a));
	assert_false(api_session_close(a));
	assert_false(api_session_check(a, 6, user, sizeof(user)));
	api_session_close_user("u1");
	assert_false(api_session_check(b, 6, user, sizeof(user)));
	assert_true(api_session_check(c, 6, user, sizeof(user)));
	assert_string_equal(user, "u2");
}

static void test_forged_tokens(void **state)
{
	char t[API_SESSION_TOKEN_LEN + 1], forged[API_SESSION_TOKEN_LEN + 2], user[65];

	(void)state;
	assert_int_equal(api_session_open("u", 5, t), 0);
	memcpy(forged, t, sizeof(t));
	forged[10] = forged[10] == '0' ? '1' : '0';     /* one digit off */
	assert_false(api_session_check(forged, 6, user, sizeof(user)));
	memcpy(forged, t, sizeof(t));
	forged[API_SESSION_TOKEN_LEN - 1] = '\0';       /* too short */
	assert_false(api_session_check(forged, 6, user, sizeof(user)));
	memcpy(forged, t, sizeof(t));
	forged[API_SESSION_TOKEN_LEN] = 'a';            /* too long */
	forged[API_SESSION_TOKEN_LEN + 1] = '\0';
	assert_false(api_session_check(forged, 6, user, sizeof(user)));
	memcpy(forged, t, sizeof(t));
	forged[0] = 'A';                                /* not lower-case hex */
	assert_false(api_session_check(forged, 6, user, sizeof(user)));
	assert_false(api_session_check("", 6, user, sizeof(user)));
	assert_false(api_session_check(NULL, 6, user, sizeof(user)));
	assert_true(api_session_check(t, 6, user, sizeof(user)));
}

static void test_full_table_forgets_least_recent(void **state)
{
	static char t[API_SESSION_MAX + 1][API_SESSION_TOKEN_LEN + 1];
	char user[65];

	(void)state;
	for (unsigned i = 0; i < API_SESSION_MAX; i++)
		assert_int_equal(api_session_open("u", 10 + i, t[i]), 0);
	/* session 0 is used again: session 1 is now the least recent */
	assert_true(api_session_check(t[0], 10 + API_SESSION_MAX, user, sizeof(user)));
	assert_int_equal(api_session_open("u", 11 + API_SESSION_MAX, t[API_SESSION_MAX]), 0);
	assert_int_equal(api_session_count(11 + API_SESSION_MAX), API_SESSION_MAX);
	assert_false(api_session_check(t[1], 12 + API_SESSION_MAX, user, sizeof(user)));
	assert_true(api_session_check(t[0], 12 + API_SESSION_MAX, user, sizeof(user)));
	assert_true(api_session_check(t[2], 12 + API_SESSION_MAX, user, sizeof(user)));
	assert_true(api_session_check(t[API_SESSION_MAX], 12 + API_SESSION_MAX, user, sizeof(user)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_token_shape_and_user, reset),
		cmocka_unit_test_setup(test_idle_timeout, reset),
		cmocka_unit_test_setup(test_logout_and_user_removal, reset),
		cmocka_unit_test_setup(test_forged_tokens, reset),
		cmocka_unit_test_setup(test_full_table_forgets_least_recent, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
