/* copy_be.h — big-endian field access for the copy parameter lists and the
 * pages we return (SCSI is big-endian throughout). */
#ifndef LUNLAB_COPY_BE_H
#define LUNLAB_COPY_BE_H

#include <stdint.h>

static inline uint16_t cp_be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint32_t cp_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline uint64_t cp_be64(const uint8_t *p) { return (uint64_t)cp_be32(p) << 32 | cp_be32(p + 4); }
static inline uint32_t cp_be24(const uint8_t *p) { return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2]; }

static inline void cp_put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static inline void cp_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}

#endif
