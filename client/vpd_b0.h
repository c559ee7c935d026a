/* vpd_b0.h - the Block Limits VPD page (B0h, SBC-4 6.6.4): every limit calibrate sizes its
 * commands by.  A field the page is too short to hold is "not reported" (0). */
#ifndef LUNLAB_CLIENT_VPD_B0_H
#define LUNLAB_CLIENT_VPD_B0_H

#include <stddef.h>
#include <stdint.h>

struct b0_limits {
	uint32_t max_xfer_blocks;      /* MAXIMUM TRANSFER LENGTH */
	uint32_t opt_xfer_blocks;      /* OPTIMAL TRANSFER LENGTH */
	uint32_t max_unmap_blocks;     /* MAXIMUM UNMAP LBA COUNT */
	uint32_t max_unmap_descs;      /* MAXIMUM UNMAP BLOCK DESCRIPTOR COUNT */
	uint32_t unmap_granularity;    /* OPTIMAL UNMAP GRANULARITY */
	uint64_t max_write_same_blocks; /* MAXIMUM WRITE SAME LENGTH */
};

/* Decode page[len] (len: bytes received).  Returns 0, or -1 with a one-line error when it is
 * not page B0h or shorter than its 4-byte header. */
int vpd_b0_decode(const uint8_t *page, size_t len, struct b0_limits *out, char *err, size_t errlen);

#endif
