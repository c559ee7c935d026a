/* trace.c — --trace: one line per command for a person reading stderr:
 *   12:00:01.123456 lun0 READ(10) lba=2048 blocks=8 -> GOOD (41 us)
 *   12:00:01.124001 lun0 INQUIRY vpd=0x83 xfer=255 in -> CHECK CONDITION ILLEGAL REQUEST:
 *       INVALID FIELD IN CDB (05/24/00) [CDB byte 1 bit 0] (5 us)
 * The line is printed at completion (so it carries the status and the
 * latency) and written with one call so lines of different workers never
 * interleave. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#include "lunlab/be.h"
#include "lunlab/cdb_decode.h"
#include "lunlab/scsi_vocab.h"
#include "target/tcmu/host_priv.h"

struct line {
	char buf[512];
	size_t n;
};

__attribute__((format(printf, 2, 3))) static void add(struct line *l, const char *fmt, ...)
{
	va_list ap;

	if (l->n >= sizeof(l->buf))
		return;
	va_start(ap, fmt);
	int r = vsnprintf(l->buf + l->n, sizeof(l->buf) - l->n, fmt, ap);

	va_end(ap);
	if (r > 0)
		l->n += (size_t)r < sizeof(l->buf) - l->n ? (size_t)r : sizeof(l->buf) - l->n - 1;
}

/* LBA and block count of a command whose length counts blocks at its LBA (the layout
 * table's READ, WRITE, VERIFY, WRITE SAME, SYNCHRONIZE CACHE, PRE-FETCH, COMPARE AND
 * WRITE ... rows); false for the others and for a CDB the table does not know. */
static bool add_lba_len(struct line *l, const uint8_t *cdb, size_t len)
{
	struct cdb_info ci;

	if (cdb_decode(cdb, len, 0, &ci) != CDB_DECODE_OK || !ci.layout->lba_size)
		return false;
	switch (ci.layout->len_kind) {
	case CDB_LEN_XFER: case CDB_LEN_VERIFY: case CDB_LEN_SAME: case CDB_LEN_RANGE: case CDB_LEN_CAW:
		add(l, " lba=%llu blocks=%u", (unsigned long long)ci.lba, ci.length);
		return true;
	default:
		return false;
	}
}

/* The fields that say what a control command asks for. */
static void add_details(struct line *l, const uint8_t *cdb, size_t len)
{
	switch (cdb[0]) {
	case SCSI_OP_INQUIRY:
		if (len >= 3 && (cdb[1] & 0x01))
			add(l, " vpd=0x%02x", cdb[2]);
		break;
	case SCSI_OP_MODE_SENSE_6:
	case SCSI_OP_MODE_SENSE_10:
		if (len >= 4) {
			static const char *const pc[4] = { "current", "changeable", "default", "saved" };

			add(l, " page=0x%02x", cdb[2] & 0x3f);
			if (cdb[3])
				add(l, "/0x%02x", cdb[3]);
			add(l, " %s", pc[cdb[2] >> 6]);
		}
		break;
	case SCSI_OP_LOG_SENSE:
		if (len >= 4)
			add(l, " page=0x%02x", cdb[2] & 0x3f);
		break;
	case SCSI_OP_THIRD_PARTY_COPY_OUT:
	case SCSI_OP_THIRD_PARTY_COPY_IN:
		/* ODX's commands name their operation by a 32-bit list identifier:
		 * bytes 6..9 of POPULATE TOKEN / WRITE USING TOKEN, 2..5 of RRTI and
		 * COPY OPERATION ABORT; EXTENDED COPY's is in its parameter list */
		if (len >= 16 && cdb[0] == SCSI_OP_THIRD_PARTY_COPY_OUT &&
		    ((cdb[1] & SCSI_SA_MASK) == SCSI_SA_POPULATE_TOKEN || (cdb[1] & SCSI_SA_MASK) == SCSI_SA_WRITE_USING_TOKEN))
			add(l, " list=%u", get_be32(cdb + 6));
		else if (len >= 16 && ((cdb[0] == SCSI_OP_THIRD_PARTY_COPY_OUT &&
					(cdb[1] & SCSI_SA_MASK) == SCSI_SA_COPY_OPERATION_ABORT) ||
				       (cdb[0] == SCSI_OP_THIRD_PARTY_COPY_IN &&
					(cdb[1] & SCSI_SA_MASK) == SCSI_SA_RECEIVE_ROD_TOKEN_INFORMATION)))
			add(l, " list=%u", get_be32(cdb + 2));
		break;
	default:
		break;
	}
}

static void add_sense(struct line *l, const uint8_t *s, size_t len)
{
	uint8_t rc = s[0] & 0x7f, key, asc, ascq;
	bool fixed = rc == SCSI_SENSE_FMT_FIXED_CURRENT || rc == SCSI_SENSE_FMT_FIXED_DEFERRED;

	if (fixed && len >= 14) {
		key = s[2] & 0x0f;
		asc = s[12];
		ascq = s[13];
	} else if ((rc == SCSI_SENSE_FMT_DESC_CURRENT || rc == SCSI_SENSE_FMT_DESC_DEFERRED) && len >= 4) {
		key = s[1] & 0x0f;
		asc = s[2];
		ascq = s[3];
	} else {
		add(l, " (no valid sense)");
		return;
	}
	const char *kn = scsi_sense_key_name(key), *an = scsi_asc_name(asc, ascq);

	if (kn)
		add(l, " %s", kn);
	else
		add(l, " SENSE KEY 0x%x", key);
	if (an)
		add(l, ": %s", an);
	add(l, " (%02X/%02X/%02X)", key, asc, ascq);
	if (fixed && (s[0] & 0x80))
		add(l, " information=0x%08x", get_be32(s + 3));
	if (fixed && len >= 18 && (s[15] & 0x80)) {
		if (key == SCSI_SK_ILLEGAL_REQUEST) { /* field pointer */
			add(l, " [%s byte %u", (s[15] & 0x40) ? "CDB" : "parameter list", (unsigned)get_be16(s + 16));
			if (s[15] & 0x08)
				add(l, " bit %u", s[15] & 0x07);
			add(l, "]");
		} else {
			add(l, " [sense-key specific 0x%04x]", (unsigned)get_be16(s + 16));
		}
	}
}

void host_trace_cmd(const struct tcmu_device *dev, const struct lu_cmd *lu, const struct timespec *t_start)
{
	struct line l = { .n = 0 };
	struct timespec now;
	struct timeval tv;
	struct tm tm;

	clock_gettime(CLOCK_MONOTONIC, &now);
	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	long long us = (long long)(now.tv_sec - t_start->tv_sec) * 1000000LL +
		       (now.tv_nsec - t_start->tv_nsec) / 1000;

	add(&l, "%02d:%02d:%02d.%06ld %s ", tm.tm_hour, tm.tm_min, tm.tm_sec, (long)tv.tv_usec, dev->name);
	size_t cdb_len = lu->cdb_len ? lu->cdb_len : LU_CDB_MAX;
	const char *name = scsi_opcode_name(lu->cdb, cdb_len);

	if (name)
		add(&l, "%s", name);
	else
		add(&l, "OPCODE 0x%02X", lu->cdb[0]);
	if (!add_lba_len(&l, lu->cdb, cdb_len))
		add_details(&l, lu->cdb, cdb_len);
	if (lu->xfer_len)
		add(&l, " xfer=%zu%s", lu->xfer_len,
		    lu->dir == LU_DIR_READ ? " in" : lu->dir == LU_DIR_WRITE ? " out" : "");
	const char *st = scsi_status_name(lu->status);

	if (st)
		add(&l, " -> %s", st);
	else
		add(&l, " -> STATUS 0x%02X", lu->status);
	if (lu->status == SCSI_STAT_CHECK_CONDITION)
		add_sense(&l, lu->sense, lu->sense_len);
	add(&l, " (%lld us)\n", us);
	if (l.n >= sizeof(l.buf) - 1)
		l.buf[sizeof(l.buf) - 2] = '\n';
	fwrite(l.buf, 1, strnlen(l.buf, sizeof(l.buf)), stderr);
}
