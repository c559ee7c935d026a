/* test_cli.c - command line parsing: values, defaults, and one precise error per bad input. */
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "client/cli.h"

static int parse(struct bench_opts *o, char *err, const char *a0, ...)
{
	char *argv[32];
	int argc = 0;
	va_list ap;
	argv[argc++] = (char *)"lunlab-bench";
	va_start(ap, a0);
	for (const char *a = a0; a && argc < 31; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	return cli_parse(argc, argv, o, err, 256);
}

#define URL "iscsi://127.0.0.1:3261/iqn.2026-11.org.lunlab:t/0"

static void lists(void **state)
{
	unsigned u[32], n;
	uint64_t s[32];
	assert_int_equal(cli_parse_uint_list("1,2,3,4,8,20,50,100", u, 32, &n), 0);
	assert_int_equal(n, 8);
	assert_int_equal(u[7], 100);
	assert_int_equal(cli_parse_uint_list("1,,2", u, 32, &n), 0);   /* empty items skipped */
	assert_int_equal(n, 2);
	assert_int_equal(cli_parse_uint_list("1,0", u, 32, &n), -1);
	assert_int_equal(cli_parse_uint_list("1,x", u, 32, &n), -1);
	assert_int_equal(cli_parse_uint_list("1,-2", u, 32, &n), -1);
	assert_int_equal(cli_parse_uint_list("", u, 32, &n), -1);
	assert_int_equal(cli_parse_uint_list("1,2,3", u, 2, &n), -1);  /* too many */
	assert_int_equal(cli_parse_size_list("64k,256k,1m,4m,16m", s, 32, &n), 0);
	assert_int_equal(n, 5);
	assert_int_equal(s[0], 65536);
	assert_int_equal(s[4], 16u << 20);
	assert_int_equal(cli_parse_size_list("64k,0", s, 32, &n), -1);
}

static void defaults_scale(void **state)
{
	struct bench_opts o;
	char err[256];
	assert_int_equal(parse(&o, err, "scale", URL, NULL), 0);
	assert_int_equal(o.cmd, CMD_SCALE);
	assert_string_equal(o.url, URL);
	assert_int_equal(o.n_vms, 8);
	assert_int_equal(o.vms_list[0], 1);
	assert_int_equal(o.vms_list[7], 100);
	assert_int_equal(o.bs, 4u << 20);
	assert_int_equal(o.qd, 1);
	assert_false(o.write);
	assert_int_equal(o.format, OUT_TABLE);
	assert_true(o.timeout_s == 30);
	assert_int_equal(parse(&o, err, "scale", URL, "--vms", "1,4", "--bs=1m", "--qd", "8", "--write",
			       "--duration", "2.5", "--json", "--timeout", "2.5s", NULL), 0);
	assert_true(o.timeout_s == 2.5);
	assert_int_equal(o.n_vms, 2);
	assert_int_equal(o.vms_list[1], 4);
	assert_int_equal(o.bs, 1u << 20);
	assert_int_equal(o.qd, 8);
	assert_true(o.write);
	assert_true(o.duration_s == 2.5);
	assert_int_equal(o.format, OUT_JSON);
	assert_int_equal(o.data, DATA_UNIQUE);   /* a dedup array's write speed depends on content */
	assert_false(o.random);
	assert_int_equal(parse(&o, err, "scale", URL, "--write", "--data", "win10", "--random", NULL), 0);
	assert_int_equal(o.data, DATA_WIN10);
	assert_true(o.random);
	assert_int_equal(parse(&o, err, "scale", URL, "--write", "--data=zero", NULL), 0);
	assert_int_equal(o.data, DATA_ZERO);
	assert_int_equal(parse(&o, err, "scale", URL, "--write", "--data", "repeat", NULL), 0);
	assert_int_equal(o.data, DATA_REPEAT);
}

static void clone_opts(void **state)
{
	struct bench_opts o;
	char err[256];
	assert_int_equal(parse(&o, err, "clone", URL, "--dest", URL, "--vms", "100", "--sweep", "64k,4m",
			       "--template-content", "synthetic", "--mode", "software", "--explain", "5",
			       "--parallel", "4", "--outstanding", "3", NULL), 0);
	assert_int_equal(o.cmd, CMD_CLONE);
	assert_int_equal(o.clones, 100);
	assert_int_equal(o.n_sweep, 2);
	assert_int_equal(o.sweep[1], 4u << 20);
	assert_int_equal(o.template_content, TEMPLATE_SYNTHETIC);
	assert_int_equal(o.mode, MODE_SOFTWARE);
	assert_true(o.explain);
	assert_int_equal(o.explain_count, 5);
	struct bench_opts odx;
	assert_int_equal(parse(&odx, err, "clone", URL, "--dest", URL, "--mode", "odx", "--chunk", "8m", NULL), 0);
	assert_int_equal(odx.mode, MODE_ODX);
	assert_int_equal(parse(&odx, err, "clone", URL, "--dest", URL, "--mode", "odx", "--chunk", "10g", NULL), 0);
	assert_int_equal(odx.sweep[0], 10ull << 30);
	assert_int_equal(parse(&odx, err, "clone", URL, "--mode", "xcopy", "--chunk", "512m", NULL), -1);
	assert_string_equal(err, "--chunk: 536870912 bytes is above 256m: only --mode odx (one token per chunk) takes more");
	assert_int_equal(o.parallel, 4);
	assert_int_equal(o.outstanding, 3);
	assert_non_null(o.dest_url);
	/* without --sweep the single --chunk is the sweep */
	assert_int_equal(parse(&o, err, "clone", URL, "--chunk", "256k", NULL), 0);
	assert_int_equal(o.n_sweep, 1);
	assert_int_equal(o.sweep[0], 256u << 10);
	assert_int_equal(o.parallel, 2);
	assert_int_equal(o.outstanding, 2);
	assert_int_equal(o.chunk, 256u << 10);
}

struct bad { const char *args[7]; const char *needle; }; /* 6 arguments + the NULL end marker */

static void errors_name_the_field(void **state)
{
	static const struct bad cases[] = {
		{ { NULL }, "missing command" },
		{ { "frobnicate", URL }, "unknown command 'frobnicate'" },
		{ { "info" }, "missing target URL" },
		{ { "info", "http://x/y/0" }, "does not start with iscsi://" },
		{ { "scale", URL, "--qd", "0" }, "--qd" },
		{ { "scale", URL, "--qd" }, "--qd needs a value" },
		{ { "scale", URL, "--vms", "1,zero" }, "--vms" },
		{ { "scale", URL, "--bs", "128m" }, "--bs" },
		{ { "scale", URL, "--duration", "-1" }, "--duration" },
		{ { "scale", URL, "--bogus" }, "unknown option '--bogus'" },
		{ { "info", URL, "--timeout", "0" }, "--timeout: '0' is not a number of seconds between 0.1 and 86400" },
		{ { "drr", URL, "--synthetic", "win10", "--timeout", "forever" }, "--timeout: 'forever'" },
		{ { "info", URL, "--timeout" }, "--timeout needs a value" },
		{ { "scale", URL, URL }, "unexpected argument" },
		{ { "clone", URL, "--vms", "1,2" }, "clone takes one number" },
		{ { "clone", URL, "--template-content", "random" }, "--template-content" },
		{ { "clone", URL, "--mode", "fast" }, "--mode" },
		{ { "clone", URL, "--sweep", "64k,abc" }, "--sweep" },
		{ { "clone", URL, "--dest", "nfs://x" }, "--dest" },
		{ { "drr", URL }, "drr needs --image FILE or --synthetic win10" },
		{ { "drr", URL, "--synthetic", "win7" }, "--synthetic" },
		{ { "drr", URL, "--synthetic", "win10", "--image", "f" }, "not both" },
		{ { "drr", URL, "--synthetic", "win10", "--seed", "-1" }, "--seed" },
		{ { "scale", URL, "--explain" }, "--explain applies to clone only" },
		{ { "scale", URL, "--write", "--data", "random" }, "--data: 'random' is not unique, repeat, zero or win10" },
		{ { "scale", URL, "--data", "zero" }, "--data applies to scale --write only" },
		{ { "clone", URL, "--random" }, "--random applies to scale only" },
		{ { "info", URL, "--plot", "x.svg" }, "--plot applies to clone and scale only" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bench_opts o;
		char err[256] = "";
		const char *const *a = cases[i].args;
		int rc = parse(&o, err, a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
		if (rc != -1 || !strstr(err, cases[i].needle))
			fail_msg("case %zu: rc %d, err '%s', expected '%s'", i, rc, err, cases[i].needle);
	}
}

/* calibrate: every option, its defaults, and the refusals that protect the LU */
static void calibrate_opts(void **state)
{
	struct bench_opts o;
	char err[256];
	assert_int_equal(parse(&o, err, "calibrate", URL, "--out", "lab.yaml", "--dataloss", NULL), 0);
	assert_int_equal(o.cmd, CMD_CALIBRATE);
	assert_string_equal(o.out_path, "lab.yaml");
	assert_true(o.budget_s == 600);
	assert_int_equal(o.capacity_use, 8ull << 30);
	assert_int_equal(o.offset, 0);
	assert_true(o.calib_time_scale == 1);
	assert_false(o.sparse_writes);
	assert_null(o.profile_name);
	assert_int_equal(parse(&o, err, "calibrate", URL, "--out", "x.yaml", "--dataloss", "--budget", "90s",
			       "--capacity-use", "1g", "--offset", "1m", "--time-scale", "20", "--name", "lab-x2",
			       "--write-data", "sparse", "--dest", URL, "--json", "--max-io", "256k", NULL), 0);
	assert_int_equal(o.max_io, 256u << 10);
	assert_true(o.budget_s == 90);
	assert_int_equal(o.capacity_use, 1ull << 30);
	assert_int_equal(o.offset, 1u << 20);
	assert_true(o.calib_time_scale == 20);
	assert_string_equal(o.profile_name, "lab-x2");
	assert_true(o.sparse_writes);
	assert_non_null(o.dest_url);
	assert_int_equal(parse(&o, err, "calibrate", URL, "--out", "x.yaml", "--dataloss", "--budget", "10m", NULL), 0);
	assert_true(o.budget_s == 600);
	assert_int_equal(parse(&o, err, "calibrate", URL, "--out", "x.yaml", "--dataloss", "--budget", "1.5h", NULL), 0);
	assert_true(o.budget_s == 5400);

	/* no --dataloss: refused, naming the bytes it would destroy */
	assert_int_equal(parse(&o, err, "calibrate", URL, "--out", "x.yaml", "--offset", "1m", "--capacity-use", "1g",
			       NULL), -1);
	assert_string_equal(err, "calibrate writes to the LU from byte 1048576 for up to 1073741824 bytes (--offset, "
				 "--capacity-use; no further than the LU's end), destroying what is there: add --dataloss "
				 "to allow it");
	assert_int_equal(parse(&o, err, "calibrate", URL, "--dataloss", NULL), -1);
	assert_non_null(strstr(err, "--out PROFILE.yaml"));
	assert_int_equal(parse(&o, err, "calibrate", URL, "--out", "x.yaml", "--dataloss", "--budget", "ten", NULL), -1);
	assert_non_null(strstr(err, "--budget: 'ten'"));
	assert_int_equal(parse(&o, err, "calibrate", URL, "--out", "x.yaml", "--dataloss", "--budget", "0", NULL), -1);
	assert_int_equal(parse(&o, err, "calibrate", URL, "--out", "x.yaml", "--dataloss", "--time-scale", "0", NULL), -1);
	assert_non_null(strstr(err, "--time-scale: '0'"));
	assert_int_equal(parse(&o, err, "calibrate", URL, "--out", "x.yaml", "--dataloss", "--name", "a b", NULL), -1);
	assert_non_null(strstr(err, "--name: 'a b'"));
	assert_int_equal(parse(&o, err, "calibrate", URL, "--out", "x.yaml", "--dataloss", "--write-data", "zero", NULL), -1);
	assert_non_null(strstr(err, "--write-data: 'zero'"));
	assert_int_equal(parse(&o, err, "calibrate", URL, "--out", "x.yaml", "--dataloss", "--max-io", "1k", NULL), -1);
	assert_non_null(strstr(err, "--max-io: '1k'"));
	assert_int_equal(parse(&o, err, "calibrate", URL, "--out", "x.yaml", "--dataloss", "--csv", NULL), -1);
	assert_non_null(strstr(err, "--csv"));
	/* calibrate's options elsewhere */
	assert_int_equal(parse(&o, err, "clone", URL, "--dataloss", NULL), -1);
	assert_non_null(strstr(err, "apply to calibrate only"));
}

/* the options no other case above sets, each read back */
static void remaining_options(void **state)
{
	struct bench_opts o;
	char err[256];

	assert_int_equal(parse(&o, err, "scale", URL, "-q", "--initiator", "iqn.2026-11.x:h", "--warmup", "0.5s",
			       NULL), 0);
	assert_true(o.quiet);
	assert_string_equal(o.initiator, "iqn.2026-11.x:h");
	assert_true(o.warmup_s == 0.5);
	assert_int_equal(parse(&o, err, "scale", URL, "--quiet", NULL), 0);
	assert_true(o.quiet);
	assert_int_equal(parse(&o, err, "clone", URL, "--template-size", "2g", "--plot-job", "1t", "--verify",
			       "--no-template", "--explain=7", NULL), 0);
	assert_int_equal(o.template_size, 2ull << 30);
	assert_int_equal(o.plot_job_bytes, 1ull << 40);
	assert_true(o.verify);
	assert_true(o.skip_template);
	assert_int_equal(o.explain_count, 7);
	/* --explain alone: the default count; the next word is not taken unless a number */
	assert_int_equal(parse(&o, err, "clone", "--explain", URL, NULL), 0);
	assert_true(o.explain);
	assert_int_equal(o.explain_count, 3);
	assert_string_equal(o.url, URL);
	assert_int_equal(parse(&o, err, "drr", URL, "--synthetic", "win10", "--size", "64m", NULL), 0);
	assert_int_equal(o.image_size, 64ull << 20);
	assert_int_equal(parse(&o, err, "drr", URL, "--synthetic", "win10", "--size", "1k", NULL), -1);
	assert_string_equal(err, "--size: '1k' is not a size of at least 4k");
	assert_int_equal(parse(&o, err, "clone", URL, "--mode", "snapshot", "--api", "https://127.0.0.1:8443",
			       "--api-user", "ops", "--api-cacert", "ca.pem", "--keep-clones", "--settle-timeout", "60",
			       NULL), 0);
	assert_string_equal(o.api_url, "https://127.0.0.1:8443");
	assert_string_equal(o.api_user, "ops");
	assert_string_equal(o.api_cacert, "ca.pem");
	assert_true(o.keep_clones);
	assert_true(o.settle_timeout_s == 60);
	assert_int_equal(parse(&o, err, "info", URL, "--api", "https://h:1", "--api-insecure", NULL), 0);
	assert_true(o.api_insecure);
	assert_string_equal(o.api_user, "admin"); /* the default with --api */
	assert_int_equal(parse(&o, err, "info", URL, "--api", "http://h:1", NULL), -1);
	assert_string_equal(err, "--api: 'http://h:1' is not an https://HOST:PORT URL");
	assert_int_equal(parse(&o, err, "info", URL, "--api", "https://h:1", "--api-user", "a:b", NULL), -1);
	assert_string_equal(err, "--api-user: want 1..64 characters without ':'");
	assert_int_equal(parse(&o, err, "info", URL, "--api-insecure", NULL), -1);
	assert_string_equal(err, "--api-user, --api-cacert and --api-insecure need --api");
	assert_int_equal(parse(&o, err, "info", URL, "--api", "https://h:1", "--api-cacert", "c", "--api-insecure",
			       NULL), -1);
	assert_string_equal(err, "--api-cacert and --api-insecure exclude each other");
	assert_int_equal(parse(&o, err, "scale", URL, "--keep-clones", NULL), -1);
	assert_string_equal(err, "--keep-clones applies to clone --mode snapshot only");
	assert_int_equal(parse(&o, err, "clone", URL, "--settle-timeout", "soon", NULL), -1);
	assert_string_equal(err, "--settle-timeout: 'soon' is not a number of seconds");
}

/* how a word is read: the URL anywhere, "--opt=value", refusals naming what was typed */
static void words_and_refusals(void **state)
{
	struct bench_opts o;
	char err[256];

	assert_int_equal(parse(&o, err, "scale", "--qd", "4", URL, "--bs=64k", NULL), 0);
	assert_string_equal(o.url, URL);
	assert_int_equal(o.qd, 4);
	assert_int_equal(o.bs, 64u << 10);
	/* a value that looks like an option is still the value */
	assert_int_equal(parse(&o, err, "scale", URL, "--duration", "-1", NULL), -1);
	assert_string_equal(err, "--duration: '-1' is not a positive number of seconds");
	assert_int_equal(parse(&o, err, "scale", URL, "--qd=", NULL), -1);
	assert_string_equal(err, "--qd: '' is not an integer 1..256");
	assert_int_equal(parse(&o, err, "scale", URL, "--bogus=3", NULL), -1);
	assert_string_equal(err, "unknown option '--bogus'");
	assert_int_equal(parse(&o, err, "scale", URL, "-x", NULL), -1);
	assert_string_equal(err, "unknown option '-x'");
	assert_int_equal(parse(&o, err, "scale", URL, "--json=yes", NULL), -1);
	assert_string_equal(err, "--json takes no value");
	assert_int_equal(parse(&o, err, "scale", URL, "--", "more", NULL), -1);
	assert_string_equal(err, "unexpected argument 'more'");
	assert_int_equal(parse(&o, err, "clone", URL, "--explain", "0", NULL), -1);
	assert_string_equal(err, "--explain: '0' is not an integer 1..100");
	/* parsed twice in one process: getopt's state starts afresh */
	assert_int_equal(parse(&o, err, "scale", URL, "--qd", "2", NULL), 0);
	assert_int_equal(parse(&o, err, "scale", URL, "--qd", "3", NULL), 0);
	assert_int_equal(o.qd, 3);
}

/* client/cli.c, for help_names_every_option (the test's first argument) */
static const char *g_cli_source;

static void help(void **state)
{
	struct bench_opts o;
	char err[64];
	char *argv[] = { (char *)"lunlab-bench", (char *)"--help", NULL };
	char *argv_info[] = { (char *)"lunlab-bench", (char *)"info", (char *)"--help", NULL };

	(void)state;
	assert_int_equal(cli_parse(2, argv, &o, err, sizeof(err)), 1);
	assert_int_equal(cli_parse(3, argv_info, &o, err, sizeof(err)), 1);
	const char *u = cli_usage();
	assert_true(strncmp(u, "usage: lunlab-bench COMMAND URL", 31) == 0);
	/* whole: it runs past the 1 KiB buffer that once cut it, to its last line */
	assert_true(strlen(u) > 1024);
	assert_non_null(strstr(u, "docs:   docs/bench.md, docs/calibrate.md, docs/metrics.md, docs/scenarios.md\n"));
	/* scenario has its own command line (client/scn_main.c), so the scan below cannot see
	 * it: named here */
	assert_non_null(strstr(u, "\n  scenario FILE.yaml [--junit OUT.xml] [--json OUT.json] [--seed N] [--check]"));
	assert_int_equal(u[strlen(u) - 1], '\n');
}

/* Every option of the parser's table (each `{ "name", ` line of long_opts in client/cli.c)
 * is named in the usage as --name, a whole word: a new option cannot be left out of --help. */
static void help_names_every_option(void **state)
{
	(void)state;
	if (!g_cli_source) {
		print_message("client/cli.c not given\n");
		fail();
	}
	FILE *f = fopen(g_cli_source, "r");
	assert_non_null(f);
	static char src[256 * 1024];
	size_t n = fread(src, 1, sizeof(src) - 1, f);
	fclose(f);
	src[n] = 0;

	const char *u = cli_usage();
	unsigned checked = 0;
	const char *table = strstr(src, "static const struct option long_opts[] = {");
	assert_non_null(table);
	const char *table_end = strstr(table, "{ NULL, 0, NULL, 0 }");
	assert_non_null(table_end);
	const char *key = "\t{ \"";
	for (const char *p = strstr(table, key); p && p < table_end; p = strstr(p, key)) {
		p += strlen(key);
		const char *q = strchr(p, '"');
		assert_non_null(q);
		char opt[64];
		assert_true((size_t)(q - p) + 2 < sizeof(opt));
		opt[0] = opt[1] = '-';
		memcpy(opt + 2, p, (size_t)(q - p));
		opt[q - p + 2] = 0;
		/* found as a word: not followed by a letter or '-' (--api is not --api-user) */
		bool found = false;
		for (const char *h = strstr(u, opt); h && !found; h = strstr(h + 1, opt)) {
			char next = h[strlen(opt)];
			char prev = h == u ? ' ' : h[-1];
			found = !(next == '-' || (next >= 'a' && next <= 'z')) && prev != '-';
		}
		if (!found)
			print_message("option %s is parsed but not in --help\n", opt);
		assert_true(found);
		checked++;
	}
	/* the table has dozens: the scan found them (a changed idiom would find none) */
	assert_true(checked >= 50);
}

/* watch URL and --metrics-url (docs/metrics.md) */
static void watch_and_metrics_url(void **state)
{
	struct bench_opts o;
	char err[256];

	(void)state;
	assert_int_equal(parse(&o, err, "watch", "https://127.0.0.1:8443", "--interval", "0.5", "--count", "3",
			       "--metrics-insecure", NULL), 0);
	assert_int_equal(o.cmd, CMD_WATCH);
	assert_string_equal(o.url, "https://127.0.0.1:8443");
	assert_true(o.interval_s == 0.5);
	assert_int_equal(o.count, 3);
	assert_true(o.metrics_insecure);
	assert_int_equal(parse(&o, err, "watch", "https://h:1", "--json", NULL), 0);
	assert_int_equal(o.format, OUT_JSON);
	assert_int_equal(o.count, 0);
	assert_true(o.timeout_s == 30);
	/* watch waits for a target that went away as a session does */
	assert_int_equal(parse(&o, err, "watch", "https://h:1", "--timeout", "4", NULL), 0);
	assert_true(o.timeout_s == 4);
	assert_true(o.interval_s == 1);
	assert_int_equal(parse(&o, err, "watch", URL, NULL), -1);
	assert_string_equal(err, "watch: URL '" URL "' does not start with https:// or http://");
	assert_int_equal(parse(&o, err, "watch", NULL), -1);
	assert_string_equal(err, "missing the target's API URL (https://[user:password@]host:port)");
	assert_int_equal(parse(&o, err, "watch", "https://h:1", "--csv", NULL), -1);
	assert_string_equal(err, "watch takes --interval, --count, --json, --metrics-insecure and --timeout");
	assert_int_equal(parse(&o, err, "watch", "https://h:1", "--interval", "0", NULL), -1);
	assert_string_equal(err, "--interval: '0' is not a number of seconds between 0.1 and 3600");
	assert_int_equal(parse(&o, err, "watch", "https://h:1", "--count", "0", NULL), -1);
	assert_string_equal(err, "--count: '0' is not an integer 1..1000000");

	assert_int_equal(parse(&o, err, "clone", URL, "--metrics-url", "https://u:p@127.0.0.1:8443", NULL), 0);
	assert_string_equal(o.metrics_url, "https://u:p@127.0.0.1:8443");
	assert_false(o.metrics_insecure);
	assert_int_equal(parse(&o, err, "scale", URL, "--metrics-url", "ftp://x", NULL), -1);
	assert_string_equal(err, "--metrics-url: 'ftp://x' does not start with https:// or http://");
	assert_int_equal(parse(&o, err, "clone", URL, "--count", "2", NULL), -1);
	assert_string_equal(err, "--count applies to watch and scale only");
	/* scale --count: N commands per VM instead of a window; --keep-going: scale only */
	assert_int_equal(parse(&o, err, "scale", URL, "--count", "25", "--keep-going", NULL), 0);
	assert_int_equal(o.count, 25);
	assert_true(o.keep_going);
	assert_int_equal(parse(&o, err, "clone", URL, "--keep-going", NULL), -1);
	assert_string_equal(err, "--keep-going applies to scale only");
}

int main(int argc, char **argv)
{
	g_cli_source = argc > 1 ? argv[1] : NULL;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lists),
		cmocka_unit_test(defaults_scale),
		cmocka_unit_test(clone_opts),
		cmocka_unit_test(errors_name_the_field),
		cmocka_unit_test(calibrate_opts),
		cmocka_unit_test(remaining_options),
		cmocka_unit_test(words_and_refusals),
		cmocka_unit_test(help),
		cmocka_unit_test(help_names_every_option),
		cmocka_unit_test(watch_and_metrics_url),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
