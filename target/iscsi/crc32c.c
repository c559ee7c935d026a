/* crc32c.c — CRC32C for the iSCSI digests, from ISA-L (Debian libisal):
 * crc32_iscsi picks the fastest code the CPU runs (three interleaved SSE4.2
 * crc32 streams folded with PCLMULQDQ, down to a table version) at run time.
 * Its CRC register convention is the one crc32c_update keeps: no inversion
 * inside, so a digest is ~crc32_iscsi(buf, len, ~0) (RFC 3720 B.4). */
#include "target/iscsi/crc32c.h"

#include <isa-l/crc.h>
#include <limits.h>

uint32_t crc32c_update(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	/* crc32_iscsi takes an int length: feed larger buffers in slices */
	while (len > INT_MAX / 2) {
		crc = crc32_iscsi((unsigned char *)p, INT_MAX / 2, crc);
		p += INT_MAX / 2;
		len -= INT_MAX / 2;
	}
	return crc32_iscsi((unsigned char *)p, (int)len, crc);
}

uint32_t crc32c(const void *buf, size_t len)
{
	return ~crc32c_update(~0u, buf, len);
}
