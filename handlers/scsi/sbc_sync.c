/* sbc_sync.c — cache management: SYNCHRONIZE CACHE (10)/(16) and PRE-FETCH
 * (10)/(16), SBC-4 5.26, 5.27, 5.13, 5.14.  The volume has no volatile cache
 * to flush (writes land in the store before they complete) and every block is
 * already in memory, so both only validate their range.  PRE-FETCH answers
 * GOOD rather than CONDITION MET: a tcmu handler has no status code for it. */
#include "handlers/scsi/scsi.h"
#include "handlers/scsi/sense.h"

int sbc_sync_cache(struct scsi_cmd *cmd)
{
	uint64_t lba = cdb_lba(cmd->cdb);
	uint64_t n = cdb_xfer_blocks(cmd->cdb);

	/* NUMBER OF LOGICAL BLOCKS 0 means "from LBA to the end" */
	return cdb_check_range(cmd, lba, n);
}

int sbc_prefetch(struct scsi_cmd *cmd)
{
	return cdb_check_range(cmd, cdb_lba(cmd->cdb), cdb_xfer_blocks(cmd->cdb));
}
