/* report_luns.c — REPORT LUNS as LIO answers it: select report 0 (all),
 * 1 (well-known LUs only: none here) and 2 (all); single-level LUN format
 * (peripheral addressing below 256, flat space above); the list is cut to the
 * allocation length but LUN LIST LENGTH always tells the full size. */
#include "lunlab/cdb_decode.h"
#include "lunlab/scsi_vocab.h"
#include "target/lu/lu_table.h"

#include <stdlib.h>
#include <string.h>

#include "target/iscsi/pdu.h"

uint8_t report_luns_of(const uint64_t *luns, size_t n, const uint8_t *cdb, size_t cdb_len, uint8_t *buf, size_t buflen,
		       size_t *data_len, uint8_t *sense, uint8_t *sense_len)
{
	/* a CDB shorter than REPORT LUNS' 12 bytes: allocation length 0 below */
	uint8_t sel = cdb_len > 2 ? cdb[2] : 0;
	uint32_t alloc = cdb_byte_length(cdb, cdb_len);
	size_t total, out;
	uint8_t ent[8];

	*data_len = 0;
	if (sel != 0x00 && sel != 0x01 && sel != 0x02) {
		*sense_len = lu_sense_fixed(sense, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CDB, 2);
		return SCSI_STAT_CHECK_CONDITION;
	}
	if (alloc < 16) { /* SPC-4: an allocation length below 16 is an error */
		*sense_len = lu_sense_fixed(sense, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CDB, 6);
		return SCSI_STAT_CHECK_CONDITION;
	}
	if (sel == 0x01)
		n = 0;
	total = 8 + n * 8;
	out = total < alloc ? total : alloc;
	memset(ent, 0, sizeof(ent));
	put_be32(ent, (uint32_t)(n * 8));
	if (buflen) /* no buffer at all (EDTL 0): buf may be NULL, which memcpy must not get */
		memcpy(buf, ent, buflen < 8 ? buflen : 8);
	for (size_t i = 0; i < n; i++) {
		size_t at = 8 + i * 8;
		pdu_lun_encode(ent, luns[i]);
		if (at >= out || at >= buflen)
			break;
		memcpy(buf + at, ent, (buflen - at) < 8 ? buflen - at : 8);
	}
	*data_len = out;
	return SCSI_STAT_GOOD;
}

uint8_t report_luns(const uint8_t *cdb, size_t cdb_len, uint8_t *buf, size_t buflen, size_t *data_len, uint8_t *sense,
		    uint8_t *sense_len)
{
	size_t n = lu_table_count();
	uint64_t *luns = malloc((n ? n : 1) * sizeof(*luns));
	uint8_t st;

	if (!luns) {
		*data_len = 0;
		*sense_len = lu_sense_fixed(sense, SCSI_SK_HARDWARE_ERROR, SCSI_ASC_INTERNAL_TARGET_FAILURE, -1);
		return SCSI_STAT_CHECK_CONDITION;
	}
	for (size_t i = 0; i < n; i++)
		luns[i] = i;
	st = report_luns_of(luns, n, cdb, cdb_len, buf, buflen, data_len, sense, sense_len);
	free(luns);
	return st;
}
