/* sbc_verify.c — VERIFY (10)/(12)/(16) and WRITE AND VERIFY (10)/(12)/(16),
 * SBC-4 5.33-5.38.  BYTCHK 00b: medium check only (an in-memory medium has
 * no latent errors, so range checks are all there is); 01b: compare the
 * data-out buffer with the medium; 11b (VERIFY only): compare one block of
 * data-out with every block of the range.  A mismatch is MISCOMPARE with the
 * offset of the first differing byte in INFORMATION. */
#include <stdlib.h>
#include <string.h>

#include "lunlab/scsi_vocab.h"
#include "handlers/array/volume.h"
#include "handlers/scsi/scsi.h"
#include "handlers/scsi/sense.h"

static int compare(struct scsi_cmd *cmd, uint64_t off, uint64_t len, bool one_block)
{
	struct lunlab_dev *d = cmd->dev;
	uint64_t need = one_block ? d->block_size : len;
	int rc = cdb_check_dataout(cmd, need);

	if (rc != TCMU_STS_OK)
		return rc; /* comparing against data never sent would prove nothing */
	uint8_t *medium = malloc(len), *ref = malloc(need);

	if (!medium || !ref) {
		rc = sense_set(cmd, SCSI_SK_HARDWARE_ERROR, SCSI_ASC_INSUFFICIENT_RESOURCES);
		goto out;
	}
	scsi_dataout(cmd, ref, need);
	cmd->bytes_moved = need;
	struct iovec v = { medium, len };
	int err = volume_read(d->vol, off, len, &v, 1);
	if (err) {
		rc = sbc_volume_error(cmd, err, false);
		goto out;
	}
	for (uint64_t i = 0; i < len; i++) {
		uint8_t want = one_block ? ref[i % d->block_size] : ref[i];
		if (medium[i] != want) {
			rc = sense_set_info(cmd, SCSI_SK_MISCOMPARE, SCSI_ASC_MISCOMPARE_DURING_VERIFY, i);
			break;
		}
	}
out:
	free(medium);
	free(ref);
	return rc;
}

int sbc_verify(struct scsi_cmd *cmd)
{
	struct cdb_info ci;
	int rc;

	scsi_cdb_decode(cmd, &ci);
	uint8_t bytchk = ci.bytchk;
	uint64_t lba = ci.lba;
	uint32_t n = ci.length;

	if (bytchk == 2)
		return sense_invalid_cdb_field(cmd, 1, 2);
	if (bytchk && (rc = cdb_check_xfer(cmd, &ci)) != TCMU_STS_OK)
		return rc;
	if ((rc = cdb_check_range(cmd, lba, n)) != TCMU_STS_OK)
		return rc;
	/* the range a real array reads back to verify, whatever BYTCHK: the
	 * model's back-end work (cost_req.c) */
	cmd->xcopy_bytes = (uint64_t)n * cmd->dev->block_size;
	if (bytchk == 0 || n == 0)
		return TCMU_STS_OK;
	return compare(cmd, lba * cmd->dev->block_size, (uint64_t)n * cmd->dev->block_size, bytchk == 3);
}

int sbc_write_verify(struct scsi_cmd *cmd)
{
	struct cdb_info ci;

	scsi_cdb_decode(cmd, &ci);
	uint8_t bytchk = ci.bytchk;
	/* 00b and 01b only: the write itself is exact, so the verify that
	 * follows it cannot fail and is not repeated */
	if (bytchk >= 2)
		return sense_invalid_cdb_field(cmd, 1, 2);
	return sbc_write(cmd);
}
