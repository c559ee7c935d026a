/* sbc_write_same.c — WRITE SAME (10)/(16), SBC-4 5.46, 5.47, VAAI "Zero".
 * UNMAP=1 deallocates the range whatever the pattern, as LIO does (SBC
 * leaves the choice to the device server; deallocated blocks read as zeros,
 * LBPRZ=1, and libiscsi's WriteSame10.UnmapUntilEnd expects exactly that).
 * A zero pattern without UNMAP also leaves the blocks unmapped, since the
 * store never keeps zero blocks. */
#include <stdlib.h>
#include <string.h>

#include "lunlab/scsi_vocab.h"
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
	struct lunlab_dev *d = cmd->dev;
	struct cdb_info ci;
	int rc;

	scsi_cdb_decode(cmd, &ci);
	bool unmap = ci.flags & CDB_F_UNMAP;
	bool ndob = ci.flags & CDB_F_NDOB; /* WRITE SAME(16) only */
	uint64_t lba = ci.lba;
	uint32_t n = ci.length;

	if ((rc = cdb_check_range(cmd, lba, n)) != TCMU_STS_OK)
		return rc;
	/* WSNZ=0 in VPD B0: a zero block count means "from LBA to the end" */
	uint64_t blocks = n ? n : d->num_lbas - lba;
	if (blocks > scsi_max_write_same(d))
		return sense_invalid_cdb_field(cmd, ci.layout->len_off, -1);

	uint8_t *pattern = calloc(1, d->block_size);
	if (!pattern)
		return sense_set(cmd, SCSI_SK_HARDWARE_ERROR, SCSI_ASC_INSUFFICIENT_RESOURCES);
	if (!ndob) {
		if ((rc = cdb_check_dataout_exact(cmd, d->block_size)) != TCMU_STS_OK) {
			free(pattern); /* exactly one logical block of data-out */
			return rc;
		}
		scsi_dataout(cmd, pattern, d->block_size);
		cmd->bytes_moved = d->block_size;
	}
	uint64_t off = lba * d->block_size, len = blocks * d->block_size;
	if (len == 0)
		rc = 0;
	else if (unmap || all_zero(pattern, d->block_size))
		rc = volume_unmap(d->vol, off, len);
	else
		rc = volume_write_same(d->vol, off, len, pattern);
	free(pattern);
	if (rc)
		return sbc_volume_error(cmd, rc, true);
	cmd->xcopy_bytes = len;   /* the map entries the model charges (cost_req.c) */
	return TCMU_STS_OK;
}
