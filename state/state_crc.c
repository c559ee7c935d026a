/* state_crc.c — CRC32C for state records and payloads (state_crc.h). */
#include "state/state_crc.h"

#include <isa-l/crc.h>

uint32_t state_crc32c(uint32_t crc, const void *buf, size_t len)
{
	/* ISA-L's crc32_iscsi takes and returns the register without the
	 * final inversions; keep the conventional CRC32C value outside */
	const unsigned char *p = buf;
	unsigned int r = ~crc;

	while (len) {
		int n = len > (1u << 30) ? (1 << 30) : (int)len;

		r = crc32_iscsi((unsigned char *)p, n, r);
		p += n;
		len -= (size_t)n;
	}
	return ~r;
}

uint32_t state_crc_u64s(uint32_t crc, const uint64_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char b[8];

		for (int k = 0; k < 8; k++)
			b[k] = (unsigned char)(v[i] >> (8 * k));
		crc = state_crc32c(crc, b, 8);
	}
	return crc;
}
