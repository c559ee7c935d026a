/* scsi_fault.c — what the transport does when a fault rule fires
 * (target/lu/fault_rules.h decides; docs/faults.md): answer with a sense or
 * a status instead of the LU, hold the command until the initiator aborts
 * it (or the rule is released: then it goes on to its LU), run it late, drop the connection before or after the data moved,
 * alter the data (silent corruption), or ask the LU to stop an EXTENDED
 * COPY part way.
 *
 * The SCSI core matches the rules (target/core/scsi_core.c, its last check)
 * when a command would go to its LU, after its Data-Out arrived, after unit
 * attentions and reservations (a misbehaving device is still a device with
 * reservations), so a WRITE's medium error comes after its data, as on a
 * disk; what a rule does to the command is the transport's, here. */
#include "target/iscsi/scsi_fault.h"
#include "lunlab/scsi_vocab.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "target/iscsi/datain.h"
#include "target/iscsi/io_thread.h"
#include "target/iscsi/target.h"
#include "target/lu/fault_rules.h"
#include "target/lu/happenings.h"
#include "target/lu/lu_table.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static const char *action_text(const struct fault_hit *h, char *buf, size_t len)
{
	switch (h->action) {
	case FAULT_ACT_SENSE:
		snprintf(buf, len, "CHECK CONDITION %02x/%02x/%02x", h->key, h->asc, h->ascq);
		break;
	case FAULT_ACT_STATUS:
		snprintf(buf, len, "status 0x%02x", h->status);
		break;
	case FAULT_ACT_DELAY:
		snprintf(buf, len, "delayed %" PRIu64 " us", h->delay_us);
		break;
	case FAULT_ACT_HOLD:
		snprintf(buf, len, "held until aborted");
		break;
	case FAULT_ACT_DROP:
		snprintf(buf, len, "connection dropped %s the data moved", h->drop_after ? "after" : "before");
		break;
	case FAULT_ACT_XCOPY_FAIL:
		snprintf(buf, len, "EXTENDED COPY stops after %u segment(s)", h->xcopy_segments);
		break;
	case FAULT_ACT_ODX_FAIL:
		snprintf(buf, len, "WRITE USING TOKEN stops after %u block(s)", h->xcopy_segments);
		break;
	case FAULT_ACT_CORRUPT:
		snprintf(buf, len, "data corrupted");
		break;
	}
	return buf;
}

static void log_hit(struct conn *c, struct icmd *ic, const struct fault_hit *h)
{
	char what[96];

	if (h->first)
		happening_post(HAPPEN_FAULT_FIRED, h->rule, "fault rule %u fired: LUN %" PRIu64 " opcode 0x%02x from %.64s -> %s",
			       h->rule, ic->lun, ic->lc.cdb[0], c->initiator, action_text(h, what, sizeof(what)));
	if (!h->first && !g_target.trace_pdus)
		return;
	target_log("fault rule %u%s: LUN %" PRIu64 " opcode 0x%02x from %s -> %s", h->rule,
		   h->first ? " (first hit)" : "", ic->lun, ic->lc.cdb[0], c->initiator,
		   action_text(h, what, sizeof(what)));
}

/* Silent corruption of a READ's or WRITE's data (len bytes of ic->buf,
 * from the CDB's LBA on): the first byte of every whole block inside the
 * rule's LBA range is inverted, so any checksum over a block sees it, and
 * the log says which blocks. */
static void corrupt(struct conn *c, struct icmd *ic, size_t len, bool is_write)
{
	uint64_t lba, blocks, n = 0, from = UINT64_MAX, bs;

	if (!ic->rw || !ic->be || !ic->buf || !fault_cdb_range(ic->lc.cdb, ic->lc.cdb_len, &lba, &blocks))
		return;
	bs = ic->be->block_size;
	for (uint64_t b = 0; b < blocks && (b + 1) * bs <= len; b++) {
		if (lba + b < ic->fault_lba_first || lba + b > ic->fault_lba_last)
			continue;
		ic->buf[b * bs] ^= 0xff;
		if (from == UINT64_MAX)
			from = lba + b;
		n++;
	}
	target_log("fault rule %u: silent corruption: %s LUN %" PRIu64 " LBA %" PRIu64 "+%" PRIu64
		   " from %s: first byte of %" PRIu64 " block(s) from LBA %" PRIu64 " inverted (%s)",
		   ic->fault_rule, is_write ? "WRITE" : "READ", ic->lun, lba, blocks, c->initiator, n,
		   n ? from : lba, is_write ? "stored that way" : "stored data unchanged");
}

bool scsi_fault_act(struct conn *c, struct icmd *ic, const struct fault_hit *hit)
{
	const struct fault_hit h = *hit;
	size_t data_len = ic->lc.dir == LU_DIR_WRITE ? (ic->got_total < ic->buf_len ? ic->got_total : ic->buf_len) : 0;
	uint8_t sense[LU_SENSE_MAX], sl;

	log_hit(c, ic, &h);
	switch (h.action) {
	case FAULT_ACT_SENSE:
		sl = lu_sense_fixed(sense, h.key, scsi_asc_pair(h.asc, h.ascq), -1);
		if (h.has_info)
			lu_sense_set_info(sense, h.info_lba); /* the failing LBA */
		scsi_cmd_answer(c, ic, SCSI_STAT_CHECK_CONDITION, sense, sl, 0);
		return true;
	case FAULT_ACT_STATUS:
		scsi_cmd_answer(c, ic, h.status, NULL, 0, 0);
		return true;
	case FAULT_ACT_HOLD:
		/* it stays on c->tasks with nothing in flight: ABORT TASK, a
		 * reset or the connection's end frees it, nothing answers it;
		 * or the rule's release sends it on to its LU (its thread's
		 * held list keeps it for that) */
		if (c->thr)
			io_thread_hold(c->thr, ic, h.rule);
		return true;
	case FAULT_ACT_DELAY:
		if (!c->thr || h.delay_us == 0)
			return false;
		io_thread_delay(c->thr, ic, h.delay_us);
		return true;
	case FAULT_ACT_DROP:
		if (h.drop_after) {
			ic->fault_rule = h.rule;
			ic->fault_after = SCSI_FAULT_AFTER_DROP;
			ic->lc.data_ready = NULL; /* the data goes at completion, then the connection */
			ic->lc.data_progress = NULL;
			return false;
		}
		conn_close(c, "a fault rule dropped the connection"); /* frees ic */
		return true;
	case FAULT_ACT_XCOPY_FAIL:
	case FAULT_ACT_ODX_FAIL:
		/* the handler reads the count as segments of an EXTENDED COPY, as
		 * blocks of a WRITE USING TOKEN (the rule matched only that) */
		ic->lc.fault.xcopy_fail = true;
		ic->lc.fault.xcopy_segments = h.xcopy_segments;
		if (h.has_sense) {
			ic->lc.fault.key = h.key;
			ic->lc.fault.asc = h.asc;
			ic->lc.fault.ascq = h.ascq;
		}
		return false;
	case FAULT_ACT_CORRUPT:
		ic->fault_rule = h.rule;
		ic->fault_lba_first = h.lba_first;
		ic->fault_lba_last = h.lba_last;
		if (ic->lc.dir == LU_DIR_WRITE) {
			corrupt(c, ic, data_len, true);
		} else {
			ic->fault_after = SCSI_FAULT_AFTER_CORRUPT;
			ic->lc.data_ready = NULL;
			ic->lc.data_progress = NULL;
		}
		return false;
	}
	return false;
}

bool scsi_fault_completed(struct conn *c, struct icmd *ic, uint32_t send, const struct residual *r)
{
	if (ic->fault_after == SCSI_FAULT_AFTER_CORRUPT) {
		if (ic->lc.status == 0x00 && send)
			corrupt(c, ic, send, false);
		return false;
	}
	if (ic->fault_after != SCSI_FAULT_AFTER_DROP)
		return false;
	target_log("fault rule %u: connection of %s dropped after LUN %" PRIu64 " opcode 0x%02x moved its data",
		   ic->fault_rule, c->initiator, ic->lun, ic->lc.cdb[0]);
	if (send && ic->lc.status == 0x00) {
		/* the data goes out, the status never does */
		datain_queue(c, ic, send, false, 0, r);
		if (c->tx_tail) {
			c->tx_tail->close_after = true;
			c->tx_tail->close_why = "a fault rule dropped the connection after the data";
		}
		return false; /* the caller finishes the task: its PDUs hold it */
	}
	conn_close(c, "a fault rule dropped the connection after the data"); /* frees ic */
	return true;
}

void io_thread_delay(struct io_thread *t, struct icmd *ic, uint64_t delay_us)
{
	struct icmd **pp = &t->delayed;

	ic->refs++; /* the list's: the task may be aborted meanwhile */
	ic->delay_due_ns = mono_ns() + delay_us * 1000u;
	/* the handler counts it apart (page 31h 000Fh): the time a fault rule
	 * injected is neither the modeled array's nor the machine's */
	ic->lc.fault.delay_ns = delay_us * 1000u;
	while (*pp && (*pp)->delay_due_ns <= ic->delay_due_ns)
		pp = &(*pp)->delay_next;
	ic->delay_next = *pp;
	*pp = ic;
}

/* A task whose fault rule let it wait (a delay over, a hold released) goes
 * to its LU now - unless it was aborted, answered or its connection went
 * meanwhile.  Drops the wait's reference. */
static void submit_late(struct io_thread *t, struct icmd *ic)
{
	if (!ic->aborted && ic->state != SCSI_CMD_FINISHED && !ic->conn->closed) {
		if (!scsi_cmd_lu_still_there(ic->conn, ic)) {
			/* the API deleted or unmapped its LU while it waited */
			uint8_t sense[18];
			scsi_cmd_answer(ic->conn, ic, SCSI_STAT_CHECK_CONDITION, sense,
					lu_sense_fixed(sense, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_LU_NOT_SUPPORTED, -1),
					0);
		} else {
			scsi_cmd_state_set(&ic->state, SCSI_CMD_IN_BACKEND);
			io_thread_submit(t, ic->be, &ic->lc);
		}
	}
	icmd_put(ic);
}

void io_thread_hold(struct io_thread *t, struct icmd *ic, unsigned rule)
{
	struct icmd **pp = &t->held;

	ic->refs++; /* the list's: the task may be aborted meanwhile */
	ic->held_rule = rule;
	while (*pp)
		pp = &(*pp)->delay_next; /* the end: released in the order held */
	ic->delay_next = NULL;
	*pp = ic;
}

void io_thread_release_rule(struct io_thread *t, unsigned rule)
{
	struct icmd **pp = &t->held, *go = NULL, **gp = &go;

	/* take them off the list first: submitting may complete a task at
	 * once, and a completion must not find the list half walked */
	while (*pp) {
		struct icmd *ic = *pp;
		if (ic->held_rule != rule) {
			pp = &ic->delay_next;
			continue;
		}
		*pp = ic->delay_next;
		ic->delay_next = NULL;
		*gp = ic;
		gp = &ic->delay_next;
	}
	while (go) {
		struct icmd *ic = go;
		go = ic->delay_next;
		ic->delay_next = NULL;
		ic->held_rule = 0;
		target_log("fault rule %u released: LUN %" PRIu64 " opcode 0x%02x goes on to its LU", rule, ic->lun,
			   ic->lc.cdb[0]);
		submit_late(t, ic);
	}
}

/* Held tasks that were aborted or whose connection went are of no more use
 * to a release: their references go, so a hold rule that an initiator's
 * timeouts abort again and again does not pile them up. */
static void drop_dead_held(struct io_thread *t)
{
	struct icmd **pp = &t->held;

	while (*pp) {
		struct icmd *ic = *pp;
		if (!ic->aborted && ic->state != SCSI_CMD_FINISHED && !ic->conn->closed) {
			pp = &ic->delay_next;
			continue;
		}
		*pp = ic->delay_next;
		ic->delay_next = NULL;
		icmd_put(ic);
	}
}

int io_thread_run_delayed(struct io_thread *t)
{
	uint64_t now;

	if (t->held)
		drop_dead_held(t);

	if (!t->delayed)
		return -1; /* every loop iteration asks: no clock read when nothing waits */
	now = mono_ns();

	while (t->delayed && t->delayed->delay_due_ns <= now) {
		struct icmd *ic = t->delayed;

		t->delayed = ic->delay_next;
		ic->delay_next = NULL;
		submit_late(t, ic);
	}
	if (!t->delayed)
		return -1;
	/* milliseconds until the next one, rounded up, for epoll_wait */
	return (int)((t->delayed->delay_due_ns - now + 999999u) / 1000000u);
}

void io_thread_drop_delayed(struct io_thread *t)
{
	while (t->delayed) {
		struct icmd *ic = t->delayed;
		t->delayed = ic->delay_next;
		icmd_put(ic);
	}
	while (t->held) {
		struct icmd *ic = t->held;
		t->held = ic->delay_next;
		icmd_put(ic);
	}
}
