/* fake_target.h - a scripted iSCSI target in a thread, just enough of RFC 7143 for
 * libiscsi to log in and for test_conn.c to drive lunlab-bench's connection layer through
 * the cases a real target produces only by accident: a connection dropped in the middle of
 * a command, BUSY and UNIT ATTENTION answers, a command held until ABORT TASK, a login
 * refused, a portal that stops listening.
 *
 * Every SCSI command takes the next action of the script (GOOD when it is empty); what the
 * target saw (logins with their ISIDs, commands with their ITTs, TMFs with their referenced
 * ITTs) is recorded for the test to check. */
#ifndef LUNLAB_TEST_FAKE_TARGET_H
#define LUNLAB_TEST_FAKE_TARGET_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

enum fake_kind {
	FAKE_GOOD,        /* GOOD (READ: Data-In of zeros with status; READ CAPACITY: 1 MiB of 512 B) */
	FAKE_STATUS,      /* this SCSI status, no sense (BUSY 0x08, TASK SET FULL 0x28) */
	FAKE_SENSE,       /* CHECK CONDITION with key/asc/ascq */
	FAKE_HOLD,        /* no answer; an ABORT TASK for it gets FUNCTION COMPLETE */
	FAKE_DROP,        /* close the connection instead of answering */
	FAKE_VANISH,      /* close the connection and stop listening: logins are refused */
};

struct fake_action {
	enum fake_kind kind;
	uint8_t status, key, asc, ascq;
};

#define FAKE_MAX_SCRIPT 32
#define FAKE_MAX_LOG 64

struct fake_target {
	int lfd;
	uint16_t port;
	pthread_t thread;
	pthread_mutex_t lock;
	volatile bool stop;
	/* script */
	struct fake_action script[FAKE_MAX_SCRIPT];
	unsigned n_script, next_action;
	uint16_t login_status;          /* answer logins with this status (0: success) */
	/* what it saw */
	unsigned logins;                /* successful logins */
	unsigned refusals;              /* Login Requests answered with login_status != 0 */
	uint8_t isid[FAKE_MAX_LOG][6];
	unsigned n_cmds;
	uint8_t cmd_op[FAKE_MAX_LOG];
	uint32_t cmd_itt[FAKE_MAX_LOG];
	unsigned n_tmfs;
	uint8_t tmf_func[FAKE_MAX_LOG];
	uint32_t tmf_ref[FAKE_MAX_LOG];
	unsigned logouts;
};

/* Listen on 127.0.0.1 (a free port) and serve in a thread.  0 or -1. */
int fake_start(struct fake_target *f);
void fake_stop(struct fake_target *f);
/* Append to the script (before the commands it is for are sent). */
void fake_push(struct fake_target *f, struct fake_action a);
/* "iscsi://127.0.0.1:PORT/iqn.2026-11.org.lunlab:fake/0" */
void fake_url(const struct fake_target *f, char *buf, size_t len);

#endif
