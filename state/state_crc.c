/* state_crc.c — CRC32C over a record's fields (state_crc.h). */
#include "state/state_crc.h"

#include "lunlab/crc32c.h"

uint32_t state_crc_u64s(uint32_t crc, const uint64_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char b[8];

		for (int k = 0; k < 8; k++)
			b[k] = (unsigned char)(v[i] >> (8 * k));
		crc = ll_crc32c(crc, b, 8);
	}
	return crc;
}
