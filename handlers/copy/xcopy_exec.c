/* xcopy_exec.c — EXTENDED COPY (LID1): check the list, find the CSCDs, then
 * copy segment by segment as metadata copies inside the array.
 *
 * Every segment is validated (CSCD index, LU found in the same array, block
 * sizes, ranges) before the first one runs, so a bad list aborts before any
 * block moved: the destination is never left half-written by a list that
 * could never have completed.  Only a failure of the store itself (e.g. out
 * of memory) can stop a copy part way; the sense then names the segment.
 *
 * Sense (docs/xcopy.md has the whole table):
 *  - parameter list errors: xcopy_parse.c, ILLEGAL REQUEST + field pointer
 *  - CSCD index not in the list, designator naming no LU of this array,
 *    range past the end of an LU, store failure: COPY ABORTED 0D/02
 *    (COPY TARGET DEVICE NOT REACHABLE), as LIO; libiscsi expects 0A here
 *  - CSCD not a block device, or DISK BLOCK LENGTH not the LU's: 0A/0D/03
 *  - byte count not a whole number of blocks of both LUs: 0A/26/0A
 *  - segment longer than the advertised maximum: 05/26/00 @NUMBER OF BLOCKS
 *  - destination LU write-protected (readonly=1: 07/27/00; SWP: 07/27/02),
 *    as a WRITE to it would be; a write-protected source is fine
 *  - list id its own I_T nexus still runs, by an EXTENDED COPY or a token
 *    command (only when the host tells us the nexus, copy_nexus.h):
 *    05/00/16 OPERATION IN PROGRESS
 *  - more than XCOPY_TOTAL_CONCURRENT copies running: TASK SET FULL, which
 *    hosts retry, rather than a CHECK CONDITION that would make ESXi mark
 *    the primitive unsupported and fall back to host copies for good.
 *  - a fault rule of lunlab-target breaks the copy off before segment N
 *    (copy_fault.h): COPY ABORTED 0D/02 naming segment N, or the rule's
 *    sense; segments 0..N-1 are copied and RECEIVE COPY RESULTS says so. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "handlers/copy/copy.h"
#include "lunlab/be.h"
#include "lunlab/cdb_decode.h"
#include "lunlab/scsi_vocab.h"
#include "handlers/copy/copy_fault.h"
#include "handlers/copy/copy_iov.h"
#include "handlers/copy/copy_registry.h"
#include "handlers/copy/copy_nexus.h"
#include "handlers/copy/copy_sense.h"
#include "handlers/copy/xcopy_parse.h"
#include "handlers/scsi/scsi.h"
#include "handlers/scsi/sense.h"

/* Offsets inside a 0x02 segment descriptor (segment pointer, SD = 1). */
#define SEG_SRC_INDEX 4
#define SEG_DST_INDEX 6
#define SEG_NBLOCKS 10
#define SEG_SRC_LBA 12
#define SEG_DST_LBA 20

/* One segment, resolved to LUs and byte offsets. */
struct seg_plan {
	struct lunlab_dev *src, *dst;
	uint64_t src_off, dst_off, bytes;
};

struct xcopy_run {
	struct scsi_cmd *cmd;
	const struct xcopy_list *list;
	struct lunlab_dev *cscd[XCOPY_MAX_TGT_DESC];
	struct seg_plan plan[XCOPY_MAX_SEG_DESC];
};

static struct lunlab_dev *resolve(struct xcopy_run *r, unsigned idx)
{
	if (!r->cscd[idx]) {
		struct lunlab_dev *self = r->cmd->dev;
		const uint8_t *naa = r->list->tgt[idx].naa;

		/* the LU that received the command needs no registry lookup */
		if (memcmp(naa, self->naa, sizeof(self->naa)) == 0)
			r->cscd[idx] = self;
		else
			r->cscd[idx] = lunlab_dev_find_by_naa(self->array, naa);
	}
	return r->cscd[idx];
}

/* Check that CSCD idx can take part in a block -> block segment. */
static int check_cscd(struct xcopy_run *r, uint16_t segno, unsigned idx, int field, struct lunlab_dev **out)
{
	if (idx >= r->list->ntgt)
		return copy_sense_aborted(r->cmd, SCSI_ASC_COPY_TARGET_NOT_REACHABLE, segno, field);
	struct lunlab_dev *d = resolve(r, idx);
	if (!d)
		return copy_sense_aborted(r->cmd, SCSI_ASC_COPY_TARGET_NOT_REACHABLE, segno, field);
	const struct xcopy_tgt *t = &r->list->tgt[idx];
	/* a 0x02 segment needs block devices whose block length we agree on:
	 * NUMBER OF BLOCKS is counted in the descriptor's DISK BLOCK LENGTH */
	if (t->pdt != 0 || (t->block_len != 0 && t->block_len != d->block_size))
		return copy_sense_aborted(r->cmd, SCSI_ASC_INCORRECT_COPY_TARGET_TYPE, segno, field);
	*out = d;
	return TCMU_STS_OK;
}

static bool range_ok(const struct lunlab_dev *d, uint64_t lba, uint64_t bytes)
{
	uint64_t blocks = bytes / d->block_size;

	return lba <= d->num_lbas && blocks <= d->num_lbas - lba;
}

static int plan_segment(struct xcopy_run *r, uint16_t segno)
{
	const struct xcopy_seg *s = &r->list->seg[segno];
	struct seg_plan *p = &r->plan[segno];
	int ret;

	ret = check_cscd(r, segno, s->src_index, SEG_SRC_INDEX, &p->src);
	if (ret != TCMU_STS_OK)
		return ret;
	ret = check_cscd(r, segno, s->dst_index, SEG_DST_INDEX, &p->dst);
	if (ret != TCMU_STS_OK)
		return ret;

	/* SPC-4 block -> block: NUMBER OF BLOCKS counts source blocks, or
	 * destination blocks when DC is set */
	uint64_t unit = s->dc ? p->dst->block_size : p->src->block_size;
	p->bytes = (uint64_t)s->nblocks * unit;
	if (p->bytes == 0)
		return TCMU_STS_OK;   /* zero blocks: nothing to transfer, not an error */
	if (p->bytes % p->src->block_size || p->bytes % p->dst->block_size)
		return copy_sense_aborted(r->cmd, SCSI_ASC_UNEXPECTED_INEXACT_SEGMENT, segno, SEG_NBLOCKS);
	if (p->bytes > XCOPY_MAX_SEG_BYTES)
		return sense_invalid_field(r->cmd, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, false, (uint16_t)(s->offset + SEG_NBLOCKS),
					   -1);
	if (!range_ok(p->src, s->src_lba, p->bytes))
		return copy_sense_aborted(r->cmd, SCSI_ASC_COPY_TARGET_NOT_REACHABLE, segno, SEG_SRC_LBA);
	if (!range_ok(p->dst, s->dst_lba, p->bytes))
		return copy_sense_aborted(r->cmd, SCSI_ASC_COPY_TARGET_NOT_REACHABLE, segno, SEG_DST_LBA);
	if (scsi_lu(p->dst)->readonly)
		return sense_set(r->cmd, SCSI_SK_DATA_PROTECT, SCSI_ASC_WRITE_PROTECTED);
	if (atomic_load(&scsi_lu(p->dst)->swp))
		return sense_set(r->cmd, SCSI_SK_DATA_PROTECT, SCSI_ASC_SOFTWARE_WRITE_PROTECTED);
	p->src_off = s->src_lba * p->src->block_size;
	p->dst_off = s->dst_lba * p->dst->block_size;
	return TCMU_STS_OK;
}

/* A fault rule stops the copy before segment i: the sense it asked for,
 * COPY ABORTED with the segment number by default. */
static int fault_break(struct xcopy_run *r, unsigned i, const uint8_t sense[3])
{
	tcmu_dev_info(r->cmd->dev->tdev, "EXTENDED COPY broken off before segment %u of %u by a fault rule", i,
		      r->list->nseg);
	if (sense[0] == 0 || sense[0] == SCSI_SK_COPY_ABORTED)
		return copy_sense_aborted(r->cmd, sense[0] ? scsi_asc_pair(sense[1], sense[2])
						   : SCSI_ASC_COPY_TARGET_NOT_REACHABLE, (uint16_t)i, -1);
	return sense_set(r->cmd, sense[0], scsi_asc_pair(sense[1], sense[2]));
}

static int run_segments(struct xcopy_run *r, int slot, struct copy_status *st)
{
	uint32_t stop_at = UINT32_MAX;
	uint8_t fault_sense[3] = { 0, 0, 0 };

	if (!copy_cmd_fault(r->cmd, &stop_at, fault_sense))
		stop_at = UINT32_MAX;
	for (unsigned i = 0; i < r->list->nseg; i++) {
		const struct seg_plan *p = &r->plan[i];
		uint64_t moved = 0;

		if (i >= stop_at)
			return fault_break(r, i, fault_sense);
		if (p->bytes) {
			int rc = volume_copy(p->dst->vol, p->dst_off, p->src->vol, p->src_off, p->bytes, &moved);
			if (rc == -ENOSPC) {
				/* the array is full: as for WRITE (SBC-4 4.7.3.6), the
				 * segment changed nothing (volume_copy decides first);
				 * segments before it are done, as SPC-4 allows */
				tcmu_dev_warn(r->cmd->dev->tdev, "EXTENDED COPY segment %u: no space left in the array",
					      i);
				return sense_set(r->cmd, SCSI_SK_DATA_PROTECT, SCSI_ASC_SPACE_ALLOC_FAILED_WRITE_PROTECT);
			}
			if (rc < 0) {
				tcmu_dev_warn(r->cmd->dev->tdev, "EXTENDED COPY segment %u: volume_copy: %s", i,
					      strerror(-rc));
				return copy_sense_aborted(r->cmd, SCSI_ASC_COPY_TARGET_NOT_REACHABLE, (uint16_t)i, -1);
			}
		}
		/* a destination whose write cache is off: durable at completion */
		if (p->bytes && !atomic_load(&scsi_lu(p->dst)->wce))
			r->cmd->sync_after = true;
		st->segments = (uint16_t)(i + 1);
		st->bytes += p->bytes;
		r->cmd->xcopy_segments = st->segments;
		r->cmd->xcopy_bytes = st->bytes;
		copy_reg_progress(slot, st->segments, st->bytes);
	}
	return TCMU_STS_OK;
}

static int execute(struct scsi_cmd *cmd, const struct xcopy_list *list)
{
	static _Thread_local struct xcopy_run run;   /* ~6 KiB: keep it off small stacks */
	struct xcopy_run *r = &run;
	struct copy_status st = { .cm_status = COPY_DONE_OK };
	int ret = TCMU_STS_OK;

	memset(r, 0, sizeof(*r));
	r->cmd = cmd;
	r->list = list;

	int slot = copy_reg_begin(cmd->dev, copy_cmd_nexus(cmd), COPY_KIND_XCOPY_LID1, list->usage != XCOPY_LIST_NONE,
				  list->list_id, list->usage == XCOPY_LIST_HOLD);
	if (slot == COPY_REG_BUSY)
		return TCMU_STS_NO_RESOURCE;
	if (slot == COPY_REG_DUPLICATE)
		return sense_set(cmd, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_OPERATION_IN_PROGRESS);

	for (unsigned i = 0; i < list->nseg && ret == TCMU_STS_OK; i++)
		ret = plan_segment(r, (uint16_t)i);
	if (ret == TCMU_STS_OK)
		ret = run_segments(r, slot, &st);

	if (ret != TCMU_STS_OK) {
		st.cm_status = COPY_DONE_ERROR;
		st.scsi_status = SCSI_STAT_CHECK_CONDITION;
		st.sense_len = COPY_SENSE_MAX;
		memcpy(st.sense, cmd->sense, COPY_SENSE_MAX);
	}
	copy_reg_end_xcopy(slot, &st);
	tcmu_dev_dbg(cmd->dev->tdev, "EXTENDED COPY list id %u usage %u: %u/%u segments, %" PRIu64 " bytes, %s",
		     list->list_id, (unsigned)list->usage, st.segments, list->nseg, st.bytes,
		     ret == TCMU_STS_OK ? "GOOD" : "CHECK CONDITION");
	return ret;
}

int xcopy_handle(struct scsi_cmd *cmd)
{
	/* the parameter list we may need: header + the longest descriptor lists */
	static _Thread_local uint8_t buf[XCOPY_HDR_LEN + XCOPY_MAX_DESC_LIST_LEN];
	static _Thread_local struct xcopy_list list;
	struct xcopy_err err;

	cmd->xcopy_bytes = 0;
	cmd->xcopy_segments = 0;

	struct cdb_info ci;
	cdb_decode(cmd->cdb, CDB_MAX_LEN, 0, &ci); /* the host holds the whole CDB */
	uint32_t pll = ci.length;
	if (pll == 0)
		return TCMU_STS_OK;      /* SPC-4: no parameter data is not an error */

	/* the whole list must have arrived (the initiator's Expected Data
	 * Transfer Length may be below the CDB's): never copy on part of it.
	 * As LIO answers an overflowing control CDB: INVALID FIELD IN CDB, here
	 * pointing at the PARAMETER LIST LENGTH. */
	if (cmd->iov_len < pll)
		return sense_invalid_cdb_field(cmd, ci.layout->len_off, -1);
	size_t len = pll;
	copy_from_iov(buf, len < sizeof(buf) ? len : sizeof(buf), cmd->iov, cmd->iov_cnt);
	cmd->bytes_moved = len;  /* the parameter list crossed the wire (cost_req.c) */

	if (!xcopy_parse(buf, len, &list, &err)) {
		tcmu_dev_dbg(cmd->dev->tdev, "EXTENDED COPY parameter list rejected: %02x/%02x/%02x at byte %u",
			     err.key, err.asc, err.ascq, err.field_byte);
		return copy_sense_param(cmd, &err);
	}
	return execute(cmd, &list);
}
