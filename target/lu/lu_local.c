/* lu_local.c — what the target answers itself, without a backend (see
 * lu_table.h): REPORT LUNS on any LUN, and every command to a LUN the
 * initiator does not see. */
#include "lunlab/cdb_decode.h"
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"
#include "target/lu/lu_table_priv.h"

#include <stdlib.h>
#include <string.h>

uint8_t lu_sense_fixed(uint8_t *s, enum scsi_vocab_sense_key key, uint16_t asc_ascq, int field)
{
	memset(s, 0, 18);
	s[0] = SCSI_SENSE_FMT_FIXED_CURRENT;
	s[2] = key;
	s[7] = 10;   /* additional sense length */
	s[12] = scsi_asc(asc_ascq);
	s[13] = scsi_ascq(asc_ascq);
	if (field >= 0) {
		s[15] = 0x80 | 0x40; /* SKSV, C/D = the error is in the CDB */
		s[16] = (uint8_t)(field >> 8);
		s[17] = (uint8_t)field;
	}
	return 18;
}

void lu_sense_set_info(uint8_t *s, uint64_t info)
{
	if (info > UINT32_MAX)
		return;
	s[0] |= 0x80; /* VALID: INFORMATION is meaningful */
	put_be32(s + 3, (uint32_t)info);
}

static void copy_out(uint8_t *buf, size_t buflen, const uint8_t *src, size_t n, size_t *data_len)
{
	if (buflen) /* no buffer at all (EDTL 0): buf may be NULL, which memcpy must not get */
		memcpy(buf, src, n < buflen ? n : buflen);
	*data_len = n;
}

/* REPORT LUNS for a nexus: the global LUNs and its own maps, ascending */
static uint8_t report_nexus(struct lu_nexus *nx, const uint8_t *cdb, size_t cdb_len, uint8_t *buf, size_t buflen,
			    size_t *data_len, uint8_t *sense, uint8_t *sense_len)
{
	struct lu_snap *s;
	size_t ng, nv, n = 0, i = 0, j = 0;
	uint64_t *luns;
	uint8_t st;

	if (nx->initiator)
		(void)lu_nexus_lookup(nx, nx->initiator, 0, false); /* the view of the current snapshot */
	s = atomic_load_explicit(&lu_cur, memory_order_acquire);
	ng = s ? s->nglobal : 0;
	nv = nx->view ? nx->view->n : 0;
	luns = malloc((ng + nv ? ng + nv : 1) * sizeof(*luns));

	if (!luns) { /* no memory for the list: the target's own failure */
		*data_len = 0;
		*sense_len = lu_sense_fixed(sense, SCSI_SK_HARDWARE_ERROR, SCSI_ASC_INTERNAL_TARGET_FAILURE, -1);
		return SCSI_STAT_CHECK_CONDITION;
	}
	while (i < ng || j < nv) { /* merge; the two lists share no LUN */
		if (j == nv || (i < ng && i < nx->view->luns[j]))
			luns[n++] = i++;
		else
			luns[n++] = nx->view->luns[j++];
	}
	st = report_luns_of(luns, n, cdb, cdb_len, buf, buflen, data_len, sense, sense_len);
	free(luns);
	/* SPC-4 6.33: REPORT LUNS clears REPORTED LUNS DATA HAS CHANGED */
	if (st == 0x00)
		lu_nexus_inventory_told(nx);
	return st;
}

bool lu_local_answer_nexus(struct lu_nexus *nx, const struct lu_entry *e, const uint8_t *cdb, size_t cdb_len, uint8_t *buf,
			   size_t buflen, size_t *data_len, uint8_t *status, uint8_t *sense, uint8_t *sense_len)
{
	*data_len = 0;
	*sense_len = 0;
	*status = 0;
	if (cdb_len && cdb[0] == SCSI_OP_REPORT_LUNS) { /* REPORT LUNS: the target's job on every LUN */
		*status = nx ? report_nexus(nx, cdb, cdb_len, buf, buflen, data_len, sense, sense_len)
			     : report_luns(cdb, cdb_len, buf, buflen, data_len, sense, sense_len);
		return true;
	}
	if (e)
		return false;

	if (cdb_len && cdb[0] == SCSI_OP_INQUIRY) { /* INQUIRY: "no LU here" in the peripheral qualifier */
		uint8_t inq[36];
		uint32_t alloc = cdb_byte_length(cdb, cdb_len); /* 0 when cdb_len is short */
		size_t n;

		if (cdb_len > 1 && (cdb[1] & 0x01)) { /* EVPD: there is no LU to describe */
			*sense_len = lu_sense_fixed(sense, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_LU_NOT_SUPPORTED, -1);
			*status = SCSI_STAT_CHECK_CONDITION;
			return true;
		}
		memset(inq, 0, sizeof(inq));
		inq[0] = 0x7f;   /* qualifier 011b, type 1Fh */
		inq[2] = 0x06;   /* SPC-4 */
		inq[3] = 0x02;   /* response data format 2 */
		inq[4] = 31;
		memcpy(inq + 8, "LUNLAB  ", 8);
		memcpy(inq + 16, "NO LUN          ", 16);
		memcpy(inq + 32, "0001", 4);
		n = alloc < sizeof(inq) ? alloc : sizeof(inq);
		copy_out(buf, buflen, inq, n, data_len);
		return true;
	}
	if (cdb_len && cdb[0] == SCSI_OP_REQUEST_SENSE) { /* REQUEST SENSE: the sense is the answer */
		uint8_t s[18];
		size_t n = lu_sense_fixed(s, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_LU_NOT_SUPPORTED, -1);
		uint32_t alloc = cdb_byte_length(cdb, cdb_len);

		if (n > alloc)
			n = alloc;
		copy_out(buf, buflen, s, n, data_len);
		return true;
	}
	*sense_len = lu_sense_fixed(sense, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_LU_NOT_SUPPORTED, -1);
	*status = SCSI_STAT_CHECK_CONDITION;
	return true;
}

bool lu_local_answer(const uint8_t *cdb, size_t cdb_len, uint64_t lun, bool lun_ok, uint8_t *buf, size_t buflen,
		     size_t *data_len, uint8_t *status, uint8_t *sense, uint8_t *sense_len)
{
	return lu_local_answer_nexus(NULL, lun_ok ? lu_table_entry(lun) : NULL, cdb, cdb_len, buf, buflen, data_len, status,
				     sense, sense_len);
}
