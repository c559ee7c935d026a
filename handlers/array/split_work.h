/* split_work.h — run the pieces of one large command on several cores.
 *
 * A large WRITE's whole blocks are fingerprinted, looked up and copied one
 * after another, lock-free (volume_io.c prestore).  At queue depth 1 a single
 * thread did all of it while the other cores sat idle: a 4 MiB write of
 * unique data at 4 KiB blocks took 3.5 ms of one core on this project's
 * 2-core machines, more than the fa420 model leaves for it.  split_run hands
 * the pieces to a small process-wide pool of helper threads and works on them
 * itself too; pieces are claimed one at a time, so when the helpers are busy
 * (many commands in flight, no idle core) the caller simply does them all and
 * nothing waits on a helper that never comes. */
#ifndef LUNLAB_SPLIT_WORK_H
#define LUNLAB_SPLIT_WORK_H

#include <pthread.h>

/* How many pieces are worth making at most: the online cores (1: no helpers,
 * split_run runs every piece in the caller). */
unsigned split_width(void);

/* Run fn(arg, i) for every i in [0, n), each exactly once, the caller's
 * thread among those running them; returns when all n have returned.  fn
 * must be safe to run concurrently for different i. */
void split_run(unsigned n, void (*fn)(void *arg, unsigned piece), void *arg);

/* A job whose pieces helpers may start before its owner waits for it
 * (split_post): a WRITE's blocks stored while the rest of its data is still
 * on the wire.  Its fields are the pool's; the owner keeps it alive (and
 * does not move it) from split_post until split_join returns. */
struct split_job {
	void (*fn)(void *arg, unsigned piece);
	void *arg;
	unsigned n;
	unsigned next;          /* next piece to claim */
	unsigned finished;      /* pieces returned */
	unsigned users;         /* helpers running one of its pieces */
	pthread_cond_t done;    /* finished == n and users == 0 */
	struct split_job *link; /* in the pool's queue while pieces are left */
};

/* Queue fn(arg, i) for i in [0, n) for the helpers and return at once,
 * without running any piece here.  Without helpers (one core, a forked
 * child) nothing runs until split_join. */
void split_post(struct split_job *j, unsigned n, void (*fn)(void *arg, unsigned piece), void *arg);

/* Run the pieces of j no helper has claimed yet on this thread, then wait
 * for those a helper is running; afterwards every piece has returned and
 * the pool no longer refers to j. */
void split_join(struct split_job *j);

#endif
