/* copy_sense.c — parameter-list and COPY ABORTED sense for the copy manager. */
#include "lunlab/be.h"
#include "handlers/copy/copy_sense.h"
#include "handlers/scsi/sense.h"

int copy_sense_param(struct scsi_cmd *cmd, const struct xcopy_err *e)
{
	if (e->sksv)
		return sense_invalid_field(cmd, e->asc, e->ascq, false, e->field_byte, e->field_bit);
	return sense_set(cmd, e->key, e->asc, e->ascq);
}

int copy_sense_aborted(struct scsi_cmd *cmd, uint8_t asc, uint8_t ascq, uint16_t seg, int seg_field)
{
	int ret = sense_set(cmd, SK_COPY_ABORTED, asc, ascq);
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
