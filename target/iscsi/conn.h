/* conn.h — one iSCSI connection and its session state.  MaxConnections=1,
 * so a session has exactly one connection and lives inside it.  A connection
 * belongs to one I/O thread for its whole life: nothing in here is locked. */
#ifndef LUNLAB_ISCSI_CONN_H
#define LUNLAB_ISCSI_CONN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "target/core/scsi_cmd_state.h"
#include "target/core/scsi_core.h"
#include "target/iscsi/params.h"
#include "target/iscsi/pdu.h"
#include "target/lu/lu_cmd.h"

struct lu_stats;
#include "target/lu/lu_table.h"

struct io_thread;
struct conn;

#define CONN_CMDSN_WINDOW 128u
#define CONN_MAX_AHS 1020u
/* Data-transfer bytes (EDTL) of the reading SCSI commands (no W bit) one
 * connection may have live at once.  The CmdSN window bounds the number of
 * commands, not their size: 128 READs of 8 MiB from an initiator that does
 * not read its socket would pin 1 GiB.  Past this budget the connection
 * stops reading (TCP pushes back on the initiator) until enough of its
 * commands are gone; one command is always admitted, whatever its size.
 * Writes are not charged: pausing could hold back the very Data-Out they
 * wait for (deadlock), and their data arrives only as the initiator sends. */
#define CONN_MAX_DATA_BYTES (256u << 20)

enum icmd_kind { IC_SCSI, IC_NOP, IC_TEXT, IC_TMF, IC_LOGOUT };

struct r2t_slot {
	bool used;
	uint32_t ttt, offset, len, got, next_datasn;
};

struct tmf_wait;

/* A task: any non-login PDU that takes a CmdSN, and for SCSI commands their
 * data buffer and transfer state. */
struct icmd {
	struct lu_cmd lc;         /* handed to the backend */
	struct iovec iov;
	struct conn *conn;
	struct icmd *next, *prev; /* conn->tasks: every live task */
	struct icmd *pend_next;   /* conn->pending: waiting for its CmdSN turn */
	struct icmd *done_next;   /* I/O thread completion stack */
	enum icmd_kind kind;
	uint8_t hdr[ISCSI_BHS_LEN];
	uint32_t itt, cmdsn, edtl;
	uint64_t lun;
	uint8_t task_attr;        /* ATTR of the SCSI Command PDU (enum scsi_task_attr) */
	bool immediate;
	enum scsi_cmd_state state; /* its life (target/core/scsi_cmd_state.h) */
	bool aborted;             /* TMF: drop silently (any state) */
	bool wants_data;          /* WRITE: buffer is filled from the wire */
	uint8_t *buf;             /* data: SCSI buffer, or a non-SCSI PDU's data */
	size_t buf_cap;           /* allocation size (buffer cache class) */
	size_t buf_len;           /* bytes of buf in use */
	uint32_t imm_len;         /* immediate data bytes */
	uint32_t unsol_expect;    /* immediate + unsolicited Data-Out bytes */
	uint32_t unsol_got;       /* unsolicited Data-Out bytes received */
	uint32_t unsol_datasn;
	uint32_t got_total;       /* every data byte received */
	uint32_t r2t_next_off;
	uint32_t r2t_sn;
	uint32_t r2t_outstanding;
	struct r2t_slot r2t[TGT_MAX_OUTSTANDING_R2T];
	uint64_t scsi_tl;         /* transfer length the CDB implies, UINT64_MAX unknown */
	uint64_t exec_tl;         /* same, of the CDB actually executed (trimmed to EDTL) */
	int refs;                 /* owner + tx items pointing into buf */
	struct tmf_wait *tmf;     /* a TMF waiting for this task to finish */
	uint8_t reject_reason;    /* answer with a Reject at delivery */
	const char *reject_why;
	bool local_check;         /* answer CHECK CONDITION, sense below, at delivery */
	uint8_t local_sense[3];   /* key, ASC, ASCQ */
	bool rw;                  /* READ/WRITE family: scsi_tl is exact */
	bool early_data;          /* its backend wants data_arrived (dataout.c) */
	bool skip_exec;           /* EDTL 0 for a READ/WRITE: drain, answer GOOD + residual */
	uint32_t exp_datasn;      /* Data-In and R2T PDUs sent */
	struct lu_backend *be;
	uint64_t lu_id;           /* the LU it was delivered to (lu_entry id): a write
	                           * whose data arrives later checks it is still there */
	/* events from backend threads (ICMD_EV_*), handled on the I/O thread;
	 * ICMD_EV_QUEUED: the task is on its thread's completion stack */
	atomic_uint async_ev;
	uint32_t early_len;       /* Data-In bytes sent before done() (data_ready) */
	uint32_t data_charge;     /* its EDTL, counted in conn->data_bytes */
	_Atomic size_t progress;  /* lu_cmd.data_progress: bytes of buf final so far */
	uint64_t arrival_ns;      /* CLOCK_MONOTONIC when its header arrived (lu_cmd.arrival_ns, LU stats) */
	/* fault rules (scsi_fault.c) */
	unsigned fault_rule;      /* the rule that acts again at completion (fault_after) */
	uint8_t fault_after;      /* SCSI_FAULT_AFTER_*: what happens when the LU is done */
	uint64_t fault_lba_first, fault_lba_last; /* a corrupt rule's LBA range */
	struct icmd *delay_next;  /* its thread's delayed list, or its held list */
	uint64_t delay_due_ns;    /* CLOCK_MONOTONIC */
	unsigned held_rule;       /* the hold rule that holds it (0: none) */
};

#define ICMD_EV_READY  1u  /* lu_cmd.data_ready: Data-In may start */
#define ICMD_EV_DONE   2u  /* lu_cmd.done */
#define ICMD_EV_QUEUED 4u
#define ICMD_EV_PROGRESS 8u /* lu_cmd.data_progress: more of the buffer is final */

/* A PDU waiting to go out: header, optional data slice, pad + digest. */
struct txpdu {
	struct txpdu *next;
	uint8_t hdr[ISCSI_BHS_LEN + ISCSI_DIGEST_LEN];
	uint32_t hlen;
	const uint8_t *data;
	uint32_t dlen;
	uint8_t tail[3 + ISCSI_DIGEST_LEN];
	uint32_t tlen;
	struct icmd *ref;         /* released once sent */
	void *owned;              /* freed once sent */
	bool close_after;         /* logout response / failed login */
	const char *close_why;    /* with close_after: the log's reason (NULL: "logged out") */
};

enum conn_state { CS_LOGIN, CS_FFP, CS_CLOSING };
enum rx_stage { RX_BHS, RX_AHS, RX_DATA, RX_TAIL };

struct login_state {
	uint8_t csg;
	bool started;             /* first Login Request seen */
	bool tpgt_sent, mrdsl_sent;
	bool auth_done;
	uint8_t isid[6];
	uint32_t itt;
	char *acc;                /* text accumulated across C-bit PDUs */
	size_t acc_len;
};

struct tmf_wait {
	struct tmf_wait *next;
	uint32_t itt;
	uint8_t response;
	int waiting;              /* tasks still in the backend */
};

struct conn {
	int fd;
	struct io_thread *thr;
	int refs;                 /* 1 + tasks inside a backend */
	enum conn_state state;
	bool closed;              /* fd gone; only waiting for backend completions */
	bool epollout;
	bool dirty;               /* on the thread's flush list */
	struct conn *dirty_next;
	struct conn *list_next, *list_prev; /* thread's connection list */

	/* receive */
	uint8_t *rxbuf;
	size_t rx_start, rx_end, rx_cap;
	enum rx_stage stage;
	uint8_t bhs[ISCSI_BHS_LEN + CONN_MAX_AHS + ISCSI_DIGEST_LEN];
	uint8_t *rx_dst;          /* NULL: discard */
	uint32_t rx_need, rx_got;
	uint8_t rx_tail[3 + ISCSI_DIGEST_LEN];
	uint32_t rx_dlen;
	uint8_t *pdu_data;        /* data of Login/Text/NOP PDUs */
	struct icmd *rx_cmd;      /* SCSI command the current data belongs to */
	uint32_t rx_off;          /* its buffer offset */
	uint8_t *rx_data;         /* where the data segment landed (NULL: discarded) */
	struct r2t_slot *rx_r2t;  /* Data-Out: the R2T it answers, NULL unsolicited */

	/* transmit */
	struct txpdu *tx_head, *tx_tail;
	size_t tx_off;            /* bytes of tx_head already sent */

	/* session */
	struct iscsi_params params;
	struct login_state login;
	bool discovery;
	bool digests_live;        /* negotiated digests apply (after the final Login Response) */
	bool counted;             /* counted in g_session_count */
	char initiator[224];
	char initiator_alias[64];
	uint8_t isid[6];
	uint16_t tsih;
	uint16_t cid;
	uint32_t stat_sn;
	uint32_t exp_cmd_sn;
	uint32_t max_cmd_sn;      /* last advertised */
	bool max_cmd_sn_set;
	uint64_t nexus_id;
	struct icmd *tasks;
	uint32_t ntasks;
	struct icmd *pending;     /* sorted by CmdSN */
	uint32_t next_ttt;
	struct tmf_wait *tmfs;
	char peer[64];
	char local[64];           /* address:port the initiator reached us on */
	int portal;               /* the --listen portal it came through (portal.h); -1 unknown */
	unsigned portal_gen;      /* how many times that portal had been set down when it was accepted */
	/* its portal's and its initiator's counters (path_stats.h), found at
	 * its first counted command; path_stats_tried: looked for already
	 * (ini_stats NULL then: beyond the bound) */
	struct lu_stats *portal_stats, *ini_stats;
	bool path_stats_tried;
	struct scsi_itn itn;      /* the I_T nexus as the SCSI core keeps it: the LUs
	                           * this session sees, the unit attentions it owes
	                           * (target/core/scsi_core.h); set up at login */

	/* timeouts (io_thread.c sweeps once a second): a login must finish and
	 * a PDU once started must keep arriving, or the connection is closed */
	bool rx_progress;         /* bytes arrived since the last sweep */
	bool rx_exact;            /* large data segments are arriving: recv() only
	                           * what the current stage needs, so the data
	                           * lands in its command's buffer, not staging */
	/* CONN_MAX_DATA_BYTES: reading paused with a SCSI Command header in
	 * c->bhs until data_bytes falls; then the thread resumes it */
	uint64_t data_bytes;
	bool rx_paused;
	bool resume_queued;
	struct conn *resume_next;
	uint32_t login_ticks;     /* sweeps seen while logging in */
	uint32_t stall_ticks;     /* sweeps without a byte while mid-PDU */
};

/* conn.c */
struct conn *conn_new(int fd, struct io_thread *thr);
/* c->data_bytes went down: resume a paused receiver if the budget allows */
void conn_data_released(struct conn *c);
void conn_close(struct conn *c, const char *why);
void conn_put(struct conn *c);
struct icmd *icmd_new(struct conn *c, const uint8_t *bhs, enum icmd_kind kind);
void icmd_put(struct icmd *ic);
void icmd_unlink(struct icmd *ic);     /* off conn->tasks (no more lookups) */
struct icmd *conn_find_task(struct conn *c, uint32_t itt);
/* The MaxCmdSN we advertise: ExpCmdSN plus room for as many tasks as are
 * not busy, so a flood of commands cannot pile up without bound.  It never
 * moves back (an initiator ignores a smaller MaxCmdSN anyway), and exactly
 * this value bounds what we accept. */
static inline uint32_t conn_max_cmd_sn(struct conn *c)
{
	uint32_t busy = c->ntasks < CONN_CMDSN_WINDOW - 1 ? c->ntasks : CONN_CMDSN_WINDOW - 1;
	uint32_t m = c->exp_cmd_sn + CONN_CMDSN_WINDOW - 1 - busy;

	if (!c->max_cmd_sn_set || sn_lt(c->max_cmd_sn, m)) {
		c->max_cmd_sn = m;
		c->max_cmd_sn_set = true;
	}
	return c->max_cmd_sn;
}

/* conn_rx.c */
void conn_on_readable(struct conn *c);
/* conn_tx.c */
struct txpdu *tx_new(void);
/* Free the calling thread's spare tasks / PDU records (conn_pool.h): when
 * an I/O thread ends, and on the thread that frees the I/O threads. */
void conn_pools_drain(void);
void conn_tx_pool_drain(void);
/* Fills StatSN (and advances it when advance_statsn), ExpCmdSN, MaxCmdSN,
 * header digest, pad and data digest, then queues. */
void conn_queue(struct conn *c, struct txpdu *t, bool advance_statsn);
/* why: one line naming the offending field, logged unless --quiet */
void conn_queue_reject(struct conn *c, const uint8_t *bhs, uint8_t reason, const char *why);
void conn_flush(struct conn *c);
void conn_mark_dirty(struct conn *c);
void conn_free_txq(struct conn *c);

/* login.c: a Login Request with its data (data has one spare byte). */
void login_handle(struct conn *c, const uint8_t *bhs, uint8_t *data, uint32_t dlen);
/* discovery.c: Text Request, delivered in CmdSN order */
void text_handle(struct conn *c, struct icmd *ic);
/* cmdsn.c */
enum cmdsn_verdict { CMDSN_DELIVER, CMDSN_QUEUE, CMDSN_DROP };
enum cmdsn_verdict cmdsn_check(uint32_t exp, uint32_t max, uint32_t cmdsn, bool immediate);
void cmdsn_submit(struct conn *c, struct icmd *ic);
void cmdsn_insert_sorted(struct icmd **head, struct icmd *ic);
/* ffp.c: full feature phase dispatch */
void ffp_deliver(struct conn *c, struct icmd *ic);
void nop_out_deliver(struct conn *c, struct icmd *ic);
void logout_deliver(struct conn *c, struct icmd *ic);
/* scsi_cmd_flow.c */
/* what the transport lends the SCSI core (a command's buffer, the log) */
extern const struct scsi_core_ops scsi_cmd_core_ops;
int scsi_cmd_header(struct conn *c, const uint8_t *bhs);
void scsi_cmd_deliver(struct conn *c, struct icmd *ic);
void scsi_cmd_data_complete(struct conn *c, struct icmd *ic);
void scsi_cmd_completed(struct icmd *ic); /* on the I/O thread */
/* Is the LU ic was delivered to still the one its initiator sees at its
 * LUN (the API may have unmapped or deleted it since)?  Sets lc.lu_entry. */
bool scsi_cmd_lu_still_there(struct conn *c, struct icmd *ic);
/* lu_cmd's buffer fields (iov, iov_cnt, xfer_len) and lun from the task */
void scsi_cmd_set_buffer(struct icmd *ic);
/* The target answers ic itself (no LU): status, sense, Data-In bytes in buf. */
void scsi_cmd_answer(struct conn *c, struct icmd *ic, uint8_t status, const uint8_t *sense,
		     uint8_t sense_len, size_t produced);
void scsi_cmd_data_ready(struct icmd *ic); /* on the I/O thread */
void scsi_cmd_data_progress(struct icmd *ic); /* on the I/O thread */
/* dataout.c */
int dataout_header(struct conn *c, const uint8_t *bhs);
void dataout_received(struct conn *c);
void r2t_send_more(struct conn *c, struct icmd *ic);
/* tmf.c */
void tmf_deliver(struct conn *c, struct icmd *ic);
void tmf_task_gone(struct conn *c, struct icmd *ic);

/* The bound for incoming CmdSNs: exactly what the initiator was last told. */
static inline uint32_t conn_accept_max(struct conn *c)
{
	return c->max_cmd_sn_set ? c->max_cmd_sn : conn_max_cmd_sn(c);
}

#endif
