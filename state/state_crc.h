/* state_crc.h — the checksum every persisted record and block payload of a
 * state directory carries: CRC32C (Castagnoli), as iSCSI's digests, computed
 * by Intel's ISA-L (ll_crc32c, include/lunlab/crc32c.h), so
 * verifying each payload on every read costs little next to the read. */
#ifndef LUNLAB_STATE_CRC_H
#define LUNLAB_STATE_CRC_H

#include <stddef.h>
#include <stdint.h>

#include "lunlab/crc32c.h" /* ll_crc32c: the CRC itself */

/* CRC32C over a record's fields, serialised little-endian one after another:
 * the same bytes whatever the host, so a checksum never depends on struct
 * layout.  n values of 64 bits. */
uint32_t state_crc_u64s(uint32_t crc, const uint64_t *v, size_t n);

#endif
