/* test_cli.c — lunlab-target's command line: sizes, --lun specs and the
 * cfgstring they become, defaults, refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "target/cli.h"

static void sizes(void **state)
{
	uint64_t v;

	assert_true(cli_parse_size("2G", &v));
	assert_true(v == 2ull << 30);
	assert_true(cli_parse_size("2T", &v));
	assert_true(v == 2ull << 40);
	assert_true(cli_parse_size("512k", &v));
	assert_true(v == 512ull << 10);
	assert_true(cli_parse_size("4096", &v));
	assert_true(v == 4096);
	assert_false(cli_parse_size("2X", &v));
	assert_false(cli_parse_size("-1G", &v));
	assert_false(cli_parse_size("", &v));
	assert_false(cli_parse_size("99999999999T", &v));
}

static void lun_specs(void **state)
{
	struct cli_lun l;
	char err[256];

	assert_true(cli_parse_lun("size=1G,block=4096,array=b,serial=abc", &l, err, sizeof(err)));
	assert_true(l.size == 1ull << 30);
	assert_int_equal(l.block, 4096);
	assert_string_equal(l.cfgstring, "lunlab/array=b;serial=abc");
	assert_string_equal(l.serial, "abc");
	assert_true(cli_parse_lun("size=2G,model=x2", &l, err, sizeof(err)));
	assert_int_equal(l.block, 512);
	assert_string_equal(l.cfgstring, "lunlab/model=x2");
	assert_string_equal(l.serial, "");
	assert_true(cli_parse_lun("handler=other,size=1M,foo=bar", &l, err, sizeof(err)));
	assert_string_equal(l.cfgstring, "other/foo=bar");
	assert_true(cli_parse_lun("size=1M", &l, err, sizeof(err)));
	assert_string_equal(l.cfgstring, "lunlab/");

	assert_false(cli_parse_lun("model=x2", &l, err, sizeof(err)));
	assert_non_null(strstr(err, "size"));
	assert_false(cli_parse_lun("size=1G,block=1024", &l, err, sizeof(err)));
	assert_non_null(strstr(err, "block=1024"));
	assert_false(cli_parse_lun("size=1G,oops", &l, err, sizeof(err)));
	assert_non_null(strstr(err, "oops"));
	assert_false(cli_parse_lun("size=1000,block=512", &l, err, sizeof(err)));
	assert_false(cli_parse_lun("size=1G,model=a;b", &l, err, sizeof(err)));
}

static void command_line(void **state)
{
	char *argv[] = { "lunlab-target", "--listen", "127.0.0.1:3999", "--iqn", "iqn.x:y",
			 "--lun", "size=2G,model=x2", "--lun", "size=1G,block=4096", "--io-threads", "3",
			 "--quiet", NULL };
	struct cli c;

	assert_int_equal(cli_parse(12, argv, &c), 0);
	assert_int_equal(c.nlisten, 1);
	assert_string_equal(c.listen[0], "127.0.0.1:3999");
	assert_null(c.auth_file);
	assert_int_equal(c.nallow, 0);
	assert_string_equal(c.iqn, "iqn.x:y");
	assert_int_equal(c.nluns, 2);
	assert_int_equal(c.luns[1].block, 4096);
	assert_int_equal(c.io_threads, 3);
	assert_true(c.quiet);
	assert_false(c.trace);
	cli_free(&c);

	char *argv2[] = { "lunlab-target", NULL };
	assert_int_equal(cli_parse(1, argv2, &c), 0);
	assert_int_equal(c.nlisten, 1);
	assert_string_equal(c.listen[0], "127.0.0.1:3260");
	assert_string_equal(c.iqn, "iqn.2026-11.org.lunlab:target");
	assert_int_equal(c.nluns, 0);
	cli_free(&c);

	char *argv3[] = { "lunlab-target", "--io-threads", "0", NULL };
	assert_int_equal(cli_parse(3, argv3, &c), -1);
	cli_free(&c);
}

/* --login-timeout / --stall-timeout: -1 when not given (the environment or
 * the default then applies), 0 allowed (never), bounded, numbers only */
static void timeouts(void **state)
{
	struct cli c;
	char *none[] = { "lunlab-target", NULL };
	assert_int_equal(cli_parse(1, none, &c), 0);
	assert_int_equal(c.login_timeout, -1);
	assert_int_equal(c.stall_timeout, -1);
	cli_free(&c);

	char *both[] = { "lunlab-target", "--login-timeout", "0", "--stall-timeout", "7", NULL };
	assert_int_equal(cli_parse(5, both, &c), 0);
	assert_int_equal(c.login_timeout, 0);
	assert_int_equal(c.stall_timeout, 7);
	cli_free(&c);

	char *big[] = { "lunlab-target", "--login-timeout", "86401", NULL };
	assert_int_equal(cli_parse(3, big, &c), -1);
	cli_free(&c);
	char *word[] = { "lunlab-target", "--stall-timeout", "5s", NULL };
	assert_int_equal(cli_parse(3, word, &c), -1);
	cli_free(&c);
}

/* access control and portals: --listen and --allow-initiator repeat, in
 * order; --auth-file once; no option takes a secret */
static void access_options(void **state)
{
	char *argv[] = { "lunlab-target", "--listen", "127.0.0.1:4001", "--listen", "127.0.0.1:4002",
			 "--allow-initiator", "iqn.a:1", "--auth-file", "/x/auth", "--allow-initiator",
			 "iqn.b:2", NULL };
	struct cli c;

	assert_int_equal(cli_parse(11, argv, &c), 0);
	assert_int_equal(c.nlisten, 2);
	assert_string_equal(c.listen[0], "127.0.0.1:4001");
	assert_string_equal(c.listen[1], "127.0.0.1:4002");
	assert_int_equal(c.nallow, 2);
	assert_string_equal(c.allow[0], "iqn.a:1");
	assert_string_equal(c.allow[1], "iqn.b:2");
	assert_string_equal(c.auth_file, "/x/auth");
	cli_free(&c);

	char *twice[] = { "lunlab-target", "--auth-file", "a", "--auth-file", "b", NULL };
	assert_int_equal(cli_parse(5, twice, &c), -1);
	cli_free(&c);

	char *secret[] = { "lunlab-target", "--chap-secret", "x", NULL };
	assert_int_equal(cli_parse(3, secret, &c), -1);
	cli_free(&c);

	char *many[1 + 2 * (CLI_MAX_LISTEN + 1) + 1];
	int n = 0;
	many[n++] = "lunlab-target";
	for (int i = 0; i <= CLI_MAX_LISTEN; i++) {
		many[n++] = "--listen";
		many[n++] = "127.0.0.1:0";
	}
	many[n] = NULL;
	assert_int_equal(cli_parse(n, many, &c), -1);
	cli_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sizes),
		cmocka_unit_test(lun_specs),
		cmocka_unit_test(command_line),
		cmocka_unit_test(timeouts),
		cmocka_unit_test(access_options),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
