/* calib_host_limit.h - whether the measuring host, not the LU, set a saturated rate
 * (docs/calibrate.md "Where this host sets the figures").  A pure rule, so that what it
 * decides is tested on controlled input (tests/unit/client/test_calib_host_limit.c) and the
 * tests against real peers only check that its verdict is reported consistently. */
#ifndef LUNLAB_CLIENT_CALIB_HOST_LIMIT_H
#define LUNLAB_CLIENT_CALIB_HOST_LIMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What one saturated try measured, and what this host alone can do. */
struct calib_host_obs {
	double rate;          /* commands per second the LU completed */
	uint64_t bytes;       /* bytes each command moved */
	bool moves_data;      /* READ or WRITE: the bytes crossed the connection */
	double cpu_share;     /* of one core, used by lunlab-bench while measuring */
	double nop_rate;      /* NOP-Outs per second the transport alone turns around (0: unknown) */
	double loopback_mb_s; /* this host's own loopback TCP (0: unknown) */
};

/* The shares of the host's limits beyond which a rate is the host's, not the LU's: a core
 * almost fully used by the client, most of what the transport alone turns around, or over a
 * third of one loopback TCP stream (iSCSI's PDUs, copies and the LU's own work share it). */
#define CALIB_HOST_CPU_SHARE 0.85
#define CALIB_HOST_NOP_SHARE 0.6
#define CALIB_HOST_LOOPBACK_SHARE 0.35

/* True when the host set the rate; reason (size n) then says which limit, in words. */
bool calib_host_limited(const struct calib_host_obs *o, char *reason, size_t n);

#endif
