/* test_profile.c — the profile parser: every built-in loads with its documented values,
 * a file path loads, and every kind of mistake is refused with a one-line error that
 * names the file, the line and the field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "models/cost_params.h"
#include "models/profile.h"
#include "models/profile_parse.h"

/* A complete, valid profile; the error tests edit one line of it. */
static const char base[] =
	"name: t\n"                      /* line 1 */
	"description: \"test\"\n"        /* 2 */
	"modeled: true\n"                /* 3 */
	"data_reduction:\n"              /* 4 */
	"  dedup_block: 16384\n"         /* 5 */
	"  zlib_level: 1\n"              /* 6 */
	"  zlib_window_bits: 14\n"       /* 7 */
	"  alloc_unit: 1024\n"           /* 8 */
	"cost:\n"                        /* 9 */
	"  cores: 4\n"                   /* 10 */
	"  cpu_cmd_ns: 1000\n"           /* 11 */
	"  cpu_entry_ns: 100\n"          /* 12 */
	"  cpu_segment_ns: 50\n"         /* 13 */
	"  cpu_mib_ns: 1048576\n"        /* 14 */
	"  journal_cmd_ns: 300\n"        /* 15 */
	"  journal_entry_ns: 30\n"       /* 16 */
	"  frontend_mb_s: 1000\n"        /* 17 */
	"  backend_mb_s: 500\n"          /* 18 */
	"  fixed_latency_ns: 700\n"      /* 19 */
	"  host_turnaround_ns: 5000\n"   /* 20 */
	"  host_turnaround_ns_per_mib: 1048576\n" /* 21 */
	"  xcopy_bucket: covered\n"      /* 22 */
	"capacity:\n"                    /* 23 */
	"  usable_bytes: 1099511627776\n" /* 24 */
	"  soft_threshold_percent: 80\n"; /* 25 */

/* base with line `line` (1-based) replaced by `repl` ("" deletes it). */
static char *edit(unsigned line, const char *repl)
{
	static char buf[4096];
	const char *s = base;
	size_t n = 0;
	for (unsigned l = 1; *s; l++) {
		const char *eol = strchr(s, '\n');
		size_t len = (size_t)(eol - s) + 1;
		if (l == line) {
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s", repl);
		} else {
			memcpy(buf + n, s, len);
			n += len;
		}
		s += len;
	}
	buf[n] = '\0';
	return buf;
}

/* Parse `text`; it must fail with an error containing every one of the given parts. */
static void expect_error(const char *text, const char *part1, const char *part2)
{
	char *err = NULL;
	struct lunlab_profile *p = profile_parse(text, strlen(text), "t.yaml", &err);
	if (p)
		fail_msg("accepted: %s", text);
	assert_non_null(err);
	if (!strstr(err, part1) || (part2 && !strstr(err, part2)))
		fail_msg("error '%s' lacks '%s' / '%s'", err, part1, part2 ? part2 : "");
	assert_null(strchr(err, '\n')); /* one line */
	free(err);
}

static void builtins_load(void **state)
{
	(void)state;
	const char *const *names = profile_builtin_names();
	unsigned n = 0;
	for (; names[n]; n++) {
		char *err = NULL;
		const struct lunlab_profile *p = profile_get(names[n], &err);
		if (!p)
			fail_msg("%s: %s", names[n], err);
		assert_string_equal(p->name, names[n]);
		assert_ptr_equal(profile_get(names[n], NULL), p); /* loaded once, kept */
	}
	assert_int_equal(n, 5);

	const struct lunlab_profile *x1 = profile_get("x1", NULL), *x2 = profile_get("x2", NULL);
	assert_int_equal(x1->dedup_block, 8192);
	assert_int_equal(x2->dedup_block, 16384);
	assert_true(x1->modeled && x2->modeled);
	assert_non_null(x1->cost_params);
	assert_int_equal(((const struct cost_params *)x2->cost_params)->xcopy_bucket, XCOPY_BUCKET_GT1MB);
	const struct lunlab_profile *fa = profile_get("fa420", NULL);
	assert_int_equal(((const struct cost_params *)fa->cost_params)->frontend_mb_s, 820);
	const struct lunlab_profile *u = profile_get("unlimited", NULL);
	assert_false(u->modeled);
	assert_null(u->cost_params);
	/* capacities with their sources in the files (docs/models.md "Capacity") */
	assert_int_equal(x1->capacity_bytes, 7500000000000ull);
	assert_int_equal(x2->capacity_bytes, 5400000000000ull);
	assert_int_equal(fa->capacity_bytes, 25000000000000ull);
	assert_int_equal(u->capacity_bytes, 1ull << 50);
	assert_int_equal(x1->soft_threshold_percent, 80);
	assert_int_equal(x2->soft_threshold_percent, 80);
	assert_int_equal(fa->soft_threshold_percent, 80);
	assert_int_equal(u->soft_threshold_percent, 0);
	/* ALUA: only the ActiveCluster profile reports it (implicit); XtremIO keeps TPGS off */
	const struct lunlab_profile *ac = profile_get("fa420-ac", NULL);
	assert_int_equal(ac->tpgs, 1);
	assert_int_equal(((const struct cost_params *)ac->cost_params)->frontend_mb_s, 820);
	assert_true(x1->tpgs == 0 && x2->tpgs == 0 && fa->tpgs == 0 && u->tpgs == 0);
	/* SSDs of the brick behind usable_bytes (XMS num-of-ssds): said by the XtremIO profiles */
	assert_int_equal(x1->ssds, 25);
	assert_int_equal(x2->ssds, 18);
	assert_int_equal(fa->ssds, 0);
	assert_int_equal(u->ssds, 0);
}

/* capacity.ssds: optional (0), at most 4096 */
static void ssds_key(void **state)
{
	char *err = NULL;
	struct lunlab_profile *p;

	(void)state;
	p = profile_parse(base, strlen(base), "t.yaml", &err);
	assert_non_null(p);
	assert_int_equal(p->ssds, 0);
	profile_free(p);
	const char *t = edit(25, "  soft_threshold_percent: 80\n  ssds: 72\n");
	p = profile_parse(t, strlen(t), "t.yaml", &err);
	assert_non_null(p);
	assert_int_equal(p->ssds, 72);
	profile_free(p);
	expect_error(edit(25, "  soft_threshold_percent: 80\n  ssds: 4097\n"), "t.yaml:26: capacity.ssds",
		     "out of range 0..4096");
}

/* odx and its limits: optional (off, with the defaults of profile.h), each
 * refused with one line naming the key; the XtremIO profiles offer ODX */
static void odx_keys(void **state)
{
	char *err = NULL;
	struct lunlab_profile *p;

	(void)state;
	p = profile_parse(base, strlen(base), "t.yaml", &err);
	assert_non_null(p);
	assert_false(p->odx);
	assert_int_equal(p->odx_max_ranges, PROFILE_ODX_DEF_RANGES);
	assert_int_equal(p->odx_max_token_bytes, PROFILE_ODX_DEF_TOKEN_BYTES);
	assert_int_equal(p->odx_default_timeout_s, PROFILE_ODX_DEF_TIMEOUT_S);
	assert_int_equal(p->odx_max_timeout_s, PROFILE_ODX_DEF_MAX_TIMEOUT_S);
	profile_free(p);
	const char *t = edit(3, "modeled: true\nodx: true\nodx_max_ranges: 8\nodx_max_token_bytes: 1048576\n"
			     "odx_default_timeout_s: 5\nodx_max_timeout_s: 5\n");
	p = profile_parse(t, strlen(t), "t.yaml", &err);
	assert_non_null(p);
	assert_true(p->odx);
	assert_int_equal(p->odx_max_ranges, 8);
	assert_int_equal(p->odx_max_token_bytes, 1048576);
	assert_int_equal(p->odx_default_timeout_s, 5);
	assert_int_equal(p->odx_max_timeout_s, 5);
	profile_free(p);
	expect_error(edit(3, "modeled: true\nodx: yes\n"), "t.yaml:4: odx", "is not a boolean");
	expect_error(edit(3, "modeled: true\nodx_max_ranges: 25\n"), "t.yaml:4: odx_max_ranges", "out of range 1..24");
	expect_error(edit(3, "modeled: true\nodx_max_ranges: 0\n"), "t.yaml:4: odx_max_ranges", "out of range");
	expect_error(edit(3, "modeled: true\nodx_max_token_bytes: 4096\n"), "t.yaml:4: odx_max_token_bytes",
		     "out of range");
	expect_error(edit(3, "modeled: true\nodx_max_timeout_s: 86401\n"), "t.yaml:4: odx_max_timeout_s",
		     "out of range");
	expect_error(edit(3, "modeled: true\nodx_default_timeout_s: 0\n"), "t.yaml:4: odx_default_timeout_s",
		     "out of range");
	expect_error(edit(3, "modeled: true\nodx_default_timeout_s: 700\n"), "t.yaml:4: odx_default_timeout_s",
		     "700 is above odx_max_timeout_s 600");
	/* the built-in XtremIO profiles offer it, the others do not */
	const struct lunlab_profile *x2 = profile_get("x2", &err), *fa = profile_get("fa420", &err);
	assert_non_null(x2);
	assert_non_null(fa);
	assert_true(x2->odx);
	assert_int_equal(x2->odx_max_ranges, 16);
	assert_int_equal(x2->odx_max_token_bytes, 16ull << 30);
	assert_false(fa->odx);
}

/* tpgs: optional, off by default, one of four words */
static void tpgs_key(void **state)
{
	char text[sizeof(base) + 32], *err = NULL;
	struct lunlab_profile *p;
	static const char *const words[] = { "off", "implicit", "explicit", "both" };

	(void)state;
	p = profile_parse(base, strlen(base), "t.yaml", &err);
	assert_non_null(p);
	assert_int_equal(p->tpgs, 0);
	profile_free(p);
	for (int i = 0; i < 4; i++) {
		snprintf(text, sizeof(text), "tpgs: %s\n%s", words[i], base);
		p = profile_parse(text, strlen(text), "t.yaml", &err);
		assert_non_null(p);
		assert_int_equal(p->tpgs, i);
		profile_free(p);
	}
	expect_error(edit(3, "modeled: true\ntpgs: yes\n"), "t.yaml:4: tpgs",
		     "'yes' is not one of off, implicit, explicit, both");
	expect_error(edit(3, "modeled: true\ntpgs: 'both'\n"), "t.yaml:4: tpgs", "is not one of");
}

static void base_parses(void **state)
{
	(void)state;
	char *err = NULL;
	struct lunlab_profile *p = profile_parse(base, strlen(base), "t.yaml", &err);
	assert_non_null(p);
	assert_null(err);
	const struct cost_params *c = p->cost_params;
	assert_string_equal(p->name, "t");
	assert_string_equal(p->description, "test");
	assert_int_equal(p->zlib_level, 1);
	assert_int_equal(p->zlib_window_bits, 14);
	assert_int_equal(p->alloc_unit, 1024);
	assert_int_equal(c->cores, 4);
	assert_int_equal(c->cpu_mib_ns, 1048576);
	assert_int_equal(c->journal_entry_ns, 30);
	assert_int_equal(c->host_turnaround_ns_per_mib, 1048576);
	assert_int_equal(c->xcopy_bucket, XCOPY_BUCKET_COVERED);
	assert_int_equal(p->capacity_bytes, 1099511627776ull);
	assert_int_equal(p->soft_threshold_percent, 80);
	profile_free(p);
}

static void file_path_loads(void **state)
{
	(void)state;
	char path[] = "/tmp/lunlab-profile-XXXXXX.yaml";
	int fd = mkstemps(path, 5);
	assert_true(fd >= 0);
	const char *text = edit(1, "name: from-file\n");
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	char *err = NULL;
	const struct lunlab_profile *p = profile_get(path, &err);
	unlink(path);
	assert_non_null(p);
	assert_string_equal(p->name, "from-file");

	p = profile_get("/nonexistent/lunlab/x9.yaml", &err);
	assert_null(p);
	assert_non_null(strstr(err, "/nonexistent/lunlab/x9.yaml"));
	free(err);
	p = profile_get("x9", &err);
	assert_null(p);
	assert_non_null(strstr(err, "x9"));
	free(err);
}

static void unknown_key(void **state)
{
	(void)state;
	expect_error(edit(13, "  cpu_segmnt_ns: 50\n"), "t.yaml:13: cost.cpu_segmnt_ns", "unknown key");
	expect_error(edit(2, "colour: blue\n"), "t.yaml:2: colour", "unknown key");
}

static void wrong_type(void **state)
{
	(void)state;
	expect_error(edit(10, "  cores: four\n"), "t.yaml:10: cost.cores", "not an unsigned integer");
	expect_error(edit(10, "  cores: \"4\"\n"), "t.yaml:10: cost.cores", "not an unsigned integer");
	expect_error(edit(10, "  cores: -4\n"), "t.yaml:10: cost.cores", "not an unsigned integer");
	expect_error(edit(11, "  cpu_cmd_ns: 1.5\n"), "t.yaml:11: cost.cpu_cmd_ns", "not an unsigned integer");
	expect_error(edit(3, "modeled: yes\n"), "t.yaml:3: modeled", "not a boolean");
	expect_error(edit(22, "  xcopy_bucket: 1mb\n"), "t.yaml:22: cost.xcopy_bucket", "covered, gt1mb");
	expect_error(edit(10, "  cores: [4]\n"), "t.yaml:10: cost.cores", "expected a scalar");
	expect_error("name: t\ndata_reduction: 5\n", "t.yaml:2: data_reduction", "expected a mapping");
	expect_error(edit(1, "name: \"a b\"\n"), "t.yaml:1: name", "not a name");
}

static void out_of_range(void **state)
{
	(void)state;
	expect_error(edit(6, "  zlib_level: 10\n"), "t.yaml:6: data_reduction.zlib_level", "out of range 0..9");
	expect_error(edit(7, "  zlib_window_bits: 8\n"), "t.yaml:7: data_reduction.zlib_window_bits", "out of range");
	expect_error(edit(10, "  cores: 0\n"), "t.yaml:10: cost.cores", "out of range");
	expect_error(edit(17, "  frontend_mb_s: 99999999999999999999999\n"), "t.yaml:17: cost.frontend_mb_s",
		     "not an unsigned integer");
	expect_error(edit(19, "  fixed_latency_ns: 10000000001\n"), "t.yaml:19: cost.fixed_latency_ns",
		     "out of range");
	expect_error(edit(5, "  dedup_block: 12288\n"), "t.yaml:5: data_reduction.dedup_block", "power of two");
	/* larger than a lunlab array models (calibrate once wrote one LIO fitted best) */
	expect_error(edit(5, "  dedup_block: 65536\n"), "t.yaml:5: data_reduction.dedup_block", "65536 out of range 512..32768");
	expect_error(edit(8, "  alloc_unit: 32768\n"), "t.yaml:8: data_reduction.alloc_unit", "larger than dedup_block");
	expect_error(edit(1, "name: abcdefghijabcdefghijabcdefghijab\n"), "t.yaml:1: name", "length 32 out of range 1..31");
	expect_error(edit(24, "  usable_bytes: 1048575\n"), "t.yaml:24: capacity.usable_bytes", "out of range");
	expect_error(edit(25, "  soft_threshold_percent: 101\n"), "t.yaml:25: capacity.soft_threshold_percent",
		     "out of range 0..100");
}

static void missing_key(void **state)
{
	(void)state;
	expect_error(edit(16, ""), "t.yaml:9: cost.journal_entry_ns", "missing");
	expect_error(edit(6, ""), "t.yaml:4: data_reduction.zlib_level", "missing");
	expect_error(edit(3, ""), "modeled", "missing");
	expect_error(edit(1, ""), "t.yaml:1: name", "missing");
	expect_error(edit(24, ""), "t.yaml:23: capacity.usable_bytes", "missing");
	char text[4096];
	snprintf(text, sizeof(text), "%s", base);
	*strstr(text, "capacity:\n") = '\0';
	expect_error(text, "t.yaml:1: capacity", "missing");
}

/* Found by tests/fuzz (fuzz-profile-parse): a value or key with a newline in
 * it (a quoted or multi-line scalar) was quoted verbatim, so the error was not
 * one line.  Control characters now show as '?'. */
static void multiline_scalar_error(void **state)
{
	(void)state;
	expect_error(edit(3, "modeled: \"false\\nx\"\n"), "t.yaml:3: modeled", "'false?x' is not a boolean");
	expect_error(edit(3, "modeled: false\n\n x\n"), "t.yaml:3: modeled", "'false?x' is not a boolean");
	expect_error("\"na\\nme\": t\n", "t.yaml:1: na?me", "unknown key");
}

static void structure_errors(void **state)
{
	(void)state;
	expect_error(edit(12, "  cpu_entry_ns: 100\n  cpu_entry_ns: 100\n"), "t.yaml:13: cost.cpu_entry_ns",
		     "duplicate key (first at line 12)");
	expect_error(edit(3, "modeled: false\n"), "t.yaml:9: cost", "not allowed when modeled is false");
	expect_error(edit(10, "  cores: [4\n"), "t.yaml:", "(syntax)");
	expect_error("- a\n- b\n", "t.yaml:1: (document)", "expected a mapping");
	expect_error("", "t.yaml:1: (document)", "empty");
	/* modeled false without a cost section is complete */
	char text[4096];
	snprintf(text, sizeof(text), "%s", edit(3, "modeled: false\n"));
	snprintf(strstr(text, "cost:\n"), sizeof(text) - (size_t)(strstr(text, "cost:\n") - text), "%s",
		 strstr(base, "capacity:\n"));
	char *err = NULL;
	struct lunlab_profile *p = profile_parse(text, strlen(text), "t.yaml", &err);
	assert_non_null(p);
	assert_null(p->cost_params);
	profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(builtins_load),
		cmocka_unit_test(tpgs_key),
		cmocka_unit_test(ssds_key),
		cmocka_unit_test(base_parses),
		cmocka_unit_test(file_path_loads),
		cmocka_unit_test(unknown_key),
		cmocka_unit_test(wrong_type),
		cmocka_unit_test(out_of_range),
		cmocka_unit_test(missing_key),
		cmocka_unit_test(odx_keys),
		cmocka_unit_test(structure_errors),
		cmocka_unit_test(multiline_scalar_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
