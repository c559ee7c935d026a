/* xms_time.h — the date-time form XMS's queries take (`from-date-time=`
 * of events, `from-time=`/`to-time=` of the performance query):
 * "YYYY-MM-DD HH:MM:SS", UTC.  Its own file so the query parsers (and
 * their fuzz targets) share one parser without the modules around them. */
#ifndef LUNLAB_XMS_TIME_H
#define LUNLAB_XMS_TIME_H

#include <stdbool.h>
#include <stdint.h>

/* exactly "YYYY-MM-DD HH:MM:SS" from 1970 on: seconds since the epoch */
bool xms_time_parse(const char *s, int64_t *out);

#endif
