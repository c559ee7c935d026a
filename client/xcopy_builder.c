/* xcopy_builder.c - build and decode EXTENDED COPY (LID1) parameter lists (SPC-4 6.4). */
#include "client/xcopy_builder.h"

#include <stdio.h>
#include <string.h>
#include "lunlab/be.h"
#include "lunlab/cdb_decode.h"
#include "lunlab/scsi_vocab.h"

int xcopy_build(const struct xcopy_lu *lus, unsigned n_lu, const struct xcopy_segment *segs,
		unsigned n_seg, uint8_t *buf, size_t cap)
{
	if (n_lu == 0 || n_seg == 0 || n_lu > 0x7ff)
		return -1;
	size_t tdll = (size_t)n_lu * XCOPY_TGT_DESC_LEN;
	size_t sdll = (size_t)n_seg * XCOPY_SEG_DESC_LEN;
	size_t total = XCOPY_HDR_LEN + tdll + sdll;
	if (total > cap || tdll > 0xffff)
		return -1;
	memset(buf, 0, total);
	buf[0] = 0;                         /* LIST IDENTIFIER: unused with usage 11b */
	buf[1] = 0x3 << 3;                  /* LIST ID USAGE 11b: no list id, as ESXi sends */
	put_be16(buf + 2, (uint16_t)tdll);
	put_be32(buf + 8, (uint32_t)sdll);
	put_be32(buf + 12, 0);              /* no inline data */
	uint8_t *d = buf + XCOPY_HDR_LEN;
	for (unsigned i = 0; i < n_lu; i++, d += XCOPY_TGT_DESC_LEN) {
		const struct xcopy_lu *lu = &lus[i];
		if (lu->naa_len == 0 || lu->naa_len > 16 || lu->block_size == 0 || lu->block_size > 0xffffff)
			return -1;
		d[0] = 0xE4;                        /* identification descriptor CSCD */
		d[1] = lu->peripheral_type & 0x1f;  /* LU ID TYPE 00b, NUL 0 */
		d[4] = 0x01;                        /* code set: binary */
		d[5] = 0x03;                        /* association LU (00b), designator type NAA */
		d[7] = lu->naa_len;
		memcpy(d + 8, lu->naa, lu->naa_len);
		d[29] = (uint8_t)(lu->block_size >> 16);
		d[30] = (uint8_t)(lu->block_size >> 8);
		d[31] = (uint8_t)lu->block_size;
	}
	for (unsigned i = 0; i < n_seg; i++, d += XCOPY_SEG_DESC_LEN) {
		const struct xcopy_segment *s = &segs[i];
		if (s->src_index >= n_lu || s->dst_index >= n_lu || s->blocks == 0)
			return -1;
		d[0] = 0x02;                        /* block device -> block device */
		d[1] = 0;                           /* DC 0: NUMBER OF BLOCKS counts source blocks */
		put_be16(d + 2, 0x0018);
		put_be16(d + 4, s->src_index);
		put_be16(d + 6, s->dst_index);
		put_be16(d + 10, s->blocks);
		put_be64(d + 12, s->src_lba);
		put_be64(d + 20, s->dst_lba);
	}
	return (int)total;
}

void xcopy_cdb(uint8_t cdb[16], uint32_t list_len)
{
	/* EXTENDED COPY(LID1): PARAMETER LIST LENGTH where the layout table puts it */
	(void)cdb_build(cdb, 16, SCSI_OP_THIRD_PARTY_COPY_OUT, SCSI_SA_EXTENDED_COPY_LID1, 0, list_len);
}

#define APPEND(...) do { \
	int n_ = snprintf(out + used, outlen > used ? outlen - used : 0, __VA_ARGS__); \
	if (n_ > 0) used += (size_t)n_; } while (0)

int xcopy_describe(const uint8_t *buf, size_t len, char *out, size_t outlen)
{
	size_t used = 0;
	if (outlen)
		out[0] = 0;
	if (len < XCOPY_HDR_LEN) {
		APPEND("parameter list: %zu bytes, shorter than the 16-byte header\n", len);
		return -1;
	}
	unsigned tdll = get_be16(buf + 2);
	uint32_t sdll = get_be32(buf + 8);
	if ((size_t)XCOPY_HDR_LEN + tdll + sdll > len) {
		APPEND("parameter list: descriptor lengths %u + %u exceed %zu bytes\n", tdll, sdll, len);
		return -1;
	}
	APPEND("  header: list id %u, LIST ID USAGE %u%ub, %u target descriptor bytes, %u segment bytes\n",
	       buf[0], (buf[1] >> 4) & 1, (buf[1] >> 3) & 1, tdll, sdll);
	const uint8_t *d = buf + XCOPY_HDR_LEN;
	for (unsigned i = 0; i + XCOPY_TGT_DESC_LEN <= tdll; i += XCOPY_TGT_DESC_LEN, d += XCOPY_TGT_DESC_LEN) {
		APPEND("  CSCD %u: type 0x%02X, NAA ", i / XCOPY_TGT_DESC_LEN, d[0]);
		unsigned dl = d[7] > 20 ? 20 : d[7];
		for (unsigned k = 0; k < dl; k++)
			APPEND("%02x", d[8 + k]);
		APPEND(", block %u\n", ((unsigned)d[29] << 16) | ((unsigned)d[30] << 8) | d[31]);
	}
	d = buf + XCOPY_HDR_LEN + tdll;
	for (uint32_t i = 0; i + XCOPY_SEG_DESC_LEN <= sdll; i += XCOPY_SEG_DESC_LEN, d += XCOPY_SEG_DESC_LEN) {
		APPEND("  segment type 0x%02X: CSCD %u LBA %llu -> CSCD %u LBA %llu, %u blocks\n",
		       d[0], get_be16(d + 4), (unsigned long long)get_be64(d + 12), get_be16(d + 6),
		       (unsigned long long)get_be64(d + 20), get_be16(d + 10));
	}
	return 0;
}

int vpd83_find_naa(const uint8_t *page, size_t len, struct xcopy_lu *lu)
{
	if (!page || len < 4 || page[1] != 0x83)
		return -1;
	size_t end = 4 + (((size_t)page[2] << 8) | page[3]);
	if (end > len)
		end = len;
	size_t off = 4;
	int best = -1;
	while (off + 4 <= end) {
		uint8_t codeset = page[off] & 0x0f;
		uint8_t assoc = (page[off + 1] >> 4) & 3;
		uint8_t type = page[off + 1] & 0x0f;
		uint8_t dlen = page[off + 3];
		if (off + 4 + dlen > end)
			break;
		/* Prefer the longest binary NAA (16-byte IEEE Registered Extended is what ESXi uses). */
		if (codeset == 1 && assoc == 0 && type == 3 && dlen > 0 && dlen <= 16 && dlen > best) {
			memcpy(lu->naa, page + off + 4, dlen);
			lu->naa_len = dlen;
			best = dlen;
		}
		off += 4u + dlen;
	}
	return best > 0 ? 0 : -1;
}
