/* conn.h - one iSCSI session to one LU over libiscsi's async API, and the poll loop that
 * services many sessions at once (all VMs of a scale run, all clones of a clone run). */
#ifndef LUNLAB_CLIENT_CONN_H
#define LUNLAB_CLIENT_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct iscsi_context;
struct scsi_task;

struct bench_conn {
	struct iscsi_context *iscsi;
	int lun;
	uint32_t block_size;
	uint64_t num_blocks;
	bool lbpme;                 /* READ CAPACITY(16) thin provisioning enabled */
	uint32_t max_xfer_blocks;   /* VPD B0h MAXIMUM TRANSFER LENGTH, 0 = none (xfer_limit_query) */
	char target[256];
	char portal[256];
};

/* Result of one command run by conn_cmd(). */
struct cmd_status {
	int status;                 /* SCSI status (0 GOOD, 2 CHECK CONDITION), -1 transport error */
	uint8_t key, asc, ascq;     /* sense when status == 2 */
	size_t got;                 /* data-in bytes received */
};

/* Connect sessions for url.  `n` sessions, each with initiator name "<prefix>-<i>" so a target
 * sees n distinct I_T nexuses.  Logins run concurrently in one poll loop.  Reads READ CAPACITY
 * (16) into each conn.  Returns 0, or -1 with a one-line error. */
int conn_open_many(const char *url, const char *initiator_prefix, unsigned n,
		   struct bench_conn *conns, char *err, size_t errlen);
int conn_open(const char *url, const char *initiator, struct bench_conn *c, char *err, size_t errlen);
void conn_close(struct bench_conn *c);

/* Run one CDB to completion on the async API (submit + poll).  dir: 0 none, 1 read (in/inlen),
 * 2 write (out/outlen).  Returns 0 when the command completed (check st->status), -1 when the
 * transport failed. */
int conn_cmd(struct bench_conn *c, const uint8_t *cdb, int cdblen, int dir,
	     const void *out, size_t outlen, void *in, size_t inlen, struct cmd_status *st);

/* Fill st from a finished task (status, sense, data-in length). */
void conn_task_status(struct scsi_task *task, int cb_status, struct cmd_status *st);

/* One poll over `n` sessions' fds, servicing those that are ready.  timeout_ms as poll(2).
 * Returns -1 if a session failed (err filled), else 0. */
int conn_poll_many(struct bench_conn *conns, unsigned n, int timeout_ms, char *err, size_t errlen);

/* CPU seconds (user + system) this process has used. */
double cpu_seconds(void);

/* Wall clock in seconds (CLOCK_MONOTONIC). */
double now_s(void);
uint64_t now_ns(void);

#endif
