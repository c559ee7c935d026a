/* conn.h - the connection layer of lunlab-bench: iSCSI sessions to LUs over libiscsi's async
 * API, the commands sent on them, and the poll loop that services many sessions at once (all
 * VMs of a scale run, both LUs of a clone).
 *
 * Every subcommand gets the same behaviour from here, without code of its own:
 *   - a lost connection is noticed (a closed or reset socket, a login that fails) and the
 *     session is logged in again for at most --timeout (conn_set_policy), backing off from
 *     100 ms to 1 s between attempts; the commands that were in flight are sent again, in
 *     order, on the new session, so a path that comes back lets the run continue;
 *   - a command unanswered for --timeout gets an ABORT TASK and is sent once more; a second
 *     timeout, an ABORT TASK left unanswered, or no session within --timeout ends the session
 *     for good with one line naming the URL and the cause (conn_error, conn_fatal_error);
 *   - BUSY, TASK SET FULL, UNIT ATTENTION, NOT READY becoming ready and ABORTED COMMAND are
 *     retried as initiators do (conn_policy.h), bounded, and counted (conn_stats.h);
 *   - waiting never spins: poll(2) sleeps until a socket is ready or the next timer is due.
 * libiscsi's own automatic reconnect is switched off: it spins on a dead socket, retries
 * forever and cannot be bounded (libiscsi issues #241, #282).
 *
 * Usage: conn_open[_many], then conn_submit / conn_read16 / conn_write16 / conn_cmd, and
 * conn_poll_many in the caller's loop; conn_close at the end.  Scenarios never call libiscsi's
 * iscsi_*_task or *_sync functions on c->iscsi themselves: those bypass all of the above. */
#ifndef LUNLAB_CLIENT_CONN_H
#define LUNLAB_CLIENT_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "client/conn_policy.h"
#include "client/conn_stats.h"

struct iscsi_context;
struct scsi_task;
struct scsi_iovec;
struct conn_link;

struct bench_conn {
	struct iscsi_context *iscsi;  /* the current session's context; NULL while there is none */
	int lun;
	uint32_t block_size;
	uint64_t num_blocks;
	bool lbpme;                 /* READ CAPACITY(16) thin provisioning enabled */
	uint32_t max_xfer_blocks;   /* VPD B0h MAXIMUM TRANSFER LENGTH, 0 = none (xfer_limit_query) */
	char target[256];
	char portal[256];
	char url[512];              /* as given, CHAP secrets left out: for messages */
	struct conn_stats stats;    /* what the connection layer did on this session */
	struct conn_link *link;     /* private: conn_link.h */
};

/* Process-wide settings, set once by main() before any session is opened. */
struct conn_policy {
	double timeout_s;           /* --timeout: login retry window and per-command limit (default 30) */
	bool status_line;           /* stderr is a terminal and not --quiet: say what a re-login waits for */
};
void conn_set_policy(const struct conn_policy *p);
const struct conn_policy *conn_get_policy(void);

/* The first session that failed for good in this process (its one-line message), or NULL.
 * main() prints it instead of whatever a scenario made of the failed commands, and exits 3. */
const char *conn_fatal_error(void);
/* Record msg as that error (the first one wins).  The connection layer does it for sessions;
 * the HTTP clients (http_retry.h: watch, --metrics-url, --api) for an endpoint that did not
 * answer within --timeout.  Main thread only. */
void conn_note_fatal(const char *msg);

/* Result of one command run by conn_cmd(). */
struct cmd_status {
	int status;                 /* SCSI status (0 GOOD, 2 CHECK CONDITION), -1 the session failed */
	uint8_t key, asc, ascq;     /* sense when status == 2 */
	size_t got;                 /* data-in bytes received */
};

/* Connect sessions for url.  `n` sessions, each with initiator name "<prefix>-<i>" (just
 * "<prefix>" when n == 1) so a target sees n distinct I_T nexuses.  Logins run concurrently and
 * are retried for --timeout while they fail for a reason that can pass (connection refused,
 * target busy); a refusal that cannot (authentication, unknown target) fails at once.  Reads
 * READ CAPACITY(16) into each conn.  Returns 0, or -1 with a one-line error. */
int conn_open_many(const char *url, const char *initiator_prefix, unsigned n,
		   struct bench_conn *conns, char *err, size_t errlen);
int conn_open(const char *url, const char *initiator, struct bench_conn *c, char *err, size_t errlen);
/* 0 when libiscsi parses url as iscsi://[user%pass@]host[:port]/iqn/lun; else -1 with the
 * reason (no LUN, a typo) in err, which main reports as bad usage. */
int conn_check_url(const char *url, char *err, size_t errlen);
/* Log out (waiting at most a second for the answer) and free everything.  Commands still
 * pending are dropped without their callbacks being called. */
void conn_close(struct bench_conn *c);

/* Completion of a command submitted with conn_submit().  status: the SCSI status after the
 * connection layer's retries (task->sense holds the sense of a CHECK CONDITION), or
 * SCSI_STATUS_ERROR when the session failed for good (conn_error(c) says why).  As with
 * libiscsi, the callback owns task and frees it (scsi_free_scsi_task).  It may submit more. */
typedef void (*conn_cb)(struct bench_conn *c, int status, struct scsi_task *task, void *priv);

/* Queue task (made with scsi_cdb_* or scsi_create_task, data buffers attached) on c.  It is
 * sent now, or as soon as there is a session again.  Returns 0 (cb will be called exactly
 * once, unless conn_close comes first) or -1 when the session has failed for good (task
 * freed, cb not called). */
int conn_submit(struct bench_conn *c, struct scsi_task *task, conn_cb cb, void *priv);
/* READ(16) / WRITE(16) of `bytes` at lba into / from iov[niov] (kept by the caller until the
 * callback).  Returns as conn_submit. */
int conn_read16(struct bench_conn *c, uint64_t lba, uint32_t bytes, struct scsi_iovec *iov, int niov,
		conn_cb cb, void *priv);
int conn_write16(struct bench_conn *c, uint64_t lba, uint32_t bytes, struct scsi_iovec *iov, int niov,
		 conn_cb cb, void *priv);

/* Run one CDB to completion (submit + poll).  dir: 0 none, 1 read (in/inlen), 2 write
 * (out/outlen).  Returns 0 when the command completed (check st->status), -1 when the session
 * failed for good (conn_error(c)). */
int conn_cmd(struct bench_conn *c, const uint8_t *cdb, int cdblen, int dir,
	     const void *out, size_t outlen, void *in, size_t inlen, struct cmd_status *st);

/* Fill st from a finished task (status, sense, data-in length). */
void conn_task_status(struct scsi_task *task, int cb_status, struct cmd_status *st);
/* A callback's status in words for an error message: "CHECK CONDITION, sense 03/11/00 (MEDIUM
 * ERROR)", "BUSY" (under 100 bytes); "the session failed" for SCSI_STATUS_ERROR, whose one-line
 * message is conn_error(c). */
void conn_describe_answer(const struct bench_conn *c, int status, const struct scsi_task *task,
			  char *out, size_t outlen);

/* One round over `n` sessions: sleep until a socket is ready or a timer is due (at most
 * timeout_ms), service what is ready, run what is due (login attempts, retries, timeouts).
 * Returns -1 if a session failed for good (err: its one-line message), else 0. */
int conn_poll_many(struct bench_conn *conns, unsigned n, int timeout_ms, char *err, size_t errlen);

/* Has c failed for good?  Its one-line message ("" while it has not). */
bool conn_failed(const struct bench_conn *c);
const char *conn_error(const struct bench_conn *c);

/* CPU seconds (user + system) this process has used. */
double cpu_seconds(void);

/* Wall clock in seconds (CLOCK_MONOTONIC). */
double now_s(void);
uint64_t now_ns(void);

#endif
