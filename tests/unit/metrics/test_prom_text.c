/* test_prom_text.c — target/metrics/prom_text.c against the rules of
 * Prometheus' text exposition format 0.0.4: exact lines for counters,
 * gauges and histograms (cumulative buckets, +Inf = _count), escaping of
 * label values and HELP, float spelling, and every rule violation refused
 * with nothing more written. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "target/metrics/prom_text.h"

struct cap {
	char *buf;
	size_t len;
	FILE *f;
	struct prom_out o;
};

static void cap_open(struct cap *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	assert_non_null(c->f);
	prom_init(&c->o, c->f);
}

static const char *cap_text(struct cap *c)
{
	fflush(c->f);
	return c->buf;
}

static void cap_close(struct cap *c)
{
	fclose(c->f);
	free(c->buf);
}

static void test_counter_and_gauge(void **state)
{
	struct cap c;
	struct prom_label l[] = { { "array", "a1" }, { "kind", "xcopy" } };

	(void)state;
	cap_open(&c);
	prom_family(&c.o, "lunlab_commands_total", PROM_COUNTER, "Commands answered.");
	prom_sample_u64(&c.o, l, 2, 18446744073709551615ull);
	prom_sample_u64(&c.o, l, 1, 0);
	prom_family(&c.o, "lunlab_array_dedup_ratio", PROM_GAUGE, "Logical / unique.");
	prom_sample(&c.o, NULL, 0, 1.25);
	prom_sample(&c.o, l, 1, 0.1);
	prom_sample(&c.o, l, 1, 1e-7);
	prom_sample(&c.o, l, 1, 123456789012.0);
	assert_null(prom_error(&c.o));
	assert_string_equal(cap_text(&c),
		"# HELP lunlab_commands_total Commands answered.\n"
		"# TYPE lunlab_commands_total counter\n"
		"lunlab_commands_total{array=\"a1\",kind=\"xcopy\"} 18446744073709551615\n"
		"lunlab_commands_total{array=\"a1\"} 0\n"
		"# HELP lunlab_array_dedup_ratio Logical / unique.\n"
		"# TYPE lunlab_array_dedup_ratio gauge\n"
		"lunlab_array_dedup_ratio 1.25\n"
		"lunlab_array_dedup_ratio{array=\"a1\"} 0.1\n"
		"lunlab_array_dedup_ratio{array=\"a1\"} 1e-07\n"
		"lunlab_array_dedup_ratio{array=\"a1\"} 123456789012\n");
	cap_close(&c);
}

static void test_escaping(void **state)
{
	struct cap c;
	struct prom_label l[] = { { "volume", "a\\b\"c\nd" } };

	(void)state;
	cap_open(&c);
	prom_family(&c.o, "x_bytes", PROM_GAUGE, "back\\slash and\nnewline \"quoted\"");
	prom_sample_u64(&c.o, l, 1, 7);
	assert_null(prom_error(&c.o));
	assert_string_equal(cap_text(&c),
		"# HELP x_bytes back\\\\slash and\\nnewline \"quoted\"\n"
		"# TYPE x_bytes gauge\n"
		"x_bytes{volume=\"a\\\\b\\\"c\\nd\"} 7\n");
	cap_close(&c);
}

static void test_histogram(void **state)
{
	struct cap c;
	struct prom_label l[] = { { "lun", "0" } };
	const double bounds[] = { 5e-06, 0.001, 2.5 };
	const uint64_t counts[] = { 3, 0, 2, 1 };

	(void)state;
	cap_open(&c);
	prom_family(&c.o, "lunlab_modeled_latency_seconds", PROM_HISTOGRAM, "Modeled latency.");
	prom_histogram(&c.o, l, 1, bounds, counts, 3, 5.5);
	prom_histogram(&c.o, NULL, 0, bounds, counts, 3, 0);
	assert_null(prom_error(&c.o));
	assert_string_equal(cap_text(&c),
		"# HELP lunlab_modeled_latency_seconds Modeled latency.\n"
		"# TYPE lunlab_modeled_latency_seconds histogram\n"
		"lunlab_modeled_latency_seconds_bucket{lun=\"0\",le=\"5e-06\"} 3\n"
		"lunlab_modeled_latency_seconds_bucket{lun=\"0\",le=\"0.001\"} 3\n"
		"lunlab_modeled_latency_seconds_bucket{lun=\"0\",le=\"2.5\"} 5\n"
		"lunlab_modeled_latency_seconds_bucket{lun=\"0\",le=\"+Inf\"} 6\n"
		"lunlab_modeled_latency_seconds_sum{lun=\"0\"} 5.5\n"
		"lunlab_modeled_latency_seconds_count{lun=\"0\"} 6\n"
		"lunlab_modeled_latency_seconds_bucket{le=\"5e-06\"} 3\n"
		"lunlab_modeled_latency_seconds_bucket{le=\"0.001\"} 3\n"
		"lunlab_modeled_latency_seconds_bucket{le=\"2.5\"} 5\n"
		"lunlab_modeled_latency_seconds_bucket{le=\"+Inf\"} 6\n"
		"lunlab_modeled_latency_seconds_sum 0\n"
		"lunlab_modeled_latency_seconds_count 6\n");
	cap_close(&c);
}

static void test_floats(void **state)
{
	char b[40];

	(void)state;
	prom_format_double(0.0 / 0.0, b, sizeof(b));
	assert_string_equal(b, "NaN");
	prom_format_double(1.0 / 0.0, b, sizeof(b));
	assert_string_equal(b, "+Inf");
	prom_format_double(-1.0 / 0.0, b, sizeof(b));
	assert_string_equal(b, "-Inf");
	prom_format_double(0.1 + 0.2, b, sizeof(b)); /* needs 17 digits to read back */
	assert_string_equal(b, "0.30000000000000004");
	assert_true(strtod(b, NULL) == 0.1 + 0.2);
	prom_format_double(1.7, b, sizeof(b));
	assert_string_equal(b, "1.7");
}

/* one violation: refused with a reason, and nothing written after it */
static void refused(void (*act)(struct prom_out *), const char *reason_part)
{
	struct cap c;
	size_t before;

	cap_open(&c);
	prom_family(&c.o, "ok_gauge", PROM_GAUGE, "fine");
	fflush(c.f);
	before = c.len;
	act(&c.o);
	assert_non_null(prom_error(&c.o));
	if (!strstr(prom_error(&c.o), reason_part))
		fail_msg("error '%s' does not mention '%s'", prom_error(&c.o), reason_part);
	prom_family(&c.o, "after_gauge", PROM_GAUGE, "never written");
	prom_sample(&c.o, NULL, 0, 1);
	fflush(c.f);
	assert_true(c.len <= before + 200); /* the offending line at most, nothing after it */
	assert_null(strstr(cap_text(&c), "after_gauge"));
	cap_close(&c);
}

static void bad_name(struct prom_out *o) { prom_family(o, "2bad", PROM_GAUGE, ""); }
static void bad_char(struct prom_out *o) { prom_family(o, "bad-name", PROM_GAUGE, ""); }
static void counter_no_total(struct prom_out *o) { prom_family(o, "lunlab_commands", PROM_COUNTER, ""); }
static void gauge_total(struct prom_out *o) { prom_family(o, "lunlab_x_total", PROM_GAUGE, ""); }
static void twice(struct prom_out *o) { prom_family(o, "ok_gauge", PROM_GAUGE, ""); }
static void hist_suffix(struct prom_out *o) { prom_family(o, "x_count", PROM_HISTOGRAM, ""); }
static void bad_label(struct prom_out *o)
{
	struct prom_label l[] = { { "a:b", "v" } };
	prom_sample(o, l, 1, 1);
}
static void reserved_label(struct prom_out *o)
{
	struct prom_label l[] = { { "__name", "v" } };
	prom_sample(o, l, 1, 1);
}
static void le_label(struct prom_out *o)
{
	struct prom_label l[] = { { "le", "1" } };
	prom_sample(o, l, 1, 1);
}
static void dup_label(struct prom_out *o)
{
	struct prom_label l[] = { { "a", "1" }, { "a", "2" } };
	prom_sample(o, l, 2, 1);
}
static void null_value(struct prom_out *o)
{
	struct prom_label l[] = { { "a", NULL } };
	prom_sample(o, l, 1, 1);
}
static void negative_counter(struct prom_out *o)
{
	prom_family(o, "c_total", PROM_COUNTER, "");
	prom_sample(o, NULL, 0, -1);
}
static void hist_on_gauge(struct prom_out *o)
{
	const double b[] = { 1 };
	const uint64_t n[] = { 1, 1 };
	prom_histogram(o, NULL, 0, b, n, 1, 0);
}
static void sample_on_hist(struct prom_out *o)
{
	prom_family(o, "h_seconds", PROM_HISTOGRAM, "");
	prom_sample(o, NULL, 0, 1);
}
static void bounds_descend(struct prom_out *o)
{
	const double b[] = { 2, 1 };
	const uint64_t n[] = { 1, 1, 1 };
	prom_family(o, "h_seconds", PROM_HISTOGRAM, "");
	prom_histogram(o, NULL, 0, b, n, 2, 0);
}

static void test_violations(void **state)
{
	(void)state;
	refused(bad_name, "not a valid");
	refused(bad_char, "not a valid");
	refused(counter_no_total, "_total");
	refused(gauge_total, "not a counter");
	refused(twice, "twice");
	refused(hist_suffix, "suffix");
	refused(bad_label, "label name");
	refused(reserved_label, "label name");
	refused(le_label, "reserved");
	refused(dup_label, "twice");
	refused(null_value, "no value");
	refused(negative_counter, "negative");
	refused(hist_on_gauge, "not a histogram");
	refused(sample_on_hist, "prom_histogram");
	refused(bounds_descend, "ascend");

	struct cap c;
	cap_open(&c);
	prom_sample(&c.o, NULL, 0, 1);
	assert_non_null(strstr(prom_error(&c.o), "before any family"));
	cap_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counter_and_gauge),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_histogram),
		cmocka_unit_test(test_floats),
		cmocka_unit_test(test_violations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
