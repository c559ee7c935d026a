/* sense.c — libtcmu's sense helpers, fixed format (SPC-4 4.5.3).
 *
 * Byte-for-byte what tcmu-runner 1.5.4 does, because a handler must produce
 * the same sense under both hosts: tcmu_sense_set_data clears the whole
 * buffer; tcmu_sense_set_info and tcmu_sense_set_key_specific_info clear the
 * first 18 bytes before setting their field — they are meant to be called
 * BEFORE returning a status whose conversion keeps the buffer
 * (TCMU_STS_MISCOMPARE keeps INFORMATION, TCMU_STS_FRMT_IN_PROGRESS keeps
 * the progress indication), not after tcmu_sense_set_data. */
#include <string.h>

#include "target/tcmu/host_priv.h"

void host_sense_fill(uint8_t *sense_buf, uint8_t key, uint16_t asc_ascq)
{
	sense_buf[0] |= 0x70; /* current error, fixed format */
	sense_buf[2] = key;
	sense_buf[7] = 0x0a;  /* 18-byte sense */
	sense_buf[12] = (uint8_t)(asc_ascq >> 8);
	sense_buf[13] = (uint8_t)asc_ascq;
}

int tcmu_sense_set_data(uint8_t *sense_buf, uint8_t key, uint16_t asc_ascq)
{
	memset(sense_buf, 0, TCMU_SENSE_BUFFERSIZE);
	host_sense_fill(sense_buf, key, asc_ascq);
	return TCMU_STS_PASSTHROUGH_ERR;
}

void tcmu_sense_set_info(uint8_t *sense_buf, uint32_t info)
{
	memset(sense_buf, 0, 18);
	sense_buf[0] |= 0x80; /* VALID: INFORMATION is meaningful */
	sense_buf[3] = (uint8_t)(info >> 24);
	sense_buf[4] = (uint8_t)(info >> 16);
	sense_buf[5] = (uint8_t)(info >> 8);
	sense_buf[6] = (uint8_t)info;
}

void tcmu_sense_set_key_specific_info(uint8_t *sense_buf, uint16_t info)
{
	memset(sense_buf, 0, 18);
	sense_buf[15] |= 0x80; /* SKSV */
	sense_buf[16] = (uint8_t)(info >> 8);
	sense_buf[17] = (uint8_t)info;
}

void __tcmu_sense_set_data(uint8_t *sense_buf, uint8_t key, uint16_t asc_ascq)
{
	host_sense_fill(sense_buf, key, asc_ascq);
}
