/* odx_exec.c — POPULATE TOKEN, WRITE USING TOKEN and COPY OPERATION ABORT
 * (SBC-3, SPC-4; docs/xcopy.md "ODX").
 *
 * POPULATE TOKEN takes a point-in-time hold of its ranges (odx_token.h) and
 * keeps the token for RECEIVE ROD TOKEN INFORMATION.  WRITE USING TOKEN
 * writes what a token holds into its ranges as a metadata copy (map entries
 * and references move, no data: vol_hold_write), range by range in pieces,
 * so that a fault rule (odx-fail-after=N blocks), COPY OPERATION ABORT or a
 * full array stops it at a block boundary with the blocks before written and
 * RRTI's TRANSFER COUNT saying how many.  The block device zero ROD token
 * (FFFF0001h) unmaps its ranges (deallocated blocks read as zeros, as WRITE
 * SAME with UNMAP).
 *
 * Both commands run to the end before status is returned: they move
 * metadata, not data.  IMMED=1 therefore changes one thing: an error met
 * while copying (a partial write) is reported in RRTI with GOOD status,
 * as SBC-3 wants of a command whose status was already sent; errors in the
 * CDB, the parameter list or the token are CHECK CONDITION either way.
 *
 * What the cost model sees (cost_req.c): bytes = the parameter list,
 * xcopy_bytes = the bytes the token covered (PT) or wrote (WUT),
 * xcopy_segments = the range descriptors.  The table's kind for WUT is
 * XCOPY (per command, per map entry, per range, as an EXTENDED COPY
 * segment); for PT OTHER, one command (opcodes.c says why). */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "handlers/copy/copy.h"
#include "handlers/copy/copy_fault.h"
#include "handlers/copy/copy_iov.h"
#include "handlers/copy/copy_nexus.h"
#include "handlers/copy/copy_sense.h"
#include "handlers/copy/odx.h"
#include "handlers/copy/copy_registry.h"
#include "handlers/copy/odx_parse.h"
#include "handlers/copy/odx_token.h"
#include "handlers/scsi/scsi.h"
#include "handlers/scsi/sense.h"
#include "lunlab/be.h"
#include "lunlab/cdb_decode.h"
#include "lunlab/scsi_vocab.h"

#define CDB_LIST_ID 6        /* PT / WUT: LIST IDENTIFIER bytes 6..9 */
#define CDB_PLL 10           /* PARAMETER LIST LENGTH bytes 10..13 */
#define CDB_ABORT_LIST_ID 2  /* COPY OPERATION ABORT: bytes 2..5 */
/* a WRITE USING TOKEN goes in pieces of at most this many bytes: where an
 * abort is noticed (a 10 GiB range is 160 pieces) */
#define ODX_PIECE_BYTES (64ull << 20)

/* The longest list either command may send: header + the most ranges. */
#define ODX_LIST_MAX (ODX_WUT_HDR_LEN + ODX_RANGES_HARD_MAX * ODX_RANGE_LEN)

/* Read the parameter list after the CDB checks docs/xcopy.md sets: at least
 * the header and one range, at most the most ranges any profile allows
 * (05/24/00 at the PARAMETER LIST LENGTH otherwise), and all of it arrived. */
static int fetch_list(struct scsi_cmd *cmd, size_t hdr, uint8_t *buf, size_t *len)
{
	uint32_t pll = get_be32(cmd->cdb + CDB_PLL);

	if (pll < hdr + ODX_RANGE_LEN || pll > hdr + ODX_RANGES_HARD_MAX * ODX_RANGE_LEN)
		return sense_invalid_cdb_field(cmd, CDB_PLL, -1);
	if (cmd->iov_len < pll)
		return sense_invalid_cdb_field(cmd, CDB_PLL, -1);
	*len = copy_from_iov(buf, pll, cmd->iov, cmd->iov_cnt);
	cmd->bytes_moved = pll;   /* the parameter list crossed the wire */
	return TCMU_STS_OK;
}

/* The ending of an operation, for RRTI: its status and the sense, if any. */
static void finish(int slot, struct odx_op *op, const struct scsi_cmd *cmd, int ret)
{
	if (ret != TCMU_STS_OK) {
		op->status = ODX_OP_DONE_ERRORS;
		op->scsi_status = SCSI_STAT_CHECK_CONDITION;
		op->sense_len = COPY_SENSE_MAX;
		memcpy(op->sense, cmd->sense, COPY_SENSE_MAX);
	}
	copy_reg_end_odx(slot, op);
}

/* the registry's kinds are the THIRD-PARTY COPY OUT service actions */
_Static_assert((int)COPY_KIND_POPULATE_TOKEN == (int)SCSI_SA_POPULATE_TOKEN &&
		       (int)COPY_KIND_WRITE_USING_TOKEN == (int)SCSI_SA_WRITE_USING_TOKEN,
	       "copy_kind values are the service actions RRTI reports");

static int begin(struct scsi_cmd *cmd, enum copy_kind kind, int *slot)
{
	*slot = copy_reg_begin(cmd->dev, copy_cmd_nexus(cmd), kind, true, get_be32(cmd->cdb + CDB_LIST_ID),
				true);
	if (*slot == COPY_REG_BUSY)
		return TCMU_STS_NO_RESOURCE;   /* TASK SET FULL: hosts retry (as EXTENDED COPY) */
	if (*slot == COPY_REG_DUPLICATE)
		/* the list id its nexus still runs, by this or any third-party
		 * copy command: SPC-4's duplicate list identifier, as for
		 * EXTENDED COPY (docs/xcopy.md "One list identifier namespace") */
		return sense_set(cmd, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_OPERATION_IN_PROGRESS);
	return TCMU_STS_OK;
}

int odx_populate_token(struct scsi_cmd *cmd)
{
	static _Thread_local uint8_t buf[ODX_LIST_MAX];
	struct odx_limits lim;
	struct odx_pt_list pt;
	struct xcopy_err err;
	struct odx_op op = { .sa = SCSI_SA_POPULATE_TOKEN, .status = ODX_OP_DONE };
	size_t len = 0;
	int slot;

	cmd->xcopy_bytes = 0;
	cmd->xcopy_segments = 0;
	if (!odx_limits_of(cmd->dev, &lim))
		return sense_set(cmd, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_OPCODE);
	int ret = fetch_list(cmd, ODX_PT_HDR_LEN, buf, &len);
	if (ret != TCMU_STS_OK)
		return ret;
	ret = begin(cmd, COPY_KIND_POPULATE_TOKEN, &slot);
	if (ret != TCMU_STS_OK)
		return ret;

	if (!odx_parse_pt(buf, len, &lim, &pt, &err)) {
		ret = copy_sense_param(cmd, &err);
	} else {
		uint32_t timeout = pt.timeout_s ? pt.timeout_s : lim.default_timeout_s;
		enum odx_tok_status ts = odx_token_create(cmd->dev, &pt.ranges, timeout, op.token);
		if (ts == ODX_TOK_OK) {
			op.has_token = true;
			op.blocks = pt.ranges.total_blocks;
			op.segments = (uint16_t)pt.ranges.n;
			cmd->xcopy_bytes = pt.ranges.total_blocks * cmd->dev->block_size;
			cmd->xcopy_segments = pt.ranges.n;
			if (copy_reg_aborted(slot)) {
				/* aborted while it ran: the token it made is cancelled */
				odx_token_kill(cmd->dev, op.token, ODX_TOK_CANCELLED);
			}
		} else {
			ret = sense_set(cmd, ts == ODX_TOK_RANGE ? SCSI_SK_ILLEGAL_REQUEST : SCSI_SK_HARDWARE_ERROR,
					odx_tok_asc(ts));
		}
	}
	finish(slot, &op, cmd, ret);
	tcmu_dev_dbg(cmd->dev->tdev, "POPULATE TOKEN list id %u: %u ranges, %" PRIu64 " blocks, %s",
		     get_be32(cmd->cdb + CDB_LIST_ID), pt.ranges.n, pt.ranges.total_blocks,
		     ret == TCMU_STS_OK ? "GOOD" : "CHECK CONDITION");
	return ret;
}

/* A write stopped part way: the sense the fault rule asked for, COPY
 * ABORTED 0D/02 by default (as an EXTENDED COPY broken off). */
static int fault_sense(struct scsi_cmd *cmd, const uint8_t s[3])
{
	if (s[0] == 0)
		return sense_set(cmd, SCSI_SK_COPY_ABORTED, SCSI_ASC_COPY_TARGET_NOT_REACHABLE);
	return sense_set(cmd, s[0], scsi_asc_pair(s[1], s[2]));
}

struct wut_run {
	struct scsi_cmd *cmd;
	int slot;
	struct odx_live *tok;          /* NULL: the zero ROD token */
	uint64_t hold_off;             /* next byte of the token to write */
	uint64_t avail;                /* bytes of the token from hold_off on */
	uint64_t stop_blocks;          /* a fault rule stops the write here */
	uint8_t fault[3];
	uint64_t blocks;               /* written so far */
};

/* One destination range; returns TCMU_STS_OK or the sense that stopped it. */
static int write_range(struct wut_run *w, const struct odx_range *r)
{
	struct lunlab_dev *dst = w->cmd->dev;
	uint64_t off = r->lba * dst->block_size;
	uint64_t left = (uint64_t)r->nblocks * dst->block_size;

	while (left) {
		uint64_t n = left < ODX_PIECE_BYTES ? left : ODX_PIECE_BYTES;
		if (w->tok && n > w->avail)
			n = w->avail - w->avail % dst->block_size;
		if (w->stop_blocks != UINT64_MAX && n > (w->stop_blocks - w->blocks) * dst->block_size)
			n = (w->stop_blocks - w->blocks) * dst->block_size;
		if (copy_reg_aborted(w->slot))
			return sense_set(w->cmd, SCSI_SK_ABORTED_COMMAND, SCSI_ASC_COMMANDS_CLEARED_BY_ANOTHER_INITIATOR);
		if (n == 0) {
			if (w->blocks >= w->stop_blocks)
				return fault_sense(w->cmd, w->fault);
			return TCMU_STS_OK;      /* the token is used up: a short write */
		}
		uint64_t moved = 0, done = 0;
		int rc;
		if (w->tok) {
			rc = vol_hold_write(odx_live_hold(w->tok), w->hold_off, dst->vol, off, n, &moved, &done);
		} else {
			rc = volume_unmap(dst->vol, off, n);
			done = rc == 0 ? n : 0;
		}
		if (rc == 0)
			done = n;
		done -= done % dst->block_size;
		w->blocks += done / dst->block_size;
		w->hold_off += done;
		if (w->tok)
			w->avail -= done;
		off += done;
		left -= done;
		copy_reg_progress(w->slot, 0, w->blocks);
		if (rc == -ENOSPC)
			/* as a WRITE that finds the array full (SBC-4 4.7.3.6) */
			return sense_set(w->cmd, SCSI_SK_DATA_PROTECT, SCSI_ASC_SPACE_ALLOC_FAILED_WRITE_PROTECT);
		if (rc < 0) {
			tcmu_dev_warn(dst->tdev, "WRITE USING TOKEN: %s", strerror(-rc));
			return sense_set(w->cmd, SCSI_SK_COPY_ABORTED, SCSI_ASC_COPY_TARGET_NOT_REACHABLE);
		}
	}
	return TCMU_STS_OK;
}

/* Check the token and the offset into it; ret is TCMU_STS_OK and w->tok set
 * (NULL for the zero token), or the sense. */
static int open_token(struct wut_run *w, const struct odx_wut_list *l)
{
	struct scsi_cmd *cmd = w->cmd;
	uint32_t bs = cmd->dev->block_size;

	if (get_be32(l->token) == ODX_ROD_TYPE_ZERO) {
		w->tok = NULL;
		return TCMU_STS_OK;
	}
	enum odx_tok_status ts = odx_token_get(cmd->dev, l->token, &w->tok);
	if (ts != ODX_TOK_OK)
		return sense_set(cmd, SCSI_SK_ILLEGAL_REQUEST, odx_tok_asc(ts));
	uint64_t bytes = odx_live_bytes(w->tok);
	/* OFFSET INTO ROD counts the destination's blocks */
	if (l->rod_offset >= bytes / bs) {
		odx_token_put(w->tok);
		w->tok = NULL;
		return sense_invalid_field(cmd, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, false, ODX_WUT_OFF_ROD_OFFSET, -1);
	}
	w->hold_off = l->rod_offset * bs;
	w->avail = bytes - w->hold_off;
	return TCMU_STS_OK;
}

int odx_write_using_token(struct scsi_cmd *cmd)
{
	static _Thread_local uint8_t buf[ODX_LIST_MAX];
	struct odx_limits lim;
	struct odx_wut_list l;
	struct xcopy_err err;
	struct odx_op op = { .sa = SCSI_SA_WRITE_USING_TOKEN, .status = ODX_OP_DONE };
	struct wut_run w = { .cmd = cmd, .stop_blocks = UINT64_MAX };
	size_t len = 0;
	bool copying = false;

	cmd->xcopy_bytes = 0;
	cmd->xcopy_segments = 0;
	if (!odx_limits_of(cmd->dev, &lim))
		return sense_set(cmd, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_OPCODE);
	int ret = fetch_list(cmd, ODX_WUT_HDR_LEN, buf, &len);
	if (ret != TCMU_STS_OK)
		return ret;
	ret = begin(cmd, COPY_KIND_WRITE_USING_TOKEN, &w.slot);
	if (ret != TCMU_STS_OK)
		return ret;

	if (!odx_parse_wut(buf, len, &lim, &l, &err)) {
		ret = copy_sense_param(cmd, &err);
		goto out;
	}
	ret = open_token(&w, &l);
	if (ret != TCMU_STS_OK)
		goto out;
	uint32_t stop = 0;
	if (copy_cmd_fault(cmd, &stop, w.fault))
		w.stop_blocks = stop;
	copying = true;
	/* SEGMENTS PROCESSED: the ranges written into, whole or in part */
	for (unsigned i = 0; i < l.ranges.n && ret == TCMU_STS_OK; i++) {
		uint64_t before = w.blocks;
		ret = write_range(&w, &l.ranges.r[i]);
		if (w.blocks > before)
			op.segments++;
		if (w.tok && w.avail == 0)
			break;
	}
	if (ret == TCMU_STS_OK && w.tok && w.avail)
		op.status = ODX_OP_DONE_PARTIAL;   /* the token stands for more than was written */
	if (w.blocks && !atomic_load(&scsi_lu(cmd->dev)->wce))
		cmd->sync_after = true;
	if (w.tok) {
		odx_token_put(w.tok);
		if (ret == TCMU_STS_OK && l.del_tkn)
			odx_token_kill(cmd->dev, l.token, ODX_TOK_DELETED);
	}
out:
	op.blocks = w.blocks;
	cmd->xcopy_bytes = w.blocks * cmd->dev->block_size;
	cmd->xcopy_segments = op.segments;
	finish(w.slot, &op, cmd, ret);
	tcmu_dev_dbg(cmd->dev->tdev, "WRITE USING TOKEN list id %u: %" PRIu64 " blocks written, %s",
		     get_be32(cmd->cdb + CDB_LIST_ID), w.blocks, ret == TCMU_STS_OK ? "GOOD" : "CHECK CONDITION");
	/* IMMED: status went before the copy in SBC-3's terms; its failure is
	 * the operation's, told by RRTI */
	if (ret != TCMU_STS_OK && copying && l.immed) {
		memset(cmd->sense, 0, COPY_SENSE_MAX);
		return TCMU_STS_OK;
	}
	return ret;
}

int odx_copy_abort(struct scsi_cmd *cmd)
{
	uint8_t tok[ODX_TOKEN_LEN];
	bool has_token = false;

	if (!odx_offered(cmd->dev))
		return sense_set(cmd, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_OPCODE);
	int r = copy_reg_odx_abort(cmd->dev, copy_cmd_nexus(cmd), get_be32(cmd->cdb + CDB_ABORT_LIST_ID), tok, &has_token);
	if (r == 0)
		return sense_invalid_cdb_field(cmd, CDB_ABORT_LIST_ID, -1);
	if (has_token)
		odx_token_kill(cmd->dev, tok, ODX_TOK_CANCELLED);
	return TCMU_STS_OK;
}
