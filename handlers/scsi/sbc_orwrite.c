/* sbc_orwrite.c — ORWRITE (16), SBC-4 5.10: each block of the range becomes
 * the bitwise OR of what it holds and the data-out block.  lunlab has no
 * ORWgeneration state (the ORWRITE(32) bitmap operations), so ORWRITE(16) is
 * plain OR.
 *
 * Atomic against every other writer: the new data is computed from a read
 * and stored with volume_compare_and_write against what was read; if a
 * concurrent write changed the range in between, the compare fails and the
 * OR is redone on the new contents.  No lock beyond the volume's own. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lunlab/scsi_vocab.h"
#include "handlers/array/volume.h"
#include "handlers/scsi/scsi.h"
#include "handlers/scsi/sense.h"

/* a writer that changes the same blocks this often in a row is pathological;
 * give up with a retryable status rather than spin */
#define ORWRITE_MAX_TRIES 64

int sbc_orwrite(struct scsi_cmd *cmd)
{
	struct lunlab_dev *d = cmd->dev;
	struct cdb_info ci;
	int rc;

	scsi_cdb_decode(cmd, &ci);
	uint64_t lba = ci.lba;
	uint32_t n = ci.length;
	if ((rc = cdb_check_xfer(cmd, &ci)) != TCMU_STS_OK)
		return rc;
	if ((rc = cdb_check_range(cmd, lba, n)) != TCMU_STS_OK)
		return rc;
	if (n == 0)
		return TCMU_STS_OK; /* SBC: zero blocks is not an error, nothing is written */
	uint64_t len = (uint64_t)n * d->block_size, off = lba * d->block_size;
	if ((rc = cdb_check_dataout(cmd, len)) != TCMU_STS_OK)
		return rc;
	/* one allocation: data-out | current contents | new contents */
	uint8_t *buf = calloc(3, len);
	if (!buf)
		return sense_set(cmd, SCSI_SK_HARDWARE_ERROR, SCSI_ASC_INSUFFICIENT_RESOURCES);
	uint8_t *in = buf, *old = buf + len, *neu = buf + 2 * len;
	scsi_dataout(cmd, in, len);

	for (int tries = 0;; tries++) {
		struct iovec v = { old, len };
		uint64_t mis = 0;
		if ((rc = volume_read(d->vol, off, len, &v, 1)) != 0)
			break;
		for (uint64_t i = 0; i < len; i++)
			neu[i] = old[i] | in[i];
		rc = volume_compare_and_write(d->vol, off, len, old, neu, &mis);
		if (rc != -EILSEQ)
			break;
		if (tries + 1 >= ORWRITE_MAX_TRIES) {
			free(buf);
			return sense_set(cmd, SCSI_SK_ABORTED_COMMAND, SCSI_ASC_NO_ADDITIONAL_SENSE); /* the initiator retries */
		}
	}
	free(buf);
	if (rc)
		return sbc_volume_error(cmd, rc, true);
	cmd->bytes_moved = len;
	return TCMU_STS_OK;
}
