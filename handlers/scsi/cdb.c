/* cdb.c — CDB decoding for the block command family: lengths by group code,
 * LBA and transfer length by CDB size, and the checks every data command
 * makes before touching the volume (transfer length, LBA range, and a
 * data-out that really holds what the CDB describes). */
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"
#include "handlers/scsi/scsi.h"
#include "handlers/scsi/sense.h"

unsigned cdb_length(uint8_t opcode)
{
	switch (opcode >> 5) {      /* group code, SPC-4 4.2.5.1 */
	case 0: return 6;
	case 1: case 2: return 10;
	case 4: return 16;
	case 5: return 12;
	default: return 0;          /* 3: variable/reserved, 6-7: vendor specific */
	}
}

uint64_t cdb_lba(const uint8_t *cdb)
{
	switch (cdb_length(cdb[0])) {
	case 6: return get_be24(cdb + 1) & 0x1fffff;
	case 10: case 12: return get_be32(cdb + 2);
	case 16: return get_be64(cdb + 2);
	default: return 0;
	}
}

unsigned cdb_xfer_field(const uint8_t *cdb)
{
	switch (cdb_length(cdb[0])) {
	case 6: return 4;
	case 10: return 7;
	case 12: return 6;
	case 16: return 10;
	default: return 0;
	}
}

uint32_t cdb_xfer_blocks(const uint8_t *cdb)
{
	switch (cdb_length(cdb[0])) {
	case 6: return cdb[4] ? cdb[4] : 256;   /* SBC-4 5.22: READ(6)/WRITE(6) 0 = 256 */
	case 10: return get_be16(cdb + 7);
	case 12: return get_be32(cdb + 6);
	case 16: return get_be32(cdb + 10);
	default: return 0;
	}
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

int cdb_check_xfer(struct scsi_cmd *cmd, uint32_t nblocks)
{
	if (cmd->dev->max_xfer_len && nblocks > cmd->dev->max_xfer_len)
		return sense_invalid_cdb_field(cmd, (uint16_t)cdb_xfer_field(cmd->cdb), -1);
	return TCMU_STS_OK;
}
