/* fault_cdb.c — command kinds and addressed blocks, as fault rules match
 * them (SBC-4 field positions). */
#include "lunlab/scsi_vocab.h"
#include "target/lu/fault_rules.h"

static uint64_t be(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

enum fault_op fault_cdb_kind(const uint8_t *cdb)
{
	switch (cdb[0]) {
	case SCSI_OP_READ_6: case SCSI_OP_READ_10: case SCSI_OP_READ_12: case SCSI_OP_READ_16:
		return FAULT_OP_READ;
	case SCSI_OP_WRITE_6: case SCSI_OP_WRITE_10: case SCSI_OP_WRITE_12: case SCSI_OP_WRITE_16:
	case SCSI_OP_WRITE_AND_VERIFY_10: case SCSI_OP_WRITE_AND_VERIFY_12:
	case SCSI_OP_WRITE_AND_VERIFY_16:
	case SCSI_OP_WRITE_SAME_10: case SCSI_OP_WRITE_SAME_16:
	case SCSI_OP_WRITE_ATOMIC_16:
		return FAULT_OP_WRITE;
	case SCSI_OP_THIRD_PARTY_COPY_OUT:
		return FAULT_OP_XCOPY;
	case SCSI_OP_UNMAP:
		return FAULT_OP_UNMAP;
	case SCSI_OP_COMPARE_AND_WRITE:
		return FAULT_OP_CAW;
	case SCSI_OP_TEST_UNIT_READY:
		return FAULT_OP_TUR;
	case SCSI_OP_SYNCHRONIZE_CACHE_10: case SCSI_OP_SYNCHRONIZE_CACHE_16:
		return FAULT_OP_SYNC;
	default:
		return FAULT_OP_OPCODE;
	}
}

bool fault_cdb_exempt(const uint8_t *cdb)
{
	return cdb[0] == SCSI_OP_INQUIRY || cdb[0] == SCSI_OP_REPORT_LUNS || cdb[0] == SCSI_OP_REQUEST_SENSE;
}

bool fault_cdb_range(const uint8_t *cdb, uint64_t *lba, uint64_t *blocks)
{
	switch (cdb[0]) {
	case SCSI_OP_READ_6: case SCSI_OP_WRITE_6: /* 21-bit LBA, 0 blocks = 256 */
		*lba = be(cdb + 1, 3) & 0x1fffff;
		*blocks = cdb[4] ? cdb[4] : 256;
		return true;
	case SCSI_OP_READ_10: case SCSI_OP_WRITE_10: case SCSI_OP_WRITE_AND_VERIFY_10:
	case SCSI_OP_VERIFY_10: case SCSI_OP_WRITE_SAME_10: case SCSI_OP_SYNCHRONIZE_CACHE_10:
		*lba = be(cdb + 2, 4);
		*blocks = be(cdb + 7, 2);
		break;
	case SCSI_OP_READ_12: case SCSI_OP_WRITE_12: case SCSI_OP_WRITE_AND_VERIFY_12:
	case SCSI_OP_VERIFY_12:
		*lba = be(cdb + 2, 4);
		*blocks = be(cdb + 6, 4);
		break;
	case SCSI_OP_READ_16: case SCSI_OP_WRITE_16: case SCSI_OP_WRITE_AND_VERIFY_16:
	case SCSI_OP_VERIFY_16: case SCSI_OP_WRITE_SAME_16: case SCSI_OP_SYNCHRONIZE_CACHE_16:
	case SCSI_OP_WRITE_ATOMIC_16:
		*lba = be(cdb + 2, 8);
		*blocks = be(cdb + 10, 4);
		break;
	case SCSI_OP_COMPARE_AND_WRITE: /* COMPARE AND WRITE: NUMBER OF LOGICAL BLOCKS in byte 13 */
		*lba = be(cdb + 2, 8);
		*blocks = cdb[13];
		break;
	default:
		return false;
	}
	/* 0 blocks: SYNCHRONIZE CACHE / WRITE SAME mean "to the end"; a
	 * transfer of nothing still names its LBA */
	if (*blocks == 0)
		*blocks = (cdb[0] == SCSI_OP_SYNCHRONIZE_CACHE_10 || cdb[0] == SCSI_OP_SYNCHRONIZE_CACHE_16 ||
			   cdb[0] == SCSI_OP_WRITE_SAME_10 || cdb[0] == SCSI_OP_WRITE_SAME_16) ? UINT64_MAX - *lba : 1;
	return true;
}

bool fault_unmap_overlaps(const uint8_t *data, size_t len, uint64_t first, uint64_t last, uint64_t *at)
{
	size_t dl;

	/* header: UNMAP DATA LENGTH (2), BLOCK DESCRIPTOR DATA LENGTH (2), 4 reserved */
	if (!data || len < 8)
		return false;
	dl = (size_t)be(data + 2, 2);
	if (dl > len - 8)
		dl = len - 8;
	for (size_t o = 8; o + 16 <= 8 + dl; o += 16) {
		uint64_t lba = be(data + o, 8), n = be(data + o + 8, 4);
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
