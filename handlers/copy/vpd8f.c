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
 *
 * When the LU's profile offers ODX (odx_limits.h), the page also says so:
 *   0001h lists 83h SAs 10h 11h 1Ch and 84h SA 07h too
 *   0000h Block Device ROD Token Limits (SBC-3): maximum range descriptors,
 *         maximum and default inactivity timeout, maximum token transfer
 *         size and optimal transfer count (blocks)
 *   0106h ROD Token Features: no remote tokens, token lifetimes, and the
 *         block device's ROD features (optimal bytes to / from a token)
 *   0108h Supported ROD Types: 00800000h (point in time copy - default)
 *         token in and out, FFFF0001h (block device zero) token in
 *   8001h counts the token operations among the concurrent copies
 * Without ODX none of these appear: "no ROD tokens".
 */
#include <string.h>

#include "handlers/copy/copy.h"
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"
#include "handlers/copy/copy_limits.h"
#include "handlers/copy/odx_limits.h"
#include "handlers/copy/rcr_layout.h"

#define VPD8F_MAX 512

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

static uint8_t *supported_commands(uint8_t *d, bool odx)
{
	static const uint8_t cmds[] = {
		SCSI_OP_THIRD_PARTY_COPY_OUT, 1, SCSI_SA_EXTENDED_COPY_LID1,
		SCSI_OP_THIRD_PARTY_COPY_IN, 3, SCSI_SA_RECEIVE_COPY_STATUS_LID1,
		SCSI_SA_RECEIVE_COPY_OPERATING_PARAMETERS, SCSI_SA_RECEIVE_COPY_FAILURE_DETAILS_LID1,
	};
	static const uint8_t cmds_odx[] = {
		SCSI_OP_THIRD_PARTY_COPY_OUT, 4, SCSI_SA_EXTENDED_COPY_LID1, SCSI_SA_POPULATE_TOKEN,
		SCSI_SA_WRITE_USING_TOKEN, SCSI_SA_COPY_OPERATION_ABORT,
		SCSI_OP_THIRD_PARTY_COPY_IN, 4, SCSI_SA_RECEIVE_COPY_STATUS_LID1,
		SCSI_SA_RECEIVE_COPY_OPERATING_PARAMETERS, SCSI_SA_RECEIVE_COPY_FAILURE_DETAILS_LID1,
		SCSI_SA_RECEIVE_ROD_TOKEN_INFORMATION,
	};
	const uint8_t *list = odx ? cmds_odx : cmds;
	size_t n = odx ? sizeof(cmds_odx) : sizeof(cmds);
	uint8_t *b = desc_start(d, 0x0001);

	b[0] = (uint8_t)n;                /* COMMANDS SUPPORTED LIST LENGTH */
	memcpy(b + 1, list, n);
	return desc_end(d, b + 1 + n);
}

/* The optimal transfer count: one 64 MiB piece of a WRITE USING TOKEN
 * (odx_exec.c), capped by the maximum. */
static uint64_t optimal_blocks(const struct odx_limits *l, uint32_t block_size)
{
	uint64_t opt = (64ull << 20) / block_size;
	return opt < l->max_token_blocks ? opt : l->max_token_blocks;
}

static uint8_t *rod_token_limits(uint8_t *d, const struct odx_limits *l, uint32_t block_size)
{
	uint8_t *b = desc_start(d, 0x0000);

	memset(b, 0, 32);
	put_be16(b + 6, (uint16_t)l->max_ranges);       /* MAXIMUM RANGE DESCRIPTORS */
	put_be32(b + 8, l->max_timeout_s);              /* MAXIMUM INACTIVITY TIMEOUT */
	put_be32(b + 12, l->default_timeout_s);         /* DEFAULT INACTIVITY TIMEOUT */
	put_be64(b + 16, l->max_token_blocks);          /* MAXIMUM TOKEN TRANSFER SIZE */
	put_be64(b + 24, optimal_blocks(l, block_size)); /* OPTIMAL TRANSFER COUNT */
	return desc_end(d, b + 32);
}

static uint8_t *rod_token_features(uint8_t *d, const struct odx_limits *l, uint32_t block_size)
{
	uint8_t *b = desc_start(d, 0x0106);

	memset(b, 0, 44 + 48);
	b[0] = 0;                                       /* REMOTE TOKENS: none */
	put_be32(b + 12, 1);                            /* MINIMUM TOKEN LIFETIME (s) */
	put_be32(b + 16, l->max_timeout_s);             /* MAXIMUM TOKEN LIFETIME (s) */
	put_be32(b + 20, l->max_timeout_s);             /* MAXIMUM TOKEN INACTIVITY TIMEOUT */
	put_be16(b + 42, 48);                           /* ROD DEVICE TYPE SPECIFIC FEATURES LENGTH */
	uint8_t *f = b + 44;                            /* block device ROD token features */
	f[0] = 0x00;                                    /* peripheral device type: block */
	put_be16(f + 2, 0x002C);
	put_be16(f + 6, 1);                             /* OPTIMAL BLOCK ROD LENGTH GRANULARITY */
	put_be64(f + 8, l->max_token_blocks * block_size);       /* MAXIMUM BYTES IN BLOCK ROD */
	put_be64(f + 16, optimal_blocks(l, block_size) * block_size); /* OPTIMAL BYTES IN BLOCK ROD TRANSFER */
	put_be64(f + 24, optimal_blocks(l, block_size) * block_size); /* ... TO TOKEN PER SEGMENT */
	put_be64(f + 32, optimal_blocks(l, block_size) * block_size); /* ... FROM TOKEN PER SEGMENT */
	return desc_end(d, b + 44 + 48);
}

static uint8_t *supported_rod_types(uint8_t *d)
{
	uint8_t *b = desc_start(d, 0x0108);

	memset(b, 0, 4 + 2 * 64);
	put_be16(b + 2, 2 * 64);                        /* ROD TYPE DESCRIPTORS LENGTH */
	put_be32(b + 4, ODX_ROD_TYPE_PIT_DEFAULT);
	b[4 + 4] = 0x02 | 0x01;                         /* TOKEN_IN, TOKEN_OUT */
	put_be32(b + 4 + 64, ODX_ROD_TYPE_ZERO);
	b[4 + 64 + 4] = 0x02;                           /* TOKEN_IN only: never issued */
	return desc_end(d, b + 4 + 2 * 64);
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

static uint8_t *general_copy_ops(uint8_t *d, uint32_t block_size, bool odx)
{
	uint8_t *b = desc_start(d, 0x8001);

	memset(b, 0, 32);
	/* token operations have their own ODX_CONCURRENT slots, all identified */
	put_be32(b, XCOPY_TOTAL_CONCURRENT + (odx ? ODX_CONCURRENT : 0));
	put_be32(b + 4, XCOPY_MAX_IDENTIFIED + (odx ? ODX_CONCURRENT : 0));
	put_be32(b + 8, XCOPY_MAX_SEG_BYTES);
	b[12] = rcr_log2(block_size);     /* data segment granularity */
	b[13] = 0;                        /* inline data granularity: no inline data */
	return desc_end(d, b + 32);
}

size_t copy_vpd_8f(const struct lunlab_dev *dev, uint8_t *buf, size_t len)
{
	uint8_t page[VPD8F_MAX];
	uint8_t *p = page + 4;
	struct odx_limits odx;
	bool has_odx = odx_limits_of(dev, &odx);

	memset(page, 0, sizeof(page));
	page[0] = 0x00;                   /* peripheral qualifier 0, direct access block device */
	page[1] = 0x8F;
	p = supported_commands(p, has_odx);
	p = parameter_data(p);
	p = supported_descriptors(p);
	p = supported_cscd_ids(p);
	if (has_odx) {
		p = rod_token_limits(p, &odx, dev->block_size);
		p = rod_token_features(p, &odx, dev->block_size);
		p = supported_rod_types(p);
	}
	p = general_copy_ops(p, dev->block_size, has_odx);

	size_t total = (size_t)(p - page);
	put_be16(page + 2, (uint16_t)(total - 4));
	memcpy(buf, page, total < len ? total : len);
	return total;
}
