/* cost.h — the array cost model: every command gets a modeled service time and
 * array CPU time from its kind and size (XCOPY: the logical bytes it covers and
 * its segment count) and the modeled load (queueing on the modeled cores and
 * bandwidth).  One model per array (shared by its LUNs). */
#ifndef LUNLAB_COST_H
#define LUNLAB_COST_H

#include <stdint.h>

#include "lunlab/latency_buckets.h"
#include "models/profile.h"

struct cost_model;

enum cost_kind {
	COST_READ, COST_WRITE, COST_XCOPY, COST_CAW, COST_WRITE_SAME, COST_UNMAP,
	COST_VERIFY, COST_OTHER, /* inquiry, mode sense, ... */
};

struct cost_req {
	enum cost_kind kind;
	uint64_t bytes;            /* data bytes moved over the wire (read/write) */
	uint64_t xcopy_bytes;      /* logical bytes an EXTENDED COPY covers */
	uint32_t xcopy_segments;
	uint64_t dedup_hits;       /* blocks written that deduplicated (optional) */
};

/* Shared per array name; time_scale: 1 real time, >1 slow motion, 0 unpaced,
 * cost_time_virtual(N) (cost_virtual.h) a virtual clock. */
struct cost_model *cost_model_get(const char *array_name, const struct lunlab_profile *p, double time_scale);
void cost_model_put(struct cost_model *m);
/* The model of array_name if one exists (one more reference: cost_model_put
 * it), else NULL; never creates one.  For work that is not a command of a LU
 * (a snapshot through the array-control interface). */
struct cost_model *cost_model_find(const char *array_name);

/* Charge one command arriving at now_ns (CLOCK_MONOTONIC).  Returns the real
 * CLOCK_MONOTONIC time at which its completion may be delivered (now_ns when
 * unpaced or unmodeled).  Thread safe, cheap (no global lock held long). */
uint64_t cost_model_charge(struct cost_model *m, const struct cost_req *r, uint64_t now_ns);

/* Telemetry in modeled time; see docs/vendor-log-pages.md for what each means. */
#define COST_BUCKETS 13 /* 512b 1kb 2kb 4kb 8kb 16kb 32kb 64kb 128kb 256kb 512kb 1mb gt1mb */
struct cost_telemetry {
	uint64_t commands;
	uint64_t modeled_elapsed_ns;      /* first arrival .. last modeled completion since reset */
	uint64_t modeled_busy_ns;         /* CPU time charged, summed over cores */
	uint32_t cores;
	uint64_t peak_latency_ns;         /* max over 1-s modeled windows of the window's mean latency */
	uint64_t max_latency_ns;          /* max single command latency */
	uint32_t peak_cpu_permille;       /* max over 1-s modeled windows of CPU busy / (cores x 1 s) */
	uint64_t latency_hist[32];        /* log2 buckets of modeled latency in us: [i] counts 2^i-1..2^(i+1)-1 us */
	uint64_t bucket_ops[COST_BUCKETS];
	uint64_t bucket_bytes[COST_BUCKETS];
	uint64_t bucket_latency_ns[COST_BUCKETS]; /* summed */
	uint64_t turnaround_ns;           /* modeled host turnaround added, summed over commands: lets a
					   * client tell the model's host time from the machine's
					   * (docs/bench.md "Machine-limited runs"; page 31h 0009h) */
	uint64_t journal_busy_ns;         /* modeled service time of each single-queue resource, summed */
	uint64_t frontend_busy_ns;        /* (with modeled_busy_ns / cores for the CPU pool: how busy */
	uint64_t backend_busy_ns;         /* the array's busiest resource was; page 31h 000Bh..000Dh) */
	double time_scale;                /* 0 when the clock is virtual */
	uint32_t virtual_streams;         /* > 0: virtual clock, modeled time from this many
					   * closed-loop host streams, not from the real clock
					   * (cost_virtual.h; page 31h 000Ah) */
	uint64_t fault_delay_ns;          /* what fault rules (delay=) held commands before
					   * the array saw them, summed: not modeled, not the
					   * machine's (page 31h 000Fh) */
};
void cost_model_telemetry(struct cost_model *m, struct cost_telemetry *out);
/* A command of the array was held ns by a fault rule before it arrived (telemetry
 * fault_delay_ns; reset with the rest). */
void cost_model_note_fault_delay(struct cost_model *m, uint64_t ns);
void cost_model_reset_telemetry(struct cost_model *m);

/* Running totals in modeled time since the model was made: never reset (LOG
 * SELECT resets only the telemetry above), so /metrics can export them as
 * counters.  Latency buckets: include/lunlab/latency_buckets.h. */
struct cost_totals {
	uint64_t commands;
	uint64_t cpu_ns;                  /* CPU work charged, core-ns summed over cores */
	uint64_t latency_sum_ns;
	uint64_t latency_buckets[LUNLAB_LAT_BUCKETS];
	uint64_t modeled_elapsed_ns;      /* first arrival .. last modeled completion */
	uint32_t cores;                   /* 0: the profile is not modeled */
	double time_scale;                /* 0: unpaced or a virtual clock */
	uint32_t virtual_streams;         /* > 0: virtual clock */
};
void cost_model_totals(struct cost_model *m, struct cost_totals *out);

#endif
