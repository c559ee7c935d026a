/* metrics_view.h - the figures a person watches, from two /metrics.json
 * snapshots of lunlab-target (docs/metrics.md): per array the capacity and
 * data reduction, modeled CPU busy and latency, bytes cloned next to bytes
 * over the wire; per LU throughput, IOPS and latency.  Counters in a
 * snapshot are running totals, so rates are differences over the time
 * between the two.  Shared by `watch` and --metrics-url. */
#ifndef LUNLAB_CLIENT_METRICS_VIEW_H
#define LUNLAB_CLIENT_METRICS_VIEW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json_object;

#define MVIEW_MAX 256
#define MVIEW_KINDS 7
extern const char *const mview_kinds[MVIEW_KINDS]; /* read, write, xcopy, write_same, unmap, caw, other */

struct mview_array {
	char name[64], profile[32];
	bool have_capacity;
	uint64_t logical_bytes, unique_bytes, physical_bytes, used_bytes, capacity_bytes;
	uint64_t soft_threshold_bytes, pending_blocks;
	double dedup_ratio, compression_ratio, data_reduction_ratio;
	bool have_model;
	double cpu_pct;            /* modeled CPU busy: cpu / (modeled elapsed x cores); -1 unknown */
	double modeled_latency_s;  /* mean over the interval; -1 when no command */
	double observed_latency_s; /* mean over its LUs' commands; -1 when none */
	double cloned_bps;         /* logical bytes XCOPY covered per second */
	double wire_bps;           /* data bytes over the wire per second (all kinds) */
	uint64_t cloned_bytes;     /* over the interval */
	uint64_t wire_bytes;
};

struct mview_lu {
	uint64_t lun;
	char array[64], volume[128];
	double read_bps, write_bps, iops, cloned_bps, xcopy_wire_bps;
	double observed_latency_s, modeled_latency_s; /* -1 when no command */
	uint64_t mapped_bytes;
	uint64_t commands[MVIEW_KINDS], wire_bytes[MVIEW_KINDS]; /* over the interval */
	uint64_t cloned_bytes;
};

struct mview {
	double t, dt;              /* the later snapshot's time; seconds between the two (0: one snapshot) */
	unsigned narr, nlu;
	struct mview_array arr[MVIEW_MAX];
	struct mview_lu lu[MVIEW_MAX];
	uint64_t sessions, rss_bytes;
};

/* prev may be NULL (no rates then).  Reads only what it finds; a field of the wrong
 * type counts as absent. */
void mview_compute(const struct json_object *prev, const struct json_object *cur, struct mview *v);

/* The terminal view (watch). */
void mview_print(FILE *f, const struct mview *v, const char *url);

/* As JSON, for --metrics-url's record. */
struct json_object *mview_json(const struct mview *v);

#endif
