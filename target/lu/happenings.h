/* happenings.h — the feed of what happens on the SCSI side that the
 * management plane reports as XMS events and alerts: a thin-provisioning
 * soft threshold crossed (06/38/07 sent), space exhausted (07/27/07 sent),
 * a fault rule's first hit, a portal set down or up, an ALUA state change.
 *
 * Why a feed and not a call: layers call downward only.  The transport and
 * the LU layer must not call target/api (which sits above them and takes
 * the model lock, builds JSON, ...), so they post a small fixed-size record
 * here and return; the API pulls what is new (happenings_read with its own
 * cursor) when a client lists events or alerts.  A poster never blocks on
 * the API and never allocates: one short mutex and a memcpy into a ring.
 *
 * Bounded: HAPPENINGS_MAX records (the oldest fall off; a reader that fell
 * behind is told how many it missed).  A condition an I/O thread meets on
 * every command (07/27/07 on each refused write) is posted once per
 * LU per HAPPENINGS_REPEAT_MS; the repeats are counted in the record
 * already posted, so a full array does not flood the feed. */
#ifndef LUNLAB_LU_HAPPENINGS_H
#define LUNLAB_LU_HAPPENINGS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define HAPPENINGS_MAX 256
#define HAPPENINGS_REPEAT_MS 10000
#define HAPPENING_TEXT_MAX 160

enum happening_kind {
	HAPPEN_SOFT_THRESHOLD, /* subject: the LU id; 06/38/07 sent */
	HAPPEN_OUT_OF_SPACE,   /* subject: the LU id; 07/27/07 sent */
	HAPPEN_FAULT_FIRED,    /* subject: the rule id; its first hit */
	HAPPEN_PORTAL_DOWN,    /* subject: the portal index */
	HAPPEN_PORTAL_UP,
	HAPPEN_ALUA,           /* subject: the LU id (0: every ALUA LU) */
	HAPPEN_KINDS
};

struct happening {
	uint64_t seq;          /* from 1, increasing */
	int64_t sec;           /* CLOCK_REALTIME when posted */
	uint32_t usec;
	enum happening_kind kind;
	uint64_t subject;
	uint64_t repeats;      /* posts folded into this one (HAPPENINGS_REPEAT_MS) */
	char text[HAPPENING_TEXT_MAX]; /* printable, what happened in one line */
};

/* Posts one happening (any thread, never blocks for long).  A sense
 * condition (soft threshold, out of space) posted again for the same LU
 * within HAPPENINGS_REPEAT_MS of the last one of its kind is folded into
 * it; state changes (portals, ALUA, rules) are never folded.  Text is made printable and cut. */
void happening_post(enum happening_kind kind, uint64_t subject, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The SCSI status a command was answered with, seen by the transport: posts
 * HAPPEN_SOFT_THRESHOLD / HAPPEN_OUT_OF_SPACE for the sense data that say
 * so (fixed or descriptor format, bounds-checked).  lu_id: the LU's id. */
void happening_check_sense(uint64_t lu_id, uint64_t lun, uint8_t status, const uint8_t *sense, size_t len);

/* Copies up to max records newer than *cursor (oldest first) and advances
 * *cursor past them; *missed (may be NULL): records that fell off the ring
 * before this reader saw them.  Returns how many were copied. */
size_t happenings_read(uint64_t *cursor, struct happening *out, size_t max, uint64_t *missed);

/* "soft_threshold", "out_of_space", "fault_fired", "portal_down", "portal_up", "alua" */
const char *happening_kind_name(enum happening_kind k);

/* Tests: forget everything; a clock of their own (ms; NULL: the real one). */
void happenings_reset(void);
void happenings_set_clock(uint64_t (*now_ms)(void));

#endif
