/* copy_lists.h — the copy manager's memory of copies, per LU:
 *  - copies in progress (to enforce the concurrent-copy limit, to report
 *    progress for a list id, and to refuse a list id its I_T nexus already
 *    has running), and
 *  - completed copies sent with LIST ID USAGE 00b (hold): a successful
 *    one's COPY STATUS (RECEIVE COPY RESULTS SA 0, returned once), a failed
 *    one's FAILED SEGMENT DETAILS (SA 4, returned once) and no COPY STATUS:
 *    the CHECK CONDITION of the EXTENDED COPY already told its initiator
 *    everything COPY STATUS would, and SPC-4 leaves how long COPY STATUS
 *    data is kept to the copy manager.  Without a known nexus this is what
 *    keeps a failed copy of an earlier session from answering a new
 *    session's COPY STATUS (docs/xcopy.md, "Held data").
 *
 * Scope of a list id: SPC-4 makes it the I_T nexus.  `nexus` is the id
 * copy_cmd_nexus() found (lunlab-target), or 0 when the host cannot say
 * (tcmu-runner): then all initiators of the LU share one scope, a running
 * duplicate is NOT refused (it may be another host's: an ESXi cluster shares
 * LUs, and ESXi stops offloading after a CHECK CONDITION) and the status of
 * the copy that ended last is the one held.
 *
 * Bounded: XCOPY_TOTAL_CONCURRENT running and XCOPY_HELD_PER_DEV held per
 * LU; when a new held status does not fit, the oldest held one of that LU is
 * dropped (SPC-4 lets a copy manager discard held results when it needs the
 * resources; statuses of sessions that ended go this way, as no nexus loss
 * reaches a handler).  Thread safe: one small mutex, touched twice per
 * EXTENDED COPY, never on the data path. */
#ifndef LUNLAB_COPY_LISTS_H
#define LUNLAB_COPY_LISTS_H

#include <stdbool.h>
#include <stdint.h>

#define COPY_SENSE_MAX 18

enum copy_mgr_status {
	COPY_IN_PROGRESS = 0x00,    /* COPY MANAGER STATUS values (SPC-4 RCR SA 0) */
	COPY_DONE_OK = 0x01,
	COPY_DONE_ERROR = 0x02,
};

struct copy_status {
	uint8_t cm_status;          /* enum copy_mgr_status */
	uint16_t segments;          /* segments processed */
	uint64_t bytes;             /* bytes copied */
	uint8_t scsi_status;        /* status the EXTENDED COPY ended with */
	uint8_t sense_len;          /* sense it ended with (0 if GOOD) */
	uint8_t sense[COPY_SENSE_MAX];
};

enum { COPY_BEGIN_BUSY = -1, COPY_BEGIN_DUPLICATE = -2 };

/* Register a copy starting on dev from nexus.  has_id: the list id
 * identifies it (usage 00b or 10b); hold: keep the final status (00b).
 * Returns a slot >= 0, COPY_BEGIN_BUSY (XCOPY_TOTAL_CONCURRENT copies
 * running on dev) or COPY_BEGIN_DUPLICATE (nexus != 0 already runs a copy
 * with list_id on dev).  A completed held status with the same list id in
 * the same scope is replaced. */
int copy_lists_begin(const void *dev, uint64_t nexus, bool has_id, uint8_t list_id, bool hold);
/* Progress for RCR SA 0 while the copy runs. */
void copy_lists_progress(int slot, uint16_t segments, uint64_t bytes);
/* The copy ended: keep *st if it was held, else free the slot. */
void copy_lists_end(int slot, const struct copy_status *st);
/* RECEIVE COPY RESULTS SA 0: list_id of nexus on dev, running or completed
 * without error.  consume: the caller transfers the whole status, so a
 * completed one is released.  Returns false if the list id is unknown. */
bool copy_lists_status(const void *dev, uint64_t nexus, uint8_t list_id, bool consume, struct copy_status *out);
/* SA 4: true with the status of a held copy that ended with an error;
 * consume releases it. */
bool copy_lists_failed(const void *dev, uint64_t nexus, uint8_t list_id, bool consume, struct copy_status *out);
/* Forget everything about dev (LU closed). */
void copy_lists_forget_dev(const void *dev);
/* Number of copies running on dev (tests, trace). */
unsigned copy_lists_running(const void *dev);

#endif
