/* scsi_fault.h — the transport's side of fault rules (scsi_fault.c): the
 * check before a command goes to its LU, what happens at its completion,
 * and the delayed-command timer of each I/O thread. */
#ifndef LUNLAB_ISCSI_SCSI_FAULT_H
#define LUNLAB_ISCSI_SCSI_FAULT_H

#include <stdbool.h>
#include <stdint.h>

#include "target/iscsi/conn.h"

struct residual;

#define SCSI_FAULT_AFTER_DROP 1    /* close the connection after the data, no status */
#define SCSI_FAULT_AFTER_CORRUPT 2 /* alter a READ's data before it goes out */

/* The SCSI core matched rule *hit for ic (scsi_core_execute: the last check
 * before the LU; Data-Out complete, lc filled): carry it out.  true when
 * the rule took it (answered it, holds it, delays it, or the connection is
 * gone: do not touch ic then); false: submit it (a rule may have asked for
 * something at completion, or set lc.fault for the LU). */
struct fault_hit;
bool scsi_fault_act(struct conn *c, struct icmd *ic, const struct fault_hit *hit);

/* ic's LU is done and send bytes of Data-In are due: true when the task
 * is already finished (the connection was dropped). */
bool scsi_fault_completed(struct conn *c, struct icmd *ic, uint32_t send, const struct residual *r);

/* I/O thread loop: submit the delayed tasks whose time came; returns the
 * milliseconds until the next one, or -1 when none waits. */
int io_thread_run_delayed(struct io_thread *t);
/* thread end: release what still waits (delayed and held tasks) */
void io_thread_drop_delayed(struct io_thread *t);
/* I/O thread: hold rule `rule` was released: its held tasks go on to their
 * LU in the order they were held (io_threads_release_held posts it). */
void io_thread_release_rule(struct io_thread *t, unsigned rule);

#endif
