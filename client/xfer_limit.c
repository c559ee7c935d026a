/* xfer_limit.c - MAXIMUM TRANSFER LENGTH from VPD B0h, and clamping transfer sizes to it. */
#include "client/xfer_limit.h"

#include <stdio.h>

#include "client/scsi_query.h"

int vpd_b0_max_transfer(const uint8_t *page, size_t len, uint32_t *max_blocks, char *err, size_t errlen)
{
	if (len < 4 || page[1] != 0xb0) {
		snprintf(err, errlen, "VPD B0h: %s", len < 4 ? "shorter than its 4-byte header" : "PAGE CODE is not B0h");
		return -1;
	}
	size_t plen = ((size_t)page[2] << 8 | page[3]) + 4;
	/* MAXIMUM TRANSFER LENGTH is bytes 8..11: both the PAGE LENGTH and what arrived must
	 * cover it (a short allocation or a truncated page must not be read past its end). */
	if (plen < 12 || len < 12) {
		snprintf(err, errlen, "VPD B0h: %zu bytes (PAGE LENGTH %zu) do not reach MAXIMUM TRANSFER LENGTH (bytes 8..11)",
			 len, plen - 4);
		return -1;
	}
	*max_blocks = (uint32_t)page[8] << 24 | (uint32_t)page[9] << 16 | (uint32_t)page[10] << 8 | page[11];
	return 0;
}

int vpd00_lists(const uint8_t *page, size_t len, uint8_t code)
{
	if (len < 4 || page[1] != 0x00)
		return 0;
	size_t n = ((size_t)page[2] << 8 | page[3]) + 4;
	if (n > len)
		n = len;
	for (size_t i = 4; i < n; i++)
		if (page[i] == code)
			return 1;
	return 0;
}

uint32_t xfer_clamp_blocks(uint64_t want, uint32_t max_blocks)
{
	if (max_blocks && want > max_blocks)
		want = max_blocks;
	if (want > UINT32_MAX)
		want = UINT32_MAX;
	return want ? (uint32_t)want : 1;
}

uint32_t xfer_clamp_bytes(uint64_t want_bytes, uint32_t block_size, uint32_t max_blocks)
{
	uint64_t b = xfer_clamp_blocks(want_bytes / block_size, max_blocks);
	/* iSCSI/libiscsi take 32-bit byte counts: stay below 4 GiB */
	while (b * block_size > UINT32_MAX)
		b /= 2;
	return (uint32_t)(b * block_size);
}

int xfer_limit_query(struct bench_conn *c, char *err, size_t errlen)
{
	uint8_t buf[256];
	c->max_xfer_blocks = 0;
	int n = q_inquiry(c, 0x00, buf, sizeof(buf));
	if (n <= 0 || !vpd00_lists(buf, (size_t)n, 0xb0))
		return 0;            /* no B0h: the LU states no limit */
	n = q_inquiry(c, 0xb0, buf, 64);
	if (n < 0)
		return 0;            /* listed but refused: treat as no limit, as hosts do */
	return vpd_b0_max_transfer(buf, (size_t)n, &c->max_xfer_blocks, err, errlen);
}
