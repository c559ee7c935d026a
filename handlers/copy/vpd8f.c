/* vpd8f.c — Third-party Copy VPD page (0x8F, SPC-4 7.8.17).
 *
 * A list of third-party copy descriptors, each [0..1] type, [2..3] length of
 * what follows, padded so every descriptor is a multiple of 4 bytes:
 *   0001h Supported Commands: 83h/SA 00h (EXTENDED COPY LID1),
 *         84h/SAs 00h 03h 04h (RECEIVE COPY RESULTS)
 *   0004h Parameter Data: max CSCD descriptors, max segment descriptors,
 *         max descriptor list length, max inline data length
 *   0008h Supported Descriptors: 02h (block -> block), E4h (identification)
 *   000Ch Supported CSCD IDs: empty (we take CSCD indexes 0..7FFh only)
 *   8001h General Copy Operations: total / identified concurrent copies,
 *         max segment length (bytes), data and inline granularity (log2)
 * The values are those of RECEIVE COPY RESULTS SA 3 (copy_limits.h).
 */
#include <string.h>

#include "handlers/copy/copy.h"
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"
#include "handlers/copy/copy_limits.h"
#include "handlers/copy/rcr_layout.h"

#define VPD8F_MAX 128

/* Start a descriptor at p; returns where its body starts. */
static uint8_t *desc_start(uint8_t *p, uint16_t type)
{
	put_be16(p, type);
	return p + 4;
}

/* Close the descriptor begun at start whose body ends at end: pad the body
 * to a multiple of 4 and fill in its length; returns the next descriptor. */
static uint8_t *desc_end(uint8_t *start, uint8_t *end)
{
	size_t body = (size_t)(end - (start + 4));
	size_t padded = (body + 3) & ~(size_t)3;

	memset(end, 0, padded - body);
	put_be16(start + 2, (uint16_t)padded);
	return start + 4 + padded;
}

static uint8_t *supported_commands(uint8_t *d)
{
	static const uint8_t cmds[] = {
		SCSI_OP_THIRD_PARTY_COPY_OUT, 1, SCSI_SA_EXTENDED_COPY_LID1,
		SCSI_OP_THIRD_PARTY_COPY_IN, 3, SCSI_SA_RECEIVE_COPY_STATUS_LID1,
		SCSI_SA_RECEIVE_COPY_OPERATING_PARAMETERS, SCSI_SA_RECEIVE_COPY_FAILURE_DETAILS_LID1,
	};
	uint8_t *b = desc_start(d, 0x0001);

	b[0] = sizeof(cmds);              /* COMMANDS SUPPORTED LIST LENGTH */
	memcpy(b + 1, cmds, sizeof(cmds));
	return desc_end(d, b + 1 + sizeof(cmds));
}

static uint8_t *parameter_data(uint8_t *d)
{
	uint8_t *b = desc_start(d, 0x0004);

	memset(b, 0, 28);
	put_be16(b + 4, XCOPY_MAX_TGT_DESC);
	put_be16(b + 6, XCOPY_MAX_SEG_DESC);
	put_be32(b + 8, XCOPY_MAX_DESC_LIST_LEN);
	put_be32(b + 12, XCOPY_MAX_INLINE_LEN);
	return desc_end(d, b + 28);
}

static uint8_t *supported_descriptors(uint8_t *d)
{
	uint8_t *b = desc_start(d, 0x0008);

	b[0] = 2;
	b[1] = XCOPY_DESC_TYPE_B2B;
	b[2] = XCOPY_DESC_TYPE_IDENT;
	return desc_end(d, b + 3);
}

static uint8_t *supported_cscd_ids(uint8_t *d)
{
	uint8_t *b = desc_start(d, 0x000C);

	put_be16(b, 0);                   /* no CSCD IDs above 7FFh */
	return desc_end(d, b + 2);
}

static uint8_t *general_copy_ops(uint8_t *d, uint32_t block_size)
{
	uint8_t *b = desc_start(d, 0x8001);

	memset(b, 0, 32);
	put_be32(b, XCOPY_TOTAL_CONCURRENT);
	put_be32(b + 4, XCOPY_MAX_IDENTIFIED);
	put_be32(b + 8, XCOPY_MAX_SEG_BYTES);
	b[12] = rcr_log2(block_size);     /* data segment granularity */
	b[13] = 0;                        /* inline data granularity: no inline data */
	return desc_end(d, b + 32);
}

size_t copy_vpd_8f(const struct lunlab_dev *dev, uint8_t *buf, size_t len)
{
	uint8_t page[VPD8F_MAX];
	uint8_t *p = page + 4;

	memset(page, 0, sizeof(page));
	page[0] = 0x00;                   /* peripheral qualifier 0, direct access block device */
	page[1] = 0x8F;
	p = supported_commands(p);
	p = parameter_data(p);
	p = supported_descriptors(p);
	p = supported_cscd_ids(p);
	p = general_copy_ops(p, dev->block_size);

	size_t total = (size_t)(p - page);
	put_be16(page + 2, (uint16_t)(total - 4));
	memcpy(buf, page, total < len ? total : len);
	return total;
}
