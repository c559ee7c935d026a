/* odx_parse.h — the parameter lists of POPULATE TOKEN and WRITE USING TOKEN
 * (SBC-3 5.x), checked against an LU's ODX limits.
 *
 * Pure: no device, no sense buffer, no allocation (a libFuzzer target drives
 * it, tests/fuzz).  Every field is bounds-checked before it is read; a bad
 * list becomes the exact sense of docs/xcopy.md "Parameter lists" (struct
 * xcopy_err, field pointer into the parameter list).  Whether a ROD token
 * is genuine is odx_token.h's business: the parser only hands it over. */
#ifndef LUNLAB_ODX_PARSE_H
#define LUNLAB_ODX_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "handlers/copy/odx_limits.h"
#include "handlers/copy/xcopy_parse.h"

/* Byte offsets named by field pointers. */
#define ODX_OFF_DATA_LEN 0u
#define ODX_OFF_FLAGS 2u
#define ODX_PT_OFF_TIMEOUT 4u
#define ODX_PT_OFF_ROD_TYPE 8u
#define ODX_PT_OFF_RANGE_LEN 14u
#define ODX_WUT_OFF_ROD_OFFSET 8u
#define ODX_WUT_OFF_RANGE_LEN 534u

struct odx_range {
	uint64_t lba;
	uint32_t nblocks;
};

struct odx_ranges {
	unsigned n;
	struct odx_range r[ODX_RANGES_HARD_MAX];
	uint64_t total_blocks;
};

struct odx_pt_list {
	bool immed;
	bool rtv;                  /* a ROD type was given */
	uint32_t timeout_s;        /* as sent; 0 = the default */
	uint32_t rod_type;         /* as sent (only read with rtv) */
	struct odx_ranges ranges;
};

struct odx_wut_list {
	bool immed;
	bool del_tkn;              /* the token dies after this write */
	uint64_t rod_offset;       /* OFFSET INTO ROD, in the destination's blocks */
	const uint8_t *token;      /* ODX_TOKEN_LEN bytes inside the caller's list */
	struct odx_ranges ranges;
};

/* Parse len bytes at p (the PARAMETER LIST LENGTH the initiator sent) for an
 * LU of limits *lim.  True with *out filled, or false with *err. */
bool odx_parse_pt(const uint8_t *p, size_t len, const struct odx_limits *lim, struct odx_pt_list *out,
		  struct xcopy_err *err);
bool odx_parse_wut(const uint8_t *p, size_t len, const struct odx_limits *lim, struct odx_wut_list *out,
		   struct xcopy_err *err);

#endif
