/* lunlab/be.h - big-endian fields, the one set of helpers for the target, the handler .so,
 * lunlab-bench and the tests.  SCSI and iSCSI are big-endian throughout (CDBs, parameter lists,
 * data-in pages, PDU headers); these keep every module free of shift arithmetic.  Header-only
 * and on <endian.h>, so handler_lunlab.so needs no symbol for them under tcmu-runner, and an
 * unaligned field is read with memcpy, which compilers turn into one load and a byte swap. */
#ifndef LUNLAB_BE_H
#define LUNLAB_BE_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

static inline uint16_t get_be16(const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, sizeof(v));
	return be16toh(v);
}
static inline uint32_t get_be24(const uint8_t *p) { return (uint32_t)p[0] << 16 | (uint32_t)get_be16(p + 1); }
static inline uint32_t get_be32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return be32toh(v);
}
static inline uint64_t get_be64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return be64toh(v);
}

static inline void put_be16(uint8_t *p, uint16_t v)
{
	v = htobe16(v);
	memcpy(p, &v, sizeof(v));
}
static inline void put_be24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	put_be16(p + 1, (uint16_t)v);
}
static inline void put_be32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, sizeof(v));
}
static inline void put_be64(uint8_t *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, sizeof(v));
}

#endif
