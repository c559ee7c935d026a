/* scsi_core.h — the transport-independent SCSI core (README.md here): what
 * every command gets between a transport (target/iscsi) and its logical
 * unit (target/lu, a backend), in SAM-5/SPC-4 order, for one I_T_L nexus.
 *
 * A transport calls, per command:
 *   1. scsi_core_check() when the command's turn comes (iSCSI: CmdSN order),
 *      before it moves any more Data-Out: LUN, unit attention, ALUA,
 *      reservations, task attribute, and the commands the target answers
 *      itself (REPORT LUNS, REPORT TARGET PORT GROUPS, PERSISTENT RESERVE
 *      IN, RESERVE/RELEASE, any command to a LUN that is not there).
 *   2. scsi_core_execute() once the Data-Out is in: the target-owned
 *      commands that carry data (SET TARGET PORT GROUPS, PERSISTENT RESERVE
 *      OUT), the LU still being there, then the fault rules.
 *   3. the backend, when step 2 says so; scsi_core_answered() on a GOOD
 *      answer (an INQUIRY gets the port's ALUA designators).
 *   4. scsi_core_done() when its response goes out: the LU's figures and
 *      the happenings feed.
 * The core never allocates, locks nothing of its own and keeps no state per
 * command beyond struct scsi_core_cmd, which the transport keeps where it
 * likes (on its stack: the core does not hold on to it). */
#ifndef LUNLAB_CORE_SCSI_CORE_H
#define LUNLAB_CORE_SCSI_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "target/lu/fault_rules.h"
#include "target/lu/lu_cmd.h"
#include "target/lu/lu_table.h"

#define SCSI_CORE_WANT_ANSWER SIZE_MAX

/* What the transport lends the core, set once (static const). */
struct scsi_core_ops {
	/* The command's Data-In buffer in *buf (NULL: none), at least `want`
	 * bytes when it has none yet (an existing buffer is returned as it
	 * is); *len gets its size.
	 * want SCSI_CORE_WANT_ANSWER: room for an answer that describes its own
	 * length (REPORT LUNS, a missing LUN's INQUIRY): what the initiator
	 * expects or the CDB's allocation length, whichever is larger, as the
	 * transport bounds it.  false: out of memory. */
	bool (*buffer)(void *tcmd, size_t want, uint8_t **buf, size_t *len);
	/* one line for the target's log (printf format) */
	void (*log)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
};

/* The I_T nexus: one per session (iSCSI: per connection, MaxConnections=1).
 * The transport fills the port fields at login, then scsi_core_itn_start;
 * scsi_core_itn_free at the session's end. */
struct scsi_itn {
	const struct scsi_core_ops *ops;
	const char *initiator;      /* initiator port name (iSCSI: IQN), not owned */
	const uint8_t *isid;        /* with initiator, the initiator port (6 bytes), not owned */
	uint64_t nexus_id;          /* unique per session */
	uint16_t tpg;               /* target port group of the target port (ALUA) */
	const char *portal;         /* target port address, for fault rules; may be NULL */
	const char *portal_adv;     /* its advertised address; may be NULL */
	struct lu_nexus lunx;       /* the LUs the nexus sees, and its port's key in
	                             * their unit attention stores (lu_table.h) */
};

/* Task attribute (SAM-5 8.6; iSCSI ATTR field, RFC 7143 11.3.1). */
enum scsi_task_attr {
	SCSI_TASK_UNTAGGED = 0,
	SCSI_TASK_SIMPLE = 1,
	SCSI_TASK_ORDERED = 2,
	SCSI_TASK_HEAD_OF_QUEUE = 3,
	SCSI_TASK_ACA = 4,
};

/* One command as the core sees it. */
struct scsi_core_cmd {
	struct lu_cmd *lc;          /* cdb, dir filled; the core fills lun, initiator,
	                             * isid, nexus_id, lu_entry, and on an answer
	                             * status, sense, data_len */
	void *tcmd;                 /* the transport's task, for ops->buffer */
	uint64_t lun;               /* UINT64_MAX: the LUN field did not decode */
	enum scsi_task_attr attr;
	uint32_t edtl;              /* bytes the initiator expects to move */
	size_t data_out;            /* execute: Data-Out bytes received */
	/* out */
	struct lu_entry *e;         /* the LU at lun for this nexus; NULL: none */
	struct lu_backend *be;      /* its backend (NULL: none) */
	struct fault_hit fault;     /* SCSI_CORE_FAULT: the rule that fired */
};

enum scsi_core_verdict {
	SCSI_CORE_ANSWERED,   /* lc status/sense/data_len hold the answer: send it */
	SCSI_CORE_PROCEED,    /* check: move the Data-Out, then scsi_core_execute */
	SCSI_CORE_BACKEND,    /* execute: hand it to cmd->be */
	SCSI_CORE_FAULT,      /* execute: a fault rule fired that the transport
	                       * carries out (cmd->fault: hold, delay, drop,
	                       * corrupt, EXTENDED COPY failure) */
	SCSI_CORE_NO_MEMORY,  /* ops->buffer failed */
};

void scsi_core_itn_start(struct scsi_itn *itn);
void scsi_core_itn_free(struct scsi_itn *itn);

/* The checks at delivery, in SAM-5/SPC-4 order (README.md). */
enum scsi_core_verdict scsi_core_check(struct scsi_itn *itn, struct scsi_core_cmd *cmd);
/* After the Data-Out (or at once for a command without one): the
 * target-owned commands with data, the LU still being the one lu_id names
 * (a command that waited for data), the fault rules.  buf/buf_len: the
 * command's buffer (Data-Out: cmd->data_out bytes of it arrived). */
enum scsi_core_verdict scsi_core_execute(struct scsi_itn *itn, struct scsi_core_cmd *cmd, uint64_t lu_id,
					 uint8_t *buf, size_t buf_len);
/* Is the LU at cmd->lun still the one lu_id names?  (The management API
 * may unmap or delete it while a command waits.)  true: cmd->e and
 * lc->lu_entry point to it. */
bool scsi_core_still_there(struct scsi_itn *itn, struct scsi_core_cmd *cmd, uint64_t lu_id);
/* A GOOD answer to go out (*produced: bytes of buf, updated). */
void scsi_core_answered(struct scsi_itn *itn, struct scsi_core_cmd *cmd, uint8_t *buf, size_t cap,
			size_t *produced);

/* A command answered with a response (not dropped: aborted, connection
 * gone): the LU's figures and the happenings feed (scsi_core_done.c).
 * lu_id: the LU it was delivered to; shard: the transport's thread index
 * for the figures; wire_bytes: its data that crossed the wire; elapsed_ns:
 * from its arrival to now (what the initiator waits, less the network).
 * true: counted for the LU, *smp the figures it counted, so the transport
 * adds its own path's (lu_stats_add) without decoding the CDB or finding
 * the latency bucket again (issue 20's 3%: a decode per command showed in
 * 4 KiB reads); false: no LU, or the LU went away meanwhile. */
struct lu_stats_sample;
bool scsi_core_done(struct scsi_itn *itn, struct scsi_core_cmd *cmd, uint64_t lu_id, unsigned shard,
		    uint64_t wire_bytes, uint64_t elapsed_ns, struct lu_stats_sample *smp);

/* The one place a nexus's unit attention for e is taken (scsi_core_ua.c),
 * from e's one store (ua_queue.h): true with ua[3] = key/ASC/ASCQ, the
 * condition cleared; *as_data: the command is REQUEST SENSE and gets it as
 * its sense data. */
bool scsi_core_take_ua(struct scsi_itn *itn, struct scsi_core_cmd *cmd, uint8_t ua[3], bool *as_data);

#endif
