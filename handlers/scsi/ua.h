/* ua.h — unit attentions the LU establishes itself, from events of its
 * array (handlers/array/array_admin.h, enum array_event):
 *   ARRAY_EV_SOFT_THRESHOLD  06/38/07 THIN PROVISIONING SOFT THRESHOLD REACHED
 *   ARRAY_EV_PARAMS          06/2A/01 MODE PARAMETERS CHANGED (capacity or
 *                            threshold changed by the array-control interface:
 *                            the Logical Block Provisioning mode page changed)
 * SBC-4 wants each on every I_T nexus, once per event.  The array counts each
 * kind of event (a generation); the LU remembers, per I_T nexus, the last
 * generation it reported, and reports a newer one on that nexus's next
 * command (INQUIRY, REPORT LUNS and REQUEST SENSE excepted, as SAM-5 allows;
 * REQUEST SENSE returns it as its sense data and clears it).
 *
 * The nexus comes from the host (copy_nexus.h: lunlab-target knows it, under
 * tcmu-runner every command is nexus 0, so the first command after an event
 * gets it).  A nexus the LU has never seen starts at the current
 * generations: it owes nothing to events before it existed.  The limit: a
 * nexus that had logged in but sent this LU no command before an event is
 * taken for a new one (initiators probe every LU right after login).
 * Records are kept for the LU's life (24 bytes per nexus ever seen). */
#ifndef LUNLAB_SCSI_UA_H
#define LUNLAB_SCSI_UA_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "handlers/array/array_admin.h"

struct ua_rec;
struct ua_tab;

struct scsi_ua {
	pthread_mutex_t mu;          /* inserts and growth; lookups take no lock */
	_Atomic(struct ua_tab *) tab;
	struct ua_tab *retired;      /* replaced tables, freed at fini (readers may hold them) */
	uint64_t count;
};

void scsi_ua_init(struct scsi_ua *u);
void scsi_ua_fini(struct scsi_ua *u);

struct scsi_cmd;
/* TCMU_STS_OK, or CHECK CONDITION with the unit attention this command's
 * nexus is owed (cleared by reporting it).  Call before anything else. */
int scsi_ua_check(struct scsi_cmd *cmd);
/* REQUEST SENSE: take a pending unit attention without failing the command;
 * false when none is pending. */
bool scsi_ua_take(struct scsi_cmd *cmd, uint8_t *asc, uint8_t *ascq);

#endif
