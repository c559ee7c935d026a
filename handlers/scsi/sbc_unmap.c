/* sbc_unmap.c — UNMAP (SBC-4 5.32), VAAI "Delete".  The whole parameter list
 * is validated before any range is deallocated, so a bad descriptor leaves
 * the LU untouched. */
#include <stdlib.h>

#include "handlers/array/volume.h"
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"
#include "handlers/scsi/scsi.h"
#include "handlers/scsi/sense.h"

#define HDR 8
#define DESC 16

int sbc_unmap(struct scsi_cmd *cmd)
{
	struct lunlab_dev *d = cmd->dev;
	struct cdb_info ci;
	int rc = TCMU_STS_OK;

	scsi_cdb_decode(cmd, &ci);
	uint32_t plen = ci.length;

	if (plen == 0)
		return TCMU_STS_OK;
	if (plen < HDR)
		return sense_set(cmd, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_PARAMETER_LIST_LENGTH_ERROR);
	/* the whole list must have arrived: never unmap on part of it */
	if ((rc = cdb_check_param_list(cmd, plen, ci.layout->len_off)) != TCMU_STS_OK)
		return rc;
	uint8_t *p = malloc(plen);
	if (!p)
		return sense_set(cmd, SCSI_SK_HARDWARE_ERROR, SCSI_ASC_INSUFFICIENT_RESOURCES);
	scsi_dataout(cmd, p, plen);
	cmd->bytes_moved = plen;

	uint32_t data_len = get_be16(p);
	uint32_t bddl = get_be16(p + 2);
	/* the lengths in the header must fit the list that was sent */
	if (data_len + 2u > plen) {
		rc = sense_invalid_field(cmd, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, false, 0, -1);
		goto out;
	}
	if (bddl + HDR > plen || bddl % DESC) {
		rc = sense_invalid_field(cmd, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, false, 2, -1);
		goto out;
	}
	uint32_t count = bddl / DESC;
	if (count > SCSI_MAX_UNMAP_DESCRIPTORS) {
		rc = sense_invalid_field(cmd, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, false, 2, -1);
		goto out;
	}
	uint64_t total = 0;
	for (uint32_t i = 0; i < count; i++) {
		const uint8_t *dp = p + HDR + i * DESC;
		uint64_t lba = get_be64(dp);
		uint32_t n = get_be32(dp + 8);
		if ((rc = cdb_check_range(cmd, lba, n)) != TCMU_STS_OK)
			goto out;
		total += n;
		if (n > SCSI_MAX_UNMAP_LBA_COUNT || total > SCSI_MAX_UNMAP_LBA_COUNT) {
			rc = sense_invalid_field(cmd, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, false,
						 (uint16_t)(HDR + i * DESC + 8), -1);
			goto out;
		}
	}
	for (uint32_t i = 0; i < count; i++) {
		const uint8_t *dp = p + HDR + i * DESC;
		uint64_t lba = get_be64(dp);
		uint32_t n = get_be32(dp + 8);
		if (n == 0)
			continue;
		/* covered so far: the map entries the model charges (cost_req.c) */
		cmd->xcopy_bytes += (uint64_t)n * d->block_size;
		int err = volume_unmap(d->vol, lba * d->block_size, (uint64_t)n * d->block_size);
		if (err) {
			rc = sbc_volume_error(cmd, err, true);
			goto out;
		}
	}
out:
	free(p);
	return rc;
}
