/* cdb.c — a command's CDB through the one decoder (lunlab/cdb_decode.h), and the
 * checks every data command makes before touching the volume (transfer length, LBA
 * range, and a data-out that really holds what the CDB describes). */
#include "lunlab/scsi_vocab.h"
#include "handlers/scsi/scsi.h"
#include "handlers/scsi/sense.h"

void scsi_cdb_decode(const struct scsi_cmd *cmd, struct cdb_info *ci)
{
	/* The host holds the whole CDB of every command it passes (tcmu-runner: the kernel
	 * copies it at its full length; lunlab-target: LU_CDB_MAX bytes), and the decoder
	 * reads no further than the length its row gives the opcode; a command the dispatcher
	 * accepted always has a row (tests/unit/scsi/test_cdb_decode.c), anything else
	 * decodes to zeros. */
	cdb_decode(cmd->cdb, CDB_MAX_LEN, cmd->dev ? cmd->dev->block_size : 0, ci);
}

int cdb_check_range(struct scsi_cmd *cmd, uint64_t lba, uint64_t nblocks)
{
	uint64_t cap = cmd->dev->num_lbas;

	/* written to avoid lba + nblocks overflowing for LBAs near 2^64 */
	if (lba > cap || nblocks > cap - lba)
		return sense_set(cmd, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_LBA_OUT_OF_RANGE);
	return TCMU_STS_OK;
}

int cdb_check_dataout(struct scsi_cmd *cmd, uint64_t need)
{
	if (cmd->iov_len < need)
		return sense_set(cmd, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CMD_IU);
	return TCMU_STS_OK;
}

int cdb_check_dataout_exact(struct scsi_cmd *cmd, uint64_t need)
{
	if (cmd->iov_len != need)
		return sense_set(cmd, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CMD_IU);
	return TCMU_STS_OK;
}

int cdb_check_param_list(struct scsi_cmd *cmd, uint64_t plen, unsigned field)
{
	if (cmd->iov_len < plen)
		return sense_invalid_cdb_field(cmd, (uint16_t)field, -1);
	return TCMU_STS_OK;
}

int cdb_check_xfer(struct scsi_cmd *cmd, const struct cdb_info *ci)
{
	if (cmd->dev->max_xfer_len && ci->length > cmd->dev->max_xfer_len)
		return sense_invalid_cdb_field(cmd, ci->layout->len_off, -1);
	return TCMU_STS_OK;
}
