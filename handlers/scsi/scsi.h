/* scsi.h — what the SCSI personality modules share: the per-LU state the
 * mode pages keep beside struct lunlab_dev, the command table entry, the
 * dispatcher, and the limits every page (VPD B0, RSOC, mode pages) reports. */
#ifndef LUNLAB_SCSI_H
#define LUNLAB_SCSI_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lunlab/cdb_decode.h"
#include "handlers/lu_metrics.h"
#include "handlers/lunlab_dev.h"
#include "handlers/scsi/ua.h"
#include "models/cost.h"

/* One LU as the SCSI layer holds it: struct lunlab_dev (the frozen, shared
 * part) first, then state only the SCSI modules use.  handler.c and the unit
 * tests allocate this; scsi_lu() recovers it from a lunlab_dev pointer. */
struct scsi_lu {
	struct lunlab_dev dev;
	atomic_bool swp;            /* control mode page SWP: software write protect */
	atomic_bool wce;            /* caching mode page WCE (mirrors dev.write_cache) */
	/* set once at open (cfgstring), before the first command: */
	bool readonly;              /* readonly=1: hardware-style write protection (WP, 27/00) */
	uint8_t lbppbe;             /* LOGICAL BLOCKS PER PHYSICAL BLOCK EXPONENT (physical_block=) */
	bool unpaced;               /* the cost model never holds a completion back (handler.c) */
	bool sessions;              /* the model's host is one stream per session (vsessions.h) */
	struct lu_metrics metrics;  /* what the model charged for this LU (/metrics; handler.c) */
	struct scsi_ua ua;          /* unit attentions owed per I_T nexus (ua.h) */
};

static inline struct scsi_lu *scsi_lu(struct lunlab_dev *d)
{
	return (struct scsi_lu *)d; /* dev is the first member */
}

/* Initialise the SCSI state of an LU whose struct lunlab_dev is filled;
 * scsi_lu_fini frees what it gathered (before the LU is freed). */
void scsi_lu_init(struct scsi_lu *lu);
void scsi_lu_fini(struct scsi_lu *lu);

/* Limits reported in VPD B0 and enforced by the commands (blocks unless named). */
#define SCSI_MAX_UNMAP_LBA_COUNT  (1u << 20)  /* per UNMAP command */
#define SCSI_MAX_UNMAP_DESCRIPTORS 256u       /* not 0xFFFFFFFF: libiscsi treats that as "insane" */
/* WRITE SAME (with UNMAP or a pattern) covers at most 16 MiB per command, in
 * blocks of the LU; below 65536 blocks for 512-byte LUs, so libiscsi's
 * WriteSame16.Unmap probes the limit instead of a 32 MiB WRITE(16) that
 * exceeds the maximum transfer length. */
#define SCSI_MAX_WRITE_SAME_BYTES (16u << 20)
uint32_t scsi_max_write_same(const struct lunlab_dev *d);
#define SCSI_MAX_CAW_BLOCKS        255u        /* the B0 field is one byte */

/* Blocks per dedup block of the LU's array; at least 1. */
uint32_t scsi_dedup_blocks(const struct lunlab_dev *d);
/* Logical blocks per physical block (1 << lbppbe). */
uint32_t scsi_lbppb(const struct lunlab_dev *d);
/* Optimal granularity for I/O and UNMAP (VPD B0): the larger of the dedup
 * block and the physical block, both powers of two, so a multiple of each. */
uint32_t scsi_opt_gran(const struct lunlab_dev *d);
/* Set lbppbe from physical_block bytes (0 = one logical block); -1 if it is
 * smaller than the logical block or the exponent does not fit 4 bits. */
int scsi_lu_set_physical_block(struct scsi_lu *lu, uint32_t physical_block);
/* True when the medium may not be written: readonly=1 or control mode page SWP. */
bool scsi_write_protected(const struct lunlab_dev *d);
/* Logical block provisioning thresholds (SBC-4 4.7.3.7): the VPD B2
 * THRESHOLD EXPONENT, 0 when the array has no capacity (no thresholds); the
 * resource counts of log page 0Ch and the threshold count of mode page
 * 1Ch/02h are in sets of 2^exponent logical blocks. */
uint8_t scsi_threshold_exponent(const struct lunlab_dev *d);
uint64_t scsi_threshold_set_bytes(const struct lunlab_dev *d);

/* ---- the command table (opcodes.c) ---- */
typedef int (*scsi_fn)(struct scsi_cmd *cmd);

struct scsi_op {
	uint8_t opcode;
	uint16_t sa;                /* 0 for an opcode without service actions; whether it has
				     * them, and its CDB length: scsi_op_has_sa, scsi_op_cdb_len
				     * (its row of the CDB layout table) */
	bool writes_medium;         /* refused with DATA PROTECT while SWP=1 */
	enum cost_kind kind;
	uint32_t nominal_timeout_s; /* RSOC command timeouts descriptor */
	uint32_t recommended_timeout_s;
	scsi_fn fn;
	/* CDB usage data (SPC-4 6.35.3): which bits the device server looks at.
	 * Byte 0 is the opcode; for service action commands byte 1 holds only the
	 * non-service-action bits (the SA bits are added when reported). */
	uint8_t usage[16];
};
/* whether dev serves op (false: ODX on an array whose profile has none) */
bool scsi_op_offered(const struct scsi_op *op, const struct lunlab_dev *dev);

/* Table access for REPORT SUPPORTED OPERATION CODES. */
size_t scsi_op_count(void);
const struct scsi_op *scsi_op_at(size_t i);
/* an entry's CDB length, as the CDB layout table (lunlab/cdb_decode.h) gives it */
uint8_t scsi_op_cdb_len(const struct scsi_op *op);
/* whether an entry's opcode has service actions (CDB byte 1, bits 4..0), from the same row */
bool scsi_op_has_sa(const struct scsi_op *op);
/* the entry for opcode (and sa if the opcode has service actions), or NULL;
 * *opcode_known tells whether the opcode exists with other service actions */
const struct scsi_op *scsi_op_find(uint8_t opcode, uint16_t sa, bool *opcode_has_sa, bool *opcode_known);

/* Decode, validate against the table (reserved bits, SWP) and run one
 * command.  Returns a TCMU_STS_* with cmd->sense filled on CHECK CONDITION;
 * *kind tells the cost model what ran (COST_OTHER for rejected commands). */
int scsi_dispatch(struct scsi_cmd *cmd, enum cost_kind *kind);

/* The cost model's view of a command dispatch ran (cost_req.c): kind from
 * scsi_dispatch, sizes from what the module recorded in cmd. */
void scsi_cost_req(const struct scsi_cmd *cmd, enum cost_kind kind, struct cost_req *out);

/* ---- data buffer helpers (buf.c): no tcmu_* so unit tests need no host ---- */
/* Copy len bytes of src into the data-in buffer (truncated to its size);
 * returns bytes copied. */
size_t scsi_datain(struct scsi_cmd *cmd, const void *src, size_t len);
/* Copy up to len bytes of the data-out buffer into dst; returns bytes copied. */
size_t scsi_dataout(struct scsi_cmd *cmd, void *dst, size_t len);
/* Copy bytes [off, off+len) of the data-out buffer into dst; returns bytes copied. */
size_t scsi_dataout_at(struct scsi_cmd *cmd, size_t off, void *dst, size_t len);

/* ---- CDB decoding and checks (cdb.c) ---- */
/* The command's CDB through the layout table (lunlab/cdb_decode.h): LBA, length field
 * (READ(6)/WRITE(6): 0 = 256 blocks), flags, the field offsets for sense pointers.  Every
 * command the dispatcher accepts has a row; a CDB without one decodes to zeros (layout
 * NULL). */
void scsi_cdb_decode(const struct scsi_cmd *cmd, struct cdb_info *ci);
/* LBA OUT OF RANGE check: lba..lba+nblocks must lie within the LU. 0 = fine,
 * else sense 05/21/00 filled and TCMU_STS_PASSTHROUGH_ERR returned. */
int cdb_check_range(struct scsi_cmd *cmd, uint64_t lba, uint64_t nblocks);
/* max transfer length check of a decoded CDB's length (05/24/00 pointing at the
 * length field). */
int cdb_check_xfer(struct scsi_cmd *cmd, const struct cdb_info *ci);
/* Data-out shorter than the CDB says (the initiator's Expected Data Transfer
 * Length below the command's): a command is never carried out on missing
 * data, nor on zeros in its place (handlers/scsi/README.md has the table).
 * cdb_check_dataout, for block data (WRITE ATOMIC, ORWRITE, VERIFY with
 * BYTCHK; WRITE when the data does not even reach its last block):
 * fewer than need bytes -> 05/0E/03 INVALID FIELD IN COMMAND INFORMATION UNIT
 * (LIO's answer for a data CDB whose EDTL differs).  cdb_check_param_list,
 * for parameter lists (UNMAP, MODE SELECT, EXTENDED COPY): fewer than the
 * PARAMETER LIST LENGTH (field at CDB byte `field`) -> 05/24/00 pointing at
 * that field (LIO: "overflow for a WRITE control CDB").  More data than
 * needed is accepted and the rest ignored (an underflow, which the transport
 * reports as a residual). */
int cdb_check_dataout(struct scsi_cmd *cmd, uint64_t need);
int cdb_check_param_list(struct scsi_cmd *cmd, uint64_t plen, unsigned field);
/* exactly need bytes of block data (COMPARE AND WRITE, WRITE SAME): any other
 * length -> 05/0E/03 */
int cdb_check_dataout_exact(struct scsi_cmd *cmd, uint64_t need);

/* ---- command handlers, one file per area ---- */
int spc_test_unit_ready(struct scsi_cmd *cmd);
int spc_request_sense(struct scsi_cmd *cmd);
int spc_report_supported_opcodes(struct scsi_cmd *cmd);
int spc_inquiry(struct scsi_cmd *cmd);
int spc_mode_sense(struct scsi_cmd *cmd);
int spc_mode_select(struct scsi_cmd *cmd);
int spc_log_sense(struct scsi_cmd *cmd);
int spc_log_select(struct scsi_cmd *cmd);
int sbc_read(struct scsi_cmd *cmd);
int sbc_write(struct scsi_cmd *cmd);
/* lunlab-target's early Data-Out (sbc_write_early.c): another part of a
 * WRITE's data, the first `bytes` of iov, has landed; *state (NULL at first)
 * is what this command keeps, for scsi_cmd.early and then
 * sbc_write_early_drop. */
void sbc_write_early_feed(struct lunlab_dev *d, const uint8_t *cdb, const struct iovec *iov, size_t iovcnt,
			  size_t bytes, void **state);
struct vio_early *sbc_write_early_of(void *state);
void sbc_write_early_drop(void *state);
int sbc_read_capacity10(struct scsi_cmd *cmd);
int sbc_read_capacity16(struct scsi_cmd *cmd);
int sbc_sync_cache(struct scsi_cmd *cmd);
/* Everything the LU's array changed so far durable (a state directory; at
 * once in memory): TCMU_STS_OK, or CHECK CONDITION 03/0C/00 WRITE ERROR
 * when the state directory cannot be written (sbc_sync.c). */
int sbc_sync_array(struct scsi_cmd *cmd);
int sbc_prefetch(struct scsi_cmd *cmd);
int sbc_compare_and_write(struct scsi_cmd *cmd);
int sbc_write_same(struct scsi_cmd *cmd);
int sbc_unmap(struct scsi_cmd *cmd);
int sbc_get_lba_status(struct scsi_cmd *cmd);
int sbc_verify(struct scsi_cmd *cmd);
int sbc_write_verify(struct scsi_cmd *cmd);
int sbc_orwrite(struct scsi_cmd *cmd);
int sbc_write_atomic(struct scsi_cmd *cmd);
int sbc_read_defect_data(struct scsi_cmd *cmd);

/* MAXIMUM ATOMIC TRANSFER LENGTH (VPD B0) in blocks (sbc_write_atomic.c). */
uint32_t scsi_max_atomic_blocks(const struct lunlab_dev *d);

/* Map a negative errno from the volume to sense (sbc_rw.c). */
int sbc_volume_error(struct scsi_cmd *cmd, int err, bool write);

/* Product identification for standard INQUIRY, from the profile name. */
const char *spc_product_id(const struct lunlab_dev *d);
/* INQUIRY's T10 VENDOR IDENTIFICATION ("LUNLAB", or "XtremIO" with identity=xtremio) */
const char *spc_vendor_id(const struct lunlab_dev *d);

#endif
