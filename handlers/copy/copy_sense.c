/* copy_sense.c — parameter-list and COPY ABORTED sense for the copy manager. */
#include "lunlab/be.h"
#include "handlers/copy/copy_sense.h"
#include "lunlab/scsi_vocab.h"
#include "handlers/scsi/sense.h"

int copy_sense_param(struct scsi_cmd *cmd, const struct xcopy_err *e)
{
	if (e->sksv)
		return sense_invalid_field(cmd, scsi_asc_pair(e->asc, e->ascq), false, e->field_byte, e->field_bit);
	return sense_set(cmd, e->key, scsi_asc_pair(e->asc, e->ascq));
}

int copy_sense_aborted(struct scsi_cmd *cmd, uint16_t asc_ascq, uint16_t seg, int seg_field)
{
	int ret = sense_set(cmd, SCSI_SK_COPY_ABORTED, asc_ascq);
	uint8_t *s = cmd->sense;

	/* fixed format: bytes 8..11 COMMAND-SPECIFIC INFORMATION,
	 * 15..17 sense-key specific; sense_set() sized the sense to 18 bytes */
	put_be32(s + 8, seg);
	if (seg_field >= 0) {
		s[15] = 0x80 | 0x20;           /* SKSV, SD: relative to the segment descriptor */
		put_be16(s + 16, (uint16_t)seg_field);
	}
	return ret;
}
