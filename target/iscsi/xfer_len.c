/* xfer_len.c — transfer length by opcode (SBC-3/SPC-4 field positions). */
#include "target/iscsi/xfer_len.h"
#include "lunlab/scsi_vocab.h"

#include "target/iscsi/pdu.h"

uint64_t cdb_xfer_len(const uint8_t *cdb, uint32_t bs, bool *rw)
{
	*rw = false;
	switch (cdb[0]) {
	case SCSI_OP_READ_6:
	case SCSI_OP_WRITE_6:
		*rw = true;
		return (uint64_t)(cdb[4] ? cdb[4] : 256) * bs;
	case SCSI_OP_READ_10:
	case SCSI_OP_WRITE_10:
	case SCSI_OP_WRITE_AND_VERIFY_10:
		*rw = true;
		return (uint64_t)get_be16(cdb + 7) * bs;
	case SCSI_OP_READ_12:
	case SCSI_OP_WRITE_12:
	case SCSI_OP_WRITE_AND_VERIFY_12:
		*rw = true;
		return (uint64_t)get_be32(cdb + 6) * bs;
	case SCSI_OP_READ_16:
	case SCSI_OP_WRITE_16:
	case SCSI_OP_WRITE_AND_VERIFY_16:
		*rw = true;
		return (uint64_t)get_be32(cdb + 10) * bs;
	case SCSI_OP_TEST_UNIT_READY:
	case SCSI_OP_SYNCHRONIZE_CACHE_10:
	case SCSI_OP_SYNCHRONIZE_CACHE_16:
		return 0;
	case SCSI_OP_READ_CAPACITY_10:
		return 8;
	case SCSI_OP_REQUEST_SENSE:
	case SCSI_OP_MODE_SENSE_6:
		return cdb[4];
	case SCSI_OP_INQUIRY:
		return get_be16(cdb + 3);
	case SCSI_OP_MODE_SENSE_10:
	case SCSI_OP_LOG_SENSE:
		return get_be16(cdb + 7);
	case SCSI_OP_REPORT_LUNS:
	case SCSI_OP_MAINTENANCE_IN: /* MAINTENANCE IN (REPORT SUPPORTED OPCODES ...) */
		return get_be32(cdb + 6);
	case SCSI_OP_SERVICE_ACTION_IN_16:
		return get_be32(cdb + 10);
	default:
		return XFER_LEN_UNKNOWN;
	}
}

bool cdb_set_blocks(uint8_t *cdb, uint32_t blocks)
{
	switch (cdb[0]) {
	case SCSI_OP_READ_6:
	case SCSI_OP_WRITE_6:
		if (blocks < 1 || blocks > 256)
			return false;
		cdb[4] = (uint8_t)(blocks == 256 ? 0 : blocks);
		return true;
	case SCSI_OP_READ_10:
	case SCSI_OP_WRITE_10:
	case SCSI_OP_WRITE_AND_VERIFY_10:
		if (blocks > 0xffff)
			return false;
		put_be16(cdb + 7, (uint16_t)blocks);
		return true;
	case SCSI_OP_READ_12:
	case SCSI_OP_WRITE_12:
	case SCSI_OP_WRITE_AND_VERIFY_12:
		put_be32(cdb + 6, blocks);
		return true;
	case SCSI_OP_READ_16:
	case SCSI_OP_WRITE_16:
	case SCSI_OP_WRITE_AND_VERIFY_16:
		put_be32(cdb + 10, blocks);
		return true;
	default:
		return false;
	}
}

/* Bytes a self-describing response declares: its length field plus the
 * header bytes in front of (and including) that field.  0: the response
 * does not say, or too little of it was produced to tell. */
static size_t declared_len(const uint8_t *cdb, const uint8_t *buf, size_t produced)
{
	switch (cdb[0]) {
	case SCSI_OP_INQUIRY:
		if (cdb[1] & 0x01) /* VPD page: 4-byte header + PAGE LENGTH */
			return produced >= 4 ? 4 + (size_t)get_be16(buf + 2) : 0;
		return produced >= 5 ? 5 + (size_t)buf[4] : 0; /* ADDITIONAL LENGTH */
	case SCSI_OP_MODE_SENSE_6: /* MODE SENSE(6): MODE DATA LENGTH excludes itself */
		return produced >= 1 ? 1 + (size_t)buf[0] : 0;
	case SCSI_OP_MODE_SENSE_10:
		return produced >= 2 ? 2 + (size_t)get_be16(buf) : 0;
	case SCSI_OP_LOG_SENSE: /* LOG SENSE: 4-byte page header + PAGE LENGTH */
		return produced >= 4 ? 4 + (size_t)get_be16(buf + 2) : 0;
	case SCSI_OP_REQUEST_SENSE: /* REQUEST SENSE: fixed or descriptor, ADDITIONAL SENSE LENGTH at 7 */
		return produced >= 8 ? 8 + (size_t)buf[7] : 0;
	case SCSI_OP_THIRD_PARTY_COPY_IN: /* RECEIVE COPY RESULTS: AVAILABLE DATA counts what follows it */
		return produced >= 4 ? 4 + (size_t)get_be32(buf) : 0;
	case SCSI_OP_SERVICE_ACTION_IN_16:
		if ((cdb[1] & SCSI_SA_MASK) != SCSI_SA_GET_LBA_STATUS)
			return 0;
		return produced >= 4 ? 4 + (size_t)get_be32(buf) : 0;
	case SCSI_OP_MAINTENANCE_IN:
		if ((cdb[1] & SCSI_SA_MASK) != SCSI_SA_REPORT_SUPPORTED_OPCODES)
			return 0;
		if ((cdb[2] & 0x07) == 0) /* all commands: COMMAND DATA LENGTH */
			return produced >= 4 ? 4 + (size_t)get_be32(buf) : 0;
		/* one command: CDB SIZE, then a timeouts descriptor if CTDP */
		return produced >= 4 ? 4 + (size_t)get_be16(buf + 2) + ((buf[1] & 0x80) ? 12 : 0) : 0;
	default:
		return 0;
	}
}

size_t cdb_response_len(const uint8_t *cdb, const uint8_t *buf, size_t produced)
{
	size_t real;

	if (!buf)
		return produced;
	real = declared_len(cdb, buf, produced);
	return real && real < produced ? real : produced;
}
