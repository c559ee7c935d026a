/* sbc_sync.c — cache management: SYNCHRONIZE CACHE (10)/(16) and PRE-FETCH
 * (10)/(16), SBC-4 5.26, 5.27, 5.13, 5.14.  An array in memory has no
 * volatile cache to flush (writes land in the store before they complete);
 * an array in a state directory does: SYNCHRONIZE CACHE returns once every
 * change the array made before it is on stable storage (array_sync: the
 * whole array, which covers any range asked for; IMMED is not offered, so
 * the command always waits).  PRE-FETCH only validates its range and answers
 * GOOD rather than CONDITION MET: a tcmu handler has no status code for it. */
#include <errno.h>

#include "lunlab/scsi_vocab.h"
#include "handlers/array/array_state.h"
#include "handlers/scsi/scsi.h"
#include "handlers/scsi/sense.h"

int sbc_sync_array(struct scsi_cmd *cmd)
{
	if (array_sync(cmd->dev->array) != 0)
		return sense_set(cmd, SCSI_SK_MEDIUM_ERROR, SCSI_ASC_WRITE_ERROR);
	return TCMU_STS_OK;
}

int sbc_sync_cache(struct scsi_cmd *cmd)
{
	struct cdb_info ci;

	scsi_cdb_decode(cmd, &ci);
	/* NUMBER OF LOGICAL BLOCKS 0 means "from LBA to the end" */
	int rc = cdb_check_range(cmd, ci.lba, ci.length);

	return rc == TCMU_STS_OK ? sbc_sync_array(cmd) : rc;
}

int sbc_prefetch(struct scsi_cmd *cmd)
{
	struct cdb_info ci;

	scsi_cdb_decode(cmd, &ci);
	return cdb_check_range(cmd, ci.lba, ci.length);
}
