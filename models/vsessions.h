/* vsessions.h — the virtual clock's host as one closed-loop stream per initiator session
 * (LU key host_streams=session; docs/models.md "One stream per session").
 *
 * With pooled streams (cost_virtual.h) a data command goes to whichever modeled stream is
 * free earliest, so the model cannot say what a given VM saw.  Here each I_T nexus is its
 * own stream, as seed 002's VMs are (one VM, one session, queue depth 1): its next command
 * arrives at its previous one's modeled completion plus the host turnaround.  The array's
 * queues are FIFO in modeled arrival order, so commands must be charged in that order; the
 * real ones reach the target in this machine's order.  So a command waits here (its answer
 * does not: completions are delivered at once) until no session the model knows could
 * still send one that arrives earlier: the session free earliest (ties: the lower nexus id)
 * has a command waiting.  Whatever this machine's interleaving, the charged sequence, and so
 * every modeled figure, is the same.
 *
 * A session is known once it sent any command (lunlab-bench's VMs read the capacity when
 * they log in).  A flush (the model's telemetry is read: LOG SENSE 31h/32h; a LU closes)
 * charges everything waiting in order, treating a session with nothing waiting as done; it
 * is a barrier: every session starts again at the modeled front, and one that sent nothing
 * since the flush before it while data moved (logged out, or idle) stops being waited for
 * until it sends.  Waiting for a session that is gone costs memory, never the order: the
 * flush charges what waits exactly as if it had been charged on the way.
 * This file is the bookkeeping only (no lock, no charging): models/cost.c drives it under
 * the model's mutex. */
#ifndef LUNLAB_VSESSIONS_H
#define LUNLAB_VSESSIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/cost_virtual.h"

/* Told once the command is charged (under the model's lock: keep it short, take no lock of
 * the model's).  The handler's per-LU latency figures come this way. */
typedef void (*vsess_sink_fn)(void *ctx, const struct cost_req *r, const struct cost_result *res);

struct vsess_cmd {
	struct cost_req req;
	vsess_sink_fn sink; /* may be NULL */
	void *ctx;
};

/* What one session's data commands were charged, in modeled ns of the array's clock.  Since
 * the session was first known or the telemetry was last reset. */
struct vsess_stats {
	uint64_t nexus;
	uint64_t commands;
	uint64_t bytes;              /* covered bytes (what the page 31h buckets count) */
	uint64_t first_bytes;        /* of its first command */
	uint64_t first_arrival_ns;
	uint64_t first_completion_ns;
	uint64_t last_completion_ns;
};

/* More commands than this waiting (a session that never sends again and is never flushed):
 * the earliest is charged anyway, and the order stops being exact (page 32h says how often). */
#define VSESS_WAITING_MAX 65536u
/* Sessions known at once; a new one past it evicts one that is not waited for. */
#define VSESS_MAX 4096u

struct vsessions;

struct vsessions *vsess_new(void);
void vsess_free(struct vsessions *v);

/* Session nexus sent a command (any kind): known and waited for from now; a session that
 * is new, or was not waited for, starts at front_ns.  Returns its index, -1 when the table
 * is full of sessions that are waited for (the command is then charged unordered). */
int vsess_note(struct vsessions *v, uint64_t nexus, uint64_t front_ns);
/* A data command of session i waits for its turn.  0, or -1 out of memory. */
int vsess_push(struct vsessions *v, int i, const struct vsess_cmd *c);
/* The session whose waiting command is charged next, and its modeled arrival; -1 when none
 * may be (a known session with nothing waiting could still send an earlier one).  force:
 * sessions with nothing waiting are done (a flush), or too many commands wait. */
int vsess_next(struct vsessions *v, bool force, uint64_t *arrival_ns);
/* Take session i's first waiting command (vsess_next chose i). */
void vsess_pop(struct vsessions *v, int i, struct vsess_cmd *out);
/* Session i's command was charged: its stream is free again at res->next_arrival_ns. */
void vsess_charged(struct vsessions *v, int i, uint64_t covered_bytes, const struct cost_result *res);
/* After a flush charged everything: every session starts again at front_ns (a barrier), and
 * those that sent nothing since the previous barrier, while data was charged, are no longer
 * waited for. */
void vsess_barrier(struct vsessions *v, uint64_t front_ns);
/* The telemetry was reset: figures start again; nothing else changes. */
void vsess_reset_stats(struct vsessions *v);

/* ---- the model's side (models/cost.c) ---- */

/* Turn a virtual-clock model's host into one stream per session (pins it: LOG SELECT 000Ah
 * is refused).  0; -1 when the clock is not virtual; -3 out of memory. */
int cost_model_use_sessions(struct cost_model *m);
bool cost_model_sessions(struct cost_model *m);
/* Charge one command of session nexus (0 under tcmu-runner: the whole host one stream).
 * A data command may wait for its turn; sink hears its figures once it is charged. */
void cost_model_charge_session(struct cost_model *m, const struct cost_req *r, uint64_t nexus, vsess_sink_fn sink,
			       void *ctx);
/* Charge everything waiting (a LU closes: its sinks must not outlive it). */
void cost_model_flush(struct cost_model *m);
/* Flush, then up to max sessions' figures (vsess_stats); *overflows as vsess_overflows. */
unsigned cost_model_session_stats(struct cost_model *m, struct vsess_stats *out, unsigned max, uint64_t *overflows);

size_t vsess_waiting(const struct vsessions *v);
/* Times a command was charged out of its turn: VSESS_WAITING_MAX were waiting, or its session
 * found no place (VSESS_MAX sessions, all waited for). */
uint64_t vsess_overflows(const struct vsessions *v);
/* Up to max sessions that charged data, ordered by nexus id; returns how many there are. */
unsigned vsess_stats(const struct vsessions *v, struct vsess_stats *out, unsigned max);

#endif
