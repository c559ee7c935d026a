/* ua_queue.c — the one unit attention store (ua_queue.h): per LU, a record
 * per initiator port, each record one I_T_L nexus's pending conditions. */
#include "target/core/ua_queue.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "lunlab/fnv1a.h"
#include "lunlab/scsi_vocab.h"

/* One I_T_L nexus: which kinds are pending, and when each was posted (the
 * reservation conditions share a priority and go out in posting order). */
struct ua_rec {
	uint64_t port;
	unsigned pending;           /* UA_BIT(kind) set */
	uint32_t seq[UA_KIND_N];    /* posting order of each pending kind */
};

struct ua_queue {
	pthread_mutex_t lock;
	/* bumped by every post: a session whose cached generation is current
	 * has nothing pending and takes no lock */
	_Atomic uint64_t gen;
	bool power_on_armed;        /* a power on happened: ports without a record owe it */
	uint32_t seq;
	struct ua_rec *rec;         /* sorted by port */
	size_t n, cap;
	_Atomic uint64_t posted[UA_KIND_N];
};

static const uint16_t kind_asc[UA_KIND_N] = {
	[UA_POWER_ON] = SCSI_ASC_POWER_ON_OCCURRED,
	[UA_LUN_RESET] = SCSI_ASC_BUS_DEVICE_RESET,
	[UA_INVENTORY] = SCSI_ASC_REPORTED_LUNS_DATA_CHANGED,
	[UA_MEDIUM] = SCSI_ASC_NOT_READY_TO_READY_CHANGE,
	[UA_CAPACITY] = SCSI_ASC_CAPACITY_DATA_CHANGED,
	[UA_ALUA] = SCSI_ASC_ALUA_STATE_CHANGED,
	[UA_RES_PREEMPTED] = SCSI_ASC_RESERVATIONS_PREEMPTED,
	[UA_RES_RELEASED] = SCSI_ASC_RESERVATIONS_RELEASED,
	[UA_REG_PREEMPTED] = SCSI_ASC_REGISTRATIONS_PREEMPTED,
};

uint16_t ua_kind_asc(enum ua_kind k)
{
	return k < UA_KIND_N ? kind_asc[k] : 0;
}

enum ua_kind ua_kind_of(uint16_t asc_ascq)
{
	for (unsigned k = 0; k < UA_KIND_N; k++)
		if (kind_asc[k] == asc_ascq)
			return (enum ua_kind)k;
	return UA_KIND_N;
}

/* the priority class: the reservation kinds share one */
static unsigned kind_class(unsigned k)
{
	return k >= UA_RES_PREEMPTED ? UA_RES_PREEMPTED : k;
}

uint64_t ua_port_key(const char *iqn, const uint8_t isid[6])
{
	static const uint8_t none[6];
	const char *name = iqn ? iqn : "";
	uint64_t h = ll_fnv1a64(ll_fnv1a64(LL_FNV1A64_BASIS, name, strlen(name)), isid ? isid : none, 6);

	return h ? h : 1;
}

struct ua_queue *ua_queue_new(void)
{
	struct ua_queue *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	pthread_mutex_init(&q->lock, NULL);
	atomic_init(&q->gen, 1); /* 0: a session that never looked */
	return q;
}

void ua_queue_free(struct ua_queue *q)
{
	if (!q)
		return;
	pthread_mutex_destroy(&q->lock);
	free(q->rec);
	free(q);
}

/* index of port's record, or where it would go (*found false) */
static size_t rec_pos(const struct ua_queue *q, uint64_t port, bool *found)
{
	size_t lo = 0, hi = q->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (q->rec[mid].port == port) {
			*found = true;
			return mid;
		}
		if (port < q->rec[mid].port)
			hi = mid;
		else
			lo = mid + 1;
	}
	*found = false;
	return lo;
}

static struct ua_rec *rec_find(struct ua_queue *q, uint64_t port)
{
	bool found;
	size_t i = rec_pos(q, port, &found);

	return found ? &q->rec[i] : NULL;
}

static void set_kind(struct ua_queue *q, struct ua_rec *r, unsigned k)
{
	if (r->pending & UA_BIT(k))
		return; /* already pending: folded into it */
	r->pending |= UA_BIT(k);
	r->seq[k] = ++q->seq;
}

/* port's record, made if missing (a port never told of an armed power on
 * owes it).  NULL: out of memory, the post is lost for this port. */
static struct ua_rec *rec_get(struct ua_queue *q, uint64_t port)
{
	bool found;
	size_t i = rec_pos(q, port, &found);

	if (found)
		return &q->rec[i];
	if (q->n == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 8;
		struct ua_rec *rec = realloc(q->rec, cap * sizeof(*rec));

		if (!rec)
			return NULL;
		q->rec = rec;
		q->cap = cap;
	}
	memmove(&q->rec[i + 1], &q->rec[i], (q->n - i) * sizeof(q->rec[0]));
	q->n++;
	memset(&q->rec[i], 0, sizeof(q->rec[i]));
	q->rec[i].port = port;
	if (q->power_on_armed)
		set_kind(q, &q->rec[i], UA_POWER_ON);
	return &q->rec[i];
}

static void posted(struct ua_queue *q, enum ua_kind k)
{
	atomic_fetch_add(&q->posted[k], 1);
	atomic_fetch_add_explicit(&q->gen, 1, memory_order_release);
}

void ua_queue_post_port(struct ua_queue *q, uint64_t port, enum ua_kind k)
{
	struct ua_rec *r;

	if (!q || k >= UA_KIND_N)
		return;
	pthread_mutex_lock(&q->lock);
	r = rec_get(q, port);
	if (r)
		set_kind(q, r, k);
	posted(q, k);
	pthread_mutex_unlock(&q->lock);
}

void ua_queue_post_all(struct ua_queue *q, enum ua_kind k, uint64_t except)
{
	if (!q || k >= UA_KIND_N)
		return;
	pthread_mutex_lock(&q->lock);
	for (size_t i = 0; i < q->n; i++)
		if (q->rec[i].port != except)
			set_kind(q, &q->rec[i], k);
	posted(q, k);
	pthread_mutex_unlock(&q->lock);
}

void ua_queue_power_on(struct ua_queue *q)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	q->power_on_armed = true;
	for (size_t i = 0; i < q->n; i++) {
		q->rec[i].pending &= ~(UA_BIT(UA_LUN_RESET) | UA_RESERVATION);
		set_kind(q, &q->rec[i], UA_POWER_ON);
	}
	posted(q, UA_POWER_ON);
	pthread_mutex_unlock(&q->lock);
}

void ua_queue_clear(struct ua_queue *q, uint64_t port, unsigned kinds)
{
	struct ua_rec *r;

	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	if (port == 0) {
		for (size_t i = 0; i < q->n; i++)
			q->rec[i].pending &= ~kinds;
	} else if ((r = rec_find(q, port)) != NULL) {
		r->pending &= ~kinds;
	}
	pthread_mutex_unlock(&q->lock);
}

void ua_queue_attach(struct ua_queue *q, uint64_t port)
{
	struct ua_rec *r;

	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	r = rec_get(q, port);
	if (r)
		r->pending &= ~UA_BROADCAST;
	pthread_mutex_unlock(&q->lock);
}

bool ua_queue_take(struct ua_queue *q, uint64_t port, unsigned allowed, uint64_t *seen, enum ua_kind *k)
{
	struct ua_rec *r;
	uint64_t g;
	unsigned best = UA_KIND_N;

	if (!q)
		return false;
	g = atomic_load_explicit(&q->gen, memory_order_acquire);
	if (seen && *seen == g)
		return false; /* the common case: nothing posted since it last looked */
	pthread_mutex_lock(&q->lock);
	g = atomic_load_explicit(&q->gen, memory_order_relaxed);
	/* a port with no record owes only an armed power on: made now */
	r = q->power_on_armed ? rec_get(q, port) : rec_find(q, port);
	if (r) {
		for (unsigned i = 0; i < UA_KIND_N; i++) {
			if (!(r->pending & allowed & UA_BIT(i)))
				continue;
			if (best == UA_KIND_N || kind_class(i) < kind_class(best) ||
			    (kind_class(i) == kind_class(best) && r->seq[i] < r->seq[best]))
				best = i;
		}
		if (best != UA_KIND_N) {
			r->pending &= ~UA_BIT(best);
			if (best == UA_POWER_ON)
				r->pending &= ~UA_BIT(UA_LUN_RESET);
		}
	}
	if (seen && (!r || !r->pending))
		*seen = g;
	pthread_mutex_unlock(&q->lock);
	if (best == UA_KIND_N)
		return false;
	*k = (enum ua_kind)best;
	return true;
}

bool ua_queue_pending(struct ua_queue *q, uint64_t port, enum ua_kind k)
{
	struct ua_rec *r;
	bool p;

	if (!q || k >= UA_KIND_N)
		return false;
	pthread_mutex_lock(&q->lock);
	r = rec_find(q, port);
	p = r ? (r->pending & UA_BIT(k)) != 0 : k == UA_POWER_ON && q->power_on_armed;
	pthread_mutex_unlock(&q->lock);
	return p;
}

uint64_t ua_queue_posted(const struct ua_queue *q, enum ua_kind k)
{
	return q && k < UA_KIND_N ? atomic_load(&q->posted[k]) : 0;
}
