/* xfer_limit.h - the LU's MAXIMUM TRANSFER LENGTH (VPD page B0h) and splitting READ/WRITE
 * sizes to it.  Linux LIO with tcmu-runner, for one, reports a small limit and refuses a
 * larger WRITE(16) with ILLEGAL REQUEST / INVALID FIELD IN CDB (05/24/00), as SBC allows:
 * a host must split its I/O to the limit, so lunlab-bench does for every READ/WRITE it
 * chooses the size of (template and image writes, the software datamover, --verify). */
#ifndef LUNLAB_CLIENT_XFER_LIMIT_H
#define LUNLAB_CLIENT_XFER_LIMIT_H

#include <stddef.h>
#include <stdint.h>

#include "client/conn.h"

/* Decode MAXIMUM TRANSFER LENGTH (bytes 8..11, in logical blocks; 0 = no limit reported)
 * from a VPD B0h page of `len` bytes received.  Returns 0, or -1 with a one-line error naming
 * the field when the page is not B0h or too short to hold the field. */
int vpd_b0_max_transfer(const uint8_t *page, size_t len, uint32_t *max_blocks, char *err, size_t errlen);

/* Does VPD page 00h (`len` bytes) list page `code`? */
int vpd00_lists(const uint8_t *page, size_t len, uint8_t code);

/* Blocks per command for a transfer of `want` blocks under a limit of `max_blocks`
 * (0 = none): min(want, max), never 0. */
uint32_t xfer_clamp_blocks(uint64_t want, uint32_t max_blocks);

/* Bytes per command for `want_bytes` (a multiple of block_size) under the limit. */
uint32_t xfer_clamp_bytes(uint64_t want_bytes, uint32_t block_size, uint32_t max_blocks);

/* Ask the LU (VPD 00h, then B0h when listed) and store the limit in c->max_xfer_blocks
 * (0 when the LU reports none or has no B0h page).  Returns 0, or -1 with an error when the
 * LU lists B0h but the page is malformed. */
int xfer_limit_query(struct bench_conn *c, char *err, size_t errlen);

#endif
