/* crc32c.h — the one CRC32C (Castagnoli) of lunlab: the iSCSI header and
 * data digests (RFC 3720 B.4) and the checksum every record and payload of
 * a state directory carries.  Computed by Intel's ISA-L (Debian libisal:
 * crc32_iscsi picks SSE4.2 crc32 streams folded with PCLMULQDQ, or a table,
 * at run time; ~10 GB/s on one core), not hand-rolled.  Debian 12 has no
 * package of Google's crc32c library, and ISA-L was already linked. */
#ifndef LUNLAB_CRC32C_H
#define LUNLAB_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* The conventional CRC32C value of len bytes, continuing from crc: start
 * with 0; ll_crc32c(ll_crc32c(0, a, n), b, m) is the CRC of a then b.
 * ll_crc32c(0, "123456789", 9) == 0xe3069283. */
uint32_t ll_crc32c(uint32_t crc, const void *buf, size_t len);

#endif
