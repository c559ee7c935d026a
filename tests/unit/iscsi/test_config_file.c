/* test_config_file.c — lunlab-target --config FILE (target/config_file.c):
 * the exact values a file gives, every kind of error with its exact one-line
 * message (file, line, field), reading the file, blaming a handler's refusal
 * on the right line, and the documented example (argv[1],
 * docs/lunlab-target.yaml) giving the very options of the command line its
 * comment spells out. */
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

#include "target/cli.h"
#include "target/config_file.h"

static const char *example_path;

/* parse text as "t.yaml" into a fresh cli; the error (or "") in err */
static int parse(const char *text, struct cli *c, char *err, size_t errlen)
{
	assert_int_equal(cli_init(c), 0);
	return config_file_parse(text, strlen(text), "t.yaml", c, err, errlen);
}

static void values(void **state)
{
	const char *text =
		"# every option once\n"
		"listen:\n"
		"  - 127.0.0.1:4001\n"
		"  - '[::1]:4002'\n"
		"iqn: iqn.2026-11.org.lunlab:cfg\n"
		"alias: lab one\n"
		"portal-group: 7\n"
		"io-threads: 3\n"
		"max-sessions: 300\n"
		"login-timeout: 0\n"
		"stall-timeout: 45\n"
		"auth-file: /etc/lunlab/auth\n"
		"allow-initiator: [iqn.2026-11.org.a:1, eui.0123456789abcdef]\n"
		"handler-path: /opt/h\n"
		"trace: true\n"
		"quiet: false\n"
		"lun:\n"
		"  - size: 2G\n"
		"    model: x2\n"
		"  - {size: 1048576, block: 4096, array: b, serial: \"a b\", readonly: true}\n"
		"  - size: 16M\n"
		"    handler: other\n"
		"    time_scale: 0.5\n"
		"    readonly: false\n"
		"fault:\n"
		"  - lun=0,op=read,lba=2048-4095,sense=03/11/00\n"
		"  - {lun: 1, op: tur, status: busy, count: 2}\n"
		"  - {op: write, hold: true}\n"
		"alua:\n"
		"  - lun=0,tpg=2,state=standby\n"
		"  - {tpg: 1, state: ao, pref: 1}\n"

		"api: 127.0.0.1:4443\n"
		"api-cert: /etc/lunlab/api.pem\n"
		"api-key: /etc/lunlab/api.key\n"
		"api-metrics-open: true\n"
		"cluster: [\"name=c1,model=x2\", \"name=c2,block=4096\"]\n"
		"state-dir: /var/lib/lunlab\n"
		"handler-threads: 24\n"
		"no-hugepages: true\n"
		"api-nice: 15\n"
		"prealloc-mib: 512\n";
	struct cli c;
	char err[512];

	assert_int_equal(parse(text, &c, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_int_equal(c.nlisten, 2);
	assert_string_equal(c.listen[0], "127.0.0.1:4001");
	assert_string_equal(c.listen[1], "[::1]:4002");
	assert_string_equal(c.iqn, "iqn.2026-11.org.lunlab:cfg");
	assert_string_equal(c.alias, "lab one");
	assert_int_equal(c.portal_group, 7);
	assert_int_equal(c.io_threads, 3);
	assert_int_equal(c.max_sessions, 300);
	assert_int_equal(c.login_timeout, 0);
	assert_int_equal(c.stall_timeout, 45);
	assert_string_equal(c.auth_file, "/etc/lunlab/auth");
	assert_int_equal(c.nallow, 2);
	assert_string_equal(c.allow[0], "iqn.2026-11.org.a:1");
	assert_string_equal(c.allow[1], "eui.0123456789abcdef");
	assert_string_equal(c.handler_path, "/opt/h");
	assert_true(c.trace);
	assert_false(c.quiet);
	assert_string_equal(c.api, "127.0.0.1:4443");
	assert_string_equal(c.api_cert, "/etc/lunlab/api.pem");
	assert_string_equal(c.api_key, "/etc/lunlab/api.key");
	assert_true(c.api_metrics_open);
	assert_int_equal(c.nclusters, 2);
	assert_string_equal(c.clusters[1], "name=c2,block=4096");
	assert_string_equal(c.state_dir, "/var/lib/lunlab");
	assert_int_equal(c.handler_threads, 24);
	assert_true(c.no_hugepages);
	assert_int_equal(c.api_nice, 15);
	assert_int_equal(c.prealloc_mib, 512);
	assert_int_equal(c.line[CLI_STATE_DIR], 37);
	assert_int_equal(c.nluns, 3);
	assert_true(c.luns[0].size == 2ull << 30);
	assert_int_equal(c.luns[0].block, 512);
	assert_string_equal(c.luns[0].cfgstring, "lunlab/model=x2");
	assert_string_equal(c.luns[0].serial, "");
	assert_int_equal(c.luns[0].line, 18);
	assert_true(c.luns[1].size == 1048576);
	assert_int_equal(c.luns[1].block, 4096);
	assert_string_equal(c.luns[1].cfgstring, "lunlab/array=b;serial=a b;readonly=1");
	assert_string_equal(c.luns[1].serial, "a b");
	assert_int_equal(c.luns[1].line, 20);
	assert_string_equal(c.luns[2].handler, "other");
	assert_string_equal(c.luns[2].cfgstring, "other/time_scale=0.5;readonly=0");
	assert_int_equal(c.luns[2].line, 21);
	/* a fault rule is a SPEC string or a mapping of its keys (hold: true = hold) */
	assert_int_equal(c.nfaults, 3);
	assert_string_equal(c.faults[0], "lun=0,op=read,lba=2048-4095,sense=03/11/00");
	assert_string_equal(c.faults[1], "lun=1,op=tur,status=busy,count=2");
	assert_string_equal(c.faults[2], "op=write,hold");
	assert_int_equal(c.line[CLI_FAULT], 25);
	assert_int_equal(c.nalua, 2);
	assert_string_equal(c.alua[0], "lun=0,tpg=2,state=standby");
	assert_string_equal(c.alua[1], "tpg=1,state=ao,pref=1");
	assert_int_equal(c.line[CLI_ALUA], 29);
	/* every option but config and check-state was given, each at its key's line */
	assert_int_equal(c.given, ((1u << CLI_NOPTS) - 1) & ~(1u << CLI_CONFIG) & ~(1u << CLI_CHECK_STATE));
	assert_int_equal(c.line[CLI_LISTEN], 2);
	assert_int_equal(c.line[CLI_AUTH_FILE], 12);
	assert_int_equal(c.line[CLI_HANDLER_PATH], 14);
	assert_int_equal(c.line[CLI_LUN], 17);
	assert_int_equal(c.line[CLI_CONFIG], 0);
	cli_free(&c);

	/* anchors and aliases: one LUN mapping written once, used three times */
	assert_int_equal(parse("lun:\n"
			       "  - &disk {size: 1G, block: 4096, array: shared}\n"
			       "  - *disk\n"
			       "  - *disk\n",
			       &c, err, sizeof(err)), 0);
	assert_int_equal(c.nluns, 3);
	for (int i = 0; i < 3; i++) {
		assert_true(c.luns[i].size == 1ull << 30);
		assert_int_equal(c.luns[i].block, 4096);
		assert_string_equal(c.luns[i].cfgstring, "lunlab/array=shared");
	}
	cli_free(&c);

	/* an empty list is given, and means none */
	assert_int_equal(parse("lun: []\nallow-initiator: []\n", &c, err, sizeof(err)), 0);
	assert_int_equal(c.nluns, 0);
	assert_int_equal(c.nallow, 0);
	assert_int_equal(c.given, (1u << CLI_LUN) | (1u << CLI_ALLOW));
	cli_free(&c);

	/* nothing given keeps cli_init()'s defaults */
	assert_int_equal(parse("quiet: true\n", &c, err, sizeof(err)), 0);
	assert_true(c.quiet);
	assert_string_equal(c.iqn, "iqn.2026-11.org.lunlab:target");
	assert_int_equal(c.nlisten, 0); /* cli_parse() adds the default address */
	assert_int_equal(c.login_timeout, -1);
	cli_free(&c);
}

struct bad {
	const char *text;
	const char *msg;
};

#define KNOWN "listen, iqn, lun, handler-path, io-threads, portal-group, max-sessions, login-timeout, " \
	      "stall-timeout, alias, allow-initiator, auth-file, trace, quiet, state-dir, check-state, api, api-cert, api-key, api-metrics-open, cluster, fault, alua, handler-threads, no-hugepages, api-nice, prealloc-mib"

static const struct bad bads[] = {
	/* unknown key */
	{ "iqn: iqn.a:b\nfoo: 1\n", "t.yaml:2: foo: unknown key (known: " KNOWN ")" },
	{ "io_threads: 4\n", "t.yaml:1: io_threads: unknown key (did you mean 'io-threads'?)" },
	{ "luns: []\n", "t.yaml:1: luns: unknown key (did you mean 'lun'?)" },
	{ "chap-secret: abc\n",
	  "t.yaml:1: chap-secret: unknown key; secrets never go in this file: name the 0600 CHAP file with auth-file" },
	{ "config: other.yaml\n", "t.yaml:1: config: a config file cannot name another one" },
	{ "lun:\n  - size: 1G\n    'a b': 1\n", "t.yaml:3: lun[0].a b: not a key name (letters, digits, _ - .)" },
	/* wrong type */
	{ "iqn:\n  - iqn.a:b\n", "t.yaml:2: iqn: expected a scalar, got a sequence" },
	{ "listen: 127.0.0.1:3260\n", "t.yaml:1: listen: expected a sequence (- item per line), got a scalar" },
	{ "listen:\n  - {a: 1}\n", "t.yaml:2: listen[0]: expected a scalar, got a mapping" },
	{ "lun:\n  - size=1G\n", "t.yaml:2: lun[0]: expected a mapping of LUN keys (size, block, model, ...), got a scalar" },
	{ "lun:\n  - size: 1G\n    model: [x2]\n", "t.yaml:3: lun[0].model: expected a scalar, got a sequence" },
	{ "io-threads: \"4\"\n", "t.yaml:1: io-threads: '4': want an unquoted number" },
	{ "trace: 'true'\n", "t.yaml:1: trace: 'true': want true or false, unquoted" },
	{ "iqn:\n", "t.yaml:1: iqn: no value" },
	{ "alias: \"a\\0b\"\n", "t.yaml:1: alias: contains a NUL byte" },
	{ "? [a]\n: 1\n", "t.yaml:1: (document): a key must be a scalar, got a sequence" },
	{ "", "t.yaml:1: (document): empty: want a mapping of options" },
	{ "# nothing\n", "t.yaml:1: (document): empty: want a mapping of options" },
	{ "- iqn\n", "t.yaml:1: (document): expected a mapping of options, got a sequence" },
	/* bad value: the command line's own checks */
	{ "io-threads: 0\n", "t.yaml:1: io-threads: '0': want a number 1..256" },
	{ "max-sessions: 5s\n", "t.yaml:1: max-sessions: '5s': want a number 1..1000000" },
	{ "login-timeout: -1\n", "t.yaml:1: login-timeout: '-1': want a number 0..86400" },
	{ "quiet: yes\n", "t.yaml:1: quiet: 'yes': want true or false" },
	{ "iqn: ''\n", "t.yaml:1: iqn: '': want 1..223 characters" },
	{ "alias: \"x\\ny\"\n", "t.yaml:1: alias: 'x?y': no control characters" },
	{ "listen:\n  - 127.0.0.1:3260\n  - 127.0.0.1:99999\n",
	  "t.yaml:3: listen[1]: '127.0.0.1:99999': port: want a number 0..65535" },
	{ "listen:\n  - ::1\n", "t.yaml:2: listen[0]: '::1': an IPv6 address goes in [brackets]" },
	{ "allow-initiator:\n  - bogus\n",
	  "t.yaml:2: allow-initiator[0]: 'bogus': an iSCSI name starts with iqn., eui. or naa." },
	{ "lun:\n  - size: 1G\n    block: 1024\n", "t.yaml:3: lun[0].block: '1024': want 512 or 4096" },
	{ "lun:\n  - size: 1G\n  - size: lots\n",
	  "t.yaml:3: lun[1].size: 'lots': want a number with K/M/G/T suffix" },
	{ "lun:\n  - size: 1G\n    serial: 'a;b'\n", "t.yaml:3: lun[0].serial: 'a;b': value may not contain ';'" },
	{ "lun:\n  - model: x2\n    block: 4096\n", "t.yaml:2: lun[0].size: missing (every LUN needs a size)" },
	{ "lun:\n  - size: 1000\n", "t.yaml:2: lun[0]: size is not a multiple of block=512" },
	{ "lun:\n  - size: 1G\n    handler: a/b\n", "t.yaml:3: lun[0].handler: 'a/b': bad handler name" },
	{ "fault:\n  - lun=0,op=raed,hold\n",
	  "t.yaml:2: fault[0]: 'lun=0,op=raed,hold': op=raed: unknown command kind (read, write, xcopy, unmap, "
	  "caw, tur, sync, any, or an opcode in hex such as 0x28)" },
	{ "fault:\n  - {lun: 0, status: sleepy}\n",
	  "t.yaml:2: fault[0]: status=sleepy: want busy, task-set-full or reservation-conflict" },
	{ "fault:\n  - {lun: 0, delay: [5]}\n", "t.yaml:2: fault[0]: delay: want a scalar value without ','" },
	{ "alua:\n  - {tpg: 1, state: sleepy}\n",
	  "t.yaml:2: alua[0]: state=sleepy: want ao, ano, standby, unavailable or transitioning" },
	{ "alua:\n  - lun=0,state=ao\n", "t.yaml:2: alua[0]: 'lun=0,state=ao': tpg= missing (want lun=N,tpg=N,state=STATE)" },
	/* duplicate key */
	{ "iqn: iqn.a:b\nquiet: true\niqn: iqn.c:d\n", "t.yaml:3: iqn: duplicate key (first at line 1)" },
	{ "lun:\n  - size: 1G\n    model: x2\n    size: 2G\n", "t.yaml:4: lun[0].size: duplicate key (first at line 2)" },
	/* not YAML, or more than one document */
	{ "lun: [\n", "t.yaml:2: (syntax): did not find expected node content" },
	{ "iqn: iqn.a:b\n  quiet: true\n", "t.yaml:2: (syntax): mapping values are not allowed in this context" },
	{ "iqn: iqn.a:b\n---\nquiet: true\n", "t.yaml:3: (document): a second YAML document; want one" },
};

static void errors(void **state)
{
	char err[512];

	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		struct cli c;
		size_t len = strlen(bads[i].text);

		/* the NUL case: the text holds an escape, never a raw NUL */
		assert_int_equal(cli_init(&c), 0);
		int rc = config_file_parse(bads[i].text, len, "t.yaml", &c, err, sizeof(err));
		if (rc != -1 || strcmp(err, bads[i].msg) != 0)
			print_error("case %zu: %s\n  want: %s\n  got:  %s (rc %d)\n", i, bads[i].text,
				    bads[i].msg, err, rc);
		assert_int_equal(rc, -1);
		assert_string_equal(err, bads[i].msg);
		assert_null(strchr(err, '\n'));
		cli_free(&c);
	}
}

/* more entries than the command line allows: refused at the first extra */
static void limits(void **state)
{
	char text[4096], err[512];
	size_t o = 0;
	struct cli c;

	o += (size_t)snprintf(text + o, sizeof(text) - o, "listen:\n");
	for (int i = 0; i <= CLI_MAX_LISTEN; i++)
		o += (size_t)snprintf(text + o, sizeof(text) - o, "  - 127.0.0.1:%d\n", 4000 + i);
	assert_int_equal(parse(text, &c, err, sizeof(err)), -1);
	assert_string_equal(err, "t.yaml:18: listen[16]: '127.0.0.1:4016': more than 16 addresses");
	cli_free(&c);

	/* a long value is quoted cut short, so the error stays one short line */
	char longv[300];
	memset(longv, 'z', sizeof(longv) - 1);
	longv[sizeof(longv) - 1] = '\0';
	snprintf(text, sizeof(text), "iqn: %s\n", longv);
	assert_int_equal(parse(text, &c, err, sizeof(err)), -1);
	assert_string_equal(err, "t.yaml:1: iqn: 'zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz...': "
				 "want 1..223 characters");
	cli_free(&c);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static void load(void **state)
{
	char dir[] = "/tmp/lunlab-cfg.XXXXXX", path[128], want[512], err[512];
	struct cli c;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/ok.yaml", dir);
	write_file(path, "iqn: iqn.2026-11.org.lunlab:file\nlun:\n  - size: 1M\n");
	assert_int_equal(cli_init(&c), 0);
	assert_int_equal(config_file_load(path, &c, err, sizeof(err)), 0);
	assert_string_equal(c.iqn, "iqn.2026-11.org.lunlab:file");
	assert_int_equal(c.nluns, 1);
	cli_free(&c);

	/* errors name the file by the path given */
	write_file(path, "iqn: iqn.2026-11.org.lunlab:file\nbogus: 1\n");
	assert_int_equal(cli_init(&c), 0);
	assert_int_equal(config_file_load(path, &c, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s:2: bogus: unknown key (known: " KNOWN ")", path);
	assert_string_equal(err, want);
	cli_free(&c);

	snprintf(path, sizeof(path), "%s/none.yaml", dir);
	assert_int_equal(cli_init(&c), 0);
	assert_int_equal(config_file_load(path, &c, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s: No such file or directory", path);
	assert_string_equal(err, want);
	assert_int_equal(config_file_load(dir, &c, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s: not a regular file", dir);
	assert_string_equal(err, want);
	cli_free(&c);

	snprintf(path, sizeof(path), "%s/big.yaml", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	for (unsigned i = 0; i <= CONFIG_FILE_MAX / 16; i++)
		fputs("# fifteen bytes\n", f);
	fclose(f);
	assert_int_equal(cli_init(&c), 0);
	assert_int_equal(config_file_load(path, &c, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s: larger than 1 MiB", path);
	assert_string_equal(err, want);
	cli_free(&c);

	unlink(path);
	snprintf(path, sizeof(path), "%s/ok.yaml", dir);
	unlink(path);
	rmdir(dir);
}

/* the handler refuses a LUN key only when main() creates the LU: the reason
 * is blamed on the line of the key it names */
static void blame(void **state)
{
	const char *text =
		"lun:\n"
		"  - size: 1G\n"
		"    array: b\n"
		"    model: x9\n"
		"    serial: model\n"
		"  - size: 2G\n"
		"    colour: red\n";
	struct cli c;
	char err[512];
	unsigned line;
	const char *key;

	assert_int_equal(parse(text, &c, err, sizeof(err)), 0);
	assert_true(cli_lun_blame(&c, 0, "model 'x9': unknown profile (fa420, unlimited, x1, x2)", &line, &key));
	assert_int_equal(line, 4);
	assert_string_equal(key, "model");
	/* a reason that starts with a key wins over a quoted value naming another */
	assert_true(cli_lun_blame(&c, 0, "serial 'model': whatever", &line, &key));
	assert_int_equal(line, 5);
	assert_string_equal(key, "serial");
	assert_true(cli_lun_blame(&c, 1, "unknown key 'colour' (known: model, profile)", &line, &key));
	assert_int_equal(line, 7);
	assert_string_equal(key, "colour");
	/* no key named: the LUN's own line */
	assert_true(cli_lun_blame(&c, 1, "handler open() failed: Invalid argument", &line, &key));
	assert_int_equal(line, 6);
	assert_string_equal(key, "");
	assert_false(cli_lun_blame(&c, 2, "x", &line, &key));
	cli_free(&c);

	/* a LUN from the command line has no line to blame */
	char *argv[] = { "lunlab-target", "--lun", "size=1G,model=x9", NULL };
	assert_int_equal(cli_parse(3, argv, &c), 0);
	assert_false(cli_lun_blame(&c, 0, "model 'x9': unknown profile", &line, &key));
	cli_free(&c);
}

/* the options a program acts on (not where they came from) */
static void assert_same_options(const struct cli *a, const struct cli *b)
{
	assert_int_equal(a->nlisten, b->nlisten);
	for (int i = 0; i < a->nlisten; i++)
		assert_string_equal(a->listen[i], b->listen[i]);
	assert_int_equal(a->auth_file == NULL, b->auth_file == NULL);
	if (a->auth_file)
		assert_string_equal(a->auth_file, b->auth_file);
	assert_int_equal(a->nallow, b->nallow);
	for (int i = 0; i < a->nallow; i++)
		assert_string_equal(a->allow[i], b->allow[i]);
	assert_string_equal(a->iqn, b->iqn);
	assert_int_equal(a->alias == NULL, b->alias == NULL);
	if (a->alias)
		assert_string_equal(a->alias, b->alias);
	assert_string_equal(a->handler_path, b->handler_path);
	assert_int_equal(a->io_threads, b->io_threads);
	assert_int_equal(a->portal_group, b->portal_group);
	assert_int_equal(a->max_sessions, b->max_sessions);
	assert_int_equal(a->login_timeout, b->login_timeout);
	assert_int_equal(a->stall_timeout, b->stall_timeout);
	assert_int_equal(a->trace, b->trace);
	assert_int_equal(a->quiet, b->quiet);
	assert_int_equal(a->nluns, b->nluns);
	for (int i = 0; i < a->nluns; i++) {
		assert_true(a->luns[i].size == b->luns[i].size);
		assert_int_equal(a->luns[i].block, b->luns[i].block);
		assert_string_equal(a->luns[i].handler, b->luns[i].handler);
		assert_string_equal(a->luns[i].cfgstring, b->luns[i].cfgstring);
		assert_string_equal(a->luns[i].serial, b->luns[i].serial);
	}
}

/* docs/lunlab-target.yaml says the same as the command line in its comment */
static void example_equals_command_line(void **state)
{
	char *cmd[] = { "lunlab-target", "--listen", "127.0.0.1:3260", "--iqn", "iqn.2026-11.org.lunlab:t0",
			"--alias", "lunlab-lab", "--portal-group", "1", "--io-threads", "2",
			"--max-sessions", "256", "--login-timeout", "15", "--stall-timeout", "30",
			"--allow-initiator", "iqn.2007-10.com.github:sahlberg:libiscsi:iscsi-inq",
			"--allow-initiator", "iqn.2007-10.com.github:sahlberg:libiscsi:iscsi-readcapacity16",
			"--lun", "size=2G,model=x2", "--lun", "size=1G,block=4096,array=b,serial=abc",
			"--lun", "size=64M,block=4096,physical_block=16384,readonly=1,model=unlimited,time_scale=0",
			NULL };
	char *file[] = { "lunlab-target", "--config", (char *)example_path, NULL };
	struct cli a, b;

	assert_non_null(example_path);
	assert_int_equal(cli_parse(27, cmd, &a), 0);
	assert_int_equal(cli_parse(3, file, &b), 0);
	assert_string_equal(b.config, example_path);
	assert_int_equal(b.nluns, 3);
	assert_string_equal(b.luns[2].cfgstring,
			    "lunlab/physical_block=16384;readonly=1;model=unlimited;time_scale=0");
	assert_same_options(&a, &b);
	cli_free(&a);
	cli_free(&b);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(values),
		cmocka_unit_test(errors),
		cmocka_unit_test(limits),
		cmocka_unit_test(load),
		cmocka_unit_test(blame),
		cmocka_unit_test(example_equals_command_line),
	};
	example_path = argc > 1 ? argv[1] : NULL;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
