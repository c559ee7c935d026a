/* pr.h — SCSI-3 persistent reservations and SCSI-2 RESERVE/RELEASE of one
 * logical unit (SPC-4 5.13 and 6.15/6.16), as Linux LIO's target core keeps
 * them: the LU layer answers these commands itself, the backend never sees
 * them, and every other command passes pr_gate() first (pending unit
 * attentions of this LU, then RESERVATION CONFLICT).
 *
 * Registrations belong to an initiator port (iSCSI: initiator name + ISID),
 * not to a session, so a port that logs in again finds its key (SPC-4: a
 * registration outlives I_T nexus loss).  One lock per LU: sessions on
 * different I/O threads share it.  APTPL: with a persistence hook
 * (pr_state_set_persist: lunlab-target --state-dir), REPORT CAPABILITIES
 * says PTPL_C and an initiator's REGISTER with APTPL=1 makes the
 * registrations and the reservation survive a restart and a TARGET COLD
 * RESET; without one APTPL=1 is refused (05/26/00) as before. */
#ifndef LUNLAB_LU_PR_H
#define LUNLAB_LU_PR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lunlab/scsi_vocab.h"

#define PR_IQN_MAX 224     /* iSCSI names are at most 223 bytes (RFC 3722) */
#define PR_REGS_MAX 64     /* registrations per LU; more: 05/55/04 */

/* PERSISTENT RESERVE OUT TYPE codes (SPC-4 table 171) */
#define PR_TYPE_WE 1
#define PR_TYPE_EA 3
#define PR_TYPE_WE_RO 5
#define PR_TYPE_EA_RO 6
#define PR_TYPE_WE_AR 7
#define PR_TYPE_EA_AR 8

/* An initiator port (the initiator half of an I_T nexus). */
struct pr_port {
	char iqn[PR_IQN_MAX];
	uint8_t isid[6];
};

/* What one command gets back from the LU layer. */
struct pr_answer {
	uint8_t status;             /* GOOD, CHECK CONDITION or RESERVATION CONFLICT */
	uint8_t sense[18];
	uint8_t sense_len;
	size_t data_len;            /* Data-In bytes stored in the buffer */
	/* PREEMPT AND ABORT: the sessions whose tasks must go */
	uint64_t abort_nexus[PR_REGS_MAX];
	size_t n_abort;
};

struct pr_state;

/* Saves the LU's persistent state (len > 0, the bytes of pr_state_encode)
 * or forgets it (blob NULL, len 0).  Durable when it returns 0; a failure
 * undoes the command's changes, which then ends in CHECK CONDITION 04/44/00
 * INTERNAL TARGET FAILURE. */
typedef int (*pr_persist_fn)(void *ctx, const uint8_t *blob, size_t len);

/* ua: the LU's unit attention store, where the reservation conditions are
 * posted (target/core/ua_queue.h; NULL: none is posted) */
struct ua_queue;
struct pr_state *pr_state_new(struct ua_queue *ua);
void pr_state_free(struct pr_state *st);

/* Fills a port; an iqn longer than PR_IQN_MAX-1 is cut (login caps it anyway). */
void pr_port_set(struct pr_port *p, const char *iqn, const uint8_t isid[6]);

/* PERSISTENT RESERVE IN/OUT, RESERVE(6/10), RELEASE(6/10). */
bool pr_owns_opcode(uint8_t opcode);

/* Whether anything (registrations, a reservation) can affect a command:
 * false lets the per-command gate skip all work. */
bool pr_state_active(const struct pr_state *st);

/* The first reservation unit attention pending for port in the LU's store
 * (reservations released or preempted, registrations preempted), removed:
 * true with its ASC/ASCQ.  The SCSI core takes them with every other unit
 * attention instead (lu_nexus_take_ua); this is the LU layer's own view for
 * pr_gate. */
bool pr_take_ua(struct pr_state *st, const struct pr_port *port, uint8_t *asc, uint8_t *ascq);
/* Would the reservation refuse this command from port?  true: *ans holds
 * RESERVATION CONFLICT (SPC-4 5.13.1). */
bool pr_conflict(struct pr_state *st, const uint8_t *cdb, size_t cdb_len, const struct pr_port *port, struct pr_answer *ans);
/* Before any command of this port reaches the LU: a queued unit attention
 * (CHECK CONDITION 06/2A/xx; REQUEST SENSE returns it as its data), then the
 * reservation check.  Returns true when *ans is the command's answer; buf
 * (buflen bytes) takes REQUEST SENSE data. */
bool pr_gate(struct pr_state *st, const uint8_t *cdb, size_t cdb_len, const struct pr_port *port,
	     uint8_t *buf, size_t buflen, struct pr_answer *ans);

/* Executes a command pr_owns_opcode() accepts (after pr_gate passed it).
 * PERSISTENT RESERVE IN: buf has buflen bytes of room for Data-In.
 * PERSISTENT RESERVE OUT: buf holds the buflen bytes of Data-Out received. */
void pr_execute(struct pr_state *st, const uint8_t *cdb, size_t cdb_len, const struct pr_port *port,
		uint64_t nexus_id, uint8_t *buf, size_t buflen, struct pr_answer *ans);

/* The session nexus_id of port is gone (logout, connection loss): a SCSI-2
 * reservation it took goes with it (registrations stay, SPC-4 5.13.1). */
void pr_nexus_lost(struct pr_state *st, const struct pr_port *port, uint64_t nexus_id);
/* LUN RESET / TARGET WARM RESET: SCSI-2 reservations are released; persistent
 * reservations are not affected (SPC-4 5.13.1). */
void pr_lun_reset(struct pr_state *st);
/* TARGET COLD RESET (a power on): without APTPL nothing survives; with
 * APTPL the registrations and the reservation do (SPC-4 5.13.5). */
void pr_power_on(struct pr_state *st);

/* Give the LU a place to persist its reservations (ctx is freed with
 * free_ctx when the state goes), and restore what a previous run saved
 * (blob/len from pr_state_encode, len 0: nothing saved).  -1 with a reason
 * in err when blob is not a valid saved state (nothing is restored then). */
int pr_state_set_persist(struct pr_state *st, pr_persist_fn fn, void *ctx, void (*free_ctx)(void *ctx),
			 const uint8_t *blob, size_t len, char *err, size_t errlen);

/* The persistent part (APTPL, registrations, reservation; never SCSI-2
 * reservations, unit attentions, sessions or the generation, which a power
 * on resets) as bytes: returns the length, or 0 if cap is too small
 * (PR_ENCODED_MAX always fits). */
#define PR_ENCODED_MAX (8 + (PR_IQN_MAX + 7) + PR_REGS_MAX * (PR_IQN_MAX + 15))
size_t pr_state_encode(struct pr_state *st, uint8_t *buf, size_t cap);
/* Parse bytes pr_state_encode made into *st's persistent part; every length
 * checked before it is read.  0, or -1 with the bad field named. */
int pr_state_decode(struct pr_state *st, const uint8_t *blob, size_t len, char *err, size_t errlen);

/* For tests and docs: current generation and registration count. */
uint32_t pr_generation(struct pr_state *st);
size_t pr_registrations(struct pr_state *st);

#endif
