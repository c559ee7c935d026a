/* scsi_alua.h — the transport's side of ALUA (target/lu/alua.h): per
 * REPORT / SET TARGET PORT GROUPS, the state filter, and the INQUIRY designators of the port a
 * command came through. */
#ifndef LUNLAB_ISCSI_SCSI_ALUA_H
#define LUNLAB_ISCSI_SCSI_ALUA_H

#include <stdbool.h>
#include <stddef.h>

#include "target/iscsi/conn.h"

/* At delivery of a command to an LU with ALUA (after its unit attentions):
 * REPORT TARGET PORT GROUPS, or the refusal of the port's state.  true:
 * answered. */
bool scsi_alua_deliver(struct conn *c, struct icmd *ic);
/* SET TARGET PORT GROUPS once its Data-Out is in: true when ic was one. */
bool scsi_alua_data_complete(struct conn *c, struct icmd *ic);
/* A GOOD INQUIRY of an LU with ALUA: TPGS and the port's designators
 * (*produced: the bytes of buf it returns, updated). */
void scsi_alua_inquiry(struct conn *c, struct icmd *ic, size_t *produced);

#endif
