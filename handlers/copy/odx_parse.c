/* odx_parse.c — POPULATE TOKEN / WRITE USING TOKEN parameter lists
 * (odx_parse.h).  The two lists share their tail: a BLOCK DEVICE RANGE
 * DESCRIPTOR LENGTH and 16-byte range descriptors (LBA 8 bytes, NUMBER OF
 * LOGICAL BLOCKS 4, reserved 4); parse_ranges checks it for both, in the
 * order of docs/xcopy.md's table: lengths, count, each range inside the LU
 * and inside the token size, then overlaps. */
#include <string.h>

#include "handlers/copy/odx_parse.h"
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"

static bool bad(struct xcopy_err *e, uint16_t asc_ascq, bool sksv, size_t byte)
{
	e->key = SCSI_SK_ILLEGAL_REQUEST;
	e->asc = scsi_asc(asc_ascq);
	e->ascq = scsi_ascq(asc_ascq);
	e->sksv = sksv;
	e->field_byte = (uint16_t)byte;
	e->field_bit = -1;
	return false;
}

/* The list must hold its header and its data length must be consistent
 * with what arrived (SBC-3: DATA LENGTH counts the bytes after itself). */
static bool check_lengths(const uint8_t *p, size_t len, size_t hdr, size_t *usable, struct xcopy_err *e)
{
	if (len < hdr)
		return bad(e, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, true, ODX_OFF_DATA_LEN);
	size_t data_len = (size_t)get_be16(p) + 2;
	if (data_len < hdr || data_len > len)
		return bad(e, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, true, ODX_OFF_DATA_LEN);
	*usable = data_len;
	return true;
}

static bool overlap(const struct odx_range *a, const struct odx_range *b)
{
	if (!a->nblocks || !b->nblocks)
		return false;
	/* both ranges lie inside the LU (checked first), so no sum overflows */
	return a->lba < b->lba + b->nblocks && b->lba < a->lba + a->nblocks;
}

static bool parse_ranges(const uint8_t *p, size_t usable, size_t len_off, size_t first,
			 const struct odx_limits *lim, struct odx_ranges *out, struct xcopy_err *e)
{
	size_t rdl = get_be16(p + len_off);

	if (rdl == 0 || rdl % ODX_RANGE_LEN || first + rdl > usable)
		return bad(e, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, true, len_off);
	size_t n = rdl / ODX_RANGE_LEN;
	if (n > lim->max_ranges || n > ODX_RANGES_HARD_MAX)
		return bad(e, SCSI_ASC_TOO_MANY_SEGMENT_DESCRIPTORS, true, len_off);

	memset(out, 0, sizeof(*out));
	out->n = (unsigned)n;
	for (size_t i = 0; i < n; i++) {
		const uint8_t *d = p + first + i * ODX_RANGE_LEN;
		struct odx_range *r = &out->r[i];
		r->lba = get_be64(d);
		r->nblocks = get_be32(d + 8);
		if (r->lba > lim->num_lbas || r->nblocks > lim->num_lbas - r->lba)
			return bad(e, SCSI_ASC_LBA_OUT_OF_RANGE, false, 0);
		out->total_blocks += r->nblocks;
		if (out->total_blocks > lim->max_token_blocks)
			return bad(e, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, true, first + i * ODX_RANGE_LEN + 8);
	}
	/* SBC-3 leaves overlapping ranges to the copy manager: refused, with no
	 * field pointer (the fault is a pair of descriptors, not one field) */
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (overlap(&out->r[i], &out->r[j]))
				return bad(e, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, false, 0);
	return true;
}

bool odx_parse_pt(const uint8_t *p, size_t len, const struct odx_limits *lim, struct odx_pt_list *out,
		  struct xcopy_err *err)
{
	size_t usable;

	memset(out, 0, sizeof(*out));
	if (!check_lengths(p, len, ODX_PT_HDR_LEN, &usable, err))
		return false;
	out->immed = p[ODX_OFF_FLAGS] & 0x01;
	out->rtv = p[ODX_OFF_FLAGS] & 0x02;
	out->timeout_s = get_be32(p + ODX_PT_OFF_TIMEOUT);
	out->rod_type = get_be32(p + ODX_PT_OFF_ROD_TYPE);
	/* without RTV the ROD type field is ignored (SBC-3); with it, only the
	 * point-in-time type lunlab issues (0: the copy manager chooses) */
	if (out->rtv && out->rod_type != 0 && out->rod_type != ODX_ROD_TYPE_PIT_DEFAULT)
		return bad(err, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, true, ODX_PT_OFF_ROD_TYPE);
	if (out->timeout_s > lim->max_timeout_s)
		return bad(err, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, true, ODX_PT_OFF_TIMEOUT);
	return parse_ranges(p, usable, ODX_PT_OFF_RANGE_LEN, ODX_PT_HDR_LEN, lim, &out->ranges, err);
}

bool odx_parse_wut(const uint8_t *p, size_t len, const struct odx_limits *lim, struct odx_wut_list *out,
		   struct xcopy_err *err)
{
	size_t usable;

	memset(out, 0, sizeof(*out));
	if (!check_lengths(p, len, ODX_WUT_HDR_LEN, &usable, err))
		return false;
	out->immed = p[ODX_OFF_FLAGS] & 0x01;
	out->del_tkn = p[ODX_OFF_FLAGS] & 0x02;
	out->rod_offset = get_be64(p + ODX_WUT_OFF_ROD_OFFSET);
	out->token = p + ODX_WUT_TOKEN_OFF;
	return parse_ranges(p, usable, ODX_WUT_OFF_RANGE_LEN, ODX_WUT_HDR_LEN, lim, &out->ranges, err);
}
