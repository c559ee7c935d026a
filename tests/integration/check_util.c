/* check_util.c — see check_util.h. */
#include "check_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "lunlab/be.h"

int g_failed;

void check(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf(ok ? "ok: " : "FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!ok)
		g_failed++;
}

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct iscsi_context *session(const char *portal, const char *iqn, const char *initiator, int lun, bool reconnect)
{
	struct iscsi_context *i = iscsi_create_context(initiator);

	if (!i)
		return NULL;
	iscsi_set_targetname(i, iqn);
	iscsi_set_session_type(i, ISCSI_SESSION_NORMAL);
	iscsi_set_header_digest(i, ISCSI_HEADER_DIGEST_NONE);
	if (!reconnect)
		iscsi_set_noautoreconnect(i, 1);
	iscsi_set_timeout(i, 30);
	if (iscsi_full_connect_sync(i, portal, lun) != 0) {
		fprintf(stderr, "login to %s as %s failed: %s\n", portal, initiator, iscsi_get_error(i));
		iscsi_destroy_context(i);
		return NULL;
	}
	/* nothing to take first: a fresh target owes a new I_T nexus no power-on
	 * unit attention (target/lu/power_on.h), so the first command of a check
	 * is the one it means */
	return i;
}

void session_end(struct iscsi_context *i)
{
	if (!i)
		return;
	iscsi_logout_sync(i);
	iscsi_destroy_context(i);
}

struct outcome outcome_of(struct scsi_task *t)
{
	struct outcome o;

	memset(&o, 0, sizeof(o));
	o.status = -1;
	if (!t)
		return o;
	o.status = t->status;
	if (t->status == ST_CHECK) {
		o.sense = (int)t->sense.key << 16 | t->sense.ascq;
		/* libiscsi keeps the Data segment: 2-byte SenseLength, then fixed sense */
		if (t->datain.size >= 2 + 18) {
			const uint8_t *s = t->datain.data + 2;
			o.info_valid = s[0] & 0x80;
			o.info = get_be32(s + 3);
			o.csi = get_be32(s + 8);
		}
	} else if (t->status == ST_GOOD && t->datain.size > 0) {
		o.data_len = t->datain.size < (int)sizeof(o.data) ? t->datain.size : (int)sizeof(o.data);
		memcpy(o.data, t->datain.data, (size_t)o.data_len);
	}
	scsi_free_scsi_task(t);
	return o;
}

struct outcome raw_cdb(struct iscsi_context *i, int lun, const uint8_t *cdb, int cdb_len, int dir, int len,
		       const uint8_t *out)
{
	struct scsi_task *t = scsi_create_task(cdb_len, (unsigned char *)cdb, dir, len);
	struct iscsi_data d = { .size = dir == SCSI_XFER_WRITE ? (size_t)len : 0, .data = (unsigned char *)out };

	if (!t)
		return outcome_of(NULL);
	if (!iscsi_scsi_command_sync(i, lun, t, dir == SCSI_XFER_WRITE ? &d : NULL)) {
		scsi_free_scsi_task(t);
		return outcome_of(NULL);
	}
	return outcome_of(t);
}
