/* conn_policy.h - the connection layer's decisions as pure functions (no I/O, no clock), so
 * the unit tests pin them: what to do with a command's status (deliver it, or retry it and
 * after how long), how long to wait before the next login attempt, whether a login refusal is
 * worth retrying, and how URLs, commands and statuses are worded in messages.
 *
 * What is retried follows what Linux's SCSI midlayer (scsi_check_sense, scsi_decide_disposition)
 * and ESXi's NMP do for a disk: a command that got BUSY, TASK SET FULL, a UNIT ATTENTION or
 * NOT READY "becoming ready / in transition" was not executed, so sending it again is always
 * safe; ABORTED COMMAND and TASK ABORTED may have been partly executed, so only commands that
 * can be repeated without changing their outcome are retried (never EXTENDED COPY, COMPARE AND
 * WRITE or PERSISTENT RESERVE OUT: their caller decides). */
#ifndef LUNLAB_CLIENT_CONN_POLICY_H
#define LUNLAB_CLIENT_CONN_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How many times one command may meet each condition before its status goes to the caller. */
#define CONN_MAX_UA_RETRIES 16       /* a target queues a few UAs per I_T nexus, not endless */
#define CONN_MAX_ABORTED_RETRIES 5   /* as Linux's SD_MAX_RETRIES */
#define CONN_MAX_TIMEOUTS 2          /* unanswered for --timeout twice: the run stops */
#define CONN_MAX_SENDS 8             /* sent on 8 sessions in a row that each died: the run stops */

enum retry_kind {
	RETRY_NONE,            /* deliver the status to the caller */
	RETRY_BUSY,            /* status BUSY */
	RETRY_TASK_SET_FULL,   /* status TASK SET FULL */
	RETRY_UNIT_ATTENTION,  /* sense key 6 */
	RETRY_NOT_READY,       /* 02/04/01 becoming ready, 02/04/07 operation in progress, 02/04/0A transition */
	RETRY_ABORTED,         /* sense key 0Bh ABORTED COMMAND, or status TASK ABORTED */
};

/* Retries one command has had so far, per kind. */
struct conn_retries {
	unsigned busy, task_set_full, unit_attention, not_ready, aborted;
};

struct retry_decision {
	enum retry_kind kind;
	uint64_t delay_ns;     /* wait this long before sending it again (0: at once) */
};

/* Decide for one answer.  status: the SCSI status byte (0x00 GOOD, 0x02 CHECK CONDITION, 0x08
 * BUSY, 0x18 RESERVATION CONFLICT, 0x28 TASK SET FULL, 0x40 TASK ABORTED); key/asc/ascq: the
 * sense when status is CHECK CONDITION; opcode: the CDB's first byte; tries: retries so far;
 * elapsed_ns: since the command was first submitted; timeout_ns: --timeout.  A retry that
 * waits is only chosen while elapsed + delay stays within the timeout: BUSY for longer than
 * --timeout is delivered as BUSY. */
struct retry_decision conn_retry_decide(uint8_t opcode, int status, uint8_t key, uint8_t asc, uint8_t ascq,
					const struct conn_retries *tries, uint64_t elapsed_ns, uint64_t timeout_ns);

/* The wait before retry number n (0-based) of BUSY / TASK SET FULL: 1 ms doubling, at most
 * 500 ms.  NOT READY: 50 ms doubling, at most 1 s. */
uint64_t conn_busy_backoff_ns(unsigned n);
uint64_t conn_not_ready_backoff_ns(unsigned n);

/* The wait before login attempt n+1 after n failed ones (n >= 1): 100 ms doubling, at most
 * 1 s, so a target that is back is found within a second without hammering one that is not. */
uint64_t conn_login_backoff_ns(unsigned failed_attempts);

/* Is a login failure final (retrying cannot help)?  True for an iSCSI login reject of status
 * class 2 (initiator error: authentication failure 02/01, authorization 02/02, target not
 * found 02/03, removed 02/04, ...), read from libiscsi's "Status: ...(NNN)" text; false for
 * class 3 (target error, out of resources: transient), transport errors and anything else. */
bool conn_login_error_final(const char *libiscsi_error);

/* url with the CHAP secrets left out (user%secret@ -> user@, target_password=... -> ***). */
void conn_url_redact(const char *url, char *out, size_t outlen);

/* "READ(16) at LBA 2048", "EXTENDED COPY", "INQUIRY (VPD 0xb0)", "opcode 0xe7". */
void conn_describe_cdb(const uint8_t *cdb, int cdb_len, char *out, size_t outlen);

/* "GOOD", "BUSY", "TASK SET FULL", "RESERVATION CONFLICT", "TASK ABORTED",
 * "CHECK CONDITION, sense 03/11/00 (MEDIUM ERROR)", "status 0x30"; a usage-like
 * refusal has its additional sense named too: "CHECK CONDITION, sense 05/25/00
 * (ILLEGAL REQUEST: LOGICAL UNIT NOT SUPPORTED)". */
void conn_describe_status(int status, uint8_t key, uint8_t asc, uint8_t ascq, char *out, size_t outlen);

#endif
