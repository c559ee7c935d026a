/* sense.c — fixed-format sense data (SPC-4 4.5.3).  lunlab always reports
 * fixed format: the control mode page advertises D_SENSE=0 and does not let
 * an initiator change it, so there is one format to get right. */
#include <string.h>

#include "handlers/scsi/sense.h"
#include "lunlab/scsi_vocab.h"

#define FIXED_SENSE_LEN 18

static void fill(uint8_t *s, uint8_t key, uint16_t asc_ascq)
{
	memset(s, 0, FIXED_SENSE_LEN);
	s[0] = SCSI_SENSE_FMT_FIXED_CURRENT;
	s[2] = key & 0x0f;
	s[7] = FIXED_SENSE_LEN - 8;        /* additional sense length */
	s[12] = scsi_asc(asc_ascq);
	s[13] = scsi_ascq(asc_ascq);
}

int sense_set(struct scsi_cmd *cmd, enum scsi_vocab_sense_key key, uint16_t asc_ascq)
{
	fill(cmd->sense, key, asc_ascq);
	return TCMU_STS_PASSTHROUGH_ERR;
}

int sense_invalid_field(struct scsi_cmd *cmd, uint16_t asc_ascq, bool in_cdb, uint16_t byte, int bit)
{
	uint8_t *s = cmd->sense;

	fill(s, SCSI_SK_ILLEGAL_REQUEST, asc_ascq);
	/* sense-key specific, field pointer: SKSV | C/D | BPV | BIT POINTER */
	s[15] = 0x80 | (in_cdb ? 0x40 : 0x00);
	if (bit >= 0 && bit <= 7)
		s[15] |= 0x08 | (uint8_t)bit;
	s[16] = (uint8_t)(byte >> 8);
	s[17] = (uint8_t)byte;
	return TCMU_STS_PASSTHROUGH_ERR;
}

int sense_invalid_cdb_field(struct scsi_cmd *cmd, uint16_t byte, int bit)
{
	return sense_invalid_field(cmd, SCSI_ASC_INVALID_FIELD_IN_CDB, true, byte, bit);
}

int sense_set_info(struct scsi_cmd *cmd, enum scsi_vocab_sense_key key, uint16_t asc_ascq, uint64_t info)
{
	uint8_t *s = cmd->sense;

	fill(s, key, asc_ascq);
	/* The fixed-format INFORMATION field holds 32 bits; a larger value
	 * cannot be represented, so VALID stays 0 then (SPC-4 4.5.3). */
	if (info <= 0xffffffffu) {
		s[0] |= 0x80;
		s[3] = (uint8_t)(info >> 24);
		s[4] = (uint8_t)(info >> 16);
		s[5] = (uint8_t)(info >> 8);
		s[6] = (uint8_t)info;
	}
	return TCMU_STS_PASSTHROUGH_ERR;
}
