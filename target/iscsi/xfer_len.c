/* xfer_len.c — transfer length by opcode, through the one CDB decoder
 * (lunlab/cdb_decode.h), and the lengths self-describing responses declare. */
#include "target/iscsi/xfer_len.h"
#include "lunlab/be.h"
#include "lunlab/cdb_decode.h"
#include "lunlab/scsi_vocab.h"
#include "target/lu/lu_cmd.h"

#include "target/iscsi/pdu.h"

uint64_t cdb_xfer_len(const uint8_t *cdb, uint32_t bs, bool *rw)
{
	struct cdb_info ci;

	*rw = false;
	if (cdb_decode(cdb, LU_CDB_MAX, bs, &ci) != CDB_DECODE_OK)
		return XFER_LEN_UNKNOWN;
	*rw = ci.layout->props & CDB_L_DIVISIBLE;
	/* A data-out command's data is whatever the initiator sends: the transport never sizes
	 * a buffer from its CDB (a missing parameter list or block must reach the LU as
	 * missing, not as zeros), so only a READ/WRITE-family length counts. */
	if (ci.layout->dir == CDB_DIR_OUT && !*rw)
		return XFER_LEN_UNKNOWN;
	return ci.xfer_bytes;
}

bool cdb_set_blocks(uint8_t *cdb, uint32_t blocks)
{
	return (cdb_opcode_props(cdb[0]) & CDB_L_DIVISIBLE) && cdb_set_length(cdb, LU_CDB_MAX, blocks);
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
