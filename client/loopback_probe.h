/* loopback_probe.h - how fast this host moves bytes through its own loopback TCP: the ceiling
 * of any iSCSI data transfer to a target on 127.0.0.1, so calibrate can tell a LU faster
 * than this host can measure from one that limits by itself. */
#ifndef LUNLAB_CLIENT_LOOPBACK_PROBE_H
#define LUNLAB_CLIENT_LOOPBACK_PROBE_H

#include <stdbool.h>

/* Does the iSCSI portal "host[:port]" name this machine's loopback (127.0.0.0/8, ::1,
 * localhost)? */
bool portal_is_loopback(const char *portal);

/* One TCP connection over 127.0.0.1, 1 MiB writes, for `seconds`: MB/s (10^6 B/s), or a
 * negative value when the probe could not run. */
double loopback_tcp_mb_s(double seconds);

#endif
