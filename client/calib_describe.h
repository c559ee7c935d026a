/* calib_describe.h - turn what calibrate measured and fitted into the profile document: its
 * values and, for every key, a comment with the unit and the measurement the value came
 * from, or why no measurement a host can make gives it.  Also sets r->machine_limited and
 * the notes that explain it. */
#ifndef LUNLAB_CLIENT_CALIB_DESCRIBE_H
#define LUNLAB_CLIENT_CALIB_DESCRIBE_H

#include <stddef.h>

#include "client/calib_result.h"

/* Add a note (at most CALIB_MAX_NOTES, each one line). */
void calib_note(struct calib_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* out_path names the profile (its base name) unless name is given. */
void calib_describe(struct calib_result *r, const char *out_path, const char *name);

/* "READ 4 KiB..16 KiB (QD1, saturated), WRITE SAME 512 B" : the measurements whose limit
 * involved parameter p in the fit. */
void calib_limited_by(const struct calib_result *r, enum calib_param p, char *buf, size_t len);

/* The bound of a parameter the fit left at 0: "at most 120 ns", "at least 900 MB/s", "no
 * bound", or, when the model already exceeds a measurement where p acts (a noisy run), that. */
void calib_bound_text(const struct calib_fit *f, enum calib_param p, char *buf, size_t len);

#endif
