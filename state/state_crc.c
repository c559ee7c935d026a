/* state_crc.c — CRC32C over a record's fields (state_crc.h). */
#include "state/state_crc.h"

#include "lunlab/crc32c.h"

uint32_t state_crc_u64s(uint32_t crc, const uint64_t *v, size_t n)
{
	/* CRC32C over a concatenation equals the chained CRCs of its pieces,
	 * so the fields go to ll_crc32c in batches of up to 16: one call per
	 * record instead of one per field (a restart checks a row CRC per 4 MiB
	 * map slot of every volume, millions for thousands of clones) */
	unsigned char b[16 * 8];

	while (n) {
		size_t m = n < 16 ? n : 16;

		for (size_t i = 0; i < m; i++)
			for (int k = 0; k < 8; k++)
				b[i * 8 + (size_t)k] = (unsigned char)(v[i] >> (8 * k));
		crc = ll_crc32c(crc, b, m * 8);
		v += m;
		n -= m;
	}
	return crc;
}
