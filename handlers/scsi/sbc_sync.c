/* sbc_sync.c — SYNCHRONIZE CACHE (10)/(16), SBC-4 5.26, 5.27.  The volume
 * has no volatile cache to flush (writes land in the store before they
 * complete), so the command only validates its range. */
#include "handlers/scsi/scsi.h"
#include "handlers/scsi/sense.h"

int sbc_sync_cache(struct scsi_cmd *cmd)
{
	uint64_t lba = cdb_lba(cmd->cdb);
	uint64_t n = cdb_xfer_blocks(cmd->cdb);

	/* NUMBER OF LOGICAL BLOCKS 0 means "from LBA to the end" */
	return cdb_check_range(cmd, lba, n);
}
