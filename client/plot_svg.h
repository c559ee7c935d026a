/* plot_svg.h - hand-written SVG charts for slides: the clone sweep (duration, peak latency and
 * peak CPU against chunk size, one panel each) and the scale curve (total MB/s and fairness
 * against VMs).  Log2 x axes, "nice" ticks, axis labels, legend, title. */
#ifndef LUNLAB_CLIENT_PLOT_SVG_H
#define LUNLAB_CLIENT_PLOT_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "client/results.h"

#define SVG_MAX_POINTS 64
#define SVG_MAX_SERIES 4
#define SVG_MAX_PANELS 4

struct svg_series {
	const char *name;
	const char *color;
	bool right_axis;            /* plotted against the panel's right y axis */
	bool dashed;
	unsigned n;
	double x[SVG_MAX_POINTS], y[SVG_MAX_POINTS];
};

struct svg_panel {
	const char *title;
	const char *x_label, *y_label, *y2_label;  /* y2_label NULL: no right axis */
	bool x_log2;                /* powers of two evenly spaced (chunk sizes, VM counts) */
	bool x_bytes;               /* tick labels 64K, 1M ... */
	bool y_log10;               /* left axis in decades (latencies spanning 0.005..2 ms) */
	double y_cap;               /* > 0: the left axis never runs past it while the data fit (100 %) */
	unsigned n_series;
	struct svg_series s[SVG_MAX_SERIES];
};

struct svg_figure {
	const char *title, *subtitle;
	unsigned n_panels;
	struct svg_panel p[SVG_MAX_PANELS];
};

/* Render a figure (panels side by side).  Returns 0 or -1 (nothing to plot, write error). */
int svg_write_figure(FILE *f, const struct svg_figure *fig);

int plot_scale_svg(FILE *f, const struct scale_result *r);
int plot_clone_svg(FILE *f, const struct clone_result *r);

/* Escape &<>"' for SVG text into out (always NUL terminated, truncated to fit). */
void svg_escape(const char *in, char *out, size_t outlen);
/* A "nice" axis: step of 1, 2 or 5 x 10^k covering [0, max] in about `ticks` steps. */
double svg_nice_step(double max, int ticks);

#endif
