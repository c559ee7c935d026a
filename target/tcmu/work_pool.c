/* work_pool.c — the shared worker pool (work_pool.h): a ring of ready
 * queues under one lock, held only to splice lists and count, never while
 * an item runs. */
#include "target/tcmu/work_pool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the ready ring (under p->lock) ---- */

static void ready_append(struct work_pool *p, struct work_queue *q)
{
	q->ready = true;
	q->rnext = NULL;
	q->rprev = p->ready_tail;
	if (p->ready_tail)
		p->ready_tail->rnext = q;
	else
		p->ready_head = q;
	p->ready_tail = q;
}

static void ready_remove(struct work_pool *p, struct work_queue *q)
{
	if (q->rprev)
		q->rprev->rnext = q->rnext;
	else
		p->ready_head = q->rnext;
	if (q->rnext)
		q->rnext->rprev = q->rprev;
	else
		p->ready_tail = q->rprev;
	q->rnext = q->rprev = NULL;
	q->ready = false;
}

/* q may start an item and is not in the ring yet: it joins at the end (its
 * turn comes after every queue already waiting) */
static void ready_if_runnable(struct work_pool *p, struct work_queue *q)
{
	if (!q->ready && q->head && q->running < q->cap)
		ready_append(p, q);
}

/* Whether one more worker must wake for what is ready: some sleeper is not
 * called yet and no awake worker is free.  A worker inside run does not
 * count as free: run may block, and ready work must not wait behind it
 * while other workers sleep.  Not counted awake here (the woken worker
 * counts itself): pushes that come before it runs may wake another, which
 * their work then keeps busy; this is the per-device queue's rule as it
 * was measured (iscsi-perf), kept as it was. */
static bool want_wake_locked(struct work_pool *p)
{
	if (!p->ready_head || p->idle <= p->wakes)
		return false;
	return p->awake <= p->busy;
}

static void settle_locked(struct work_pool *p, struct work_queue *q)
{
	if (q->draining && !q->head && !q->running)
		pthread_cond_broadcast(&p->settled);
}

/* ---- workers ---- */

struct worker_arg {
	struct work_pool *p;
	unsigned idx;
};

static void *worker_main(void *arg)
{
	struct worker_arg *wa = arg;
	struct work_pool *p = wa->p;
	char tname[32];

	/* "tcmu-w3": top -H and gdb show the host's workers (Linux keeps 15
	 * characters); which LU one serves is in --trace and the metrics */
	snprintf(tname, sizeof(tname), "%s-w%u", p->name, wa->idx);
	tname[15] = 0;
	pthread_setname_np(pthread_self(), tname);
	free(wa);
	pthread_mutex_lock(&p->lock);
	p->awake++;
	for (;;) {
		while (!p->ready_head && !p->stopping) {
			p->awake--;
			p->idle++;
			pthread_cond_wait(&p->cond, &p->lock);
			p->idle--;
			if (p->wakes)
				p->wakes--; /* a kick counted us awake already */
			else
				p->awake++; /* broadcast or spurious wake-up */
		}
		if (!p->ready_head) { /* stopping and drained */
			p->awake--;
			break;
		}
		/* the queue whose turn it is gives one item and, if it may start
		 * another, goes to the end of the ring */
		struct work_queue *q = p->ready_head;
		struct work_item *it = q->head;

		ready_remove(p, q);
		q->head = it->next;
		if (!q->head)
			q->tail = NULL;
		q->len--;
		p->queued--;
		it->next = NULL;
		q->running++;
		ready_if_runnable(p, q);
		p->busy++;
		bool more = want_wake_locked(p);

		pthread_mutex_unlock(&p->lock);
		if (more)
			pthread_cond_signal(&p->cond);
		q->run(q, it);
		pthread_mutex_lock(&p->lock);
		p->busy--;
		q->running--;
		ready_if_runnable(p, q); /* it was at its cap */
		settle_locked(p, q);     /* q is not touched after the unlock */
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int work_pool_start(struct work_pool *p, unsigned n, const char *name, char **err)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	pthread_cond_init(&p->settled, NULL);
	p->threads = calloc(n ? n : 1, sizeof(pthread_t));
	if (!p->threads) {
		if (err && asprintf(err, "out of memory for %u worker threads", n) < 0)
			*err = NULL;
		work_pool_stop(p);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < n; i++) {
		struct worker_arg *wa = malloc(sizeof(*wa));
		int rc = wa ? 0 : ENOMEM;

		if (wa) {
			wa->p = p;
			wa->idx = i;
			rc = pthread_create(&p->threads[i], NULL, worker_main, wa);
			if (rc)
				free(wa);
		}
		if (rc) {
			if (err && asprintf(err, "cannot start worker thread %u of %u: %s", i + 1, n, strerror(rc)) < 0)
				*err = NULL;
			work_pool_stop(p);
			return -rc;
		}
		p->nthreads = i + 1;
	}
	return 0;
}

void work_pool_stop(struct work_pool *p)
{
	pthread_mutex_lock(&p->lock);
	p->stopping = true;
	pthread_mutex_unlock(&p->lock);
	pthread_cond_broadcast(&p->cond);
	for (unsigned i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	free(p->threads);
	p->threads = NULL;
	p->nthreads = 0;
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	pthread_cond_destroy(&p->settled);
}

/* ---- queues ---- */

void work_queue_init(struct work_queue *q, struct work_pool *p, unsigned cap, work_run_fn run)
{
	memset(q, 0, sizeof(*q));
	q->pool = p;
	q->run = run;
	q->cap = cap ? cap : 1;
}

void work_queue_push(struct work_queue *q, struct work_item *it, bool wake)
{
	struct work_pool *p = q->pool;

	it->next = NULL;
	pthread_mutex_lock(&p->lock);
	if (q->tail)
		q->tail->next = it;
	else
		q->head = it;
	q->tail = it;
	q->len++;
	p->queued++;
	ready_if_runnable(p, q);
	bool signal = wake && want_wake_locked(p);

	pthread_mutex_unlock(&p->lock);
	if (signal)
		pthread_cond_signal(&p->cond);
}

void work_pool_kick(struct work_pool *p, unsigned per_free)
{
	unsigned wake = 0;

	pthread_mutex_lock(&p->lock);
	while (p->ready_head && p->idle > p->wakes &&
	       (p->awake <= p->busy || p->queued > (size_t)per_free * (p->awake - p->busy))) {
		p->wakes++;
		p->awake++;
		wake++;
	}
	pthread_mutex_unlock(&p->lock);
	while (wake--)
		pthread_cond_signal(&p->cond);
}

struct work_item *work_queue_take_if(struct work_queue *q, bool (*match)(const struct work_item *it, void *ctx),
				     void *ctx)
{
	struct work_pool *p = q->pool;
	struct work_item *taken = NULL, **tail = &taken, **pp, *prev = NULL;

	pthread_mutex_lock(&p->lock);
	pp = &q->head;
	while (*pp) {
		struct work_item *it = *pp;

		if (match(it, ctx)) {
			*pp = it->next;
			q->len--;
			p->queued--;
			it->next = NULL;
			*tail = it;
			tail = &it->next;
		} else {
			prev = it;
			pp = &it->next;
		}
	}
	q->tail = prev;
	if (!q->head && q->ready)
		ready_remove(p, q);
	settle_locked(p, q);
	pthread_mutex_unlock(&p->lock);
	return taken;
}

void work_queue_drain(struct work_queue *q)
{
	struct work_pool *p = q->pool;

	pthread_mutex_lock(&p->lock);
	q->draining = true;
	while (q->head || q->running)
		pthread_cond_wait(&p->settled, &p->lock);
	q->draining = false;
	pthread_mutex_unlock(&p->lock);
}
