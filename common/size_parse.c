/* size_parse.c — the one size-with-suffix parser (include/lunlab/size_parse.h). */
#include "lunlab/size_parse.h"

static unsigned unit_shift_of(char c)
{
	switch (c) {
	case 'k': case 'K': return 10;
	case 'm': case 'M': return 20;
	case 'g': case 'G': return 30;
	case 't': case 'T': return 40;
	case 'p': case 'P': return 50;
	default: return 0;
	}
}

/* floor(0.F * 2^shift) for the fraction digits F (nd of them, value f):
 * long division in binary, so no precision is lost whatever the unit */
static uint64_t fraction_bytes(uint64_t f, uint64_t denom, unsigned shift)
{
	uint64_t r = 0;

	for (unsigned i = 0; i < shift; i++) {
		f *= 2; /* f < denom <= 10^18: never wraps */
		r <<= 1;
		if (f >= denom) {
			r |= 1;
			f -= denom;
		}
	}
	return r;
}

bool ll_size_parse(const char *s, unsigned unit_shift, uint64_t *out)
{
	uint64_t whole = 0, frac = 0, denom = 1;
	const char *p = s;
	unsigned shift = unit_shift, u;

	if (!s || *p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		uint64_t d = (uint64_t)(*p - '0');

		if (whole > (UINT64_MAX - d) / 10)
			return false;
		whole = whole * 10 + d;
	}
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return false;
		for (; *p >= '0' && *p <= '9'; p++)
			if (denom < 1000000000000000000ull) { /* digits past 18 are below a byte */
				frac = frac * 10 + (uint64_t)(*p - '0');
				denom *= 10;
			}
	}
	u = unit_shift_of(*p);
	if (u) {
		shift = u;
		p++;
		if (*p == 'i')
			p++;
		if (*p == 'B' || *p == 'b')
			p++;
	} else if (*p == 'B' || *p == 'b') {
		shift = 0; /* "512B": bytes, whatever the default unit */
		p++;
	}
	if (*p)
		return false;
	if (shift >= 64 || whole > (UINT64_MAX >> shift))
		return false;
	uint64_t v = whole << shift, fb = fraction_bytes(frac, denom, shift);
	if (v > UINT64_MAX - fb)
		return false;
	*out = v + fb;
	return true;
}
