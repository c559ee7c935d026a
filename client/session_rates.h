/* session_rates.h - page 0x32 (the modeled figures of each initiator session, on a virtual
 * clock whose host is one stream per session: docs/vendor-log-pages.md) and what lunlab-bench
 * scale computes from it: each VM's modeled rate and the fairness of the sharing, max / min
 * (seed 002: "the fastest VM's average throughput only 2% above the slowest's"). */
#ifndef LUNLAB_CLIENT_SESSION_RATES_H
#define LUNLAB_CLIENT_SESSION_RATES_H

#include <stddef.h>
#include <stdint.h>

#define SESSION_PAGE_MAX 1000u /* what the page can hold (its length field) */

struct session_figs {
	uint64_t nexus, commands, bytes, first_bytes;
	uint64_t first_arrival_ns, first_completion_ns, last_completion_ns;
};

struct session_page {
	unsigned n;
	struct session_figs s[SESSION_PAGE_MAX];
};

/* Parse LOG SENSE page 0x32 in buf[len].  0, or -1 with one line naming the bad field. */
int session_page_parse(const uint8_t *buf, size_t len, struct session_page *out, char *err, size_t errlen);

/* The sessions that moved data between two reads of the page (p0 before the run, p1 after;
 * p0 may be empty), each one's modeled rate in MB/s, and max / min over them. */
struct session_fairness {
	unsigned sessions;       /* sessions with a rate */
	double min_mbps, max_mbps;
	double fairness;         /* max / min; 0 when fewer than one rate */
};
/* A session's modeled rate over the run: with figures before it, the bytes it moved since
 * over how far its last completion moved; a session new in the run, the bytes of its
 * commands after the first over its first to last completion (the rate once every stream is
 * in the loop: a long run's average, without the start where the first served of a burst
 * waits for nobody and the last for everyone), or with one command its bytes over that
 * command's arrival to completion.  Returns the number of sessions with a rate. */
unsigned session_fairness_of(const struct session_page *p0, const struct session_page *p1, struct session_fairness *out);

#endif
