/* odx_limits.h — what lunlab's token copy offload (ODX: POPULATE TOKEN,
 * WRITE USING TOKEN, RECEIVE ROD TOKEN INFORMATION, COPY OPERATION ABORT;
 * docs/xcopy.md "ODX") advertises and enforces.  As copy_limits.h for
 * EXTENDED COPY: one set of numbers feeds VPD 0x8F, the parameter-list
 * parsers and the commands, so they cannot disagree.  The per-array figures
 * come from the LU's profile (models/profile.h: odx, odx_max_ranges,
 * odx_max_token_bytes, odx_default_timeout_s, odx_max_timeout_s). */
#ifndef LUNLAB_ODX_LIMITS_H
#define LUNLAB_ODX_LIMITS_H

#include <stdbool.h>
#include <stdint.h>

#include "handlers/lunlab_dev.h"
#include "models/profile.h"

#define ODX_PT_HDR_LEN 16u         /* POPULATE TOKEN parameter list header */
#define ODX_WUT_HDR_LEN 536u       /* WRITE USING TOKEN header: ROD token included */
#define ODX_RANGE_LEN 16u          /* block device range descriptor */
#define ODX_TOKEN_LEN 512u         /* the ROD token lunlab issues and takes */
#define ODX_WUT_TOKEN_OFF 16u      /* where the ROD token sits in WUT's list */
/* The most ranges any profile may allow (the token carries them): also
 * what bounds a PARAMETER LIST LENGTH before the list is read. */
#define ODX_RANGES_HARD_MAX PROFILE_ODX_RANGES_MAX

#define ODX_ROD_TYPE_PIT_DEFAULT 0x00800000u /* point in time copy - default */
#define ODX_ROD_TYPE_ZERO 0xFFFF0001u        /* block device zero ROD token */

/* Live tokens per array: each holds references and map memory (the hold's
 * vol_hold_mem), so their number is bounded; POPULATE TOKEN beyond it is
 * 05/55/0C INSUFFICIENT RESOURCES TO CREATE ROD. */
#define ODX_LIVE_TOKENS_MAX 256u
/* Token operations running at once per LU (POPULATE TOKEN and WRITE USING
 * TOKEN), and completed ones whose RECEIVE ROD TOKEN INFORMATION is kept. */
#define ODX_CONCURRENT 16u
#define ODX_HELD_PER_DEV 32u

/* The LU's figures; all zero (offered false) when its profile has no ODX. */
struct odx_limits {
	bool offered;
	uint32_t max_ranges;
	uint64_t max_token_blocks;     /* odx_max_token_bytes in the LU's blocks */
	uint32_t default_timeout_s, max_timeout_s;
	uint64_t num_lbas;             /* ranges must lie inside the LU */
};

/* Fill *out for dev; returns out->offered. */
bool odx_limits_of(const struct lunlab_dev *dev, struct odx_limits *out);
/* Whether dev's array offers ODX (its profile says odx: true). */
bool odx_offered(const struct lunlab_dev *dev);

#endif
