/* calib_host_limit.c - the rule that says when a measured rate is the measuring host's own
 * limit (calib_host_limit.h). */
#include "client/calib_host_limit.h"

#include <stdio.h>

bool calib_host_limited(const struct calib_host_obs *o, char *reason, size_t n)
{
	double mb_s = o->rate * (double)o->bytes / 1e6;
	if (n)
		reason[0] = 0;
	if (o->cpu_share >= CALIB_HOST_CPU_SHARE)
		snprintf(reason, n, "lunlab-bench used %.0f%% of a core", o->cpu_share * 100);
	else if (o->nop_rate > 0 && o->rate >= CALIB_HOST_NOP_SHARE * o->nop_rate)
		snprintf(reason, n, "%.0f commands/s, %.0f%% of the %.0f NOP-Outs/s the transport alone turns around",
			 o->rate, 100 * o->rate / o->nop_rate, o->nop_rate);
	else if (o->moves_data && o->loopback_mb_s > 0 && mb_s >= CALIB_HOST_LOOPBACK_SHARE * o->loopback_mb_s)
		snprintf(reason, n, "%.0f MB/s, over a third of this host's own loopback TCP (%.0f MB/s)", mb_s,
			 o->loopback_mb_s);
	else
		return false;
	return true;
}
