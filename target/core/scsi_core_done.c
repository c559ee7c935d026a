/* scsi_core_done.c — what the SCSI core does when a command's answer goes
 * out (scsi_core.h scsi_core_done): the LU's figures (target/lu/lu_stats.h)
 * and the SCSI-side happenings the management plane turns into events and
 * alerts (target/lu/happenings.h: a soft threshold or out of space the LU
 * answered).  The transport only says that a response left, how many bytes
 * crossed the wire and how long the command took; what that means for the
 * LU is the core's, as the rest of the command's life is. */
#include "target/core/scsi_core.h"
#include "lunlab/scsi_vocab.h"

#include "target/lu/happenings.h"
#include "target/lu/lu_stats.h"

bool scsi_core_done(struct scsi_itn *itn, struct scsi_core_cmd *cmd, uint64_t lu_id, unsigned shard,
		    uint64_t wire_bytes, uint64_t elapsed_ns, struct lu_stats_sample *smp)
{
	struct lu_cmd *lc = cmd->lc;
	struct lu_entry *e;

	/* commands to no LU are not counted */
	if (!cmd->be)
		return false;
	/* looked up again, as scsi_core_still_there does: the management API
	 * may have unmapped and freed the LU while the command was in its
	 * backend */
	e = lu_nexus_lookup(&itn->lunx, itn->initiator, cmd->lun, cmd->lun != UINT64_MAX);
	if (!e || e->id != lu_id || !e->stats)
		return false;
	lu_stats_sample_set(smp, lu_kind_of(lc->cdb, lc->cdb_len), wire_bytes, lc->status == SCSI_STAT_GOOD,
			    elapsed_ns);
	lu_stats_add(e->stats, shard, smp);
	if (lc->status == SCSI_STAT_CHECK_CONDITION)
		happening_check_sense(e->id, cmd->lun, lc->status, lc->sense, lc->sense_len);
	return true;
}
