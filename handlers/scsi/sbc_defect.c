/* sbc_defect.c — READ DEFECT DATA (10)/(12), SBC-4 5.23, 5.24.  The medium
 * is memory: it has no defects, so both lists are valid and empty.  The
 * header echoes the requested lists (PLISTV/GLISTV) and the requested
 * format, which SBC allows for an empty list in any format. */
#include <string.h>

#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"
#include "handlers/scsi/scsi.h"
#include "handlers/scsi/sense.h"

int sbc_read_defect_data(struct scsi_cmd *cmd)
{
	const uint8_t *cdb = cmd->cdb;
	bool twelve = cdb[0] == SCSI_OP_READ_DEFECT_DATA_12;
	uint8_t req = twelve ? cdb[1] : cdb[2];      /* REQ_PLIST(4) REQ_GLIST(3) FORMAT(2:0) */
	struct cdb_info ci;

	scsi_cdb_decode(cmd, &ci);
	uint32_t alloc = ci.length;
	uint8_t hdr[8];
	size_t len = twelve ? 8 : 4;

	memset(hdr, 0, sizeof(hdr));
	hdr[1] = req & 0x1f;                           /* PLISTV GLISTV = what was asked; format */
	/* (12): bytes 2-3 GENERATION CODE 0 (not reported), 4-7 length 0;
	 * (10): bytes 2-3 DEFECT LIST LENGTH 0 */
	if (len > alloc)
		len = alloc;
	cmd->bytes_moved = scsi_datain(cmd, hdr, len);
	return TCMU_STS_OK;
}
