/* work_pool.h — the host's worker threads: one pool per process, shared by
 * every device, sized by configuration and the CPU count rather than by the
 * number of LUs, so an idle LU costs no thread (tcmu-runner starts
 * nr_threads threads per device; 10,000 API volumes x 4 threads ran into
 * pid_max).
 *
 * A device has a work_queue: its commands in the order the transport
 * delivered them.  What the pool promises:
 *   - order: a queue's items start in the order they were pushed (the
 *     transport delivers in CmdSN order and runs every task attribute,
 *     ORDERED too, as SIMPLE in that order: target/core/scsi_core.c);
 *   - cap: at most `cap` items of one queue run at once (the handler's
 *     nr_threads: what its per-device worker count allowed under
 *     tcmu-runner; cap 1 serialises a queue);
 *   - fairness: queues with work take turns, one item per turn (a ring
 *     of ready queues): a queue that gets work waits for at most one item
 *     of each queue ahead of it in the ring, never for another queue's
 *     backlog;
 *   - no lost work: an item pushed is run exactly once, or handed back by
 *     work_queue_take_if.
 * Items run with no lock held; run may block (the handler's I/O, a range
 * lock), which is why one queue's cap stays below the pool's size.
 *
 * Wake-ups cost more than a 4 KiB read's handler work (a futex wake and a
 * context switch per command halved the IOPS), so a push signals a worker
 * only when no awake worker is free to pop: `awake` counts workers not
 * asleep (plus work_pool_kick's signals not yet taken), `busy` those
 * inside run. */
#ifndef LUNLAB_TCMU_WORK_POOL_H
#define LUNLAB_TCMU_WORK_POOL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

struct work_item {
	struct work_item *next;
};

struct work_queue;
typedef void (*work_run_fn)(struct work_queue *q, struct work_item *it);

/* Everything below is the pool's, under its lock; callers only embed it. */
struct work_queue {
	struct work_pool *pool;
	work_run_fn run;
	struct work_item *head, *tail;
	size_t len;
	unsigned cap;                   /* most items running at once */
	unsigned running;
	bool ready;                     /* on the pool's ready ring */
	bool draining;                  /* work_queue_drain waits */
	struct work_queue *rnext, *rprev;
};

struct work_pool {
	pthread_mutex_t lock;
	pthread_cond_t cond;            /* workers wait for a ready queue */
	pthread_cond_t settled;         /* a draining queue ran dry */
	struct work_queue *ready_head, *ready_tail; /* queues with an item they may start, in turn order */
	size_t queued;                  /* items waiting, every queue */
	unsigned idle;                  /* workers waiting on cond */
	unsigned awake;                 /* see the top of this file */
	unsigned busy;                  /* workers inside run */
	unsigned wakes;                 /* signals sent, not yet taken */
	unsigned nthreads;
	pthread_t *threads;
	bool stopping;
	char name[8];                   /* thread names "<name>-w<N>" */
};

/* Starts n >= 1 worker threads named "<name>-w<N>".  0, or -errno with
 * *err (malloc'd, one line). */
int work_pool_start(struct work_pool *p, unsigned n, const char *name, char **err);
/* Runs what is queued, then joins the workers.  No queue may be pushed to
 * any more. */
void work_pool_stop(struct work_pool *p);

/* A queue of p whose items run through run(), at most cap (>= 1) at once. */
void work_queue_init(struct work_queue *q, struct work_pool *p, unsigned cap, work_run_fn run);
/* Appends it.  wake: signal a worker if none is free to take it; false
 * (a transport batch): work_pool_kick follows. */
void work_queue_push(struct work_queue *q, struct work_item *it, bool wake);
/* End of a batch of pushes without wake: one worker if none is free, more
 * only for more than per_free queued items per free worker. */
void work_pool_kick(struct work_pool *p, unsigned per_free);
/* Removes the queued (not yet started) items for which match() is true
 * and returns them, in queue order, linked by next. */
struct work_item *work_queue_take_if(struct work_queue *q, bool (*match)(const struct work_item *it, void *ctx),
				     void *ctx);
/* Waits until q has nothing queued and nothing running (never call it
 * from a worker).  Afterwards q may be freed, provided nobody pushes. */
void work_queue_drain(struct work_queue *q);

#endif
