/* sbc_caw.c — COMPARE AND WRITE (SBC-4 5.3), VAAI "ATS".  The data-out
 * buffer holds the verify data followed by the write data; the volume does
 * the compare and the write atomically against every other writer. */
#include <errno.h>
#include <stdlib.h>

#include "lunlab/scsi_vocab.h"
#include "handlers/array/volume.h"
#include "handlers/scsi/scsi.h"
#include "handlers/scsi/sense.h"

int sbc_compare_and_write(struct scsi_cmd *cmd)
{
	struct lunlab_dev *d = cmd->dev;
	struct cdb_info ci;
	uint64_t misoff = 0;
	int rc;

	scsi_cdb_decode(cmd, &ci);
	uint64_t lba = ci.lba;
	uint32_t n = ci.length; /* NUMBER OF LOGICAL BLOCKS, byte 13 */

	if (n > SCSI_MAX_CAW_BLOCKS || (d->max_xfer_len && 2 * n > d->max_xfer_len))
		return sense_invalid_cdb_field(cmd, 13, -1);
	if ((rc = cdb_check_range(cmd, lba, n)) != TCMU_STS_OK)
		return rc;
	uint64_t len = (uint64_t)n * d->block_size;
	/* a block count that wrapped in the one-byte field (256 -> 0: libiscsi
	 * sends that) is the CDB's fault, not the data's */
	if (n == 0 && cmd->iov_len)
		return sense_invalid_cdb_field(cmd, 13, -1);
	/* the data-out buffer must carry exactly verify + write data */
	if ((rc = cdb_check_dataout_exact(cmd, 2 * len)) != TCMU_STS_OK)
		return rc;
	if (n == 0)
		return TCMU_STS_OK;                 /* SBC: zero blocks compares and writes nothing */
	uint8_t *buf = malloc(2 * len);
	if (!buf)
		return sense_set(cmd, SCSI_SK_HARDWARE_ERROR, SCSI_ASC_INSUFFICIENT_RESOURCES);
	scsi_dataout(cmd, buf, 2 * len);
	rc = volume_compare_and_write(d->vol, lba * d->block_size, len, buf, buf + len, &misoff);
	free(buf);
	if (rc == -EILSEQ)
		return sense_set_info(cmd, SCSI_SK_MISCOMPARE, SCSI_ASC_MISCOMPARE_DURING_VERIFY, misoff);
	if (rc)
		return sbc_volume_error(cmd, rc, true);
	cmd->bytes_moved = 2 * len;
	return TCMU_STS_OK;
}
