/* opcodes.c — the one table of commands lunlab's LU accepts.  The table
 * drives dispatch, the reserved-bit check (a bit outside the CDB usage data
 * is an INVALID FIELD IN CDB) and REPORT SUPPORTED OPERATION CODES, so what
 * RSOC advertises is by construction what the device server accepts.
 *
 * Entries with fn == LU_LAYER are commands the host answers before the
 * handler ever sees them: PERSISTENT RESERVE IN/OUT, RESERVE/RELEASE(6)/(10)
 * and REPORT LUNS (lunlab-target's LU layer, target/lu; LIO's target core
 * under tcmu-runner).  The device server as a whole supports them, so RSOC
 * lists them with the usage data of what the host evaluates; dispatch never
 * runs them (should one reach the handler it gets INVALID COMMAND OPERATION
 * CODE, as before they were listed). */
#include <assert.h>
#include <pthread.h>
#include <string.h>

#include "lunlab/scsi_vocab.h"
#include "handlers/array/array_state.h"
#include "handlers/copy/copy.h"
#include "handlers/copy/odx.h"
#include "handlers/copy/odx_limits.h"
#include "handlers/scsi/scsi.h"
#include "handlers/scsi/sense.h"

#define FF 0xff
#define GRP 0x1f /* GROUP NUMBER */
#define LU_LAYER NULL /* answered by the host, not dispatched: see above */

static int xcopy_entry(struct scsi_cmd *cmd) { return xcopy_handle(cmd); }
static int rcr_entry(struct scsi_cmd *cmd) { return rcr_handle(cmd); }

static const struct scsi_op ops[] = {
	/* opcode, sa, writes, kind, nominal/recommended timeouts (s), fn, usage */
	{ 0x00, 0, false, COST_OTHER, 1, 5, spc_test_unit_ready, { 0x00, 0, 0, 0, 0, 0 } },
	{ 0x03, 0, false, COST_OTHER, 1, 5, spc_request_sense, { 0x03, 0x01, 0, 0, FF, 0 } },
	{ 0x08, 0, false, COST_READ, 1, 30, sbc_read, { 0x08, 0x1f, FF, FF, FF, 0 } },
	{ 0x0a, 0, true, COST_WRITE, 1, 30, sbc_write, { 0x0a, 0x1f, FF, FF, FF, 0 } },
	{ 0x12, 0, false, COST_OTHER, 1, 5, spc_inquiry, { 0x12, 0x01, FF, FF, FF, 0 } },
	{ 0x15, 0, false, COST_OTHER, 1, 5, spc_mode_select, { 0x15, 0x11, 0, 0, FF, 0 } },
	/* RESERVE(6)/RELEASE(6) (SPC-2): the host refuses the obsolete extent
	 * bit and ignores the rest, so no bit but the opcode is evaluated */
	{ 0x16, 0, false, COST_OTHER, 1, 5, LU_LAYER, { 0x16, 0, 0, 0, 0, 0 } },
	{ 0x17, 0, false, COST_OTHER, 1, 5, LU_LAYER, { 0x17, 0, 0, 0, 0, 0 } },
	{ 0x1a, 0, false, COST_OTHER, 1, 5, spc_mode_sense, { 0x1a, 0x08, FF, FF, FF, 0 } },
	{ 0x25, 0, false, COST_OTHER, 1, 5, sbc_read_capacity10,
	  { 0x25, 0, FF, FF, FF, FF, 0, 0, 0x01, 0 } },
	{ 0x28, 0, false, COST_READ, 1, 30, sbc_read, { 0x28, 0x1e, FF, FF, FF, FF, GRP, FF, FF, 0 } },
	{ 0x2a, 0, true, COST_WRITE, 1, 30, sbc_write, { 0x2a, 0x1a, FF, FF, FF, FF, GRP, FF, FF, 0 } },
	{ 0x2e, 0, true, COST_WRITE, 1, 30, sbc_write_verify,
	  { 0x2e, 0x16, FF, FF, FF, FF, GRP, FF, FF, 0 } },
	{ 0x2f, 0, false, COST_VERIFY, 1, 30, sbc_verify, { 0x2f, 0x16, FF, FF, FF, FF, GRP, FF, FF, 0 } },
	{ 0x34, 0, false, COST_OTHER, 1, 30, sbc_prefetch, { 0x34, 0x02, FF, FF, FF, FF, GRP, FF, FF, 0 } },
	{ 0x35, 0, false, COST_OTHER, 1, 30, sbc_sync_cache, { 0x35, 0x06, FF, FF, FF, FF, GRP, FF, FF, 0 } },
	{ 0x37, 0, false, COST_OTHER, 1, 5, sbc_read_defect_data,
	  { 0x37, 0, 0x1f, 0, 0, 0, 0, FF, FF, 0 } },
	{ 0x41, 0, true, COST_WRITE_SAME, 1, 60, sbc_write_same,
	  { 0x41, 0x08, FF, FF, FF, FF, GRP, FF, FF, 0 } },
	{ 0x42, 0, true, COST_UNMAP, 1, 60, sbc_unmap, { 0x42, 0x00, 0, 0, 0, 0, GRP, FF, FF, 0 } },
	{ 0x4c, 0, false, COST_OTHER, 1, 5, spc_log_select, { 0x4c, 0x02, FF, FF, 0, 0, 0, FF, FF, 0 } },
	{ 0x4d, 0, false, COST_OTHER, 1, 5, spc_log_sense, { 0x4d, 0x00, FF, FF, 0, FF, FF, FF, FF, 0 } },
	{ 0x55, 0, false, COST_OTHER, 1, 5, spc_mode_select, { 0x55, 0x11, 0, 0, 0, 0, 0, FF, FF, 0 } },
	/* RESERVE(10)/RELEASE(10): 3RDPTY and LONGID are refused, the third-party
	 * fields and PARAMETER LIST LENGTH (used only with them) never read */
	{ 0x56, 0, false, COST_OTHER, 1, 5, LU_LAYER, { 0x56, 0, 0, 0, 0, 0, 0, 0, 0, 0 } },
	{ 0x57, 0, false, COST_OTHER, 1, 5, LU_LAYER, { 0x57, 0, 0, 0, 0, 0, 0, 0, 0, 0 } },
	{ 0x5a, 0, false, COST_OTHER, 1, 5, spc_mode_sense, { 0x5a, 0x18, FF, FF, 0, 0, 0, FF, FF, 0 } },
	/* PERSISTENT RESERVE IN (SPC-4 6.15): READ KEYS, READ RESERVATION,
	 * REPORT CAPABILITIES, READ FULL STATUS; ALLOCATION LENGTH in bytes 7-8 */
	{ 0x5e, 0x00, false, COST_OTHER, 1, 5, LU_LAYER, { 0x5e, 0, 0, 0, 0, 0, 0, FF, FF, 0 } },
	{ 0x5e, 0x01, false, COST_OTHER, 1, 5, LU_LAYER, { 0x5e, 0, 0, 0, 0, 0, 0, FF, FF, 0 } },
	{ 0x5e, 0x02, false, COST_OTHER, 1, 5, LU_LAYER, { 0x5e, 0, 0, 0, 0, 0, 0, FF, FF, 0 } },
	{ 0x5e, 0x03, false, COST_OTHER, 1, 5, LU_LAYER, { 0x5e, 0, 0, 0, 0, 0, 0, FF, FF, 0 } },
	/* PERSISTENT RESERVE OUT (SPC-4 6.16), PARAMETER LIST LENGTH in bytes 5-8.
	 * SCOPE/TYPE (byte 2) are evaluated by RESERVE, RELEASE, PREEMPT and
	 * PREEMPT AND ABORT; REGISTER, CLEAR and REGISTER AND IGNORE EXISTING KEY
	 * ignore them (SPC-4 6.16.2), and an ignored bit is reported as zero
	 * (SPC-4 6.35.3).  REGISTER AND MOVE (7) is not supported. */
	{ 0x5f, 0x00, false, COST_OTHER, 1, 5, LU_LAYER, { 0x5f, 0, 0, 0, 0, FF, FF, FF, FF, 0 } },
	{ 0x5f, 0x01, false, COST_OTHER, 1, 5, LU_LAYER, { 0x5f, 0, FF, 0, 0, FF, FF, FF, FF, 0 } },
	{ 0x5f, 0x02, false, COST_OTHER, 1, 5, LU_LAYER, { 0x5f, 0, FF, 0, 0, FF, FF, FF, FF, 0 } },
	{ 0x5f, 0x03, false, COST_OTHER, 1, 5, LU_LAYER, { 0x5f, 0, 0, 0, 0, FF, FF, FF, FF, 0 } },
	{ 0x5f, 0x04, false, COST_OTHER, 1, 5, LU_LAYER, { 0x5f, 0, FF, 0, 0, FF, FF, FF, FF, 0 } },
	{ 0x5f, 0x05, false, COST_OTHER, 1, 5, LU_LAYER, { 0x5f, 0, FF, 0, 0, FF, FF, FF, FF, 0 } },
	{ 0x5f, 0x06, false, COST_OTHER, 1, 5, LU_LAYER, { 0x5f, 0, 0, 0, 0, FF, FF, FF, FF, 0 } },
	/* EXTENDED COPY: writes_medium false because the LU that receives it
	 * may be only the source; xcopy_exec.c checks each destination LU */
	{ 0x83, 0x00, false, COST_XCOPY, 1, 60, xcopy_entry,
	  { 0x83, 0, 0, 0, 0, 0, 0, 0, 0, 0, FF, FF, FF, FF, 0, 0 } },
	/* ODX (docs/xcopy.md): LIST IDENTIFIER, PARAMETER LIST LENGTH, GROUP NUMBER.
	 * POPULATE TOKEN is charged as one command (charged as a copy too, the
	 * model would count the bytes of one clone twice, in its XCOPY figures
	 * and telemetry); WRITE USING TOKEN is the metadata copy, and writes the
	 * LU that receives it */
	{ 0x83, 0x10, false, COST_OTHER, 1, 60, odx_populate_token,
	  { 0x83, 0, 0, 0, 0, 0, FF, FF, FF, FF, FF, FF, FF, FF, GRP, 0 } },
	{ 0x83, 0x11, true, COST_XCOPY, 1, 60, odx_write_using_token,
	  { 0x83, 0, 0, 0, 0, 0, FF, FF, FF, FF, FF, FF, FF, FF, GRP, 0 } },
	{ 0x83, 0x1c, false, COST_OTHER, 1, 5, odx_copy_abort,
	  { 0x83, 0, FF, FF, FF, FF, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 } },
	{ 0x84, 0x00, false, COST_OTHER, 1, 5, rcr_entry,
	  { 0x84, 0, FF, 0, 0, 0, 0, 0, 0, 0, FF, FF, FF, FF, 0, 0 } },
	{ 0x84, 0x03, false, COST_OTHER, 1, 5, rcr_entry,
	  { 0x84, 0, FF, 0, 0, 0, 0, 0, 0, 0, FF, FF, FF, FF, 0, 0 } },
	{ 0x84, 0x04, false, COST_OTHER, 1, 5, rcr_entry,
	  { 0x84, 0, FF, 0, 0, 0, 0, 0, 0, 0, FF, FF, FF, FF, 0, 0 } },
	{ 0x84, 0x07, false, COST_OTHER, 1, 5, odx_rrti,
	  { 0x84, 0, FF, FF, FF, FF, 0, 0, 0, 0, FF, FF, FF, FF, 0, 0 } },
	{ 0x88, 0, false, COST_READ, 1, 30, sbc_read,
	  { 0x88, 0x1e, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, GRP, 0 } },
	{ 0x89, 0, true, COST_CAW, 1, 30, sbc_compare_and_write,
	  { 0x89, 0x1a, FF, FF, FF, FF, FF, FF, FF, FF, 0, 0, 0, FF, GRP, 0 } },
	{ 0x8a, 0, true, COST_WRITE, 1, 30, sbc_write,
	  { 0x8a, 0x1a, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, GRP, 0 } },
	{ 0x8b, 0, true, COST_WRITE, 1, 30, sbc_orwrite,
	  { 0x8b, 0x18, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, GRP, 0 } },
	{ 0x8e, 0, true, COST_WRITE, 1, 30, sbc_write_verify,
	  { 0x8e, 0x16, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, GRP, 0 } },
	{ 0x8f, 0, false, COST_VERIFY, 1, 30, sbc_verify,
	  { 0x8f, 0x16, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, GRP, 0 } },
	{ 0x90, 0, false, COST_OTHER, 1, 30, sbc_prefetch,
	  { 0x90, 0x02, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, GRP, 0 } },
	{ 0x91, 0, false, COST_OTHER, 1, 30, sbc_sync_cache,
	  { 0x91, 0x06, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, GRP, 0 } },
	{ 0x93, 0, true, COST_WRITE_SAME, 1, 60, sbc_write_same,
	  { 0x93, 0x09, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, GRP, 0 } },
	{ 0x9c, 0, true, COST_WRITE, 1, 30, sbc_write_atomic,
	  { 0x9c, 0x18, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, GRP, 0 } },
	{ 0x9e, 0x10, false, COST_OTHER, 1, 5, sbc_read_capacity16,
	  { 0x9e, 0, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, 0x01, 0 } },
	{ 0x9e, 0x12, false, COST_OTHER, 1, 5, sbc_get_lba_status,
	  { 0x9e, 0, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, FF, 0, 0 } },
	/* REPORT LUNS (SPC-4 6.33): SELECT REPORT, ALLOCATION LENGTH */
	{ 0xa0, 0, false, COST_OTHER, 1, 5, LU_LAYER, { 0xa0, 0, FF, 0, 0, 0, FF, FF, FF, FF, 0, 0 } },
	{ 0xa3, 0x0c, false, COST_OTHER, 1, 5, spc_report_supported_opcodes,
	  { 0xa3, 0, 0x87, FF, FF, FF, FF, FF, FF, FF, 0, 0 } },
	{ 0xa8, 0, false, COST_READ, 1, 30, sbc_read, { 0xa8, 0x1e, FF, FF, FF, FF, FF, FF, FF, FF, GRP, 0 } },
	{ 0xaa, 0, true, COST_WRITE, 1, 30, sbc_write, { 0xaa, 0x1a, FF, FF, FF, FF, FF, FF, FF, FF, GRP, 0 } },
	{ 0xae, 0, true, COST_WRITE, 1, 30, sbc_write_verify,
	  { 0xae, 0x16, FF, FF, FF, FF, FF, FF, FF, FF, GRP, 0 } },
	{ 0xaf, 0, false, COST_VERIFY, 1, 30, sbc_verify, { 0xaf, 0x16, FF, FF, FF, FF, FF, FF, FF, FF, GRP, 0 } },
	{ 0xb7, 0, false, COST_OTHER, 1, 5, sbc_read_defect_data,
	  { 0xb7, 0x1f, FF, FF, FF, FF, FF, FF, FF, FF, 0, 0 } },
};

/* The token copy offload commands are offered only by an array whose
 * profile says odx: true (odx.h): elsewhere they are not commands of the LU
 * (05/20/00, not in RSOC nor VPD 0x8F). */
bool scsi_op_offered(const struct scsi_op *op, const struct lunlab_dev *dev)
{
	bool odx = op->fn == odx_populate_token || op->fn == odx_write_using_token || op->fn == odx_copy_abort ||
		   op->fn == odx_rrti;
	return !odx || odx_offered(dev);
}

size_t scsi_op_count(void)
{
	return sizeof(ops) / sizeof(ops[0]);
}

const struct scsi_op *scsi_op_at(size_t i)
{
	return i < scsi_op_count() ? &ops[i] : NULL;
}

/* Per opcode, where its entries start in ops[] (index + 1; 0: not an
 * opcode lunlab knows) and how many there are: one table lookup per command
 * instead of a scan (scsi_debug's opcode_ind_arr, QEMU scsi-disk's dispatch
 * table).  Entries of one opcode are adjacent in ops[] (checked here). */
static uint8_t op_first[256], op_count[256];
/* Each entry's CDB length, from its row in the CDB layout table (lunlab/cdb_decode.h): the
 * table is the one place that says how long a command is; tests/unit/scsi/test_cdb_decode.c
 * proves every entry here has a row there. */
static uint8_t op_cdb_len[sizeof(ops) / sizeof(ops[0])];
static bool op_has_sa[sizeof(ops) / sizeof(ops[0])];
static pthread_once_t op_index_once = PTHREAD_ONCE_INIT;

static void build_op_index(void)
{
	for (size_t i = 0; i < scsi_op_count(); i++) {
		uint8_t o = ops[i].opcode;
		const struct cdb_layout *l = cdb_layout_find(o, ops[i].sa);

		assert(l);
		op_cdb_len[i] = l ? l->cdb_len : 0;
		op_has_sa[i] = l && l->has_sa;
		if (!op_first[o])
			op_first[o] = (uint8_t)(i + 1);
		/* a split run would hide its later entries from scsi_op_find */
		assert((size_t)op_first[o] - 1 + op_count[o] == i);
		op_count[o]++;
	}
}

uint8_t scsi_op_cdb_len(const struct scsi_op *op)
{
	pthread_once(&op_index_once, build_op_index);
	return op_cdb_len[op - ops];
}

bool scsi_op_has_sa(const struct scsi_op *op)
{
	pthread_once(&op_index_once, build_op_index);
	return op_has_sa[op - ops];
}

const struct scsi_op *scsi_op_find(uint8_t opcode, uint16_t sa, bool *opcode_has_sa, bool *opcode_known)
{
	const struct scsi_op *hit = NULL;

	pthread_once(&op_index_once, build_op_index);
	unsigned first = op_first[opcode], n = op_count[opcode];
	if (first) {
		const struct scsi_op *e = &ops[first - 1];
		for (unsigned i = 0; i < n; i++)
			if (!op_has_sa[first - 1 + i] || e[i].sa == sa) {
				hit = &e[i];
				break;
			}
	}
	if (opcode_has_sa)
		*opcode_has_sa = first && op_has_sa[first - 1];
	if (opcode_known)
		*opcode_known = first != 0;
	return hit;
}

static int highest_bit(uint8_t v)
{
	int b = 7;
	while (b > 0 && !(v & (1u << b)))
		b--;
	return b;
}

/* Commands whose Data-In buffer carries parameter data the device server
 * builds (everything data-in except READ, whose blocks fill it whole).
 * tcmu-runner hands the handler its data area without clearing it, and LIO
 * sends the whole buffer (the allocation length), so bytes a page does not
 * cover would leak earlier commands' data to the initiator (libiscsi:
 * "Padding data is not zero").  Data-out commands (MODE/LOG SELECT, EXTENDED
 * COPY, VERIFY with BYTCHK) are absent: clearing would destroy their
 * parameter data. */
static bool returns_parameter_data(uint8_t opcode)
{
	switch (opcode) {
	case SCSI_OP_REQUEST_SENSE:
	case SCSI_OP_INQUIRY:
	case SCSI_OP_MODE_SENSE_6:
	case SCSI_OP_READ_CAPACITY_10:
	case SCSI_OP_READ_DEFECT_DATA_10:
	case SCSI_OP_LOG_SENSE:
	case SCSI_OP_MODE_SENSE_10:
	case SCSI_OP_THIRD_PARTY_COPY_IN:
	case SCSI_OP_SERVICE_ACTION_IN_16:
	case SCSI_OP_MAINTENANCE_IN:
	case SCSI_OP_READ_DEFECT_DATA_12:
		return true;
	default:
		return false;
	}
}

/* Zero the whole Data-In buffer (these buffers are small: allocation
 * lengths of at most 64 KiB for everything returns_parameter_data lists
 * but GET LBA STATUS, which is bounded by the host's data area). */
static void clear_data_in(struct scsi_cmd *cmd)
{
	for (size_t i = 0; i < cmd->iov_cnt; i++)
		memset(cmd->iov[i].iov_base, 0, cmd->iov[i].iov_len);
}

/* SBC-4 4.15: a write completes durable when the LU's write cache is off
 * (WCE=0), or when the command has FUA set (byte 1 bit 3 of WRITE(10/12/16),
 * COMPARE AND WRITE, ORWRITE(16), WRITE ATOMIC(16)); WRITE AND VERIFY
 * verifies the medium, so it is durable too.  Otherwise a later
 * SYNCHRONIZE CACHE makes it so. */
static bool must_be_durable(const struct scsi_cmd *cmd)
{
	struct cdb_info ci;

	if (!atomic_load(&scsi_lu(cmd->dev)->wce))
		return true;
	scsi_cdb_decode(cmd, &ci);
	if (ci.flags & CDB_F_FUA)
		return true;
	switch (cmd->cdb[0]) {
	case SCSI_OP_WRITE_AND_VERIFY_10: case SCSI_OP_WRITE_AND_VERIFY_12:
	case SCSI_OP_WRITE_AND_VERIFY_16:
		return true;
	default:
		return false;
	}
}

int scsi_dispatch(struct scsi_cmd *cmd, enum cost_kind *kind)
{
	const uint8_t *cdb = cmd->cdb;
	bool has_sa = false;
	const struct scsi_op *op = scsi_op_find(cdb[0], cdb[1] & 0x1f, &has_sa, NULL);

	*kind = COST_OTHER;
	/* a unit attention the array's events owe this nexus comes first (ua.h) */
	int ua = scsi_ua_check(cmd);
	if (ua != TCMU_STS_OK)
		return ua;
	if (!op || op->fn == LU_LAYER) /* the host answers these: see the table */
		return sense_set(cmd, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_OPCODE);
	if (!scsi_op_offered(op, cmd->dev)) /* ODX on an array without it */
		return sense_set(cmd, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_OPCODE);

	/* Every bit outside the usage data is reserved (or a feature lunlab does
	 * not have, e.g. RDPROTECT): point at the highest offending bit. */
	for (unsigned i = 1, n = op_cdb_len[op - ops]; i < n; i++) {
		uint8_t allowed = op->usage[i];
		if (i == 1 && op_has_sa[op - ops])
			allowed |= 0x1f;
		uint8_t bad = cdb[i] & (uint8_t)~allowed;
		if (bad)
			return sense_invalid_cdb_field(cmd, (uint16_t)i, highest_bit(bad));
	}
	if (op->writes_medium && scsi_lu(cmd->dev)->readonly)
		return sense_set(cmd, SCSI_SK_DATA_PROTECT, SCSI_ASC_WRITE_PROTECTED); /* WRITE PROTECTED (readonly=1) */
	if (op->writes_medium && atomic_load(&scsi_lu(cmd->dev)->swp))
		return sense_set(cmd, SCSI_SK_DATA_PROTECT, SCSI_ASC_SOFTWARE_WRITE_PROTECTED); /* WRITE PROTECTED: by software */

	*kind = op->kind;
	if (returns_parameter_data(op->opcode))
		clear_data_in(cmd);
	/* a command that changes the medium is one piece of a commit
	 * (array_state.h), then durable if it must be */
	bool changes = op->writes_medium || op->opcode == SCSI_OP_THIRD_PARTY_COPY_OUT; /* EXTENDED COPY: its destination */
	if (changes)
		array_cmd_begin(cmd->dev->array);
	int rc = op->fn(cmd);
	if (changes)
		array_cmd_end(cmd->dev->array);
	if (rc == TCMU_STS_OK && (cmd->sync_after || (op->writes_medium && must_be_durable(cmd))))
		rc = sbc_sync_array(cmd);
	return rc;
}
