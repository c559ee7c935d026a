/* pr_internal.h — the state behind pr.h, shared by the modules that each
 * handle one part of it (pr_state.c: state, gate, unit attentions; pr_in.c:
 * PERSISTENT RESERVE IN; pr_out.c: PERSISTENT RESERVE OUT; scsi2_reserve.c:
 * RESERVE/RELEASE).  Every function here runs with st->lock held. */
#ifndef LUNLAB_LU_PR_INTERNAL_H
#define LUNLAB_LU_PR_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "lunlab/scsi_vocab.h"
#include "target/core/ua_queue.h"
#include "target/lu/pr.h"

struct pr_reg {
	struct pr_port port;
	uint64_t key;
	uint64_t nexus_id;      /* the session it was last seen on (for PREEMPT AND ABORT) */
};

struct pr_state {
	pthread_mutex_t lock;
	/* true while anything below can affect a command (registrations,
	 * reservations): pr_gate skips the lock when false, so an LU nobody
	 * reserves costs one atomic load per command */
	atomic_bool active;
	uint32_t generation;
	struct pr_reg regs[PR_REGS_MAX];
	size_t nregs;
	bool reserved;
	uint8_t type;
	struct pr_port holder;  /* not used for the all-registrants types */
	bool scsi2;             /* SCSI-2 RESERVE(6/10) held by scsi2_holder */
	struct pr_port scsi2_holder;
	uint64_t scsi2_nexus;   /* the session that took it: only its loss releases it */
	/* Persist Through Power Loss (SPC-4 5.13.5): with a hook (the target
	 * has a state directory) REPORT CAPABILITIES sets PTPL_C and REGISTER
	 * may set APTPL; while aptpl is set every change of the registrations
	 * or the reservation is saved before the command completes. */
	bool aptpl;
	pr_persist_fn persist;
	void *persist_ctx;
	void (*persist_free)(void *ctx);
	/* the LU's one unit attention store, where the reservation conditions
	 * go (target/core/ua_queue.h); NULL: they go nowhere */
	struct ua_queue *ua;
};

bool pr_port_eq(const struct pr_port *a, const struct pr_port *b);
struct pr_reg *pr_find_reg(struct pr_state *st, const struct pr_port *port);
bool pr_type_all_registrants(uint8_t type);
bool pr_type_valid(uint8_t type);
/* Is port a reservation holder (SPC-4 5.13.10)? */
bool pr_is_holder(struct pr_state *st, const struct pr_port *port);
/* post a UNIT ATTENTION with asc_ascq (a SCSI_ASC_* pair) for port to the
 * LU's store (once: a pending one is not queued again) */
void pr_queue_ua(struct pr_state *st, const struct pr_port *port, uint16_t asc_ascq);
/* the same for every registered port except `except` (NULL: every one) */
void pr_queue_ua_registrants(struct pr_state *st, const struct pr_port *except, uint16_t asc_ascq);
void pr_remove_reg(struct pr_state *st, size_t i);
void pr_update_active(struct pr_state *st);

/* answers */
void pr_ans_good(struct pr_answer *ans);
void pr_ans_conflict(struct pr_answer *ans);
/* CHECK CONDITION key/asc/ascq; field >= 0: sense-key specific pointer into the CDB */
void pr_ans_check(struct pr_answer *ans, enum scsi_vocab_sense_key key, uint16_t asc_ascq, int field);

/* pr_persist.c: after a PERSISTENT RESERVE OUT, save what changed while
 * APTPL is (or was) on; before/blen: pr_state_encode of the state before it.
 * False when the save failed. */
bool pr_persist_changes(struct pr_state *st, const uint8_t *before, size_t blen);

void pr_in_execute(struct pr_state *st, const uint8_t *cdb, size_t cdb_len, uint8_t *buf, size_t buflen,
		   struct pr_answer *ans);
void pr_out_execute(struct pr_state *st, const uint8_t *cdb, size_t cdb_len, const struct pr_port *port,
		    uint64_t nexus_id, const uint8_t *buf, size_t buflen, struct pr_answer *ans);
void scsi2_execute(struct pr_state *st, const uint8_t *cdb, size_t cdb_len, const struct pr_port *port,
		   uint64_t nexus_id, struct pr_answer *ans);

#endif
