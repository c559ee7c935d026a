/* sbc_write_atomic.c — WRITE ATOMIC (16), SBC-4 5.48: all of the blocks or
 * none of them, as any other command sees it.  The volume already gives
 * every write that (volume_write holds the write locks of all the blocks it
 * touches until it is done, and readers take them for reading), so this is
 * a WRITE(16) with the atomic limits of VPD B0 enforced:
 *   MAXIMUM ATOMIC TRANSFER LENGTH = the maximum transfer length,
 *   ATOMIC ALIGNMENT 0 and ATOMIC TRANSFER LENGTH GRANULARITY 0 (none),
 *   MAXIMUM ATOMIC BOUNDARY SIZE 0 (ATOMIC BOUNDARY must be 0).
 * CDB: bytes 2-9 LBA, 10-11 ATOMIC BOUNDARY, 12-13 TRANSFER LENGTH. */
#include "handlers/array/volume.h"
#include "lunlab/be.h"
#include "handlers/scsi/scsi.h"
#include "handlers/scsi/sense.h"

uint32_t scsi_max_atomic_blocks(const struct lunlab_dev *d)
{
	return d->max_xfer_len;
}

int sbc_write_atomic(struct scsi_cmd *cmd)
{
	const uint8_t *cdb = cmd->cdb;
	struct lunlab_dev *d = cmd->dev;
	struct cdb_info ci;
	int rc;

	scsi_cdb_decode(cmd, &ci);
	uint64_t lba = ci.lba;
	uint32_t n = ci.length;

	if (get_be16(cdb + 10) != 0) /* a boundary above MAXIMUM ATOMIC BOUNDARY SIZE (0) */
		return sense_invalid_cdb_field(cmd, 10, -1);
	if (n > scsi_max_atomic_blocks(d))
		return sense_invalid_cdb_field(cmd, ci.layout->len_off, -1);
	if ((rc = cdb_check_range(cmd, lba, n)) != TCMU_STS_OK)
		return rc;
	if (n == 0)
		return TCMU_STS_OK;
	uint64_t len = (uint64_t)n * d->block_size, off = lba * d->block_size;
	if ((rc = cdb_check_dataout(cmd, len)) != TCMU_STS_OK)
		return rc;
	rc = volume_write(d->vol, off, len, cmd->iov, cmd->iov_cnt);
	if (rc)
		return sbc_volume_error(cmd, rc, true);
	cmd->bytes_moved = len;
	return TCMU_STS_OK;
}
