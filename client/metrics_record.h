/* metrics_record.h - --metrics-url: what the array saw during a run, next to
 * what the client measured.  A thread reads the target's /metrics.json
 * before the run, once a second during it and after it; the record is the
 * per-second view (rates) and the whole run's view (first to last reading),
 * added to --json as "array_metrics" (docs/bench.md). */
#ifndef LUNLAB_CLIENT_METRICS_RECORD_H
#define LUNLAB_CLIENT_METRICS_RECORD_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;
struct metrics_record;

/* Reads the first snapshot now (a target that does not answer fails here, before the
 * run, with a one-line reason; one that cannot be reached within --timeout is also recorded
 * with conn_note_fatal) and starts the sampler.  NULL on failure. */
struct metrics_record *metrics_record_start(const char *url, bool insecure, double interval_s, char *err,
					    size_t errlen);

/* Takes the last snapshot, stops the sampler and returns the record (the caller owns
 * it), or NULL with a reason when the last reading failed.  Frees rec either way. */
struct json_object *metrics_record_finish(struct metrics_record *rec, char *err, size_t errlen);

/* The run failed: stop the sampler (a reading in progress ends within about a second),
 * without a last reading, and free rec. */
void metrics_record_cancel(struct metrics_record *rec);

#endif
