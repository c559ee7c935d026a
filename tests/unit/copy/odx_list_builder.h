/* odx_list_builder.h — POPULATE TOKEN and WRITE USING TOKEN parameter lists
 * and CDBs in tests, byte by byte as SBC-3 lays them out (independent of
 * the parser under test).  Uses tb_put* of xcopy_list_builder.h. */
#ifndef LUNLAB_TEST_ODX_LIST_BUILDER_H
#define LUNLAB_TEST_ODX_LIST_BUILDER_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "tests/unit/copy/xcopy_list_builder.h"

/* POPULATE TOKEN list of n ranges (lba[i], nb[i]); returns its length. */
static inline size_t ob_pt(uint8_t *p, bool immed, bool rtv, uint32_t timeout, uint32_t rod_type, unsigned n,
			   const uint64_t *lba, const uint32_t *nb)
{
	size_t len = 16 + 16 * (size_t)n;

	memset(p, 0, len);
	tb_put16(p, (uint16_t)(len - 2));
	p[2] = (uint8_t)((rtv ? 0x02 : 0) | (immed ? 0x01 : 0));
	tb_put32(p + 4, timeout);
	tb_put32(p + 8, rod_type);
	tb_put16(p + 14, (uint16_t)(16 * n));
	for (unsigned i = 0; i < n; i++) {
		tb_put64(p + 16 + 16 * i, lba[i]);
		tb_put32(p + 16 + 16 * i + 8, nb[i]);
	}
	return len;
}

/* WRITE USING TOKEN list: token (512 bytes), offset into ROD, n ranges. */
static inline size_t ob_wut(uint8_t *p, bool immed, bool del_tkn, uint64_t rod_off, const uint8_t *token,
			    unsigned n, const uint64_t *lba, const uint32_t *nb)
{
	size_t len = 536 + 16 * (size_t)n;

	memset(p, 0, len);
	tb_put16(p, (uint16_t)(len - 2));
	p[2] = (uint8_t)((del_tkn ? 0x02 : 0) | (immed ? 0x01 : 0));
	tb_put64(p + 8, rod_off);
	memcpy(p + 16, token, 512);
	tb_put16(p + 534, (uint16_t)(16 * n));
	for (unsigned i = 0; i < n; i++) {
		tb_put64(p + 536 + 16 * i, lba[i]);
		tb_put32(p + 536 + 16 * i + 8, nb[i]);
	}
	return len;
}

/* THIRD-PARTY COPY OUT / IN CDBs */
static inline void ob_cdb_out(uint8_t *c, uint8_t sa, uint32_t list_id, uint32_t pll)
{
	memset(c, 0, 16);
	c[0] = 0x83;
	c[1] = sa;
	tb_put32(c + 6, list_id);
	tb_put32(c + 10, pll);
}

static inline void ob_cdb_rrti(uint8_t *c, uint32_t list_id, uint32_t alloc)
{
	memset(c, 0, 16);
	c[0] = 0x84;
	c[1] = 0x07;
	tb_put32(c + 2, list_id);
	tb_put32(c + 10, alloc);
}

static inline void ob_cdb_abort(uint8_t *c, uint32_t list_id)
{
	memset(c, 0, 16);
	c[0] = 0x83;
	c[1] = 0x1c;
	tb_put32(c + 2, list_id);
}

#endif
