/* xcopy_parse.c — EXTENDED COPY (LID1) parameter list checks, in LIO's order.
 *
 * When several things are wrong, the first failing check below wins.  The
 * order is Linux LIO's (drivers/target/target_core_xcopy.c), because that is
 * what initiators and test suites are used to:
 *   1. list shorter than the 16-byte header             -> 05/1A/00
 *   2. tdll + sdll > max descriptor list length         -> 05/1A/00
 *   3. inline data length != 0                          -> 05/26/00 @12
 *   4. list shorter than header + tdll + sdll           -> 05/1A/00
 *   5. LIST ID USAGE 01b (reserved)                     -> 05/26/00 @1 bit 4
 *      LIST ID USAGE 11b with LIST IDENTIFIER != 0      -> 05/26/00 @0
 *      (LIO checks neither; SPC-4 requires both; placed after LIO's header
 *      checks so LIO-derived expectations keep their answers)
 *   6. segment list (LIO parses it before the CSCD list):
 *      sdll % 28                                        -> 05/26/09 @8
 *      more than XCOPY_MAX_SEG_DESC                     -> 05/26/08 @8
 *      sdll == 0                                        -> 05/26/00 @8
 *      per descriptor, in list order:
 *        type != 0x02                                   -> 05/26/09 @desc+0
 *        DESCRIPTOR LENGTH != 0x18                      -> 05/26/00 @desc+2
 *        source / destination CSCD index > 0x7FF        -> 05/26/00 @desc+4 / +6
 *   7. CSCD list:
 *      tdll % 32                                        -> 05/26/07 @2
 *      more than XCOPY_MAX_TGT_DESC                     -> 05/26/06 @2
 *      tdll == 0                                        -> 05/26/00 @2
 *      per descriptor: type != 0xE4                     -> 05/26/07 @desc+0
 *        code set != 1 (binary)                         -> 05/26/00 @desc+4
 *        association != 0 (LU)                          -> 05/26/00 @desc+5 bit 5
 *        designator type != 3 (NAA)                     -> 05/26/00 @desc+5 bit 3
 *        designator length != 16                        -> 05/26/00 @desc+7
 *        NAA field != 6 (IEEE Registered Extended)      -> 05/26/00 @desc+8 bit 7
 * LU ID TYPE, NUL (obsolete in SPC-4), relative initiator port and PAD are
 * ignored, as SPC-4 copy managers do (libiscsi ValidTgtDescr expects GOOD).
 * Field pointers are byte offsets from the start of the parameter list. */
#include <string.h>

#include "lunlab/be.h"
#include "handlers/copy/xcopy_parse.h"
#include "lunlab/scsi_vocab.h"


static bool fail(struct xcopy_err *e, uint16_t asc_ascq, bool sksv, size_t byte, int bit)
{
	e->key = SCSI_SK_ILLEGAL_REQUEST;
	e->asc = scsi_asc(asc_ascq);
	e->ascq = scsi_ascq(asc_ascq);
	e->sksv = sksv;
	/* every offset we report is < 16 + XCOPY_MAX_DESC_LIST_LEN: fits 16 bits */
	e->field_byte = (uint16_t)byte;
	e->field_bit = bit;
	return false;
}

static bool len_error(struct xcopy_err *e)
{
	return fail(e, SCSI_ASC_PARAMETER_LIST_LENGTH_ERROR, false, 0, -1);
}

static bool invalid(struct xcopy_err *e, size_t byte, int bit)
{
	return fail(e, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, true, byte, bit);
}

/* Segment descriptors start at 16 + tdll; the caller checked that
 * 16 + tdll + sdll <= len. */
static bool parse_segments(const uint8_t *p, size_t start, uint32_t sdll, struct xcopy_list *out,
			   struct xcopy_err *e)
{
	if (sdll % XCOPY_SEG_DESC_LEN)
		return fail(e, SCSI_ASC_UNSUPPORTED_SEGMENT_DESCRIPTOR, true, 8, -1);
	if (sdll / XCOPY_SEG_DESC_LEN > XCOPY_MAX_SEG_DESC)
		return fail(e, SCSI_ASC_TOO_MANY_SEGMENT_DESCRIPTORS, true, 8, -1);
	if (sdll == 0)
		return invalid(e, 8, -1);

	out->nseg = sdll / XCOPY_SEG_DESC_LEN;
	for (unsigned i = 0; i < out->nseg; i++) {
		size_t o = start + (size_t)i * XCOPY_SEG_DESC_LEN;
		const uint8_t *d = p + o;
		struct xcopy_seg *s = &out->seg[i];

		if (d[0] != XCOPY_DESC_TYPE_B2B)
			return fail(e, SCSI_ASC_UNSUPPORTED_SEGMENT_DESCRIPTOR, true, o, -1);
		if (get_be16(d + 2) != XCOPY_SEG_B2B_DESC_LEN)
			return invalid(e, o + 2, -1);
		s->src_index = get_be16(d + 4);
		s->dst_index = get_be16(d + 6);
		if (s->src_index > XCOPY_CSCD_INDEX_MAX)
			return invalid(e, o + 4, -1);
		if (s->dst_index > XCOPY_CSCD_INDEX_MAX)
			return invalid(e, o + 6, -1);
		s->dc = (d[1] & 0x02) != 0;
		s->cat = (d[1] & 0x01) != 0;
		s->nblocks = get_be16(d + 10);
		s->src_lba = get_be64(d + 12);
		s->dst_lba = get_be64(d + 20);
		s->offset = (uint16_t)o;
	}
	return true;
}

static bool parse_ident_desc(const uint8_t *d, size_t o, struct xcopy_tgt *t, struct xcopy_err *e)
{
	if ((d[4] & 0x0f) != 0x01)
		return invalid(e, o + 4, 3);
	if (((d[5] >> 4) & 0x03) != 0)
		return invalid(e, o + 5, 5);
	if ((d[5] & 0x0f) != 0x03)
		return invalid(e, o + 5, 3);
	if (d[7] != 16)
		return invalid(e, o + 7, -1);
	if ((d[8] >> 4) != 0x6)
		return invalid(e, o + 8, 7);
	memcpy(t->naa, d + 8, 16);
	t->pdt = d[1] & 0x1f;
	t->block_len = get_be24(d + 29);
	t->offset = (uint16_t)o;
	return true;
}

static bool parse_targets(const uint8_t *p, uint32_t tdll, struct xcopy_list *out, struct xcopy_err *e)
{
	if (tdll % XCOPY_TGT_DESC_LEN)
		return fail(e, SCSI_ASC_UNSUPPORTED_TARGET_DESCRIPTOR, true, 2, -1);
	if (tdll / XCOPY_TGT_DESC_LEN > XCOPY_MAX_TGT_DESC)
		return fail(e, SCSI_ASC_TOO_MANY_TARGET_DESCRIPTORS, true, 2, -1);
	if (tdll == 0)
		return invalid(e, 2, -1);

	out->ntgt = tdll / XCOPY_TGT_DESC_LEN;
	for (unsigned i = 0; i < out->ntgt; i++) {
		size_t o = XCOPY_HDR_LEN + (size_t)i * XCOPY_TGT_DESC_LEN;

		if (p[o] != XCOPY_DESC_TYPE_IDENT)
			return fail(e, SCSI_ASC_UNSUPPORTED_TARGET_DESCRIPTOR, true, o, -1);
		if (!parse_ident_desc(p + o, o, &out->tgt[i], e))
			return false;
	}
	return true;
}

bool xcopy_parse(const uint8_t *p, size_t len, struct xcopy_list *out, struct xcopy_err *e)
{
	memset(out, 0, sizeof(*out));
	memset(e, 0, sizeof(*e));
	e->field_bit = -1;

	if (len < XCOPY_HDR_LEN)
		return len_error(e);

	/* header: every read below is inside the 16 bytes checked above */
	uint32_t tdll = get_be16(p + 2);
	uint32_t sdll = get_be32(p + 8);
	uint32_t inline_len = get_be32(p + 12);

	/* 64-bit sums: sdll and inline_len are 32-bit fields from the wire */
	if ((uint64_t)tdll + sdll > XCOPY_MAX_DESC_LIST_LEN)
		return len_error(e);
	if (inline_len != XCOPY_MAX_INLINE_LEN)
		return invalid(e, 12, -1);
	if ((uint64_t)len < (uint64_t)XCOPY_HDR_LEN + tdll + sdll)
		return len_error(e);

	out->list_id = p[0];
	out->usage = (enum xcopy_list_usage)((p[1] >> 3) & 0x03);
	out->str = (p[1] & 0x20) != 0;
	out->priority = p[1] & 0x07;
	if (out->usage == XCOPY_LIST_RESERVED)
		return invalid(e, 1, 4);
	if (out->usage == XCOPY_LIST_NONE && out->list_id != 0)
		return invalid(e, 0, -1);

	if (!parse_segments(p, XCOPY_HDR_LEN + tdll, sdll, out, e))
		return false;
	return parse_targets(p, tdll, out, e);
}
