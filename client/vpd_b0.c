/* vpd_b0.c - Block Limits VPD page decoding, every field bounds-checked (vpd_b0.h). */
#include "client/vpd_b0.h"

#include <stdio.h>
#include <string.h>

static uint64_t be(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v = (v << 8) | p[i];
	return v;
}

int vpd_b0_decode(const uint8_t *page, size_t len, struct b0_limits *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (!page || len < 4) {
		snprintf(err, errlen, "VPD page B0h: %zu bytes, shorter than its 4-byte header", page ? len : 0);
		return -1;
	}
	if (page[1] != 0xb0) {
		snprintf(err, errlen, "VPD page B0h answered with page %02Xh", page[1]);
		return -1;
	}
	/* what the page holds: its PAGE LENGTH, cut to what arrived */
	size_t end = 4 + (size_t)be(page + 2, 2);
	if (end > len)
		end = len;
#define FIELD(off, n) (end >= (size_t)(off) + (n) ? be(page + (off), (n)) : 0)
	out->max_xfer_blocks = (uint32_t)FIELD(8, 4);
	out->opt_xfer_blocks = (uint32_t)FIELD(12, 4);
	out->max_unmap_blocks = (uint32_t)FIELD(20, 4);
	out->max_unmap_descs = (uint32_t)FIELD(24, 4);
	out->unmap_granularity = (uint32_t)FIELD(28, 4);
	out->max_write_same_blocks = FIELD(36, 8);
#undef FIELD
	return 0;
}
