/* lu_pr.h — the transport's door to the LU's reservations (pr.h): one call
 * before a command reaches its backend, one to execute the reservation
 * commands the LU layer keeps for itself, and the events that release
 * SCSI-2 reservations (nexus loss, resets). */
#ifndef LUNLAB_LU_PR_GLUE_H
#define LUNLAB_LU_PR_GLUE_H

#include <stdbool.h>

#include "target/lu/lu_cmd.h"
#include "target/lu/pr.h"

/* lc: cdb, lun, initiator, isid, nexus_id filled.  True when *ans answers
 * the command (unit attention, RESERVATION CONFLICT, REQUEST SENSE data in
 * buf); false: go on. */
bool lu_pr_gate(const struct lu_cmd *lc, uint8_t *buf, size_t buflen, struct pr_answer *ans);
/* The SCSI core's reservation step (target/core/scsi_core.c): RESERVATION
 * CONFLICT (true: *ans).  The reservation unit attentions are taken with
 * every other one (lu_nexus_take_ua). */
bool lu_pr_conflict(const struct lu_cmd *lc, struct pr_answer *ans);
/* PERSISTENT RESERVE IN/OUT, RESERVE/RELEASE(6/10) (pr_owns_opcode) */
void lu_pr_execute(const struct lu_cmd *lc, uint8_t *buf, size_t buflen, struct pr_answer *ans);
/* the session nexus_id of this initiator port is gone: on every LU (to be
 * called by the transport when a Normal session ends) */
void lu_pr_nexus_lost(const char *initiator, const uint8_t isid[6], uint64_t nexus_id);
/* LUN RESET of one LU (a global LUN, or an entry); TARGET WARM RESET
 * (cold: a power on) of every LU */
struct lu_entry;
void lu_pr_lun_reset(uint64_t lun);
void lu_pr_entry_reset(struct lu_entry *e);
void lu_pr_target_reset(bool cold);

#endif
