/* xms_events.h — XMS's event log: what happened in the array, as the
 * `events` resource lists it (goxtremio reads id, timestamp, severity,
 * entity, entity_details, classification, event_code, description).
 *
 * Recorded: every change the API makes (POST, PUT, DELETE that succeeded:
 * audit, information), every failed login (API password or CHAP answer:
 * security, minor; major when it locks the address out) and the start of
 * the management server.  Kept in memory, the newest XMS_EVENTS_MAX (older
 * ones fall off: the memory is bounded); not kept across restarts.
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

/* Tests: forget every event. */
void xms_events_reset(void);

/* Parses "YYYY-MM-DD HH:MM:SS" (UTC) into seconds since the epoch. */
bool xms_events_parse_time(const char *s, int64_t *out);

#endif
