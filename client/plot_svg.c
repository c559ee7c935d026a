/* plot_svg.c - SVG by hand: no plotting dependency, output a person can put on a slide.
 * Panels are 420x300 user units, side by side, under a common title. */
#include "client/plot_svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PH 330.0        /* panel height */
#define ML 70.0         /* margins inside a panel */
#define MR 70.0
#define MT 46.0
#define MB 62.0
/* Panel width: one wide panel alone, narrower ones side by side (set per figure). */
static double PW = 440.0;
#define TOP 70.0        /* figure title band */
#define LEGEND 34.0     /* legend band under the panels */

void svg_escape(const char *in, char *out, size_t outlen)
{
	size_t o = 0;
	if (!outlen)
		return;
	for (; in && *in; in++) {
		const char *rep = NULL;
		char one[2] = { *in, 0 };
		switch (*in) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&apos;"; break;
		default: rep = one; break;
		}
		size_t l = strlen(rep);
		if (o + l + 1 > outlen)
			break;
		memcpy(out + o, rep, l);
		o += l;
	}
	out[o] = 0;
}

double svg_nice_step(double max, int ticks)
{
	if (!(max > 0) || !isfinite(max))
		return 1;
	double raw = max / (ticks > 0 ? ticks : 5);
	double mag = pow(10, floor(log10(raw)));
	double f = raw / mag;
	double nice = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
	return nice * mag;
}

static void fmt_tick(char *buf, size_t len, double v, bool bytes, double step)
{
	if (bytes) {
		if (v >= 1048576 && fmod(v, 1048576) == 0)
			snprintf(buf, len, "%gM", v / 1048576);
		else if (v >= 1024)
			snprintf(buf, len, "%gK", v / 1024);
		else
			snprintf(buf, len, "%g", v);
		return;
	}
	/* As many decimals as the step needs, the same on every tick of an axis. */
	int dec = step > 0 && step < 1 ? (int)ceil(-log10(step) - 1e-9) : 0;
	if (dec > 6)
		dec = 6;
	snprintf(buf, len, "%.*f", dec, v);
}

struct axis { double lo, hi, step; bool log; };

/* Position of v on axis a as a fraction 0..1 of the plot height. */
static double yfrac(const struct axis *a, double v)
{
	if (a->log) {
		double lv = log10(v > a->lo ? v : a->lo);
		return (lv - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
	}
	return (v - a->lo) / (a->hi - a->lo);
}

/* Decades covering the positive values of the left-axis series. */
static struct axis y_log_axis(const struct svg_panel *p)
{
	double min = INFINITY, max = 0;
	for (unsigned i = 0; i < p->n_series; i++) {
		if (p->s[i].right_axis)
			continue;
		for (unsigned k = 0; k < p->s[i].n; k++) {
			double v = p->s[i].y[k];
			if (v > 0 && v < min) min = v;
			if (v > max) max = v;
		}
	}
	struct axis a = { 0.001, 1, 10, true };
	if (max <= 0 || !isfinite(min))
		return a;
	a.lo = pow(10, floor(log10(min)));
	a.hi = pow(10, ceil(log10(max)));
	if (a.hi <= a.lo)
		a.hi = a.lo * 10;
	return a;
}

static struct axis y_axis(const struct svg_panel *p, bool right)
{
	double max = 0, min = INFINITY;
	for (unsigned i = 0; i < p->n_series; i++) {
		if (p->s[i].right_axis != right)
			continue;
		for (unsigned k = 0; k < p->s[i].n; k++) {
			if (p->s[i].y[k] > max) max = p->s[i].y[k];
			if (p->s[i].y[k] < min) min = p->s[i].y[k];
		}
	}
	struct axis a = { 0, 1, 0.2, false };
	if (max <= 0)
		return a;
	/* Fairness-like series (all values near 1) read better from a floor of 1. */
	if (min >= 1 && max < 2 && right) {
		a.lo = 1;
		a.step = svg_nice_step((max - 1) * 1.2 > 0.05 ? (max - 1) * 1.2 : 0.05, 5);
		a.hi = 1 + a.step * ceil((max - 1) * 1.1 / a.step + 1e-9);
		if (a.hi <= a.lo) a.hi = a.lo + a.step;
		return a;
	}
	a.step = svg_nice_step(max * 1.1, 5);
	a.hi = a.step * ceil(max * 1.1 / a.step);
	/* A percentage of the array's cores tops out at 100: an axis to 150 would suggest more. */
	if (!right && p->y_cap > 0 && max <= p->y_cap && a.hi > p->y_cap) {
		a.hi = p->y_cap;
		a.step = svg_nice_step(p->y_cap, 5);
	}
	return a;
}

static double xmap(const struct svg_panel *p, double x, double xmin, double xmax, double x0, double w)
{
	if (p->x_log2) {
		double l = log2(x > 0 ? x : 1), lmin = log2(xmin), lmax = log2(xmax);
		return lmax > lmin ? x0 + (l - lmin) / (lmax - lmin) * w : x0 + w / 2;
	}
	return xmax > xmin ? x0 + (x - xmin) / (xmax - xmin) * w : x0 + w / 2;
}

static void panel(FILE *f, const struct svg_panel *p, double ox, double oy)
{
	char t[256];
	double x0 = ox + ML, y0 = oy + PH - MB, w = PW - ML - MR, h = PH - MT - MB;
	double xmin = INFINITY, xmax = -INFINITY;
	bool has_right = false;
	for (unsigned i = 0; i < p->n_series; i++) {
		has_right |= p->s[i].right_axis;
		for (unsigned k = 0; k < p->s[i].n; k++) {
			if (p->s[i].x[k] < xmin) xmin = p->s[i].x[k];
			if (p->s[i].x[k] > xmax) xmax = p->s[i].x[k];
		}
	}
	if (!isfinite(xmin)) { xmin = 1; xmax = 2; }
	svg_escape(p->title, t, sizeof(t));
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"ptitle\" text-anchor=\"middle\">%s</text>\n",
		x0 + w / 2, oy + 26, t);
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"plot\"/>\n", x0, y0 - h, w, h);
	/* y grid and left ticks */
	struct axis ya = p->y_log10 ? y_log_axis(p) : y_axis(p, false);
	for (double v = ya.lo; v <= ya.hi * (1 + 1e-9) + (ya.log ? 0 : ya.step * 1e-6);
	     v = ya.log ? v * 10 : v + ya.step) {
		double y = y0 - yfrac(&ya, v) * h;
		fmt_tick(t, sizeof(t), v, false, ya.log ? v : ya.step);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>\n", x0, y, x0 + w, y);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\" text-anchor=\"end\">%s</text>\n", x0 - 6, y + 4, t);
	}
	struct axis ya2 = { 0, 1, 0.2, false };
	if (has_right) {
		ya2 = y_axis(p, true);
		for (double v = ya2.lo; v <= ya2.hi + ya2.step * 1e-6; v += ya2.step) {
			double y = y0 - (v - ya2.lo) / (ya2.hi - ya2.lo) * h;
			fmt_tick(t, sizeof(t), v, false, ya2.step);
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\">%s</text>\n", x0 + w + 6, y + 4, t);
		}
	}
	/* x ticks at the data points (sweeps and VM lists are the interesting values) */
	const struct svg_series *sx = p->n_series ? &p->s[0] : NULL;
	for (unsigned k = 0; sx && k < sx->n; k++) {
		double x = xmap(p, sx->x[k], xmin, xmax, x0, w);
		fmt_tick(t, sizeof(t), sx->x[k], p->x_bytes, 1);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"axis\"/>\n", x, y0, x, y0 + 5);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\" text-anchor=\"middle\">%s</text>\n", x, y0 + 19, t);
	}
	svg_escape(p->x_label, t, sizeof(t));
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"label\" text-anchor=\"middle\">%s</text>\n", x0 + w / 2, y0 + 42, t);
	svg_escape(p->y_label, t, sizeof(t));
	fprintf(f, "<text transform=\"translate(%.1f %.1f) rotate(-90)\" class=\"label\" text-anchor=\"middle\">%s</text>\n",
		ox + 20, y0 - h / 2, t);
	if (has_right && p->y2_label) {
		svg_escape(p->y2_label, t, sizeof(t));
		fprintf(f, "<text transform=\"translate(%.1f %.1f) rotate(90)\" class=\"label\" text-anchor=\"middle\">%s</text>\n",
			ox + PW - 16, y0 - h / 2, t);
	}
	/* series */
	for (unsigned i = 0; i < p->n_series; i++) {
		const struct svg_series *s = &p->s[i];
		struct axis a = s->right_axis ? ya2 : ya;
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"3\"%s points=\"", s->color,
			s->dashed ? " stroke-dasharray=\"8 5\"" : "");
		for (unsigned k = 0; k < s->n; k++)
			fprintf(f, "%s%.1f,%.1f", k ? " " : "", xmap(p, s->x[k], xmin, xmax, x0, w),
				y0 - yfrac(&a, s->y[k]) * h);
		fprintf(f, "\"/>\n");
		for (unsigned k = 0; k < s->n; k++)
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" fill=\"%s\"/>\n",
				xmap(p, s->x[k], xmin, xmax, x0, w), y0 - yfrac(&a, s->y[k]) * h, s->color);
	}
}

int svg_write_figure(FILE *f, const struct svg_figure *fig)
{
	if (!fig->n_panels || fig->n_panels > SVG_MAX_PANELS)
		return -1;
	PW = fig->n_panels == 1 ? 760.0 : 440.0;
	double W = PW * fig->n_panels + 20, H = TOP + PH + LEGEND + 16;
	char t[512];
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
		W, H, W, H);
	fprintf(f, "<style>\n"
		"text { font-family: 'DejaVu Sans', Helvetica, Arial, sans-serif; fill: #222; }\n"
		".title { font-size: 22px; font-weight: bold; }\n"
		".subtitle { font-size: 14px; fill: #555; }\n"
		".ptitle { font-size: 16px; font-weight: bold; }\n"
		".label { font-size: 13px; }\n"
		".tick { font-size: 12px; fill: #444; }\n"
		".legend { font-size: 13px; }\n"
		".plot { fill: #fbfbfd; stroke: #888; stroke-width: 1; }\n"
		".grid { stroke: #ddd; stroke-width: 1; }\n"
		".axis { stroke: #888; stroke-width: 1; }\n"
		"</style>\n");
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	svg_escape(fig->title, t, sizeof(t));
	fprintf(f, "<text x=\"%.1f\" y=\"32\" class=\"title\" text-anchor=\"middle\">%s</text>\n", W / 2, t);
	if (fig->subtitle) {
		svg_escape(fig->subtitle, t, sizeof(t));
		fprintf(f, "<text x=\"%.1f\" y=\"54\" class=\"subtitle\" text-anchor=\"middle\">%s</text>\n", W / 2, t);
	}
	for (unsigned i = 0; i < fig->n_panels; i++)
		panel(f, &fig->p[i], 10 + PW * i, TOP);
	/* One legend for the figure: series names are unique across panels. */
	double lx = 30, ly = TOP + PH + 22;
	for (unsigned i = 0; i < fig->n_panels; i++) {
		for (unsigned k = 0; k < fig->p[i].n_series; k++) {
			const struct svg_series *s = &fig->p[i].s[k];
			svg_escape(s->name, t, sizeof(t));
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"%s/>\n",
				lx, ly - 4, lx + 26, ly - 4, s->color, s->dashed ? " stroke-dasharray=\"8 5\"" : "");
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"legend\">%s</text>\n", lx + 32, ly, t);
			lx += 44 + 7.5 * (double)strlen(s->name);
		}
	}
	fprintf(f, "</svg>\n");
	return ferror(f) ? -1 : 0;
}

int plot_scale_svg(FILE *f, const struct scale_result *r)
{
	static struct svg_figure fig;
	char sub[160];
	memset(&fig, 0, sizeof(fig));
	if (!r->n)
		return -1;
	char bs[32];
	if (r->bs >= (1u << 20) && r->bs % (1u << 20) == 0)
		snprintf(bs, sizeof(bs), "%llu MiB", (unsigned long long)(r->bs >> 20));
	else
		snprintf(bs, sizeof(bs), "%llu KiB", (unsigned long long)(r->bs >> 10));
	snprintf(sub, sizeof(sub), "each VM: %s sequential %s at QD%u over its own iSCSI session",
		 bs, r->write ? "writes" : "reads", r->qd);
	fig.title = "LUN scalability: throughput and fairness vs. VMs";
	fig.subtitle = sub;
	fig.n_panels = 1;
	struct svg_panel *p = &fig.p[0];
	p->title = "total throughput (left), fairness max/min (right)";
	p->x_label = "VMs (sessions)";
	p->y_label = "total MB/s";
	p->y2_label = "fairness (fastest / slowest VM)";
	p->x_log2 = true;
	p->n_series = 2;
	p->s[0] = (struct svg_series){ .name = "total MB/s", .color = "#1f6fb4" };
	p->s[1] = (struct svg_series){ .name = "fairness (max/min)", .color = "#d9541e", .right_axis = true, .dashed = true };
	for (unsigned i = 0; i < r->n && i < SVG_MAX_POINTS; i++) {
		p->s[0].x[i] = p->s[1].x[i] = r->runs[i].vms;
		p->s[0].y[i] = r->runs[i].total_mbps;
		p->s[1].y[i] = r->runs[i].fairness;
		p->s[0].n = p->s[1].n = i + 1;
	}
	return svg_write_figure(f, &fig);
}

int plot_clone_svg(FILE *f, const struct clone_result *r)
{
	static struct svg_figure fig;
	char sub[200];
	memset(&fig, 0, sizeof(fig));
	if (!r->n)
		return -1;
	bool modeled = true;
	for (unsigned i = 0; i < r->n; i++)
		modeled &= r->runs[i].have_modeled;
	bool xcopy = true;
	for (unsigned i = 0; i < r->n; i++)
		xcopy &= r->runs[i].xcopy;
	/* --plot-job: the modeled duration is linear in the bytes cloned at the same rates
	 * (docs/reproduce.md), so a scaled-down run can be drawn as the job it stands for. */
	bool job = modeled && r->plot_job_bytes;
	char job_name[80] = "";
	if (job)
		snprintf(job_name, sizeof(job_name), "modeled duration for %.1f GiB cloned (s)",
			 (double)r->plot_job_bytes / 1073741824.0);
	if (job)
		snprintf(sub, sizeof(sub), "%u clones of a %llu MiB template, %u in parallel, %u outstanding each; durations scaled to %.0f GiB cloned",
			 r->clones, (unsigned long long)(r->template_size >> 20), r->parallel, r->outstanding,
			 (double)r->plot_job_bytes / 1073741824.0);
	else
		snprintf(sub, sizeof(sub), "%u clones of a %llu MiB template, %u in parallel, %u outstanding each; %s",
			 r->clones, (unsigned long long)(r->template_size >> 20), r->parallel, r->outstanding,
			 modeled ? "the array's modeled figures" : "host-measured figures (the LU reports no model)");
	fig.title = xcopy ? "XCOPY chunk size sweep (ESXi MaxHWTransferSize)"
			  : "Clone chunk size sweep (software datamover: no XCOPY)";
	fig.subtitle = sub;
	fig.n_panels = modeled ? 3 : 2;
	static const char *const colors[3] = { "#1f6fb4", "#d9541e", "#2a9d4b" };
	const char *titles[3] = { "clone duration", modeled ? "peak latency" : "p99 latency", "peak array CPU" };
	const char *ylabels[3] = { "seconds", "ms (log scale)", "% of the array's cores" };
	const char *names[3] = { job ? job_name : modeled ? "modeled duration (s)" : "wall time (s)",
				 modeled ? "modeled peak latency (ms)" : "host p99 latency (ms)",
				 "modeled peak CPU (%)" };
	for (unsigned k = 0; k < fig.n_panels; k++) {
		struct svg_panel *p = &fig.p[k];
		p->title = titles[k];
		p->x_label = "XCOPY chunk size";
		p->y_label = ylabels[k];
		p->x_log2 = true;
		p->x_bytes = true;
		p->y_log10 = k == 1;        /* latency spans decades from 64 KiB to 16 MiB chunks */
		p->y_cap = k == 2 ? 100 : 0;
		p->n_series = 1;
		p->s[0] = (struct svg_series){ .name = names[k], .color = colors[k] };
		for (unsigned i = 0; i < r->n && i < SVG_MAX_POINTS; i++) {
			const struct clone_run *c = &r->runs[i];
			p->s[0].x[i] = (double)c->chunk;
			double dur = job && c->bytes_cloned
				     ? c->modeled_duration_s * (double)r->plot_job_bytes / (double)c->bytes_cloned
				     : c->modeled_duration_s;
			p->s[0].y[i] = k == 0 ? (modeled ? dur : c->wall_s)
				     : k == 1 ? (modeled ? c->modeled_peak_latency_ms : c->lat_p99_ms)
				     : c->modeled_peak_cpu_pct;
			p->s[0].n = i + 1;
		}
	}
	return svg_write_figure(f, &fig);
}
