/* cost_virtual.h — additions to cost.h (which is frozen): the modeled figures of
 * one charge, charging in virtual time (simulations, calibration tests), the
 * service demands of a command on an idle array, and private models. */
#ifndef LUNLAB_COST_VIRTUAL_H
#define LUNLAB_COST_VIRTUAL_H

#include <stdbool.h>
#include <stdint.h>

#include "models/cost.h"

/* Virtual clock: a time_scale of cost_time_virtual(N).  Arrivals are not read from the real
 * clock: the host is modeled as N closed-loop streams (N commands always outstanding), each
 * sending its next command at the modeled completion of its previous one plus the profile's
 * host turnaround (next_arrival_ns below); every command goes to the stream free earliest.
 * Completions are delivered at once, so a run takes only the time this machine needs to
 * execute the commands, and nothing the machine adds (loopback, scheduling, sanitizers)
 * reaches the modeled figures.  N is part of the modeled host, like the turnaround: what
 * the real host sends at once does not change it.  docs/models.md "Virtual clock". */
#define COST_VIRTUAL_STREAMS_MAX 4096u
static inline double cost_time_virtual(unsigned streams)
{
	return -(double)streams;
}
/* N of a virtual time_scale, 0 for a real-time one. */
static inline unsigned cost_time_virtual_streams(double time_scale)
{
	return time_scale <= -1.0 && time_scale >= -(double)COST_VIRTUAL_STREAMS_MAX ? (unsigned)-time_scale : 0;
}

/* The modeled host of a virtual clock may be resized by a client that says how many commands
 * it keeps outstanding (lunlab-bench clone: --parallel x --outstanding, sent by LOG SELECT of
 * page 31h parameter 000Ah), unless the LU's configuration pinned it (host_streams=N).
 * cost_model_set_virtual_streams: every stream of the new host is free once the work already
 * queued is done (as after a telemetry reset).  Returns 0; -1 when the clock is not virtual
 * or n is outside 1..COST_VIRTUAL_STREAMS_MAX; -2 when pinned; -3 out of memory. */
int cost_model_set_virtual_streams(struct cost_model *m, unsigned n);
void cost_model_pin_virtual_streams(struct cost_model *m);
bool cost_model_virtual_streams_pinned(struct cost_model *m);

/* One closed-loop stream per initiator session instead of N pooled ones (LU key
 * host_streams=session): models/vsessions.h has the rule and its cost_model_* calls. */

/* What the model decided for one command, all in modeled ns. */
struct cost_result {
	uint64_t arrival_ns;      /* modeled arrival */
	uint64_t latency_ns;      /* latency the array reports (telemetry) */
	uint64_t completion_ns;   /* arrival + latency */
	uint64_t next_arrival_ns; /* completion + host turnaround: when the same host stream
	                           * can send its next command (what the pacer waits for) */
	uint64_t cpu_ns;          /* core-ns charged */
};

/* Service demands of one command (no queueing), all ns except cpu_work (core-ns). */
struct cost_service {
	uint64_t entries;         /* map entries: covered bytes / dedup_block, rounded up */
	uint64_t cpu_work_ns;     /* core-ns */
	uint64_t cpu_ns;          /* on the pooled cores: ceil(cpu_work / cores) */
	uint64_t journal_ns;
	uint64_t frontend_ns;
	uint64_t backend_ns;
	uint64_t fixed_ns;
	uint64_t host_turnaround_ns;
};
void cost_service_of(const struct lunlab_profile *p, const struct cost_req *r, struct cost_service *out);

/* A model not shared by name (tests, simulations); release with cost_model_put. */
struct cost_model *cost_model_new(const struct lunlab_profile *p, double time_scale);

/* cost_model_charge, also filling *out (may be NULL). */
uint64_t cost_model_charge_ex(struct cost_model *m, const struct cost_req *r, uint64_t now_ns,
			      struct cost_result *out);

/* Charge at an explicit modeled arrival time: virtual time, no real clock, no pacing.
 * Do not mix with cost_model_charge on the same model. */
void cost_model_charge_at(struct cost_model *m, const struct cost_req *r, uint64_t arrival_ns,
			  struct cost_result *out);

/* Telemetry bucket (0 = 512b ... 11 = 1mb, 12 = gt1mb) of a size in bytes: bucket "N kb"
 * holds sizes in (N/2 KiB, N KiB]; 0..512 bytes go to 512b. */
unsigned cost_bucket_of(uint64_t bytes);

#endif
