/* xms_events.h — XMS's event log: what happened in the array, as the
 * `events` resource lists it (goxtremio reads id, timestamp, severity,
 * entity, entity_details, classification, event_code, description).
 *
 * Recorded: every change the API makes (POST, PUT, DELETE that succeeded:
 * audit, information), every failed login (API password or CHAP answer:
 * security, minor; major when it locks the address out) and the start of
 * the management server.  The newest XMS_EVENTS_MAX are kept (older ones
 * fall off: the memory is bounded); with a store (xms_log_store.h,
 * --state-dir) each is stored when it is made, with the same bound, and
 * comes back with its id and time after a restart.  A failed CHAP login is
 * told on an iSCSI thread, which must not wait for a disk: that event is
 * stored at the next flush (the next event made on an API thread, or the
 * next listing), so a crash in between loses it.
 * Any thread (one mutex); descriptions are made printable and bounded here,
 * since a CHAP user name comes from the wire. */
#ifndef LUNLAB_XMS_EVENTS_H
#define LUNLAB_XMS_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "target/api/api_router.h"

#define XMS_EVENTS_MAX 4096

enum xms_severity { XMS_SEV_INFO, XMS_SEV_MINOR, XMS_SEV_MAJOR, XMS_SEV_CRITICAL };

/* "information", "minor", "major", "critical"; false for anything else */
const char *xms_severity_name(enum xms_severity s);
bool xms_severity_parse(const char *s, enum xms_severity *out);

/* One event now.  entity: XMS's entity type ("Volume", "XMS", ...);
 * details: the object's name ("" none); code: lunlab's event code. */
void xms_event(enum xms_severity sev, const char *classification, const char *entity, const char *details,
	       const char *code, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* The same with the time it happened (a happening of the SCSI side, read
 * from the feed later: target/lu/happenings.h). */
void xms_event_at(int64_t sec, uint32_t usec, enum xms_severity sev, const char *classification, const char *entity,
		  const char *details, const char *code, const char *fmt, ...) __attribute__((format(printf, 8, 9)));

/* Registers GET /api/json/{,v2/,v3/}types/events (filters: severity=,
 * entity=, from-date-time=, to-date-time= "YYYY-MM-DD HH:MM:SS" UTC,
 * limit=) and the failed-login listener. */
int xms_events_register(char *err, size_t errlen);

/* --state-dir: the stored events into the (emptied) log, ids and times as
 * they were; the next event gets the next id.  0, or -1 with err naming the
 * bad record and field.  Before the API starts. */
int xms_events_load(char *err, size_t errlen);

/* Stores what is not stored yet and deletes what the bound pushed out
 * (nothing without a store).  Any thread that may wait for a disk. */
void xms_events_flush(void);

/* Tests: forget every event (the store is not touched). */
void xms_events_reset(void);

/* Parses "YYYY-MM-DD HH:MM:SS" (UTC) into seconds since the epoch. */
bool xms_events_parse_time(const char *s, int64_t *out);

#endif
