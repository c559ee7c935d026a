/* progress.c - redraws at most 10 times a second so it never costs measurable time. */
#include "client/progress.h"

#include <stdio.h>
#include <unistd.h>

#include "client/conn.h"

void progress_start(struct progress *p, const char *label, uint64_t total, bool quiet)
{
	p->enabled = !quiet && isatty(STDERR_FILENO);
	p->label = label;
	p->total = total ? total : 1;
	p->start = now_s();
	p->last_draw = 0;
}

void progress_update(struct progress *p, uint64_t done)
{
	if (!p->enabled)
		return;
	double t = now_s();
	if (t - p->last_draw < 0.1 && done < p->total)
		return;
	p->last_draw = t;
	double frac = (double)done / (double)p->total;
	if (frac > 1)
		frac = 1;
	int width = 30, fill = (int)(frac * width);
	fprintf(stderr, "\r%-18.18s [", p->label);
	for (int i = 0; i < width; i++)
		fputc(i < fill ? '#' : '.', stderr);
	fprintf(stderr, "] %5.1f%% %6.1fs", frac * 100.0, t - p->start);
	fflush(stderr);
}

void progress_end(struct progress *p)
{
	if (!p->enabled)
		return;
	fprintf(stderr, "\r%*s\r", 70, "");
	fflush(stderr);
}
