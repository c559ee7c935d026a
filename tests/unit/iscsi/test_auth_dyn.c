/* test_auth_dyn.c — initiators' CHAP credentials from the management API:
 * a lookup answers only while the initiator's cluster mode for that kind of
 * session is on and the initiator has credentials of that kind; names
 * compare case-insensitively; a new table replaces the old one whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "target/iscsi/auth_dyn.h"

static struct auth_dyn_entry e(const char *iqn, const char *u, const char *s, const char *du, const char *ds,
			       bool login, bool disc)
{
	struct auth_dyn_entry x;

	memset(&x, 0, sizeof(x));
	snprintf(x.iqn, sizeof(x.iqn), "%s", iqn);
	snprintf(x.user, sizeof(x.user), "%s", u);
	snprintf(x.secret, sizeof(x.secret), "%s", s);
	snprintf(x.disc_user, sizeof(x.disc_user), "%s", du);
	snprintf(x.disc_secret, sizeof(x.disc_secret), "%s", ds);
	x.login_on = login;
	x.discovery_on = disc;
	return x;
}

static void lookups(void **state)
{
	struct auth_dyn_entry t[3] = {
		e("iqn.2026-11.org.example:a", "chap_user", "secret123456", "disc_a", "discsecret12", true, false),
		e("iqn.2026-11.org.example:b", "", "", "disc_b", "discsecret34", true, true),
		e("iqn.2026-11.org.example:c", "user_c", "secret654321", "", "", false, true),
	};
	struct auth_user u;

	assert_int_equal(auth_dyn_set(t, 3), 0);
	assert_true(auth_dyn_lookup("IQN.2026-11.org.example:A", false, &u));
	assert_string_equal(u.name, "chap_user");
	assert_int_equal(u.secret_len, 12);
	assert_memory_equal(u.secret, "secret123456", 12);
	/* a's discovery mode is off: the auth file decides */
	assert_false(auth_dyn_lookup("iqn.2026-11.org.example:a", true, &u));
	/* b has no session credentials: the auth file decides; discovery ones it has */
	assert_false(auth_dyn_lookup("iqn.2026-11.org.example:b", false, &u));
	assert_true(auth_dyn_lookup("iqn.2026-11.org.example:b", true, &u));
	assert_string_equal(u.name, "disc_b");
	/* c's session mode is off, discovery on but no discovery credentials */
	assert_false(auth_dyn_lookup("iqn.2026-11.org.example:c", false, &u));
	assert_false(auth_dyn_lookup("iqn.2026-11.org.example:c", true, &u));
	assert_false(auth_dyn_lookup("iqn.2026-11.org.example:d", false, &u));
	/* replaced whole */
	assert_int_equal(auth_dyn_set(&t[2], 1), 0);
	assert_false(auth_dyn_lookup("iqn.2026-11.org.example:a", false, &u));
	auth_dyn_clear();
	assert_false(auth_dyn_lookup("iqn.2026-11.org.example:b", true, &u));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lookups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
