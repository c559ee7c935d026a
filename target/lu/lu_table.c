/* lu_table.c — LUN table and the commands the target answers without a
 * backend (see lu_table.h). */
#include "target/lu/lu_table.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "target/lu/lu_stats.h"
#include "target/lu/pr.h"

static struct lu_backend *table[LU_TABLE_MAX];
/* each LU's reservation state, made with the LU (never NULL for a LUN < count) */
static struct pr_state *pr[LU_TABLE_MAX];
/* each LU's host-observed command figures (lu_stats.h), made with the LU */
static struct lu_stats *stats[LU_TABLE_MAX];
static size_t count;
static _Atomic uint64_t reset_gen[LU_TABLE_MAX];

uint64_t lu_table_reset_gen(uint64_t lun)
{
	return lun < count ? atomic_load(&reset_gen[lun]) : 0;
}

uint64_t lu_table_bump_reset_gen(uint64_t lun)
{
	return lun < count ? atomic_fetch_add(&reset_gen[lun], 1) : 0;
}

int lu_table_add(struct lu_backend *be)
{
	if (count >= LU_TABLE_MAX || !be)
		return -1;
	pr[count] = pr_state_new();
	if (!pr[count])
		return -1;
	stats[count] = lu_stats_new();
	if (!stats[count]) {
		pr_state_free(pr[count]);
		pr[count] = NULL;
		return -1;
	}
	table[count] = be;
	return (int)count++;
}

struct lu_backend *lu_table_get(uint64_t lun)
{
	return lun < count ? table[lun] : NULL;
}

size_t lu_table_count(void) { return count; }

struct pr_state *lu_table_pr(uint64_t lun)
{
	return lun < count ? pr[lun] : NULL;
}

struct lu_stats *lu_table_stats(uint64_t lun)
{
	return lun < count ? stats[lun] : NULL;
}

void lu_table_reset(void)
{
	memset(table, 0, sizeof(table));
	for (size_t i = 0; i < count; i++) {
		atomic_store(&reset_gen[i], 0);
		pr_state_free(pr[i]);
		pr[i] = NULL;
		lu_stats_free(stats[i]);
		stats[i] = NULL;
	}
	count = 0;
}

uint8_t lu_sense_fixed(uint8_t *s, uint8_t key, uint8_t asc, uint8_t ascq, int field)
{
	memset(s, 0, 18);
	s[0] = 0x70; /* current error, fixed format */
	s[2] = key;
	s[7] = 10;   /* additional sense length */
	s[12] = asc;
	s[13] = ascq;
	if (field >= 0) {
		s[15] = 0x80 | 0x40; /* SKSV, C/D = the error is in the CDB */
		s[16] = (uint8_t)(field >> 8);
		s[17] = (uint8_t)field;
	}
	return 18;
}

static void copy_out(uint8_t *buf, size_t buflen, const uint8_t *src, size_t n, size_t *data_len)
{
	if (buflen) /* no buffer at all (EDTL 0): buf may be NULL, which memcpy must not get */
		memcpy(buf, src, n < buflen ? n : buflen);
	*data_len = n;
}

bool lu_local_answer(const uint8_t *cdb, uint64_t lun, bool lun_ok, uint8_t *buf,
		     size_t buflen, size_t *data_len, uint8_t *status, uint8_t *sense,
		     uint8_t *sense_len)
{
	*data_len = 0;
	*sense_len = 0;
	*status = 0;
	if (cdb[0] == 0xa0) { /* REPORT LUNS: the target's job on every LUN */
		*status = report_luns(cdb, buf, buflen, data_len, sense, sense_len);
		return true;
	}
	if (lun_ok && lu_table_get(lun))
		return false;

	if (cdb[0] == 0x12) { /* INQUIRY: "no LU here" in the peripheral qualifier */
		uint8_t inq[36];
		uint16_t alloc = (uint16_t)(cdb[3] << 8 | cdb[4]);
		size_t n;

		if (cdb[1] & 0x01) { /* EVPD: there is no LU to describe */
			*sense_len = lu_sense_fixed(sense, 0x05, 0x25, 0x00, -1);
			*status = 0x02;
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
	if (cdb[0] == 0x03) { /* REQUEST SENSE: the sense is the answer */
		uint8_t s[18];
		size_t n = lu_sense_fixed(s, 0x05, 0x25, 0x00, -1);
		if (n > cdb[4])
			n = cdb[4];
		copy_out(buf, buflen, s, n, data_len);
		return true;
	}
	*sense_len = lu_sense_fixed(sense, 0x05, 0x25, 0x00, -1); /* LOGICAL UNIT NOT SUPPORTED */
	*status = 0x02;
	return true;
}
