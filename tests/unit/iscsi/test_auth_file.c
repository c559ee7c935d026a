/* test_auth_file.c — the --auth-file parser (every kind of bad line gives a
 * one-line error naming the line and field, never the secret), the file's
 * owner/mode checks, and allow-list matching. */
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

#include "target/iscsi/auth_config.h"
#include "target/iscsi/auth_file.h"

static struct auth_config cfg;
static char err[512];

static int reset(void **state)
{
	auth_config_free(&cfg);
	err[0] = '\0';
	return 0;
}

static int parse(const char *text)
{
	return auth_file_parse(text, strlen(text), "auth", &cfg, err, sizeof(err));
}

static void good_file(void **state)
{
	static const char f[] = "# lunlab access control\n"
				"\n"
				"chap alice alicesecret123\n"
				"  chap\tbob   bobsecret4567   \n"
				"mutual lunlab-target targetsecret99\r\n"
				"allow iqn.2026-11.org.example:host1\n"
				"allow IQN.2026-11.org.example:Host2"; /* no final newline */

	assert_int_equal(parse(f), 0);
	assert_int_equal(cfg.nusers, 2);
	assert_string_equal(cfg.users[1].name, "bob");
	assert_int_equal(cfg.users[1].secret_len, 13);
	assert_memory_equal(cfg.users[1].secret, "bobsecret4567", 13);
	assert_true(cfg.has_mutual);
	assert_string_equal(cfg.mutual.name, "lunlab-target");
	assert_int_equal(cfg.mutual.secret_len, 14);
	assert_int_equal(cfg.nallow, 2);
	assert_true(auth_config_requires_chap(&cfg));
	assert_ptr_equal(auth_config_find_user(&cfg, "alice"), &cfg.users[0]);
	assert_null(auth_config_find_user(&cfg, "Alice")); /* CHAP names are exact */
	assert_null(auth_config_find_user(&cfg, "carol"));
}

/* expects a parse error whose message holds each of the given pieces and
 * never the secret */
static void bad(const char *text, const char *piece1, const char *piece2)
{
	auth_config_free(&cfg);
	assert_int_equal(parse(text), -1);
	assert_non_null(strstr(err, piece1));
	if (piece2)
		assert_non_null(strstr(err, piece2));
	assert_null(strchr(err, '\n'));
	assert_null(strstr(err, "alicesecret123"));
	assert_null(strstr(err, "short"));
}

static void bad_lines(void **state)
{
	bad("chap alice\n", "line 1: field 3 (secret): missing", NULL);
	bad("chap\n", "line 1: field 2 (user name): missing", NULL);
	bad("# c\nchap alice alicesecret123 extra\n", "line 2: field 4", NULL);
	bad("chap alice short\n", "line 1: field 3 (secret): 5 bytes, want 12..255", NULL);
	char longsecret[300];
	memset(longsecret, 'y', 256);
	longsecret[256] = '\0';
	char line[400];
	snprintf(line, sizeof(line), "chap alice %s\n", longsecret);
	bad(line, "field 3 (secret): 256 bytes", NULL);
	bad("chap alice alicesecret123\nchap alice alicesecret123x\n", "line 2: field 2 (user name): 'alice' defined twice", NULL);
	bad("chap alice alicesecret123\nmutual tgt alicesecret123\n", "line 2: field 3 (secret)", "must differ");
	bad("mutual tgt targetsecret99\nchap alice targetsecret99\n", "line 2: field 3 (secret)", "must differ");
	bad("chap a alicesecret123\nmutual t targetsecret99\nmutual u targetsecret98\n", "line 3: field 1", "second 'mutual'");
	bad("mutual tgt targetsecret99\n", "'mutual' line without any 'chap' line", NULL);
	bad("allow\n", "line 1: field 2", NULL);
	bad("allow iqn.a:1 iqn.b:2\n", "line 1: field 3", NULL);
	bad("allow host1\n", "line 1: field 2 (initiator name)", "iqn.");
	bad("permit iqn.a:1\n", "line 1: field 1: unknown keyword 'permit'", NULL);
	bad("chap alice alice\x01secret123\n", "line 1: field 3 (secret): printable", NULL);
	bad("chap al\x7f" "ce alicesecret123\n", "line 1: field 2 (user name)", NULL);
	static const char nul[] = "chap alice alicesecret123\nallow iqn.a\0:1\n";
	auth_config_free(&cfg);
	assert_int_equal(auth_file_parse(nul, sizeof(nul) - 1, "auth", &cfg, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "line 2: contains a NUL byte"));
	char big[AUTH_LINE_MAX + 20];
	memset(big, '#', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	bad(big, "line 1: longer than 1024 bytes", NULL);
}

/* api lines: HTTP API users, kept apart from CHAP users */
static void api_users(void **state)
{
	assert_int_equal(parse("chap alice alicesecret123\napi admin Xtrem10secret\napi ops opssecret\n"), 0);
	assert_int_equal(cfg.nusers, 1);
	assert_int_equal(cfg.napi_users, 2);
	assert_string_equal(cfg.api_users[0].name, "admin");
	assert_int_equal(cfg.api_users[0].secret_len, 13);
	assert_memory_equal(cfg.api_users[0].secret, "Xtrem10secret", 13);
	assert_string_equal(cfg.api_users[1].name, "ops");
	assert_null(auth_config_find_user(&cfg, "admin")); /* not a CHAP user */
	auth_config_free(&cfg);
	/* API users alone require no CHAP of initiators */
	assert_int_equal(parse("api admin Xtrem10secret\n"), 0);
	assert_false(auth_config_requires_chap(&cfg));
	auth_config_free(&cfg);
	bad("api admin\n", "line 1: field 3: missing", NULL);
	bad("api admin Xtrem10secret more\n", "line 1: field 4: unexpected", NULL);
	bad("api admin short\n", "line 1: field 3 (secret): 5 bytes, want 8..255", NULL);
	bad("api ad:min Xtrem10secret\n", "line 1: field 2 (user name)", "':'");
	bad("api admin Xtrem10secret\napi admin Xtrem10secret2\n", "line 2: field 2 (user name): api user 'admin' defined twice", NULL);
}

static void acl_matching(void **state)
{
	assert_true(auth_config_allows(NULL, "iqn.any:1"));    /* no config: open */
	assert_true(auth_config_allows(&cfg, "iqn.any:1"));    /* empty list: open */
	assert_true(auth_config_add_allow(&cfg, "iqn.2026-11.org.example:host1", err, sizeof(err)));
	assert_true(auth_config_add_allow(&cfg, "eui.0123456789ABCDEF", err, sizeof(err)));
	assert_true(auth_config_allows(&cfg, "iqn.2026-11.org.example:host1"));
	assert_true(auth_config_allows(&cfg, "IQN.2026-11.ORG.EXAMPLE:HOST1"));
	assert_true(auth_config_allows(&cfg, "eui.0123456789abcdef"));
	assert_false(auth_config_allows(&cfg, "iqn.2026-11.org.example:host"));   /* no prefix match */
	assert_false(auth_config_allows(&cfg, "iqn.2026-11.org.example:host12"));
	assert_false(auth_config_allows(&cfg, ""));
	assert_false(auth_config_requires_chap(&cfg)); /* an ACL alone asks for no CHAP */
	assert_false(auth_config_add_allow(&cfg, "iqn.has space", err, sizeof(err)));
	assert_non_null(strstr(err, "no spaces"));
	char longname[300] = "iqn.";
	memset(longname + 4, 'a', 220);
	longname[224] = '\0';
	assert_false(auth_config_add_allow(&cfg, longname, err, sizeof(err)));
	assert_non_null(strstr(err, "1..223"));
	longname[223] = '\0';
	assert_true(auth_config_add_allow(&cfg, longname, err, sizeof(err)));
}

static char path[64];

static void write_file(const char *text, mode_t mode)
{
	int fd;

	snprintf(path, sizeof(path), "/tmp/lunlab-auth-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
}

static void file_modes(void **state)
{
	static const char f[] = "chap alice alicesecret123\n";
	char want[128];

	write_file(f, 0600);
	assert_int_equal(auth_file_load(path, &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.nusers, 1);
	unlink(path);
	auth_config_free(&cfg);

	write_file(f, 0400);
	assert_int_equal(auth_file_load(path, &cfg, err, sizeof(err)), 0);
	unlink(path);
	auth_config_free(&cfg);

	static const mode_t refused[] = { 0644, 0640, 0604, 0660, 0601, 0610 };
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		write_file(f, refused[i]);
		assert_int_equal(auth_file_load(path, &cfg, err, sizeof(err)), -1);
		snprintf(want, sizeof(want), "%s: mode %04o", path, (unsigned)refused[i]);
		assert_non_null(strstr(err, want));
		assert_non_null(strstr(err, "0600"));
		assert_int_equal(cfg.nusers, 0); /* nothing read */
		unlink(path);
	}

	/* the owner must be the user running the target; as root we can hand
	 * the file to someone else, otherwise this part has nothing to test */
	if (geteuid() == 0) {
		write_file(f, 0600);
		assert_int_equal(chown(path, 65534, 65534), 0);
		assert_int_equal(auth_file_load(path, &cfg, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "owned by uid 65534"));
		unlink(path);
	}

	assert_int_equal(auth_file_load("/nonexistent/auth", &cfg, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/auth: No such file"));
	assert_int_equal(auth_file_load("/tmp", &cfg, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a regular file"));

	/* a bad line in a real file: the path and the line number */
	write_file("chap alice alicesecret123\nallow nope\n", 0600);
	assert_int_equal(auth_file_load(path, &cfg, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s line 2: field 2", path);
	assert_non_null(strstr(err, want));
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(good_file, reset, reset),
		cmocka_unit_test_setup_teardown(bad_lines, reset, reset),
		cmocka_unit_test_setup_teardown(api_users, reset, reset),
		cmocka_unit_test_setup_teardown(acl_matching, reset, reset),
		cmocka_unit_test_setup_teardown(file_modes, reset, reset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
