/* xcopy_builder.h - EXTENDED COPY (LID1) parameter lists the way ESXi sends them:
 * LIST ID USAGE 11b (no list id), one 0xE4 identification descriptor per LU, 0x02
 * block->block segments.  Also decodes a list back for --explain. */
#ifndef LUNLAB_CLIENT_XCOPY_BUILDER_H
#define LUNLAB_CLIENT_XCOPY_BUILDER_H

#include <stddef.h>
#include <stdint.h>

#define XCOPY_HDR_LEN 16
#define XCOPY_TGT_DESC_LEN 32
#define XCOPY_SEG_DESC_LEN 28
#define XCOPY_MAX_SEG_BLOCKS 65535u   /* NUMBER OF BLOCKS is 16 bits */

struct xcopy_lu {
	uint8_t naa[16];            /* binary NAA designator from VPD 0x83 */
	uint8_t naa_len;            /* 8, 12 or 16 (copied as is, zero padded to 20) */
	uint32_t block_size;
	uint8_t peripheral_type;    /* 0 = direct access block device */
};

struct xcopy_segment {
	uint16_t src_index, dst_index;
	uint16_t blocks;
	uint64_t src_lba, dst_lba;
};

/* Build a list with n_lu target descriptors and n_seg segments into buf[cap].
 * Returns the list length, or -1 when it does not fit / arguments are out of range. */
int xcopy_build(const struct xcopy_lu *lus, unsigned n_lu, const struct xcopy_segment *segs,
		unsigned n_seg, uint8_t *buf, size_t cap);

/* Fill a 16-byte EXTENDED COPY (LID1) CDB for a list of `list_len` bytes. */
void xcopy_cdb(uint8_t cdb[16], uint32_t list_len);

/* Decode a list into human-readable lines (for --explain). Returns 0 or -1 (err set). */
int xcopy_describe(const uint8_t *buf, size_t len, char *out, size_t outlen);

/* Find the binary NAA designator (association 0 = LU) in a VPD 0x83 page.
 * Returns 0 and fills lu->naa/naa_len, or -1 when there is none. */
int vpd83_find_naa(const uint8_t *page, size_t len, struct xcopy_lu *lu);

#endif
