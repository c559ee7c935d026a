/* test_calib_profile.c - the profile calibrate writes (client/calib_profile.c): it loads with
 * the strict parser lunlab-target uses, carries the fitted values in the profile's units, and
 * every key has its comment. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "client/calib_profile.h"
#include "client/calib_result.h"
#include "models/cost_params.h"
#include "models/profile_parse.h"

static void doc_of_fit(struct calib_profile_doc *d)
{
	memset(d, 0, sizeof(*d));
	struct calib_fit f = { 0 };
	f.v[P_CPU_CMD] = 3228.4;
	f.v[P_CPU_ENTRY] = 516.4;
	f.v[P_CPU_MIB] = 20833.3;
	f.v[P_J_CMD] = 1094;
	f.v[P_J_ENTRY] = 958;
	f.v[P_FE] = 1000.0 / 820;       /* 820 MB/s */
	f.v[P_BE] = 0;                  /* never the limit */
	f.v[P_FIXED] = 13180.6;
	f.v[P_XC_MIB] = 117930;
	calib_profile_set_cost(d, &f);
	snprintf(d->name, sizeof(d->name), "lab-array");
	snprintf(d->description, sizeof(d->description), "measured \"in the lab\" by calibrate");
	snprintf(d->header, sizeof(d->header), "lab-array.yaml: written by lunlab-bench calibrate\nsecond line");
	d->value[K_DEDUP_BLOCK] = 16384;
	d->value[K_ZLIB_LEVEL] = 1;
	d->value[K_ZLIB_WINDOW_BITS] = 14;
	d->value[K_ALLOC_UNIT] = 1024;
	static struct calib_result r; /* large: not on the stack */
	memset(&r, 0, sizeof(r));
	r.capacity = 8ull << 30;
	r.usable_bytes = 5ull << 40;
	r.usable_lo = r.usable_bytes - 1000;
	r.usable_hi = r.usable_bytes + 1000;
	r.usable_measured = r.soft_measured = true;
	r.soft_threshold_pct = 80;
	calib_profile_set_capacity(d, &r);
	for (int k = 0; k < K_NKEYS; k++)
		snprintf(d->comment[k], sizeof(d->comment[k]),
			 "%s: a long explanation of where the value came from, long enough to be wrapped over "
			 "more than one comment line of the file so that wrapping is exercised too",
			 calib_key_name((enum calib_key)k));
}

static void renders_and_loads(void **state)
{
	(void)state;
	struct calib_profile_doc d;
	doc_of_fit(&d);
	char *err = NULL, why[512];
	char *text = calib_profile_render_checked(&d, why, sizeof(why));
	if (!text)
		fail_msg("%s", why);
	struct lunlab_profile *p = profile_parse(text, strlen(text), "test", &err);
	assert_non_null(p);
	const struct cost_params *c = p->cost_params;
	assert_string_equal(p->name, "lab-array");
	assert_string_equal(p->description, "measured \"in the lab\" by calibrate");
	assert_true(p->modeled);
	assert_int_equal(p->dedup_block, 16384);
	assert_int_equal(p->alloc_unit, 1024);
	assert_int_equal(c->cores, 1);
	assert_int_equal(c->cpu_cmd_ns, 3228);
	assert_int_equal(c->cpu_entry_ns, 516);
	assert_int_equal(c->cpu_mib_ns, 20833);
	assert_int_equal(c->journal_cmd_ns, 1094);
	assert_int_equal(c->frontend_mb_s, 820);
	assert_int_equal(c->backend_mb_s, 0);
	assert_int_equal(c->fixed_latency_ns, 13181);
	assert_int_equal(c->host_turnaround_ns, 0);
	assert_int_equal(c->host_turnaround_ns_per_mib, 117930);
	assert_int_equal(c->xcopy_bucket, XCOPY_BUCKET_COVERED);
	assert_int_equal(p->capacity_bytes, 5ull << 40);
	assert_int_equal(p->soft_threshold_percent, 80);
	/* every key line follows a comment line, and no line runs past 100 columns */
	char *save = NULL, *prev = NULL;
	unsigned keys = 0;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		assert_true(strlen(line) <= 100);
		if (!strncmp(line, "  ", 2) && line[2] != '#') {
			assert_non_null(prev);
			assert_non_null(strstr(prev, "#"));
			keys++;
		}
		prev = line;
	}
	assert_int_equal(keys, K_NKEYS);
	free(text);
	profile_free(p);
}

/* bandwidths clamp to the format's range; a value the parser refuses is reported, not written */
static void limits_and_refusal(void **state)
{
	(void)state;
	struct calib_profile_doc d;
	doc_of_fit(&d);
	struct calib_fit f = { 0 };
	f.v[P_FE] = 1e-9;   /* faster than 10^6 MB/s */
	f.v[P_BE] = 5000;   /* 0.2 MB/s: at least 1 */
	calib_profile_set_cost(&d, &f);
	assert_int_equal(d.value[K_FRONTEND], 1000000);
	assert_int_equal(d.value[K_BACKEND], 1);
	char err[512];
	char *text = calib_profile_render_checked(&d, err, sizeof(err));
	assert_non_null(text);
	free(text);
	d.value[K_ALLOC_UNIT] = 0; /* out of range 1..: the parser's own message comes back */
	text = calib_profile_render_checked(&d, err, sizeof(err));
	assert_null(text);
	assert_non_null(strstr(err, "alloc_unit"));
}

static void names_from_paths(void **state)
{
	(void)state;
	char n[32];
	calib_profile_name_from_path("/tmp/lab/xtremio-x2.yaml", n, sizeof(n));
	assert_string_equal(n, "xtremio-x2");
	calib_profile_name_from_path("my array (rack 3).yml", n, sizeof(n));
	assert_string_equal(n, "my-array--rack-3-.yml");
	calib_profile_name_from_path("dir/.yaml", n, sizeof(n));
	assert_string_equal(n, "calibrated");
	calib_profile_name_from_path("a-very-long-name-of-more-than-thirty-one-characters.yaml", n, sizeof(n));
	assert_int_equal(strlen(n), 31);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(renders_and_loads),
		cmocka_unit_test(limits_and_refusal),
		cmocka_unit_test(names_from_paths),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
