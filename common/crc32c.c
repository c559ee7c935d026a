/* crc32c.c — CRC32C by ISA-L (include/lunlab/crc32c.h). */
#include "lunlab/crc32c.h"

#include <isa-l/crc.h>

uint32_t ll_crc32c(uint32_t crc, const void *buf, size_t len)
{
	/* ISA-L's crc32_iscsi takes and returns the register without the
	 * initial and final inversions; keep the conventional value outside */
	const unsigned char *p = buf;
	unsigned int r = ~crc;

	/* and it takes an int length: feed larger buffers in slices */
	while (len) {
		int n = len > (1u << 30) ? (1 << 30) : (int)len;

		r = crc32_iscsi((unsigned char *)p, n, r);
		p += n;
		len -= (size_t)n;
	}
	return ~r;
}
