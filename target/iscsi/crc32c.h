/* crc32c.h — CRC32C (Castagnoli), the iSCSI header and data digest, computed
 * by ISA-L's crc32_iscsi (Debian libisal2; crc32c.c). */
#ifndef LUNLAB_ISCSI_CRC32C_H
#define LUNLAB_ISCSI_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Running CRC: start with crc32c_update(~0u, ...) ... and finish with ~crc,
 * or just call crc32c() for a whole buffer. */
uint32_t crc32c_update(uint32_t crc, const void *buf, size_t len);
uint32_t crc32c(const void *buf, size_t len);

/* iSCSI puts the digest on the wire least significant byte first. */
static inline void crc32c_put_wire(uint8_t out[4], uint32_t digest)
{
	out[0] = (uint8_t)digest;
	out[1] = (uint8_t)(digest >> 8);
	out[2] = (uint8_t)(digest >> 16);
	out[3] = (uint8_t)(digest >> 24);
}

static inline uint32_t crc32c_get_wire(const uint8_t in[4])
{
	return (uint32_t)in[0] | (uint32_t)in[1] << 8 | (uint32_t)in[2] << 16 | (uint32_t)in[3] << 24;
}

#endif
