/* check_util.h — what the libiscsi checks of tests/integration share: one
 * "ok:"/"FAIL:" line per check, a session, and a command's outcome with
 * the sense fields libiscsi does not decode (INFORMATION, COMMAND-SPECIFIC
 * INFORMATION). */
#ifndef LUNLAB_TEST_CHECK_UTIL_H
#define LUNLAB_TEST_CHECK_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#include "lunlab/scsi_vocab.h"

#define ST_GOOD SCSI_STAT_GOOD
#define ST_CHECK SCSI_STAT_CHECK_CONDITION
#define ST_BUSY SCSI_STAT_BUSY
#define ST_CONFLICT SCSI_STAT_RESERVATION_CONFLICT
#define ST_TSF SCSI_STAT_TASK_SET_FULL

extern int g_failed;

/* prints "ok: ..." or "FAIL: ..." (and counts the failure) */
void check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
double now_s(void);

/* A Normal session to target iqn through portal as initiator, its
 * connect-time TEST UNIT READY on LUN lun; NULL (message on stderr) when
 * the login fails.  reconnect false: libiscsi must not reconnect. */
struct iscsi_context *session(const char *portal, const char *iqn, const char *initiator, int lun,
			      bool reconnect);
void session_end(struct iscsi_context *i);

/* status (-1: no answer), key/asc/ascq as 0xKKAAQQ, INFORMATION when VALID */
struct outcome {
	int status;
	int sense;
	bool info_valid;
	uint32_t info;
	uint32_t csi;   /* COMMAND-SPECIFIC INFORMATION */
	uint8_t data[512]; /* the first Data-In bytes of a GOOD command */
	int data_len;
};

/* The outcome of a finished task (which it frees; NULL: no answer). */
struct outcome outcome_of(struct scsi_task *t);
/* A CDB sent as is: dir SCSI_XFER_READ / _WRITE / _NONE, len bytes of
 * Data-In expected or of out sent. */
struct outcome raw_cdb(struct iscsi_context *i, int lun, const uint8_t *cdb, int cdb_len, int dir, int len,
		       const uint8_t *out);

#endif
