/* xcopy_list_builder.h — build EXTENDED COPY parameter lists in tests, byte
 * by byte as SPC-4 lays them out (independent of the parser under test). */
#ifndef LUNLAB_TEST_XCOPY_LIST_BUILDER_H
#define LUNLAB_TEST_XCOPY_LIST_BUILDER_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static inline void tb_put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static inline void tb_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}
static inline void tb_put64(uint8_t *p, uint64_t v) { tb_put32(p, (uint32_t)(v >> 32)); tb_put32(p + 4, (uint32_t)v); }

/* header: LIST IDENTIFIER, LIST ID USAGE (2 bits), tdll, sdll, inline */
static inline void tb_header(uint8_t *p, uint8_t list_id, uint8_t usage, uint16_t tdll, uint32_t sdll, uint32_t inl)
{
	memset(p, 0, 16);
	p[0] = list_id;
	p[1] = (uint8_t)((usage & 3) << 3);
	tb_put16(p + 2, tdll);
	tb_put32(p + 8, sdll);
	tb_put32(p + 12, inl);
}

/* 0xE4 identification descriptor: binary code set, LU association, NAA,
 * 16-byte designator, block device with disk block length bl */
static inline void tb_tgt(uint8_t *d, const uint8_t naa[16], uint32_t bl)
{
	memset(d, 0, 32);
	d[0] = 0xE4;
	d[4] = 0x01;
	d[5] = 0x03;
	d[7] = 16;
	memcpy(d + 8, naa, 16);
	d[29] = (uint8_t)(bl >> 16);
	d[30] = (uint8_t)(bl >> 8);
	d[31] = (uint8_t)bl;
}

/* 0x02 block -> block segment descriptor */
static inline void tb_seg(uint8_t *d, uint16_t si, uint16_t di, bool dc, uint16_t nblocks, uint64_t src_lba,
			  uint64_t dst_lba)
{
	memset(d, 0, 28);
	d[0] = 0x02;
	d[1] = dc ? 0x02 : 0x00;
	tb_put16(d + 2, 0x18);
	tb_put16(d + 4, si);
	tb_put16(d + 6, di);
	tb_put16(d + 10, nblocks);
	tb_put64(d + 12, src_lba);
	tb_put64(d + 20, dst_lba);
}

/* a test NAA IEEE Registered Extended designator, distinct per n */
static inline void tb_naa(uint8_t naa[16], uint8_t n)
{
	memset(naa, 0, 16);
	naa[0] = 0x60;
	naa[1] = 0x01;
	naa[2] = 0x40;
	naa[3] = 0x5c;
	naa[15] = n;
}

#endif
