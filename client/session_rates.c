/* session_rates.c - decode page 0x32 and each session's modeled rate (session_rates.h). */
#include "client/session_rates.h"

#include <stdio.h>
#include <string.h>

#define VALUE_LEN 56 /* seven 8-byte fields */

static uint64_t be64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

int session_page_parse(const uint8_t *buf, size_t len, struct session_page *out, char *err, size_t errlen)
{
	out->n = 0;
	if (len < 4) {
		snprintf(err, errlen, "log page 0x32: %zu bytes, shorter than its 4-byte header", len);
		return -1;
	}
	if ((buf[0] & 0x3f) != 0x32) {
		snprintf(err, errlen, "log page 0x32: page code 0x%02x", buf[0] & 0x3f);
		return -1;
	}
	size_t end = 4 + (((size_t)buf[2] << 8) | buf[3]);
	if (end > len) {
		snprintf(err, errlen, "log page 0x32: page length %zu runs past the %zu bytes received", end - 4, len);
		return -1;
	}
	for (size_t at = 4; at < end;) {
		if (end - at < 4) {
			snprintf(err, errlen, "log page 0x32: parameter header at byte %zu runs past the page", at);
			return -1;
		}
		size_t plen = buf[at + 3];
		if (plen != VALUE_LEN) {
			snprintf(err, errlen, "log page 0x32: parameter 0x%04x at byte %zu: length %zu, want %d",
				 (unsigned)(buf[at] << 8 | buf[at + 1]), at, plen, VALUE_LEN);
			return -1;
		}
		if (end - at - 4 < plen) {
			snprintf(err, errlen, "log page 0x32: parameter at byte %zu runs past the page", at);
			return -1;
		}
		if (out->n == SESSION_PAGE_MAX) {
			snprintf(err, errlen, "log page 0x32: more than %u sessions", SESSION_PAGE_MAX);
			return -1;
		}
		const uint8_t *v = buf + at + 4;
		struct session_figs *s = &out->s[out->n++];
		s->nexus = be64(v);
		s->commands = be64(v + 8);
		s->bytes = be64(v + 16);
		s->first_bytes = be64(v + 24);
		s->first_arrival_ns = be64(v + 32);
		s->first_completion_ns = be64(v + 40);
		s->last_completion_ns = be64(v + 48);
		at += 4 + plen;
	}
	return 0;
}

static const struct session_figs *find(const struct session_page *p, uint64_t nexus)
{
	for (unsigned i = 0; p && i < p->n; i++)
		if (p->s[i].nexus == nexus)
			return &p->s[i];
	return NULL;
}

/* MB/s of one session over the run, or a negative value when it has none. */
static double rate_of(const struct session_figs *s0, const struct session_figs *s1)
{
	/* figures before the run that are not behind the ones after it: a reset came between */
	if (s0 && (s0->commands > s1->commands || s0->last_completion_ns > s1->last_completion_ns))
		s0 = NULL;
	if (s0 && s0->commands) {
		if (s1->commands == s0->commands || s1->last_completion_ns <= s0->last_completion_ns)
			return -1;
		return (double)(s1->bytes - s0->bytes) / (double)(s1->last_completion_ns - s0->last_completion_ns) * 1e3;
	}
	if (!s1->commands)
		return -1;
	if (s1->commands >= 2 && s1->last_completion_ns > s1->first_completion_ns && s1->bytes > s1->first_bytes)
		return (double)(s1->bytes - s1->first_bytes) /
		       (double)(s1->last_completion_ns - s1->first_completion_ns) * 1e3;
	if (s1->last_completion_ns > s1->first_arrival_ns)
		return (double)s1->bytes / (double)(s1->last_completion_ns - s1->first_arrival_ns) * 1e3;
	return -1;
}

unsigned session_fairness_of(const struct session_page *p0, const struct session_page *p1, struct session_fairness *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned i = 0; i < p1->n; i++) {
		double r = rate_of(find(p0, p1->s[i].nexus), &p1->s[i]);
		if (r < 0)
			continue;
		if (!out->sessions || r < out->min_mbps)
			out->min_mbps = r;
		if (!out->sessions || r > out->max_mbps)
			out->max_mbps = r;
		out->sessions++;
	}
	if (out->sessions && out->min_mbps > 0)
		out->fairness = out->max_mbps / out->min_mbps;
	return out->sessions;
}
