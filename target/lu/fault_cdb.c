/* fault_cdb.c — command kinds and addressed blocks, as fault rules match
 * them, read through the one CDB decoder (lunlab/cdb_decode.h). */
#include "lunlab/be.h"
#include "lunlab/cdb_decode.h"
#include "lunlab/scsi_vocab.h"
#include "target/lu/fault_rules.h"
#include "target/lu/lu_cmd.h"

enum fault_op fault_cdb_kind(const uint8_t *cdb, size_t cdb_len)
{
	struct cdb_info ci;

	if (cdb_decode(cdb, cdb_len, 0, &ci) != CDB_DECODE_OK)
		return FAULT_OP_OPCODE;
	/* ODX's commands by name (op=populate-token ...): a WRITE USING TOKEN is
	 * not op=xcopy, whose xcopy-fail-after counts EXTENDED COPY segments */
	if (ci.layout->has_sa && ci.layout->opcode == SCSI_OP_THIRD_PARTY_COPY_OUT) {
		switch (ci.layout->sa) {
		case SCSI_SA_POPULATE_TOKEN: return FAULT_OP_POPULATE_TOKEN;
		case SCSI_SA_WRITE_USING_TOKEN: return FAULT_OP_WRITE_USING_TOKEN;
		case SCSI_SA_COPY_OPERATION_ABORT: return FAULT_OP_COPY_ABORT;
		default: break;
		}
	}
	if (ci.layout->has_sa && ci.layout->opcode == SCSI_OP_THIRD_PARTY_COPY_IN &&
	    ci.layout->sa == SCSI_SA_RECEIVE_ROD_TOKEN_INFORMATION)
		return FAULT_OP_RRTI;
	switch (ci.layout->cls) {
	case CDB_CLASS_READ: return FAULT_OP_READ;
	case CDB_CLASS_WRITE: case CDB_CLASS_WRITE_SAME: return FAULT_OP_WRITE;
	case CDB_CLASS_XCOPY: return FAULT_OP_XCOPY;
	case CDB_CLASS_UNMAP: return FAULT_OP_UNMAP;
	case CDB_CLASS_CAW: return FAULT_OP_CAW;
	case CDB_CLASS_TUR: return FAULT_OP_TUR;
	case CDB_CLASS_SYNC: return FAULT_OP_SYNC;
	default: return FAULT_OP_OPCODE;
	}
}

bool fault_cdb_exempt(const uint8_t *cdb, size_t cdb_len)
{
	return cdb_len && (cdb_opcode_props(cdb[0]) & CDB_L_UA_EXEMPT);
}

bool fault_cdb_range(const uint8_t *cdb, size_t cdb_len, uint64_t *lba, uint64_t *blocks)
{
	struct cdb_info ci;

	/* the commands whose length counts blocks at their LBA (GET LBA STATUS has an LBA
	 * but an allocation length: it names no range) */
	if (cdb_decode(cdb, cdb_len, 0, &ci) != CDB_DECODE_OK || !ci.layout->lba_size)
		return false;
	switch (ci.layout->len_kind) {
	case CDB_LEN_XFER: case CDB_LEN_VERIFY: case CDB_LEN_SAME: case CDB_LEN_RANGE: case CDB_LEN_CAW:
		break;
	default:
		return false;
	}
	*lba = ci.lba;
	*blocks = ci.length; /* READ(6)/WRITE(6): 0 is 256 already */
	/* 0 blocks: SYNCHRONIZE CACHE / WRITE SAME / PRE-FETCH mean "to the end"; a
	 * transfer of nothing still names its LBA */
	if (*blocks == 0)
		*blocks = (ci.layout->props & CDB_L_ZERO_TO_END) ? UINT64_MAX - *lba : 1;
	return true;
}

bool fault_unmap_overlaps(const uint8_t *data, size_t len, uint64_t first, uint64_t last, uint64_t *at)
{
	size_t dl;

	/* header: UNMAP DATA LENGTH (2), BLOCK DESCRIPTOR DATA LENGTH (2), 4 reserved */
	if (!data || len < 8)
		return false;
	dl = get_be16(data + 2);
	if (dl > len - 8)
		dl = len - 8;
	for (size_t o = 8; o + 16 <= 8 + dl; o += 16) {
		uint64_t lba = get_be64(data + o), n = get_be32(data + o + 8);
		uint64_t end;

		if (n == 0)
			continue;
		end = lba + n - 1 < lba ? UINT64_MAX : lba + n - 1;
		if (lba <= last && end >= first) {
			*at = lba > first ? lba : first;
			return true;
		}
	}
	return false;
}
