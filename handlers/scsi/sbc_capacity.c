/* sbc_capacity.c — READ CAPACITY (10)/(16), SBC-4 5.20, 5.21.  Thin LU:
 * LBPME=1, unmapped blocks read as zeros (LBPRZ=1); one logical block per
 * physical block unless the cfgstring sets physical_block= (LBPPBE; the
 * dedup granularity is reported as optimal granularity in VPD B0, not here,
 * see the libiscsi UNMAP trap in facts). */
#include <string.h>

#include "lunlab/be.h"
#include "handlers/scsi/scsi.h"
#include "handlers/scsi/sense.h"

int sbc_read_capacity10(struct scsi_cmd *cmd)
{
	const uint8_t *cdb = cmd->cdb;
	uint8_t buf[8];
	uint64_t last = cmd->dev->num_lbas ? cmd->dev->num_lbas - 1 : 0;

	if (!(cdb[8] & 0x01) && get_be32(cdb + 2) != 0) /* LBA needs PMI (SBC-4 5.20.1) */
		return sense_invalid_cdb_field(cmd, 2, -1);
	put_be32(buf, last > 0xffffffffu ? 0xffffffffu : (uint32_t)last);
	put_be32(buf + 4, cmd->dev->block_size);
	cmd->bytes_moved = scsi_datain(cmd, buf, sizeof(buf));
	return TCMU_STS_OK;
}

int sbc_read_capacity16(struct scsi_cmd *cmd)
{
	const uint8_t *cdb = cmd->cdb;
	uint8_t buf[32];
	uint32_t alloc = get_be32(cdb + 10);
	size_t len = sizeof(buf);

	if (!(cdb[14] & 0x01) && get_be64(cdb + 2) != 0)
		return sense_invalid_cdb_field(cmd, 2, -1);
	memset(buf, 0, sizeof(buf));
	put_be64(buf, cmd->dev->num_lbas ? cmd->dev->num_lbas - 1 : 0);
	put_be32(buf + 8, cmd->dev->block_size);
	buf[13] = scsi_lu(cmd->dev)->lbppbe & 0x0f; /* P_I_EXPONENT 0, LBPPBE (physical_block=) */
	buf[14] = 0x80 | 0x40;    /* LBPME, LBPRZ; lowest aligned LBA 0 */
	if (len > alloc)
		len = alloc;
	cmd->bytes_moved = scsi_datain(cmd, buf, len);
	return TCMU_STS_OK;
}
