/* conn_link.h - the connection layer's private state, shared by client/conn*.c only.
 *
 * A link is one bench_conn's life across sessions:
 *
 *      WAIT --(attempt due)--> LOGIN --(logged in)--> UP --(socket lost)--> WAIT ...
 *        ^                       |                                          
 *        +--(attempt failed)-----+      any state --(give up)--> FAILED
 *
 * Commands (ops) live on the link, not on the libiscsi context: when a session dies its
 * context is destroyed and its ops wait, in submission order, for the next one. */
#ifndef LUNLAB_CLIENT_CONN_LINK_H
#define LUNLAB_CLIENT_CONN_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "client/conn.h"
#include "client/conn_policy.h"

enum link_state {
	LINK_WAIT,     /* no session; next login attempt at next_login_ns */
	LINK_LOGIN,    /* a login is in progress on c->iscsi */
	LINK_UP,       /* logged in: ops are sent */
	LINK_FAILED,   /* given up: `failed` says why; ops are failed back to their callers */
};

enum op_state {
	OP_QUEUED,     /* waiting for a session, or for due_ns (a retry's backoff) */
	OP_SENT,       /* on the current session; due_ns: its --timeout */
	OP_ABORTING,   /* unanswered: ABORT TASK sent; due_ns: when to stop waiting for that */
};

struct conn_abort;

struct conn_op {
	struct conn_op *prev, *next;
	struct bench_conn *c;
	struct scsi_task *task;
	conn_cb cb;
	void *priv;
	enum op_state state;
	uint64_t first_ns;          /* first submission: bounds the backoff retries */
	uint64_t due_ns;
	struct conn_retries tries;
	unsigned timeouts;          /* times unanswered for --timeout */
	unsigned sessions;          /* sessions it was sent on */
	unsigned sent_gen;          /* the link generation it was last sent on (0: never sent) */
	struct conn_abort *abort;   /* ABORT TASK in flight for it */
	bool cancel_is_abort;       /* the next CANCELLED is our own iscsi_scsi_cancel_task */
};

/* One ABORT TASK in flight.  op becomes NULL when the command finished by itself first. */
struct conn_abort {
	struct conn_abort *next;
	struct bench_conn *c;
	struct conn_op *op;
};

struct conn_link {
	enum link_state state;
	bool ever_up;               /* a session existed: a WAIT is a loss, not the first login */
	bool lost;                  /* seen inside iscsi_service; handled once it returns */
	bool teardown;              /* destroying the context: its CANCELLED callbacks requeue */
	bool closing;               /* conn_close: callbacks free quietly */
	bool login_done;            /* login callback ran for the current attempt */
	int login_status;
	unsigned generation;        /* sessions logged in so far (op.sent_gen) */
	struct conn_op *head, *tail;
	struct conn_abort *aborts;
	uint32_t isid;              /* this link's ISID (random format): the same on every login,
	                             * so a new login reinstates a session the target still holds */
	char initiator[300];
	char url_full[1024];        /* with secrets: only for logging in */
	uint64_t timeout_ns;
	uint64_t down_since_ns;     /* WAIT/LOGIN: when this outage (or the first login) began */
	uint64_t next_login_ns;
	uint64_t attempt_start_ns, attempt_deadline_ns;
	unsigned attempts;          /* failed login attempts in this outage */
	char cause[300];            /* why the session went away */
	char last_err[300];         /* what the last login attempt ran into */
	char login_err[300];        /* the current attempt's error, caught in its callback (libiscsi
	                             * overwrites its error text before iscsi_service returns) */
	char failed[900];           /* FAILED: the one-line message */
};

/* conn_login.c */
void link_start_login(struct bench_conn *c, uint64_t now);
void link_login_failed(struct bench_conn *c, uint64_t now, const char *why);
void link_logged_in(struct bench_conn *c, uint64_t now);
void link_lost(struct bench_conn *c, uint64_t now, const char *cause);
/* WAIT past its deadline: fail with the message that says what was tried. */
void link_give_up(struct bench_conn *c);
/* Give up for good with a one-line message (the first one wins).  Safe inside libiscsi
 * callbacks: the poll loop destroys the context and fails the ops afterwards. */
void link_fail(struct bench_conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Destroy c->iscsi; ops it held go back to QUEUED (never call inside its own callbacks). */
void link_destroy_context(struct bench_conn *c);

/* conn_tty.c: the "logging in again" line on a terminal, after every poll round */
void conn_tty_update(const struct bench_conn *conns, unsigned n, uint64_t now);

/* conn.c */
/* libiscsi's error text as one clean line (no trailing newline or full stop). */
void conn_copy_error(char *dst, size_t len, const char *src);

/* conn_ops.c */
void ops_send_due(struct bench_conn *c, uint64_t now);
void ops_check_timeouts(struct bench_conn *c, uint64_t now);
void ops_requeue_all(struct bench_conn *c);
void ops_fail_all(struct bench_conn *c);
void ops_discard_all(struct bench_conn *c);
void aborts_free_all(struct conn_link *l);
/* The earliest due_ns among the link's ops that needs the loop (UINT64_MAX: none). */
uint64_t ops_next_due(const struct bench_conn *c, uint64_t now);

#endif
