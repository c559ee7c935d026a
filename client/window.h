/* window.h - how much of an I/O counts inside a measurement window. */
#ifndef LUNLAB_CLIENT_WINDOW_H
#define LUNLAB_CLIENT_WINDOW_H

/* Bytes of an I/O of `bytes` that ran from t_submit to t_done credited to the window
 * [w0, w1]: pro rata to the overlap, so short windows with few large I/Os per VM (100 VMs
 * of 4 MiB reads) are not quantised to whole I/Os.  0 for an I/O outside the window or with
 * t_done <= t_submit. */
double window_credit(double bytes, double t_submit, double t_done, double w0, double w1);

#endif
