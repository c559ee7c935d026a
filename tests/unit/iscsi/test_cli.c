/* test_cli.c — lunlab-target's command line: --lun specs and the
 * cfgstring they become, defaults, refusals, and how it combines with
 * --config FILE (the file's own parsing: test_config_file.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "target/api/xms_cluster_spec.h"
#include "target/api/xms_hw_fault_spec.h"
#include "target/cli.h"

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

/* cli_parse of "lunlab-target OPT VAL" into *c; its result */
static int parse_opt(struct cli *c, const char *opt, const char *val)
{
	char *argv[] = { "lunlab-target", (char *)opt, (char *)val, NULL };
	return cli_parse(3, argv, c);
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

	/* the handlers' worker pool: 0 (not given) lets the host choose */
	assert_int_equal(cli_parse(1, argv2, &c), 0);
	assert_int_equal(c.handler_threads, 0);
	cli_free(&c);
	assert_int_equal(parse_opt(&c, "--handler-threads", "12"), 0);
	assert_int_equal(c.handler_threads, 12);
	cli_free(&c);
	assert_int_equal(parse_opt(&c, "--handler-threads", "1025"), -1);
	cli_free(&c);

	/* the hugetlb pool: used unless told not to */
	assert_int_equal(cli_parse(1, argv2, &c), 0);
	assert_false(c.no_hugepages);
	cli_free(&c);
	char *argv6[] = { "lunlab-target", "--no-hugepages", NULL };
	assert_int_equal(cli_parse(2, argv6, &c), 0);
	assert_true(c.no_hugepages);
	cli_free(&c);

	/* the API's threads below the I/O threads: 10 steps unless told, 0 allowed, 19 at most */
	assert_int_equal(cli_parse(1, argv2, &c), 0);
	assert_int_equal(c.api_nice, 10);
	cli_free(&c);
	assert_int_equal(parse_opt(&c, "--api-nice", "0"), 0);
	assert_int_equal(c.api_nice, 0);
	cli_free(&c);
	assert_int_equal(parse_opt(&c, "--api-nice", "19"), 0);
	assert_int_equal(c.api_nice, 19);
	cli_free(&c);
	assert_int_equal(parse_opt(&c, "--api-nice", "20"), -1);
	cli_free(&c);

	/* payload memory populated at open: none unless told, 4 TiB at most, numbers only */
	assert_int_equal(cli_parse(1, argv2, &c), 0);
	assert_int_equal(c.prealloc_mib, 0);
	cli_free(&c);
	assert_int_equal(parse_opt(&c, "--prealloc-mib", "4194304"), 0);
	assert_int_equal(c.prealloc_mib, 4194304);
	cli_free(&c);
	assert_int_equal(parse_opt(&c, "--prealloc-mib", "4194305"), -1);
	cli_free(&c);
	assert_int_equal(parse_opt(&c, "--prealloc-mib", "1x"), -1);
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

/* the option table is in enum order (cli.c indexes it by id) and every
 * option has one name */
static void option_table(void **state)
{
	int n = 0;

	for (const struct cli_optdef *d = cli_options; d->name; d++, n++) {
		assert_int_equal(d->id, n);
		assert_ptr_equal(cli_option(d->name), d);
	}
	assert_int_equal(n, CLI_NOPTS);
	assert_null(cli_option("luns"));
	assert_int_equal(cli_option("lun")->kind, CLI_K_LUN);
	assert_int_equal(cli_option("io-threads")->lo, 1);
	assert_int_equal(cli_option("io-threads")->hi, 256);
}

/* key names that would break the SPEC or the cfgstring are refused */
static void lun_key_names(void **state)
{
	struct cli_lun l;
	char err[256];

	assert_false(cli_parse_lun("size=1G,a;b=c", &l, err, sizeof(err)));
	assert_string_equal(err, "a;b=c: not a key name (letters, digits, _ - .)");
	assert_true(cli_parse_lun("size=1G,x.y_z-1=2", &l, err, sizeof(err)));
	assert_string_equal(l.cfgstring, "lunlab/x.y_z-1=2");
	assert_int_equal(l.line, 0);
}

static char cfg_dir[64];

static const char *cfg_write(const char *name, const char *text)
{
	static char path[160];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", cfg_dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static const char file_text[] =
	"listen: [127.0.0.1:5001, 127.0.0.1:5002]\n"
	"iqn: iqn.2026-11.org.lunlab:file\n"
	"io-threads: 2\n"
	"max-sessions: 10\n"
	"login-timeout: 5\n"
	"auth-file: /file/auth\n"
	"allow-initiator: [iqn.2026-11.org.a:1, iqn.2026-11.org.b:2]\n"
	"handler-path: /file/handlers\n"
	"trace: false\n"
	"lun:\n"
	"  - size: 2G\n"
	"    model: x2\n"
	"  - size: 1G\n"
	"    block: 4096\n";

/* the file alone: its values; defaults for what it does not say */
static void config_only(void **state)
{
	char *path = strdup(cfg_write("f.yaml", file_text));
	char *argv[] = { "lunlab-target", "--config", path, NULL };
	struct cli c;

	assert_int_equal(cli_parse(3, argv, &c), 0);
	assert_string_equal(c.config, path);
	assert_int_equal(c.nlisten, 2);
	assert_string_equal(c.listen[1], "127.0.0.1:5002");
	assert_string_equal(c.iqn, "iqn.2026-11.org.lunlab:file");
	assert_int_equal(c.io_threads, 2);
	assert_int_equal(c.max_sessions, 10);
	assert_int_equal(c.login_timeout, 5);
	assert_int_equal(c.stall_timeout, -1);
	assert_int_equal(c.portal_group, 1);
	assert_string_equal(c.auth_file, "/file/auth");
	assert_int_equal(c.nallow, 2);
	assert_string_equal(c.handler_path, "/file/handlers");
	assert_false(c.trace);
	assert_int_equal(c.nluns, 2);
	assert_int_equal(c.luns[1].block, 4096);
	assert_int_equal(c.luns[0].line, 11);
	assert_int_equal(c.luns[1].line, 13);
	cli_free(&c);

	/* a file without listen: the default address, as with no options */
	char *argv2[] = { "lunlab-target", "--config", (char *)cfg_write("g.yaml", "quiet: true\n"), NULL };
	assert_int_equal(cli_parse(3, argv2, &c), 0);
	assert_int_equal(c.nlisten, 1);
	assert_string_equal(c.listen[0], "127.0.0.1:3260");
	assert_true(c.quiet);
	assert_int_equal(c.nluns, 0);
	cli_free(&c);
	free(path);
}

/* command-line scalars win; command-line lists replace the file's lists,
 * wherever --config stands among the options */
static void precedence(void **state)
{
	char *path = strdup(cfg_write("f.yaml", file_text));
	char *argv[] = { "lunlab-target", "--iqn", "iqn.2026-11.org.lunlab:cmd", "--lun", "size=8M",
			 "--config", path, "--io-threads", "4", "--trace", "--listen", "127.0.0.1:6000",
			 "--allow-initiator", "iqn.2026-11.org.c:3", "--auth-file", "/cmd/auth",
			 "--handler-path", "/cmd/handlers", NULL };
	struct cli c;

	assert_int_equal(cli_parse(18, argv, &c), 0);
	/* scalars: the command line's */
	assert_string_equal(c.iqn, "iqn.2026-11.org.lunlab:cmd");
	assert_int_equal(c.io_threads, 4);
	assert_true(c.trace);
	assert_string_equal(c.auth_file, "/cmd/auth"); /* not "given twice": one each */
	assert_string_equal(c.handler_path, "/cmd/handlers");
	/* scalars the command line did not give: the file's */
	assert_int_equal(c.max_sessions, 10);
	assert_int_equal(c.login_timeout, 5);
	/* lists: replaced, not appended to */
	assert_int_equal(c.nlisten, 1);
	assert_string_equal(c.listen[0], "127.0.0.1:6000");
	assert_int_equal(c.nallow, 1);
	assert_string_equal(c.allow[0], "iqn.2026-11.org.c:3");
	assert_int_equal(c.nluns, 1);
	assert_true(c.luns[0].size == 8ull << 20);
	assert_int_equal(c.luns[0].line, 0);
	assert_int_equal(c.nkeylines, 0); /* the file's LUN keys went with its LUNs */
	/* main() blames the file's line only for what the file still sets */
	assert_int_equal(c.line[CLI_AUTH_FILE], 0);
	assert_int_equal(c.line[CLI_HANDLER_PATH], 0);
	assert_int_equal(c.line[CLI_LUN], 0);
	assert_int_equal(c.line[CLI_MAX_SESSIONS], 4);
	cli_free(&c);

	/* several --lun replace the file's list once, then add in order */
	char *argv2[] = { "lunlab-target", "--config", path, "--lun", "size=1M", "--lun", "size=2M",
			  "--listen", "127.0.0.1:6001", "--listen", "127.0.0.1:6002", NULL };
	assert_int_equal(cli_parse(11, argv2, &c), 0);
	assert_int_equal(c.nluns, 2);
	assert_true(c.luns[0].size == 1ull << 20);
	assert_true(c.luns[1].size == 2ull << 20);
	assert_int_equal(c.nlisten, 2);
	assert_string_equal(c.listen[1], "127.0.0.1:6002");
	assert_int_equal(c.nallow, 2); /* not on the command line: the file's */
	assert_string_equal(c.iqn, "iqn.2026-11.org.lunlab:file");
	cli_free(&c);
	free(path);
}

/* handler-path: command line, then the file, then LUNLAB_HANDLER_PATH */
static void handler_path_order(void **state)
{
	char *with = strdup(cfg_write("h.yaml", "handler-path: /file/h\n"));
	char *without = strdup(cfg_write("n.yaml", "quiet: false\n"));
	struct cli c;

	setenv("LUNLAB_HANDLER_PATH", "/env/h", 1);
	char *a1[] = { "lunlab-target", "--config", with, NULL };
	assert_int_equal(cli_parse(3, a1, &c), 0);
	assert_string_equal(c.handler_path, "/file/h");
	cli_free(&c);
	char *a2[] = { "lunlab-target", "--config", without, NULL };
	assert_int_equal(cli_parse(3, a2, &c), 0);
	assert_string_equal(c.handler_path, "/env/h");
	cli_free(&c);
	char *a3[] = { "lunlab-target", "--config", with, "--handler-path", "/cmd/h", NULL };
	assert_int_equal(cli_parse(5, a3, &c), 0);
	assert_string_equal(c.handler_path, "/cmd/h");
	cli_free(&c);
	unsetenv("LUNLAB_HANDLER_PATH");
	free(with);
	free(without);
}

static void config_refusals(void **state)
{
	char *good = strdup(cfg_write("ok.yaml", "quiet: true\n"));
	char *bad = strdup(cfg_write("bad.yaml", "quiet: true\nbogus: 1\n"));
	struct cli c;

	char *twice[] = { "lunlab-target", "--config", good, "--config", good, NULL };
	assert_int_equal(cli_parse(5, twice, &c), -1);
	cli_free(&c);
	char *badfile[] = { "lunlab-target", "--config", bad, NULL };
	assert_int_equal(cli_parse(3, badfile, &c), -1);
	cli_free(&c);
	char *missing[] = { "lunlab-target", "--config", "/nonexistent/lunlab.yaml", NULL };
	assert_int_equal(cli_parse(3, missing, &c), -1);
	cli_free(&c);
	/* a good file does not excuse a bad command line */
	char *badcmd[] = { "lunlab-target", "--config", good, "--io-threads", "0", NULL };
	assert_int_equal(cli_parse(5, badcmd, &c), -1);
	cli_free(&c);
	char *authtwice[] = { "lunlab-target", "--config", good, "--auth-file", "a", "--auth-file", "b", NULL };
	assert_int_equal(cli_parse(7, authtwice, &c), -1);
	cli_free(&c);
	/* --help answers before any file is read */
	char *help[] = { "lunlab-target", "--config", "/nonexistent/lunlab.yaml", "--help", NULL };
	assert_int_equal(cli_parse(4, help, &c), 1);
	cli_free(&c);
	free(good);
	free(bad);
}

/* --state-dir from the command line or the file (the command line wins);
 * --check-state only on the command line; no ';' or ',' in either path (the
 * handler's cfgstring carries it) */
static void state_options(void **state)
{
	char *f = strdup(cfg_write("s.yaml", "state-dir: /var/lib/lunlab\n"));
	char *chk = strdup(cfg_write("c.yaml", "check-state: /var/lib/lunlab\n"));
	struct cli c;

	char *a1[] = { "lunlab-target", "--state-dir", "/srv/s1", NULL };
	assert_int_equal(cli_parse(3, a1, &c), 0);
	assert_string_equal(c.state_dir, "/srv/s1");
	assert_null(c.check_state);
	cli_free(&c);
	char *a2[] = { "lunlab-target", "--config", f, NULL };
	assert_int_equal(cli_parse(3, a2, &c), 0);
	assert_string_equal(c.state_dir, "/var/lib/lunlab");
	assert_int_equal(c.line[CLI_STATE_DIR], 1);
	cli_free(&c);
	char *a3[] = { "lunlab-target", "--config", f, "--state-dir", "/srv/s2", NULL };
	assert_int_equal(cli_parse(5, a3, &c), 0);
	assert_string_equal(c.state_dir, "/srv/s2");
	assert_int_equal(c.line[CLI_STATE_DIR], 0);
	cli_free(&c);
	char *a4[] = { "lunlab-target", "--check-state", "/srv/s1", NULL };
	assert_int_equal(cli_parse(3, a4, &c), 0);
	assert_string_equal(c.check_state, "/srv/s1");
	cli_free(&c);
	char *bad1[] = { "lunlab-target", "--state-dir", "/srv/a;b", NULL };
	assert_int_equal(cli_parse(3, bad1, &c), -1);
	cli_free(&c);
	char *bad2[] = { "lunlab-target", "--check-state", "/srv/a,b", NULL };
	assert_int_equal(cli_parse(3, bad2, &c), -1);
	cli_free(&c);
	char *bad3[] = { "lunlab-target", "--state-dir", "", NULL };
	assert_int_equal(cli_parse(3, bad3, &c), -1);
	cli_free(&c);
	char *bad4[] = { "lunlab-target", "--config", chk, NULL }; /* a command, not a setting */
	assert_int_equal(cli_parse(3, bad4, &c), -1);
	cli_free(&c);
	free(f);
	free(chk);
}

static int make_dir(void **state)
{
	snprintf(cfg_dir, sizeof(cfg_dir), "/tmp/lunlab-cli.XXXXXX");
	return mkdtemp(cfg_dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	const char *names[] = { "f.yaml", "g.yaml", "h.yaml", "n.yaml", "ok.yaml", "bad.yaml", "s.yaml", "c.yaml" };
	char path[160];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", cfg_dir, names[i]);
		unlink(path);
	}
	return rmdir(cfg_dir);
}

/* --fault hw=...: the hardware form goes to its own list (the command
 * rules are untouched); its parser names the bad key */
static void hw_faults(void **state)
{
	char *argv[] = { "lunlab-target", "--api", "127.0.0.1:0", "--fault", "hw=ssd:3",
			 "--fault", "lun=0,sense=medium-error", "--fault", "cluster=x2,hw=sc:X1-SC2", NULL };
	struct xms_hw_fault_spec hs;
	struct cli c;
	char err[256];

	(void)state;
	assert_int_equal(cli_parse(9, argv, &c), 0);
	assert_int_equal(c.nhw_faults, 2);
	assert_string_equal(c.hw_faults[1], "cluster=x2,hw=sc:X1-SC2");
	assert_int_equal(c.nfaults, 1);
	assert_string_equal(c.faults[0], "lun=0,sense=medium-error");
	cli_free(&c);

	assert_true(xms_hw_fault_spec_parse("cluster=x2,hw=sc:X1-SC2", &hs, err, sizeof(err)));
	assert_int_equal(hs.kind, XMS_HW_SC);
	assert_string_equal(hs.name, "X1-SC2");
	assert_string_equal(hs.cluster, "x2");
	assert_true(xms_hw_fault_spec_parse("hw=storage-controller:1", &hs, err, sizeof(err)));
	assert_int_equal(hs.kind, XMS_HW_SC);
	assert_string_equal(hs.cluster, "");
	assert_true(xms_hw_fault_spec_parse("hw=ssd:wwn-0x5000", &hs, err, sizeof(err)));
	assert_int_equal(hs.kind, XMS_HW_SSD);
	assert_false(xms_hw_fault_spec_is("lun=0,op=hw"));
	assert_true(xms_hw_fault_spec_is("lun=0,hw"));

	static const struct {
		const char *spec, *why;
	} bad[] = {
		{ "hw=ssd", "hw: want ssd:N or storage-controller:N" },
		{ "hw=ssd:", "hw: want a number from 1 or a name" },
		{ "hw=ssd:0", "hw: want a number from 1 or a name" },
		{ "hw=ssd:a b", "hw: want a number from 1 or a name" },
		{ "hw=ssd:1,hw=ssd:2", "hw: given twice" },
		{ "hw=ssd:1,cluster=", "cluster: want one cluster's name" },
		{ "hw=ssd:1,op=read", "op: not a key of a hardware fault" },
		{ "lun=0,hw", "lun: not a key of a hardware fault" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_false(xms_hw_fault_spec_parse(bad[i].spec, &hs, err, sizeof(err)));
		assert_non_null(strstr(err, bad[i].why));
	}

	/* no --api: nowhere to fail it */
	char *argv2[] = { "lunlab-target", "--fault", "hw=ssd:3", NULL };
	assert_int_equal(cli_parse(3, argv2, &c), -1);
	cli_free(&c);
}

/* --cluster max_volumes= / max_snapshots_per_volume=: the cluster's own
 * limits, not handler keys; bad values name the key */
static void cluster_limits(void **state)
{
	struct xms_cluster_spec cs;
	char err[256];

	(void)state;
	assert_true(xms_cluster_spec_parse("name=l,max_volumes=7,max_snapshots_per_volume=2,model=x1", &cs, err,
					   sizeof(err)));
	assert_int_equal(cs.max_volumes, 7);
	assert_int_equal(cs.max_snaps_per_vol, 2);
	assert_string_equal(cs.keys, "model=x1");
	assert_true(xms_cluster_spec_parse("name=l", &cs, err, sizeof(err)));
	assert_int_equal(cs.max_volumes, 0);
	assert_false(xms_cluster_spec_parse("max_volumes=0", &cs, err, sizeof(err)));
	assert_string_equal(err, "max_volumes '0': want 1..65536");
	assert_false(xms_cluster_spec_parse("max_snapshots_per_volume=65537", &cs, err, sizeof(err)));
	assert_string_equal(err, "max_snapshots_per_volume '65537': want 1..65536");
	assert_false(xms_cluster_spec_parse("max_volumes=1x", &cs, err, sizeof(err)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lun_specs),
		cmocka_unit_test(command_line),
		cmocka_unit_test(timeouts),
		cmocka_unit_test(access_options),
		cmocka_unit_test(option_table),
		cmocka_unit_test(lun_key_names),
		cmocka_unit_test(config_only),
		cmocka_unit_test(precedence),
		cmocka_unit_test(handler_path_order),
		cmocka_unit_test(config_refusals),
		cmocka_unit_test(state_options),
		cmocka_unit_test(hw_faults),
		cmocka_unit_test(cluster_limits),
	};
	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
