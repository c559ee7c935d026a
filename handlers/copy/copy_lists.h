/* copy_lists.h — the copy manager's memory of copies, per LU:
 *  - copies in progress (to enforce the concurrent-copy limit and to report
 *    progress for a list id), and
 *  - completed copies sent with LIST ID USAGE 00b (hold), whose status
 *    RECEIVE COPY RESULTS SA 0 (and SA 4 for failures) returns once.
 * Bounded: XCOPY_TOTAL_CONCURRENT running and XCOPY_HELD_PER_DEV held per
 * LU; when a new held status does not fit, the oldest held one of that LU is
 * dropped (SPC-4 lets a copy manager discard held results when it needs
 * the resources).
 * List ids are per LU, not per I_T nexus: a TCMU handler is not told which
 * initiator sent a command, so two hosts sharing an LU (an ESXi cluster on
 * one datastore) may use the same list id at once.  A running duplicate is
 * therefore not refused (SPC-4's OPERATION IN PROGRESS is per I_T nexus;
 * refusing here would fail a legitimate copy of another host, and ESXi
 * stops offloading after a CHECK CONDITION); the latest status wins.  Thread safe (one small mutex: entries are touched twice
 * per EXTENDED COPY, never on the data path). */
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

enum { COPY_BEGIN_BUSY = -1 };

/* Register a copy starting on dev.  has_id: the list id identifies it
 * (usage 00b or 10b); hold: keep the final status (00b).  Returns a slot
 * number >= 0 or COPY_BEGIN_BUSY (too many copies running on dev).  A
 * completed held status with the same list id is replaced. */
int copy_lists_begin(const void *dev, bool has_id, uint8_t list_id, bool hold);
/* Progress for RCR SA 0 while the copy runs. */
void copy_lists_progress(int slot, uint16_t segments, uint64_t bytes);
/* The copy ended: keep *st if it was held, else free the slot. */
void copy_lists_end(int slot, const struct copy_status *st);
/* RECEIVE COPY RESULTS: look up list_id on dev.  consume: the caller is
 * transferring the whole status, so a completed entry may be released.
 * Returns false if no such list id is known. */
bool copy_lists_status(const void *dev, uint8_t list_id, bool consume, struct copy_status *out);
/* FAILED SEGMENT DETAILS: true with the status of a held copy that ended
 * with an error; consume releases it. */
bool copy_lists_failed(const void *dev, uint8_t list_id, bool consume, struct copy_status *out);
/* Forget everything about dev (LU closed). */
void copy_lists_forget_dev(const void *dev);
/* Number of copies running on dev (tests, trace). */
unsigned copy_lists_running(const void *dev);

#endif
