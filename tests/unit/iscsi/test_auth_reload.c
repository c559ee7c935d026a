/* test_auth_reload.c — SIGHUP's re-read of the auth file (target/auth_reload.c):
 * a good file replaces the access control in force (users, allow-list with
 * --allow-initiator added, open access when it names nobody); a bad one, or one
 * without an 'api' line while the API runs, is refused and the config in force
 * stays the same pointer; a changed config file is named as needing a restart. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "target/auth_reload.h"
#include "target/cli.h"
#include "target/iscsi/auth_config.h"
#include "target/iscsi/target.h"

static char dir[64], authp[128], confp[128];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, 0600), 0);
}

static int setup(void **state)
{
	strcpy(dir, "/tmp/lunlab-reload-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(authp, sizeof(authp), "%s/auth", dir);
	snprintf(confp, sizeof(confp), "%s/target.yaml", dir);
	g_target.auth = NULL;
	return 0;
}

static int teardown(void **state)
{
	g_target.auth = NULL;
	auth_reload_free();
	unlink(authp);
	unlink(confp);
	rmdir(dir);
	return 0;
}

static void no_auth_file_changes_nothing(void **state)
{
	struct cli c = { 0 };
	char msg[1024];

	assert_int_equal(auth_reload(&c, false, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "no --auth-file"));
	assert_null(target_auth());
}

static void good_file_replaces_bad_one_is_refused(void **state)
{
	const char *allow[] = { "iqn.2026-11.org.example:cmdline" };
	struct cli c = { .auth_file = authp, .allow = allow, .nallow = 1 };
	char msg[1024];

	write_file(authp, "chap alice alicesecret123\nallow iqn.2026-11.org.example:file\n");
	assert_int_equal(auth_reload(&c, false, msg, sizeof(msg)), 0);
	const struct auth_config *first = target_auth();
	assert_non_null(first);
	assert_int_equal(first->nusers, 1);
	assert_string_equal(first->users[0].name, "alice");
	assert_int_equal(first->nallow, 2); /* the file's line + --allow-initiator */
	assert_true(auth_config_allows(first, "iqn.2026-11.org.example:cmdline"));
	assert_false(auth_config_allows(first, "iqn.2026-11.org.example:other"));
	assert_non_null(strstr(msg, "1 CHAP user(s)"));

	/* a broken line: refused as a whole, the config in force is the same object */
	write_file(authp, "chap bob bobsecret4567\nchap broken\n");
	assert_int_equal(auth_reload(&c, false, msg, sizeof(msg)), -1);
	assert_ptr_equal(target_auth(), first);
	assert_non_null(strstr(msg, "reload refused"));
	assert_non_null(strstr(msg, "line 2"));

	/* the API runs: a file without an 'api' line would lock it: refused */
	write_file(authp, "chap bob bobsecret4567\n");
	assert_int_equal(auth_reload(&c, true, msg, sizeof(msg)), -1);
	assert_ptr_equal(target_auth(), first);
	assert_non_null(strstr(msg, "no 'api' line"));
	/* the replaced config stays readable (a login may hold it) */
	assert_string_equal(first->users[0].name, "alice");
}

static void a_file_naming_nobody_opens_access(void **state)
{
	struct cli c = { .auth_file = authp };
	char msg[1024];

	write_file(authp, "api admin adminsecret123\n");
	assert_int_equal(auth_reload(&c, false, msg, sizeof(msg)), 0);
	assert_null(target_auth()); /* as at start: no user, no allow-list */
	assert_non_null(strstr(msg, "1 API user(s)"));
}

static void changed_config_file_needs_restart(void **state)
{
	struct cli c = { .auth_file = authp, .config = confp };
	char msg[1024];

	write_file(confp, "iqn: iqn.2026-11.org.lunlab:a\n");
	write_file(authp, "chap alice alicesecret123\n");
	auth_reload_init(&c);
	assert_int_equal(auth_reload(&c, false, msg, sizeof(msg)), 0);
	assert_null(strstr(msg, "restart"));
	write_file(confp, "iqn: iqn.2026-11.org.lunlab:changed\n");
	assert_int_equal(auth_reload(&c, false, msg, sizeof(msg)), 0);
	assert_non_null(strstr(msg, "the config file changed since start"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(no_auth_file_changes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(good_file_replaces_bad_one_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(a_file_naming_nobody_opens_access, setup, teardown),
		cmocka_unit_test_setup_teardown(changed_config_file_needs_restart, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
