/* window.h - how much of an I/O counts inside a measurement window. */
#ifndef LUNLAB_CLIENT_WINDOW_H
#define LUNLAB_CLIENT_WINDOW_H

/* Bytes of an I/O of `bytes` that ran from t_submit to t_done credited to the window
 * [w0, w1]: pro rata to the overlap, so short windows with few large I/Os per VM (100 VMs
 * of 4 MiB reads) are not quantised to whole I/Os.  0 for an I/O outside the window or with
 * t_done <= t_submit. */
double window_credit(double bytes, double t_submit, double t_done, double w0, double w1);

/* A VM's throughput over a window in bytes/s.  With n >= 3 completions inside the window it is
 * (n - 1) x io_bytes / (t_last - t_first): the rate of the completion process, neither
 * quantised to whole I/Os nor biased (crediting in-flight I/Os pro rata overestimates when
 * latencies vary: the mean of bytes/latency exceeds bytes / mean latency).  With fewer
 * completions, the pro-rata credit over the window length. */
double window_rate(unsigned n_done, double io_bytes, double t_first, double t_last,
		   double prorata_bytes, double window_s);

#endif
