/* ua_queue.h — the one unit attention store: every unit attention condition
 * lunlab-target raises (SAM-5 5.14, SPC-4 4.6) is posted here and taken
 * from here, one queue per I_T_L nexus.
 *
 * One struct ua_queue per logical unit (struct lu_entry.ua) holds a record
 * per initiator port (iSCSI: initiator name + ISID) that a session of the
 * port, a reservation or a power on made known to it; the record's pending
 * set is that I_T_L nexus's queue.  The target port is not part of the key,
 * as reservations key registrations on the initiator port alone.
 *
 * This module is a leaf: it includes nothing of target/, so the producers
 * in the LU layer (reservations, ALUA, capacity, resets, the LUN inventory,
 * power on) post to it without calling up into the core's checks; the core
 * (scsi_core_ua.c, through lu_nexus_take_ua) is the one taker.
 *
 * Priority (highest first; the order scsi_core_ua.c reports them in, one
 * per command): power on, LUN reset, LUN inventory, medium changed,
 * capacity, ALUA, then the reservation conditions in the order they were
 * posted.  A condition already pending for a nexus is not queued twice
 * (SAM-5 lets a logical unit fold a condition into an identical pending
 * one; LIO does the same), so a queue holds at most one condition of each
 * kind and cannot overflow: nothing is ever dropped for room.
 *
 * Cost on the command path: one atomic load and a compare against the
 * generation the session last saw with nothing pending; the lock is taken
 * only after a post. */
#ifndef LUNLAB_CORE_UA_QUEUE_H
#define LUNLAB_CORE_UA_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The conditions, in priority order (lowest value first). */
enum ua_kind {
	UA_POWER_ON = 0,        /* 06/29/01 POWER ON OCCURRED */
	UA_LUN_RESET,           /* 06/29/03 BUS DEVICE RESET FUNCTION OCCURRED */
	UA_INVENTORY,           /* 06/3F/0E REPORTED LUNS DATA HAS CHANGED */
	UA_MEDIUM,              /* 06/28/00 NOT READY TO READY CHANGE, MEDIUM MAY HAVE CHANGED */
	UA_CAPACITY,            /* 06/2A/09 CAPACITY DATA HAS CHANGED */
	UA_ALUA,                /* 06/2A/06 ASYMMETRIC ACCESS STATE CHANGED */
	UA_RES_PREEMPTED,       /* 06/2A/03 RESERVATIONS PREEMPTED */
	UA_RES_RELEASED,        /* 06/2A/04 RESERVATIONS RELEASED */
	UA_REG_PREEMPTED,       /* 06/2A/05 REGISTRATIONS PREEMPTED */
	UA_KIND_N
};

#define UA_BIT(k) (1u << (k))
/* every kind */
#define UA_ALL ((1u << UA_KIND_N) - 1u)
/* the reservation conditions (one priority class, reported in posting order) */
#define UA_RESERVATION (UA_BIT(UA_RES_PREEMPTED) | UA_BIT(UA_RES_RELEASED) | UA_BIT(UA_REG_PREEMPTED))
/* what happened to the LU for whoever was looking: a session that starts
 * seeing the LU owes nothing of these from before it did */
#define UA_BROADCAST (UA_BIT(UA_LUN_RESET) | UA_BIT(UA_INVENTORY) | UA_BIT(UA_MEDIUM) | \
		      UA_BIT(UA_CAPACITY) | UA_BIT(UA_ALUA))

struct ua_queue;

/* The key of an initiator port: 64-bit FNV-1a of the name and the ISID
 * (never 0). */
uint64_t ua_port_key(const char *iqn, const uint8_t isid[6]);

/* ASC/ASCQ pair (lunlab/scsi_vocab.h SCSI_ASC_*) of a kind, and back
 * (UA_KIND_N: not a unit attention lunlab queues). */
uint16_t ua_kind_asc(enum ua_kind k);
enum ua_kind ua_kind_of(uint16_t asc_ascq);

struct ua_queue *ua_queue_new(void);
void ua_queue_free(struct ua_queue *q);

/* ---- producers (any thread; q NULL: nothing) ---- */

/* k for one I_T_L nexus: the port's (a reservation change). */
void ua_queue_post_port(struct ua_queue *q, uint64_t port, enum ua_kind k);
/* k for every nexus that sees the LU, except the port `except` (0: none). */
void ua_queue_post_all(struct ua_queue *q, enum ua_kind k, uint64_t except);
/* A power on: every initiator port, known or not yet, is owed 06/29/01
 * once; it replaces the resets and reservation conditions pending before it. */
void ua_queue_power_on(struct ua_queue *q);
/* Clears kinds (a mask) for one port (port 0: for every port). */
void ua_queue_clear(struct ua_queue *q, uint64_t port, unsigned kinds);

/* ---- the session side ---- */

/* A session of port starts seeing the LU: it owes nothing of UA_BROADCAST
 * from before (what the port's earlier sessions missed is gone); its
 * record exists from now on, so later broadcasts reach it. */
void ua_queue_attach(struct ua_queue *q, uint64_t port);
/* The highest-priority condition of the kinds in `allowed` pending for
 * port, removed: true with *k.  A power on taken also clears a LUN reset
 * pending before it (it covers it).  *seen (may be NULL): the generation
 * the caller last found nothing pending at; when it is current the call
 * returns false without a lock, and it is updated when nothing is left. */
bool ua_queue_take(struct ua_queue *q, uint64_t port, unsigned allowed, uint64_t *seen, enum ua_kind *k);
/* Is k pending for port?  (Tests, and the power on's owed question.) */
bool ua_queue_pending(struct ua_queue *q, uint64_t port, enum ua_kind k);
/* How many times k was posted (tests, figures). */
uint64_t ua_queue_posted(const struct ua_queue *q, enum ua_kind k);

#endif
