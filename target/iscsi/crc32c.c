/* crc32c.c — CRC32C with a hardware path (SSE4.2 crc32 instruction) and a
 * slicing-by-8 fallback.  The table is built once, thread-safely. */
#include "target/iscsi/crc32c.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

#define CRC32C_POLY_REFLECTED 0x82F63B78u

static uint32_t table[8][256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void build_table(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ CRC32C_POLY_REFLECTED : c >> 1;
		table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			table[t][i] = (table[t - 1][i] >> 8) ^ table[0][table[t - 1][i] & 0xff];
}

uint32_t crc32c_update_sw(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	pthread_once(&table_once, build_table);
	while (len && ((uintptr_t)p & 7)) {
		crc = (crc >> 8) ^ table[0][(crc ^ *p++) & 0xff];
		len--;
	}
	while (len >= 8) {
		uint64_t w;
		memcpy(&w, p, 8); /* little-endian host assumed below */
		w ^= crc;
		crc = table[7][w & 0xff] ^ table[6][(w >> 8) & 0xff] ^
		      table[5][(w >> 16) & 0xff] ^ table[4][(w >> 24) & 0xff] ^
		      table[3][(w >> 32) & 0xff] ^ table[2][(w >> 40) & 0xff] ^
		      table[1][(w >> 48) & 0xff] ^ table[0][w >> 56];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ table[0][(crc ^ *p++) & 0xff];
	return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static uint32_t crc32c_update_hw(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint64_t c = crc;

	while (len && ((uintptr_t)p & 7)) {
		c = _mm_crc32_u8((uint32_t)c, *p++);
		len--;
	}
	while (len >= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		c = _mm_crc32_u64(c, w);
		p += 8;
		len -= 8;
	}
	while (len--)
		c = _mm_crc32_u8((uint32_t)c, *p++);
	return (uint32_t)c;
}
#endif

uint32_t crc32c_update(uint32_t crc, const void *buf, size_t len)
{
#if defined(__x86_64__)
	static _Atomic int have_hw = -1; /* probed once; every thread agrees */
	int hw = atomic_load_explicit(&have_hw, memory_order_relaxed);
	if (hw < 0) {
		hw = __builtin_cpu_supports("sse4.2") ? 1 : 0;
		atomic_store_explicit(&have_hw, hw, memory_order_relaxed);
	}
	if (hw)
		return crc32c_update_hw(crc, buf, len);
#endif
	return crc32c_update_sw(crc, buf, len);
}

uint32_t crc32c(const void *buf, size_t len)
{
	return ~crc32c_update(~0u, buf, len);
}
