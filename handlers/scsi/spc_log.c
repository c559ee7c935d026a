/* spc_log.c — LOG SENSE / LOG SELECT (SPC-4 6.7, 6.8) with the pages of
 * docs/vendor-log-pages.md: 00h (supported pages), 0Ch (logical block
 * provisioning, SBC-4), 30h (array capacity), 31h (model telemetry) and 32h
 * (each initiator session's modeled figures, models/vsessions.h).
 * Values are taken fresh from the array and the cost model on every call. */
#include <stdlib.h>
#include <string.h>

#include "handlers/array/array_admin.h"
#include "handlers/array/volume.h"
#include "handlers/array/volume_names.h"
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"
#include "handlers/scsi/scsi.h"
#include "handlers/scsi/sense.h"
#include "models/cost.h"
#include "models/cost_virtual.h"
#include "models/vsessions.h"

#define PAGE_MAX (4 + 65535) /* the PAGE LENGTH field's limit: page 32h lists sessions */

struct page_buf {
	uint8_t b[PAGE_MAX];
	size_t len;             /* includes the 4-byte header */
	uint16_t first_code;    /* PARAMETER POINTER: omit parameters below it */
};

static bool put_param(struct page_buf *pb, uint16_t code, uint8_t control, const uint8_t *val, uint8_t vlen)
{
	if (code < pb->first_code)
		return true;
	if (pb->len + 4u + vlen > sizeof(pb->b))
		return false;
	uint8_t *p = pb->b + pb->len;
	put_be16(p, code);
	p[2] = control;
	p[3] = vlen;
	memcpy(p + 4, val, vlen);
	pb->len += 4u + vlen;
	return true;
}

/* 8-byte binary counter parameter (control 03h: binary format list) */
static void put_u64(struct page_buf *pb, uint16_t code, uint64_t v)
{
	uint8_t val[8];
	put_be64(val, v);
	put_param(pb, code, 0x03, val, 8);
}

/* SBC-4 LBP resource count parameter: 4-byte count (saturating), then the
 * SCOPE field in bits 1..0 of the next byte. */
enum lbp_scope {
	SCOPE_DEDICATED = 0x01,     /* the count is this LU's own */
	SCOPE_SHARED = 0x02,        /* not dedicated: the array's, shared by its LUs */
};

static void put_resource(struct page_buf *pb, uint16_t code, uint64_t blocks, enum lbp_scope scope)
{
	uint8_t val[8] = { 0 };
	put_be32(val, blocks > 0xffffffffu ? 0xffffffffu : (uint32_t)blocks);
	val[4] = (uint8_t)scope;
	put_param(pb, code, 0x03, val, 8);
}

/* A ratio x 1000, rounded down (docs/accounting.md; drr_recompute.py uses the same
 * rule), 0 when the divisor is 0.  Integer arithmetic: a double loses the last digit
 * once the byte counts pass 2^53 / 1000. */
static uint64_t ratio_x1000(uint64_t num, uint64_t den)
{
	if (den == 0)
		return 0;
	__extension__ unsigned __int128 q = (unsigned __int128)num * 1000u / den;
	return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}

static void page_supported(struct page_buf *pb)
{
	static const uint8_t codes[] = { 0x00, 0x0c, 0x30, 0x31, 0x32 };
	memcpy(pb->b + 4, codes, sizeof(codes));
	pb->len = 4 + sizeof(codes);
}

/* 0003h: a 2-byte percentage, then the SCOPE byte */
static void put_percentage(struct page_buf *pb, uint16_t code, uint16_t pct, enum lbp_scope scope)
{
	uint8_t val[8] = { 0 };
	put_be16(val, pct);
	val[4] = (uint8_t)scope;
	put_param(pb, code, 0x03, val, 8);
}

static uint64_t minus(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

/* Counts are in threshold sets (VPD B2 THRESHOLD EXPONENT; logical blocks
 * when the array has no capacity and so no thresholds). */
static void page_lbp(struct lunlab_dev *d, struct page_buf *pb)
{
	struct array_stats st;
	struct array_space sp;
	uint64_t set = scsi_threshold_set_bytes(d);

	memset(&st, 0, sizeof(st));
	memset(&sp, 0, sizeof(sp));
	if (d->array) {
		array_get_stats(d->array, &st);
		array_get_space(d->array, &sp);
	}
	/* available: the array's free physical space, shared by its LUs (the
	 * resource the soft threshold watches); without a capacity, the LU's
	 * size less the array's use.  Use counts a block not yet accounted at
	 * its worst case, dedup_block bytes (docs/accounting.md "When figures
	 * lag"), so "available" is never overstated. */
	uint64_t avail = sp.capacity_bytes ? minus(sp.capacity_bytes, sp.used_bytes)
					   : minus(d->num_lbas * d->block_size, sp.used_bytes);
	put_resource(pb, 0x0001, avail / set, SCOPE_SHARED);
	/* used: the LBAs this LU has mapped; a map entry belongs to one LU, so
	 * the count is dedicated to it (the array-wide logical figure is page
	 * 30h code 0001h) */
	put_resource(pb, 0x0002, d->vol ? volume_mapped_bytes(d->vol) / set : 0, SCOPE_DEDICATED);
	if (sp.capacity_bytes)
		put_percentage(pb, 0x0003, (uint16_t)(avail * 100 / sp.capacity_bytes), SCOPE_SHARED);
	/* savings come from blocks shared across the array's LUs */
	put_resource(pb, 0x0100, minus(st.logical_bytes, st.unique_bytes) / set, SCOPE_SHARED);
	put_resource(pb, 0x0101, minus(st.unique_bytes, st.physical_bytes) / set, SCOPE_SHARED);
	put_resource(pb, 0x0102, minus(st.logical_bytes, st.physical_bytes) / set, SCOPE_SHARED);
}

static void page_capacity(struct lunlab_dev *d, struct page_buf *pb)
{
	struct array_stats st;
	const struct array_params *ap = d->array ? array_params(d->array) : NULL;

	memset(&st, 0, sizeof(st));
	if (d->array)
		array_get_stats(d->array, &st);
	put_u64(pb, 0x0001, st.logical_bytes);
	put_u64(pb, 0x0002, st.unique_bytes);
	put_u64(pb, 0x0003, st.physical_bytes);
	put_u64(pb, 0x0004, st.compressed_bytes);
	put_u64(pb, 0x0005, st.unique_blocks);
	put_u64(pb, 0x0006, st.mapped_blocks);
	put_u64(pb, 0x0007, st.single_ref_blocks);
	put_u64(pb, 0x0008, st.pending_blocks);
	put_u64(pb, 0x0009, st.metadata_bytes);
	put_u64(pb, 0x000a, ap ? ap->dedup_block : 0);
	put_u64(pb, 0x000b, ap ? ap->alloc_unit : 0);
	put_u64(pb, 0x0010, ratio_x1000(st.logical_bytes, st.unique_bytes));
	put_u64(pb, 0x0011, ratio_x1000(st.unique_bytes, st.physical_bytes));
	put_u64(pb, 0x0012, ratio_x1000(st.logical_bytes, st.physical_bytes));
	put_u64(pb, 0x0020, d->vol ? volume_mapped_bytes(d->vol) : 0);
	/* physical capacity (docs/accounting.md "Physical capacity") */
	struct array_space sp;
	uint64_t provisioned = 0;
	int volumes = 0;
	memset(&sp, 0, sizeof(sp));
	if (d->array) {
		array_get_space(d->array, &sp);
		volumes = array_volumes_info(d->array, NULL, 0, &provisioned);
	}
	put_u64(pb, 0x0030, sp.capacity_bytes);
	put_u64(pb, 0x0031, sp.soft_threshold_bytes);
	put_u64(pb, 0x0032, sp.used_bytes);
	put_u64(pb, 0x0033, sp.reserved_bytes);
	put_u64(pb, 0x0034, provisioned);
	put_u64(pb, 0x0035, (uint64_t)volumes);
}

static void page_telemetry(struct lunlab_dev *d, struct page_buf *pb)
{
	struct cost_telemetry t;

	memset(&t, 0, sizeof(t));
	if (d->model)
		cost_model_telemetry(d->model, &t);
	put_u64(pb, 0x0001, t.commands);
	put_u64(pb, 0x0002, t.modeled_elapsed_ns);
	put_u64(pb, 0x0003, t.modeled_busy_ns);
	put_u64(pb, 0x0004, t.cores);
	put_u64(pb, 0x0005, t.peak_latency_ns);
	put_u64(pb, 0x0006, t.max_latency_ns);
	put_u64(pb, 0x0007, t.peak_cpu_permille);
	put_u64(pb, 0x0008, (uint64_t)(t.time_scale * 1000.0 + 0.5));
	put_u64(pb, 0x0009, t.turnaround_ns);
	put_u64(pb, 0x000a, t.virtual_streams);
	put_u64(pb, 0x000b, t.frontend_busy_ns);
	put_u64(pb, 0x000c, t.backend_busy_ns);
	put_u64(pb, 0x000d, t.journal_busy_ns);
	/* 1: the LU's configuration pinned the modeled host streams (host_streams=N), so LOG
	 * SELECT may not change them; 0: a client may (see spc_log_select) */
	put_u64(pb, 0x000e, d->model && cost_model_virtual_streams_pinned(d->model));
	/* time fault rules (delay=) held the array's commands before it saw them: a client
	 * leaves it out of what it blames on the machine (docs/bench.md) */
	put_u64(pb, 0x000f, t.fault_delay_ns);
	/* 1: the virtual clock's host is one stream per initiator session (host_streams=session),
	 * whose figures page 32h lists; 0x0011: commands charged before their modeled turn
	 * because too many waited (vsessions.h), 0 when the order was exact */
	if (d->model && cost_model_sessions(d->model)) {
		uint64_t overflows = 0;
		(void)cost_model_session_stats(d->model, NULL, 0, &overflows);
		put_u64(pb, 0x0010, 1);
		put_u64(pb, 0x0011, overflows);
	} else {
		put_u64(pb, 0x0010, 0);
		put_u64(pb, 0x0011, 0);
	}
	for (uint16_t i = 0; i < 32; i++)
		put_u64(pb, (uint16_t)(0x0100 + i), t.latency_hist[i]);
	for (uint16_t b = 0; b < COST_BUCKETS; b++)
		put_u64(pb, (uint16_t)(0x0200 + b), t.bucket_ops[b]);
	for (uint16_t b = 0; b < COST_BUCKETS; b++)
		put_u64(pb, (uint16_t)(0x0300 + b), t.bucket_bytes[b]);
	for (uint16_t b = 0; b < COST_BUCKETS; b++)
		put_u64(pb, (uint16_t)(0x0400 + b), t.bucket_latency_ns[b]);
}

/* One parameter per initiator session that moved data (code = its place, in nexus order):
 * what the model charged it on a virtual clock whose host is one stream per session
 * (vsessions.h), so a client computes each session's modeled rate.  Empty otherwise.  At
 * most SESSIONS_LISTED (the page's length field): a 1001st session is left out. */
#define SESSIONS_LISTED 1000u
static void page_sessions(struct lunlab_dev *d, struct page_buf *pb)
{
	uint64_t overflows;

	if (!d->model || !cost_model_sessions(d->model))
		return;
	struct vsess_stats *st = malloc(SESSIONS_LISTED * sizeof(*st));
	if (!st)
		return; /* listed as none rather than failing the LOG SENSE */
	unsigned n = cost_model_session_stats(d->model, st, SESSIONS_LISTED, &overflows);
	for (unsigned i = 0; i < n && i < SESSIONS_LISTED; i++) {
		uint8_t v[56];
		put_be64(v, st[i].nexus);
		put_be64(v + 8, st[i].commands);
		put_be64(v + 16, st[i].bytes);
		put_be64(v + 24, st[i].first_bytes);
		put_be64(v + 32, st[i].first_arrival_ns);
		put_be64(v + 40, st[i].first_completion_ns);
		put_be64(v + 48, st[i].last_completion_ns);
		if (!put_param(pb, (uint16_t)i, 0x03, v, sizeof(v)))
			break;
	}
	free(st);
}

int spc_log_sense(struct scsi_cmd *cmd)
{
	const uint8_t *cdb = cmd->cdb;
	uint8_t code = cdb[2] & 0x3f;
	uint8_t sub = cdb[3];
	struct cdb_info ci;
	static __thread struct page_buf pb; /* 64 KiB: keep it off small worker stacks */

	scsi_cdb_decode(cmd, &ci);
	uint32_t alloc = ci.length;
	if (sub != 0)
		return sense_invalid_cdb_field(cmd, 3, -1);
	memset(&pb, 0, sizeof(pb));
	pb.len = 4;
	pb.first_code = get_be16(cdb + 5);
	switch (code) {
	case 0x00:
		if (pb.first_code != 0)
			return sense_invalid_cdb_field(cmd, 5, -1);
		page_supported(&pb);
		break;
	case 0x0c: page_lbp(cmd->dev, &pb); break;
	case 0x30: page_capacity(cmd->dev, &pb); break;
	case 0x31: page_telemetry(cmd->dev, &pb); break;
	case 0x32: page_sessions(cmd->dev, &pb); break;
	default: return sense_invalid_cdb_field(cmd, 2, 5);
	}
	pb.b[0] = code;
	put_be16(pb.b + 2, (uint16_t)(pb.len - 4));
	size_t n = pb.len < alloc ? pb.len : alloc;
	cmd->bytes_moved = scsi_datain(cmd, pb.b, n);
	return TCMU_STS_OK;
}

/* LOG SELECT with a parameter list: one page 31h holding parameter 000Ah, the number of
 * closed-loop host streams of a virtual clock (docs/vendor-log-pages.md): a client says how
 * many commands it keeps outstanding.  Everything is checked before anything is read:
 * the list must be whole (PARAMETER LIST LENGTH ERROR otherwise), hold page 31h subpage 0
 * and only parameter 000Ah with an 8-byte value 1..4096 (INVALID FIELD IN PARAMETER LIST at
 * the offending byte otherwise); a LU whose clock is not virtual, or whose host_streams the
 * configuration pinned, refuses the parameter the same way. */
static int log_select_params(struct scsi_cmd *cmd, uint16_t plen)
{
	uint8_t b[64];

	if (plen < 4 || plen > sizeof(b))
		return sense_set(cmd, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_PARAMETER_LIST_LENGTH_ERROR);
	if (scsi_dataout(cmd, b, plen) < plen)
		return sense_set(cmd, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_PARAMETER_LIST_LENGTH_ERROR);
	if ((b[0] & 0x3f) != 0x31)
		return sense_invalid_field(cmd, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, false, 0, -1);
	if (b[0] & 0xc0) /* DS, SPF: no subpages, no saving */
		return sense_invalid_field(cmd, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, false, 0, (b[0] & 0x80) ? 7 : 6);
	if (b[1] != 0)
		return sense_invalid_field(cmd, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, false, 1, -1);
	uint16_t page_len = get_be16(b + 2);
	if (page_len > plen - 4u) /* the page runs past the list: truncated */
		return sense_set(cmd, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_PARAMETER_LIST_LENGTH_ERROR);
	if (page_len < plen - 4u)
		return sense_invalid_field(cmd, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, false, 2, -1);
	if (page_len != 12)     /* exactly one parameter: 4-byte header + 8-byte value */
		return sense_set(cmd, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_PARAMETER_LIST_LENGTH_ERROR);
	if (get_be16(b + 4) != 0x000a)
		return sense_invalid_field(cmd, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, false, 4, -1);
	if (b[7] != 8)
		return sense_invalid_field(cmd, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, false, 7, -1);
	uint64_t n = get_be64(b + 8);
	if (n < 1 || n > COST_VIRTUAL_STREAMS_MAX)
		return sense_invalid_field(cmd, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, false, 8, -1);
	/* not virtual, or pinned by the LU's configuration: the parameter is not changeable */
	if (!cmd->dev->model || cost_model_set_virtual_streams(cmd->dev->model, (unsigned)n) != 0)
		return sense_invalid_field(cmd, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, false, 4, -1);
	return TCMU_STS_OK;
}

/* PCR=1 with no parameter list resets the model telemetry of page 31h (pages 0Ch and 30h
 * describe capacity and cannot be reset); a parameter list sets page 31h's host streams
 * (log_select_params).  SPC-4 6.8: with a parameter list the CDB's PAGE CODE and SUBPAGE
 * CODE are 0 (the list names its page) and PCR is 0. */
int spc_log_select(struct scsi_cmd *cmd)
{
	const uint8_t *cdb = cmd->cdb;
	bool pcr = cdb[1] & 0x02;
	struct cdb_info ci;
	uint8_t code = cdb[2] & 0x3f;

	scsi_cdb_decode(cmd, &ci);
	uint32_t plen = ci.length;
	if (cdb[3] != 0)
		return sense_invalid_cdb_field(cmd, 3, -1);
	if (plen != 0) {
		if (pcr)
			return sense_invalid_cdb_field(cmd, 1, 1);
		if (code != 0)
			return sense_invalid_cdb_field(cmd, 2, 5);
		if ((cdb[2] >> 6) != 0x01) /* PC: the current cumulative values */
			return sense_invalid_cdb_field(cmd, 2, 7);
		return log_select_params(cmd, plen);
	}
	if (!pcr)
		return TCMU_STS_OK;
	if (code != 0x00 && code != 0x31)
		return sense_invalid_cdb_field(cmd, 2, 5);
	if (cmd->dev->model)
		cost_model_reset_telemetry(cmd->dev->model);
	return TCMU_STS_OK;
}
