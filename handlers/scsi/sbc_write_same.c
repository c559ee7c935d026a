/* sbc_write_same.c — WRITE SAME (10)/(16), SBC-4 5.46, 5.47, VAAI "Zero".
 * With UNMAP=1 and an all-zero pattern (or NDOB) the range is deallocated;
 * a zero pattern without UNMAP also leaves the blocks unmapped, since the
 * store never keeps zero blocks (and they read back as zeros: LBPRZ). */
#include <stdlib.h>
#include <string.h>

#include "handlers/array/volume.h"
#include "handlers/scsi/scsi.h"
#include "handlers/scsi/sense.h"

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

int sbc_write_same(struct scsi_cmd *cmd)
{
	const uint8_t *cdb = cmd->cdb;
	struct lunlab_dev *d = cmd->dev;
	bool sixteen = cdb[0] == 0x93;
	bool unmap = cdb[1] & 0x08;
	bool ndob = sixteen && (cdb[1] & 0x01);
	uint64_t lba = cdb_lba(cdb);
	uint32_t n = cdb_xfer_blocks(cdb);
	int rc;

	/* WSNZ=1 in VPD B0: a zero block count ("to the end") is not accepted */
	if (n == 0 || n > SCSI_MAX_WRITE_SAME_BLOCKS)
		return sense_invalid_cdb_field(cmd, (uint16_t)cdb_xfer_field(cdb), -1);
	if ((rc = cdb_check_range(cmd, lba, n)) != TCMU_STS_OK)
		return rc;

	uint8_t *pattern = calloc(1, d->block_size);
	if (!pattern)
		return sense_set(cmd, SK_HARDWARE_ERROR, 0x55, 0x03);
	if (!ndob) {
		if (cmd->iov_len != d->block_size) {  /* exactly one logical block of data-out */
			free(pattern);
			return sense_invalid_cdb_field(cmd, (uint16_t)cdb_xfer_field(cdb), -1);
		}
		scsi_dataout(cmd, pattern, d->block_size);
		cmd->bytes_moved = d->block_size;
	}
	uint64_t off = lba * d->block_size, len = (uint64_t)n * d->block_size;
	if (unmap && all_zero(pattern, d->block_size))
		rc = volume_unmap(d->vol, off, len);
	else
		rc = volume_write_same(d->vol, off, len, pattern);
	free(pattern);
	if (rc)
		return sbc_volume_error(cmd, rc, true);
	return TCMU_STS_OK;
}
