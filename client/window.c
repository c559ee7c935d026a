/* window.c - pro-rata window accounting for the scale scenario. */
#include "client/window.h"

double window_rate(unsigned n_done, double io_bytes, double t_first, double t_last,
		   double prorata_bytes, double window_s)
{
	if (n_done >= 3 && t_last > t_first)
		return (double)(n_done - 1) * io_bytes / (t_last - t_first);
	return window_s > 0 ? prorata_bytes / window_s : 0;
}

double window_credit(double bytes, double t_submit, double t_done, double w0, double w1)
{
	if (!(t_done > t_submit) || !(w1 > w0))
		return 0;
	double a = t_submit > w0 ? t_submit : w0;
	double b = t_done < w1 ? t_done : w1;
	return b > a ? bytes * (b - a) / (t_done - t_submit) : 0;
}
