/* test_plot_svg.c - the SVG writer produces well-formed XML (every element closed, in order,
 * attributes quoted, text escaped) with the titles, axes and legend a slide needs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "client/plot_svg.h"

static char *render(int (*fn)(FILE *, const void *), const void *arg, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	*rc = fn(f, arg);
	fclose(f);
	return buf;
}

/* A small XML checker: tags balance as a stack, attribute values are quoted, no stray '&'
 * or '<' in text.  Enough to prove rsvg/browsers will parse what we emit. */
static void assert_well_formed(const char *s)
{
	char stack[64][32];
	int depth = 0, roots = 0;
	const char *p = s;
	if (!strncmp(p, "<?xml", 5)) {
		p = strstr(p, "?>");
		assert_non_null(p);
		p += 2;
	}
	while (*p) {
		if (*p == '&') {
			const char *semi = strchr(p, ';');
			assert_non_null(semi);
			assert_true(semi - p <= 6);
			p = semi + 1;
			continue;
		}
		if (*p != '<') {
			assert_true(*p != '>');
			p++;
			continue;
		}
		const char *gt = strchr(p, '>');
		assert_non_null(gt);
		bool closing = p[1] == '/';
		bool selfclose = gt[-1] == '/';
		const char *name = p + (closing ? 2 : 1);
		size_t nl = strcspn(name, " />\n");
		assert_true(nl > 0 && nl < 32);
		/* quotes balance inside the tag */
		int quotes = 0;
		for (const char *q = p; q < gt; q++)
			quotes += *q == '"';
		assert_int_equal(quotes % 2, 0);
		if (closing) {
			assert_true(depth > 0);
			depth--;
			assert_int_equal(strlen(stack[depth]), nl);
			assert_memory_equal(stack[depth], name, nl);
		} else if (!selfclose) {
			if (depth == 0)
				roots++;
			assert_true(depth < 64);
			memcpy(stack[depth], name, nl);
			stack[depth][nl] = 0;
			depth++;
		}
		p = gt + 1;
	}
	assert_int_equal(depth, 0);
	assert_int_equal(roots, 1);
}

static int scale_cb(FILE *f, const void *r) { return plot_scale_svg(f, r); }
static int clone_cb(FILE *f, const void *r) { return plot_clone_svg(f, r); }

static void scale_plot(void **state)
{
	static struct scale_result r = { .bs = 4u << 20, .qd = 1, .n = 4 };
	const unsigned vms[4] = { 1, 4, 20, 100 };
	const double mbps[4] = { 600, 820, 821, 819 }, fair[4] = { 1.0, 1.01, 1.015, 1.02 };
	for (int i = 0; i < 4; i++)
		r.runs[i] = (struct scale_run){ .vms = vms[i], .total_mbps = mbps[i], .fairness = fair[i] };
	int rc;
	char *svg = render(scale_cb, &r, &rc);
	assert_int_equal(rc, 0);
	assert_well_formed(svg);
	assert_non_null(strstr(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
	assert_non_null(strstr(svg, "LUN scalability"));
	assert_non_null(strstr(svg, ">total MB/s<"));                 /* legend */
	assert_non_null(strstr(svg, ">VMs (sessions)<"));             /* x label */
	assert_non_null(strstr(svg, ">100<"));                        /* x tick at the data point */
	assert_non_null(strstr(svg, ">800<"));                        /* nice y tick */
	/* two polylines (throughput, fairness) with 4 points each */
	unsigned polylines = 0;
	for (size_t i = 0; svg[i]; i++)
		polylines += !strncmp(svg + i, "<polyline", 9);
	assert_int_equal(polylines, 2);
	free(svg);
}

#define PLOT_JOB_TICK ">60<"

static void clone_plot(void **state)
{
	static struct clone_result r = { .template_size = 1u << 30, .clones = 100, .parallel = 2, .outstanding = 2, .n = 3 };
	const uint64_t chunks[3] = { 64u << 10, 256u << 10, 4u << 20 };
	const double lat[3] = { 0.006, 0.023, 0.5 };   /* seed 000's spread: decades on the axis */
	for (int i = 0; i < 3; i++)
		r.runs[i] = (struct clone_run){ .chunk = chunks[i], .have_modeled = true,
						.modeled_duration_s = 180 - 40 * i, .modeled_peak_latency_ms = lat[i],
						.modeled_peak_cpu_pct = 81 - 10 * i, .wall_s = 1 };
	int rc;
	char *svg = render(clone_cb, &r, &rc);
	assert_int_equal(rc, 0);
	assert_well_formed(svg);
	assert_non_null(strstr(svg, ">peak array CPU<"));
	assert_non_null(strstr(svg, ">64K<"));
	assert_non_null(strstr(svg, ">256K<"));
	assert_non_null(strstr(svg, ">4M<"));
	assert_non_null(strstr(svg, "modeled duration (s)"));
	assert_non_null(strstr(svg, ">0.001<"));                      /* latency panel in decades */
	assert_non_null(strstr(svg, ">0.01<"));
	assert_non_null(strstr(svg, ">1<"));
	assert_null(strstr(svg, ">0.0001<"));
	free(svg);
	/* without modeled figures: two panels with host figures, and it says so */
	for (int i = 0; i < 3; i++)
		r.runs[i].have_modeled = false;
	svg = render(clone_cb, &r, &rc);
	assert_int_equal(rc, 0);
	assert_well_formed(svg);
	assert_non_null(strstr(svg, "host p99 latency (ms)"));
	assert_null(strstr(svg, "peak array CPU"));
	free(svg);
	/* --plot-job: a 1 GiB run's 0.05 s drawn as the 1190 GiB job it stands for (59.5 s) */
	static struct clone_result small = { .template_size = 128u << 20, .clones = 8, .parallel = 2,
					     .outstanding = 2, .n = 2, .plot_job_bytes = 1190ull << 30 };
	for (int i = 0; i < 2; i++)
		small.runs[i] = (struct clone_run){ .chunk = chunks[i + 1], .have_modeled = true,
						    .bytes_cloned = 1u << 30, .modeled_duration_s = 0.05,
						    .modeled_peak_latency_ms = lat[i + 1], .modeled_peak_cpu_pct = 5 };
	svg = render(clone_cb, &small, &rc);
	assert_int_equal(rc, 0);
	assert_well_formed(svg);
	assert_non_null(strstr(svg, "modeled duration for 1190.0 GiB cloned (s)"));
	assert_non_null(strstr(svg, "durations scaled to 1190 GiB cloned"));
	assert_non_null(strstr(svg, PLOT_JOB_TICK));
	free(svg);
	/* a CPU peak of 99.9 % keeps the CPU axis at 100 (not 150) */
	small.runs[0].modeled_peak_cpu_pct = 99.9;
	svg = render(clone_cb, &small, &rc);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(svg, ">100<"));
	assert_null(strstr(svg, ">150<"));
	free(svg);
	small.runs[0].modeled_peak_cpu_pct = 5;
	small.plot_job_bytes = 0;      /* unscaled: the axis stays below a second */
	svg = render(clone_cb, &small, &rc);
	assert_null(strstr(svg, PLOT_JOB_TICK));
	assert_null(strstr(svg, "durations scaled"));
	free(svg);
	/* nothing to plot */
	static struct clone_result empty;
	svg = render(clone_cb, &empty, &rc);
	assert_int_equal(rc, -1);
	free(svg);
}

static void escaping(void **state)
{
	char out[64];
	svg_escape("a<b & \"c\" > 'd'", out, sizeof(out));
	assert_string_equal(out, "a&lt;b &amp; &quot;c&quot; &gt; &apos;d&apos;");
	svg_escape("&&&&&&&&&&", out, 12);        /* truncated at an entity boundary */
	assert_string_equal(out, "&amp;&amp;");
	static struct svg_figure fig = { .title = "<evil & title>", .n_panels = 1 };
	fig.p[0] = (struct svg_panel){ .title = "p&q", .x_label = "x<", .y_label = "y>", .n_series = 1 };
	fig.p[0].s[0] = (struct svg_series){ .name = "s\"1", .color = "#000", .n = 2, .x = { 1, 2 }, .y = { 0, 0 } };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(svg_write_figure(f, &fig), 0);
	fclose(f);
	assert_well_formed(buf);
	assert_non_null(strstr(buf, "&lt;evil &amp; title&gt;"));
	free(buf);
}

static void nice_steps(void **state)
{
	assert_true(svg_nice_step(820, 5) == 200);
	assert_true(svg_nice_step(180, 5) == 50);
	assert_true(svg_nice_step(0.5, 5) == 0.1);
	assert_true(svg_nice_step(0, 5) == 1);
	assert_true(svg_nice_step(-3, 5) == 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(scale_plot),
		cmocka_unit_test(clone_plot),
		cmocka_unit_test(escaping),
		cmocka_unit_test(nice_steps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
