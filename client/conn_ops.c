/* conn_ops.c - commands on a link: submitting them, taking their answers (delivered, or
 * retried as conn_policy.c decides), timing them out with ABORT TASK, and keeping them across
 * sessions.  An op belongs to the link, so the same scsi_task is sent again on a new session
 * (libiscsi keeps a task independent of its context: data-in is attached only on completion). */
#include "lunlab/scsi_vocab.h"
#include "client/conn_link.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

/* An ABORT TASK may take this long to be answered, at most (less when --timeout is shorter). */
#define ABORT_WAIT_MAX_NS (10ull * 1000000000ull)

#define TMF_FUNCTION_COMPLETE 0
#define TMF_TASK_DOES_NOT_EXIST 1

static void op_cb(struct iscsi_context *iscsi, int status, void *command_data, void *priv);

static void op_unlink(struct conn_link *l, struct conn_op *op)
{
	if (op->prev)
		op->prev->next = op->next;
	else
		l->head = op->next;
	if (op->next)
		op->next->prev = op->prev;
	else
		l->tail = op->prev;
	op->prev = op->next = NULL;
}

static void describe(const struct conn_op *op, char *buf, size_t len)
{
	conn_describe_cdb(op->task->cdb, op->task->cdb_size, buf, len);
}

/* Hand the op's final status to its caller; the callback owns the task from here. */
static void deliver(struct conn_op *op, int status)
{
	struct bench_conn *c = op->c;
	struct scsi_task *task = op->task;
	conn_cb cb = op->cb;
	void *priv = op->priv;
	if (op->abort)
		op->abort->op = NULL;
	op_unlink(c->link, op);
	free(op);
	cb(c, status, task, priv);
}

/* Forget what an earlier attempt left in the task before it is sent again. */
static void reset_task(struct scsi_task *t)
{
	free(t->datain.data);
	t->datain.data = NULL;
	t->datain.size = 0;
	memset(&t->sense, 0, sizeof(t->sense));
	t->residual = 0;
	t->residual_status = SCSI_RESIDUAL_NO_RESIDUAL;
	t->status = 0;
	t->iovector_in.offset = 0;
	t->iovector_in.consumed = 0;
	t->iovector_out.offset = 0;
	t->iovector_out.consumed = 0;
}

/* cause NULL: found inside iscsi_service, whose caller (conn_poll.c) words the cause */
static void mark_lost(struct conn_link *l, const char *cause)
{
	if (l->lost || l->teardown || l->state != LINK_UP)
		return;
	l->lost = true;
	if (cause)
		conn_copy_error(l->cause, sizeof(l->cause), cause);
	else
		l->cause[0] = 0;
}

static uint64_t abort_wait_ns(const struct conn_link *l)
{
	return l->timeout_ns < ABORT_WAIT_MAX_NS ? l->timeout_ns : ABORT_WAIT_MAX_NS;
}

static void op_send(struct conn_op *op, uint64_t now)
{
	struct bench_conn *c = op->c;
	struct conn_link *l = c->link;
	bool new_session = op->sent_gen != l->generation;
	if (new_session && op->sessions >= CONN_MAX_SENDS) {
		char d[96];
		describe(op, d, sizeof(d));
		link_fail(c, "%s: %s was sent on %u sessions and each was lost before it was answered "
			  "(the last: %s)", c->url, d, op->sessions, l->cause[0] ? l->cause : "closed");
		return;
	}
	reset_task(op->task);
	if (iscsi_scsi_command_async(c->iscsi, c->lun, op->task, op_cb, NULL, op)) {
		char why[300];
		snprintf(why, sizeof(why), "cannot queue a command: %s", iscsi_get_error(c->iscsi));
		mark_lost(l, why);
		return;
	}
	if (new_session) {
		if (op->sessions)
			c->stats.resent++;
		op->sessions++;
		op->sent_gen = l->generation;
	}
	op->state = OP_SENT;
	op->due_ns = now + l->timeout_ns;
}

static void fail_timed_out(struct conn_op *op, bool abort_answered)
{
	struct bench_conn *c = op->c;
	char d[96];
	describe(op, d, sizeof(d));
	link_fail(c, "%s: %s got no answer within --timeout %g s, %u times; each time it was aborted "
		  "with ABORT TASK%s", c->url, d, (double)c->link->timeout_ns / 1e9, op->timeouts,
		  abort_answered ? "" : " (the last ABORT TASK got no answer either)");
}

static void count_retry(struct bench_conn *c, struct conn_op *op, enum retry_kind k, uint8_t asc)
{
	switch (k) {
	case RETRY_BUSY: op->tries.busy++; c->stats.busy++; break;
	case RETRY_TASK_SET_FULL: op->tries.task_set_full++; c->stats.task_set_full++; break;
	case RETRY_UNIT_ATTENTION:
		op->tries.unit_attention++;
		c->stats.unit_attentions++;
		if (asc == scsi_asc(SCSI_ASC_POWER_ON_OR_RESET)) /* 29/xx: any reset */
			c->stats.resets++;
		break;
	case RETRY_NOT_READY: op->tries.not_ready++; c->stats.not_ready++; break;
	case RETRY_ABORTED: op->tries.aborted++; c->stats.aborted_commands++; break;
	case RETRY_NONE: break;
	}
}

static void op_cb(struct iscsi_context *iscsi, int status, void *command_data, void *priv)
{
	struct conn_op *op = priv;
	struct bench_conn *c = op->c;
	struct conn_link *l = c->link;
	(void)command_data;
	if (l->closing)
		return;                          /* conn_close frees the op and its task */
	if (status == SCSI_STATUS_CANCELLED && op->cancel_is_abort) {
		/* our own cancel after the target answered ABORT TASK: send it once more, unless
		 * this was its last chance */
		op->cancel_is_abort = false;
		op->state = OP_QUEUED;
		op->due_ns = 0;
		if (op->timeouts >= CONN_MAX_TIMEOUTS)
			fail_timed_out(op, true);
		return;
	}
	if (status == SCSI_STATUS_CANCELLED || status == SCSI_STATUS_ERROR || status == SCSI_STATUS_TIMEOUT) {
		/* the session went (or said something libiscsi could not take): the op waits for
		 * the next session */
		op->state = OP_QUEUED;
		op->due_ns = 0;
		mark_lost(l, NULL);
		return;
	}
	if (op->abort) {                     /* answered before the ABORT TASK took effect */
		op->abort->op = NULL;
		op->abort = NULL;
	}
	uint8_t key = 0, asc = 0, ascq = 0;
	if (status == SCSI_STATUS_CHECK_CONDITION) {
		key = (uint8_t)op->task->sense.key;
		asc = (uint8_t)(op->task->sense.ascq >> 8);
		ascq = (uint8_t)(op->task->sense.ascq & 0xff);
	}
	uint64_t now = now_ns();
	struct retry_decision d = conn_retry_decide(op->task->cdb[0], status, key, asc, ascq, &op->tries,
						    now - op->first_ns, l->timeout_ns);
	if (d.kind != RETRY_NONE && l->state != LINK_FAILED) {
		count_retry(c, op, d.kind, asc);
		op->state = OP_QUEUED;
		op->due_ns = now + d.delay_ns;   /* the poll loop sends it when due */
		return;
	}
	deliver(op, status);
}

static void abort_cb(struct iscsi_context *iscsi, int status, void *command_data, void *priv)
{
	struct conn_abort *a = priv;
	struct bench_conn *c = a->c;
	struct conn_link *l = c->link;
	struct conn_op *op = a->op;
	for (struct conn_abort **p = &l->aborts; *p; p = &(*p)->next) {
		if (*p == a) {
			*p = a->next;
			break;
		}
	}
	free(a);
	if (!op || l->closing)
		return;                          /* the command was answered first, or we are closing */
	op->abort = NULL;
	if (status != SCSI_STATUS_GOOD || !command_data)
		return;                          /* the session went: the loss path resends it */
	uint32_t response = *(const uint32_t *)command_data;
	if (response == TMF_FUNCTION_COMPLETE || response == TMF_TASK_DOES_NOT_EXIST) {
		/* The target dropped it and will never answer it: take it back from libiscsi too
		 * (op_cb with CANCELLED, then sent again or failed). */
		c->stats.aborts++;
		op->cancel_is_abort = true;
		if (iscsi_scsi_cancel_task(iscsi, op->task) == 0)
			return;
		op->cancel_is_abort = false;
	}
	char d[96], why[200];
	describe(op, d, sizeof(d));
	snprintf(why, sizeof(why), "the target answered ABORT TASK for %s with TMF response %u", d, response);
	mark_lost(l, why);                   /* a new session ends the task for sure */
}

static void send_abort(struct conn_op *op, uint64_t now)
{
	struct bench_conn *c = op->c;
	struct conn_link *l = c->link;
	op->timeouts++;
	c->stats.timeouts++;
	struct conn_abort *a = calloc(1, sizeof(*a));
	if (a) {
		a->c = c;
		a->op = op;
	}
	if (!a || iscsi_task_mgmt_abort_task_async(c->iscsi, op->task, abort_cb, a)) {
		free(a);
		char why[300];
		snprintf(why, sizeof(why), "cannot send ABORT TASK: %s", iscsi_get_error(c->iscsi));
		mark_lost(l, why);
		return;
	}
	a->next = l->aborts;
	l->aborts = a;
	op->abort = a;
	op->state = OP_ABORTING;
	op->due_ns = now + abort_wait_ns(l);
}

void ops_check_timeouts(struct bench_conn *c, uint64_t now)
{
	struct conn_link *l = c->link;
	for (struct conn_op *op = l->head; op && l->state == LINK_UP && !l->lost; op = op->next) {
		if (op->due_ns > now)
			continue;
		if (op->state == OP_SENT) {
			send_abort(op, now);
		} else if (op->state == OP_ABORTING) {
			if (op->timeouts >= CONN_MAX_TIMEOUTS) {
				fail_timed_out(op, false);
				return;
			}
			char d[96], why[300];
			describe(op, d, sizeof(d));
			snprintf(why, sizeof(why), "%s got no answer within --timeout %g s, nor did its ABORT TASK",
				 d, (double)l->timeout_ns / 1e9);
			mark_lost(l, why);
		}
	}
}

void ops_send_due(struct bench_conn *c, uint64_t now)
{
	struct conn_link *l = c->link;
	for (struct conn_op *op = l->head; op && l->state == LINK_UP && !l->lost; op = op->next)
		if (op->state == OP_QUEUED && op->due_ns <= now)
			op_send(op, now);
}

uint64_t ops_next_due(const struct bench_conn *c, uint64_t now)
{
	uint64_t next = UINT64_MAX;
	for (const struct conn_op *op = c->link->head; op; op = op->next) {
		uint64_t d = op->due_ns > now ? op->due_ns : now;
		if (d < next)
			next = d;
	}
	return next;
}

void ops_requeue_all(struct bench_conn *c)
{
	for (struct conn_op *op = c->link->head; op; op = op->next) {
		if (op->state != OP_QUEUED) {
			op->state = OP_QUEUED;
			op->due_ns = 0;
		}
		op->abort = NULL;
		op->cancel_is_abort = false;
	}
}

void aborts_free_all(struct conn_link *l)
{
	while (l->aborts) {
		struct conn_abort *a = l->aborts;
		l->aborts = a->next;
		free(a);
	}
}

void ops_fail_all(struct bench_conn *c)
{
	while (c->link->head)
		deliver(c->link->head, SCSI_STATUS_ERROR);
}

void ops_discard_all(struct bench_conn *c)
{
	struct conn_link *l = c->link;
	while (l->head) {
		struct conn_op *op = l->head;
		op_unlink(l, op);
		scsi_free_scsi_task(op->task);
		free(op);
	}
}

int conn_submit(struct bench_conn *c, struct scsi_task *task, conn_cb cb, void *priv)
{
	struct conn_link *l = c->link;
	if (!task)
		return -1;
	struct conn_op *op = l && l->state != LINK_FAILED ? calloc(1, sizeof(*op)) : NULL;
	if (!op) {
		if (l && l->state != LINK_FAILED)
			link_fail(c, "%s: out of memory for a command", c->url);
		scsi_free_scsi_task(task);
		return -1;
	}
	op->c = c;
	op->task = task;
	op->cb = cb;
	op->priv = priv;
	op->state = OP_QUEUED;
	op->first_ns = now_ns();
	op->prev = l->tail;
	if (l->tail)
		l->tail->next = op;
	else
		l->head = op;
	l->tail = op;
	if (l->state == LINK_UP && !l->lost && c->iscsi)
		op_send(op, op->first_ns);
	return 0;
}

int conn_read16(struct bench_conn *c, uint64_t lba, uint32_t bytes, struct scsi_iovec *iov, int niov,
		conn_cb cb, void *priv)
{
	struct scsi_task *t = scsi_cdb_read16(lba, bytes, (int)c->block_size, 0, 0, 0, 0, 0);
	if (!t)
		return -1;
	scsi_task_set_iov_in(t, iov, niov);
	return conn_submit(c, t, cb, priv);
}

int conn_write16(struct bench_conn *c, uint64_t lba, uint32_t bytes, struct scsi_iovec *iov, int niov,
		 conn_cb cb, void *priv)
{
	struct scsi_task *t = scsi_cdb_write16(lba, bytes, (int)c->block_size, 0, 0, 0, 0, 0);
	if (!t)
		return -1;
	scsi_task_set_iov_out(t, iov, niov);
	return conn_submit(c, t, cb, priv);
}
