/* rcr.c — RECEIVE COPY RESULTS (0x84, SPC-4 6.18): COPY STATUS (SA 0),
 * OPERATING PARAMETERS (SA 3) and FAILED SEGMENT DETAILS (SA 4).
 *
 * Allocation length: the response is truncated to it, as for any SPC
 * data-in command (LIO refuses lengths below 54; that is LIO's limitation,
 * libiscsi asks for 1024).  A status is only released once it has been
 * transferred whole. */
#include <string.h>

#include "handlers/copy/copy.h"
#include "lunlab/be.h"
#include "handlers/copy/copy_iov.h"
#include "handlers/copy/copy_limits.h"
#include "handlers/copy/copy_registry.h"
#include "handlers/copy/copy_nexus.h"
#include "handlers/copy/rcr_layout.h"
#include "handlers/scsi/sense.h"
#include "lunlab/cdb_decode.h"

#define RCR_SA_COPY_STATUS 0x00
#define RCR_SA_OP_PARAMS 0x03
#define RCR_SA_FAILED_SEGMENT 0x04

static int send(struct scsi_cmd *cmd, const uint8_t *data, size_t n, uint32_t alloc)
{
	size_t k = n < alloc ? n : alloc;

	cmd->bytes_moved = copy_to_iov(cmd->iov, cmd->iov_cnt, data, k);
	return TCMU_STS_OK;
}

/* TRANSFER COUNT UNITS: bytes while they fit the 32-bit field, else the
 * smallest binary multiple that does (F1h = KiB, F2h = MiB, ...). */
static void put_transfer_count(uint8_t *units, uint8_t *count, uint64_t bytes)
{
	uint8_t u = 0x00;

	while (bytes > 0xffffffffu) {
		bytes >>= 10;
		u = u ? (uint8_t)(u + 1) : 0xF1;
	}
	*units = u;
	put_be32(count, (uint32_t)bytes);
}

size_t rcr_copy_status_bytes(const struct copy_status *st, uint8_t out[RCR_COPY_STATUS_LEN])
{
	memset(out, 0, RCR_COPY_STATUS_LEN);
	put_be32(out, RCR_COPY_STATUS_LEN - 4);
	out[4] = st->cm_status & 0x7f;    /* HDD = 0: we hold no data */
	put_be16(out + 5, st->segments);
	put_transfer_count(&out[7], &out[8], st->bytes);
	return RCR_COPY_STATUS_LEN;
}

size_t rcr_op_params_bytes(const struct lunlab_dev *dev, uint8_t out[RCR_OP_PARAMS_LEN])
{
	memset(out, 0, RCR_OP_PARAMS_LEN);
	put_be32(out, RCR_OP_PARAMS_LEN - 4);          /* AVAILABLE DATA */
	out[4] = 0x01;                                 /* SNLID: usage 11b supported */
	put_be16(out + 8, XCOPY_MAX_TGT_DESC);
	put_be16(out + 10, XCOPY_MAX_SEG_DESC);
	put_be32(out + 12, XCOPY_MAX_DESC_LIST_LEN);
	put_be32(out + 16, XCOPY_MAX_SEG_BYTES);
	put_be32(out + 20, XCOPY_MAX_INLINE_LEN);
	/* 24..27 held data limit, 28..31 max stream device transfer size: 0 */
	put_be16(out + 34, XCOPY_TOTAL_CONCURRENT);
	out[36] = XCOPY_MAX_IDENTIFIED;
	out[37] = rcr_log2(dev->block_size);           /* data segment granularity */
	/* 38 inline data granularity, 39 held data granularity: 0 (none) */
	out[43] = 2;                                   /* implemented descriptor list length */
	out[44] = XCOPY_DESC_TYPE_B2B;
	out[45] = XCOPY_DESC_TYPE_IDENT;
	return RCR_OP_PARAMS_LEN;
}

static int copy_status(struct scsi_cmd *cmd, uint8_t list_id, uint32_t alloc)
{
	struct copy_status st;
	uint8_t out[RCR_COPY_STATUS_LEN];

	if (!copy_reg_xcopy_status(cmd->dev, copy_cmd_nexus(cmd), list_id, alloc >= RCR_COPY_STATUS_LEN, &st))
		return sense_invalid_cdb_field(cmd, 2, -1);   /* unknown LIST IDENTIFIER */
	return send(cmd, out, rcr_copy_status_bytes(&st, out), alloc);
}

static int failed_segment(struct scsi_cmd *cmd, uint8_t list_id, uint32_t alloc)
{
	struct copy_status st;
	uint8_t out[RCR_FAILED_HDR_LEN + COPY_SENSE_MAX];

	memset(out, 0, sizeof(out));
	/* peek first: release only if the whole answer fits the allocation */
	if (!copy_reg_xcopy_failed(cmd->dev, copy_cmd_nexus(cmd), list_id, false, &st))
		return send(cmd, out, 4, alloc);        /* AVAILABLE DATA 0: no details */
	size_t n = RCR_FAILED_HDR_LEN + st.sense_len;
	if (alloc >= n)
		copy_reg_xcopy_failed(cmd->dev, copy_cmd_nexus(cmd), list_id, true, &st);
	put_be32(out, (uint32_t)(n - 4));
	out[56] = st.scsi_status;                       /* COPY COMMAND STATUS */
	put_be16(out + 58, st.sense_len);
	memcpy(out + RCR_FAILED_HDR_LEN, st.sense, st.sense_len);
	return send(cmd, out, n, alloc);
}

int rcr_handle(struct scsi_cmd *cmd)
{
	uint8_t sa = cmd->cdb[1] & 0x1f;
	uint8_t list_id = cmd->cdb[2];
	uint8_t out[RCR_OP_PARAMS_LEN];
	struct cdb_info ci;

	cdb_decode(cmd->cdb, CDB_MAX_LEN, 0, &ci); /* the host holds the whole CDB */
	uint32_t alloc = ci.length;

	if (alloc > cmd->iov_len)
		alloc = (uint32_t)cmd->iov_len;

	switch (sa) {
	case RCR_SA_COPY_STATUS:
		return copy_status(cmd, list_id, alloc);
	case RCR_SA_OP_PARAMS:
		/* parameters of the copy manager: LIST IDENTIFIER is ignored */
		return send(cmd, out, rcr_op_params_bytes(cmd->dev, out), alloc);
	case RCR_SA_FAILED_SEGMENT:
		return failed_segment(cmd, list_id, alloc);
	default:
		/* RECEIVE DATA (SA 1) needs held data, which we never keep */
		return sense_invalid_cdb_field(cmd, 1, 4);
	}
}
