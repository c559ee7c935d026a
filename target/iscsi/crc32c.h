/* crc32c.h — the iSCSI header and data digest: CRC32C (Castagnoli), the
 * one ll_crc32c (include/lunlab/crc32c.h), and its byte order on the wire. */
#ifndef LUNLAB_ISCSI_CRC32C_H
#define LUNLAB_ISCSI_CRC32C_H

#include <stddef.h>
#include <stdint.h>

#include "lunlab/crc32c.h"

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
