/* calib_profile.h - the profile file calibrate writes: the existing format (docs/models.md
 * "Format", models/profile_parse.c), every parameter preceded by a comment saying its unit
 * and which measurement it came from (or why no measurement could give it). */
#ifndef LUNLAB_CLIENT_CALIB_PROFILE_H
#define LUNLAB_CLIENT_CALIB_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "client/calib_fit.h"

enum calib_key {
	K_DEDUP_BLOCK, K_ZLIB_LEVEL, K_ZLIB_WINDOW_BITS, K_ALLOC_UNIT,
	K_CORES, K_CPU_CMD, K_CPU_ENTRY, K_CPU_SEGMENT, K_CPU_MIB, K_JOURNAL_CMD, K_JOURNAL_ENTRY,
	K_FRONTEND, K_BACKEND, K_FIXED, K_TURNAROUND, K_TURNAROUND_MIB, K_XCOPY_BUCKET,
	K_USABLE_BYTES, K_SOFT_THRESHOLD, K_NKEYS
};

struct calib_profile_doc {
	char name[32];                 /* [A-Za-z0-9._-], 1..31 */
	char description[128];
	char header[2048];             /* comment lines at the top, '\n'-separated, without '#' */
	uint64_t value[K_NKEYS];       /* K_XCOPY_BUCKET: 0 covered, 1 gt1mb */
	char comment[K_NKEYS][512];    /* unit and source of each value; wrapped when written */
};

/* The key's name in the file ("cpu_cmd_ns", ...). */
const char *calib_key_name(enum calib_key k);

/* The cost values of a fit: cores 1 (a host sees only work / cores, so cpu_* are pool time),
 * bandwidths in MB/s from ns per byte (0: never the limit = unlimited), the fixed latency
 * and turnaround together in fixed_latency_ns (a host cannot tell them apart), the XCOPY
 * per-MiB delay in host_turnaround_ns_per_mib, xcopy_bucket covered.  Comments are not set. */
void calib_profile_set_cost(struct calib_profile_doc *d, const struct calib_fit *f);

/* The capacity section: a host sees no standard figure of the array's physical capacity, so
 * usable_bytes is the LU's own size (what the copy must at least hold), with no soft threshold
 * (calibrate does not fill the array to find one).  Sets the values and their comments. */
struct calib_result;
void calib_profile_set_capacity(struct calib_profile_doc *d, const struct calib_result *r);

/* A profile name from a file path: its base name without ".yaml", characters outside
 * [A-Za-z0-9._-] replaced by '-', at most 31 characters; "calibrated" when nothing is left. */
void calib_profile_name_from_path(const char *path, char *name, size_t len);

/* Write the document.  Returns 0, or -1 on a write error. */
int calib_profile_write(FILE *f, const struct calib_profile_doc *d);

/* Write it to memory and parse it back with the strict profile parser (the same one
 * lunlab-target uses), so a profile calibrate produces always loads.  Returns the text
 * (malloc'd), or NULL with err naming what the parser refused. */
char *calib_profile_render_checked(const struct calib_profile_doc *d, char *err, size_t errlen);

#endif
