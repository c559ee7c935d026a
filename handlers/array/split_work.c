/* split_work.c — the helper pool behind split_run (split_work.h).
 *
 * One process-wide pool, started on first use: one helper per online core
 * beyond the caller's (at most SPLIT_MAX_HELPERS), at normal priority, since
 * the work is on a command's path.  Jobs wait in a FIFO; helpers and the
 * caller claim pieces under one mutex, a trip per piece (pieces are hundreds
 * of microseconds of work, the lock a fraction of one).  A job lives on its
 * caller's stack: the caller returns only once every piece has returned and
 * no helper still holds the job. */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <unistd.h>

#include "handlers/array/split_work.h"

#define SPLIT_MAX_HELPERS 3

static struct {
	pthread_mutex_t mu;     /* everything below, and every job's counters */
	pthread_cond_t work;    /* helpers wait here for a job */
	struct split_job *queue;
	unsigned nhelpers;
} pool = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0 };

static pthread_once_t start_once = PTHREAD_ONCE_INIT;

static void unlink_job(struct split_job *j)
{
	for (struct split_job **p = &pool.queue; *p; p = &(*p)->link)
		if (*p == j) {
			*p = j->link;
			j->link = NULL;
			return;
		}
}

/* Claim the next piece of j (pool.mu held); a job with none left leaves the
 * queue so nobody looks at it again. */
static bool claim(struct split_job *j, unsigned *piece)
{
	if (j->next >= j->n)
		return false;
	*piece = j->next++;
	if (j->next == j->n)
		unlink_job(j);
	return true;
}

static void *helper(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "lunlab-split");
	pthread_mutex_lock(&pool.mu);
	for (;;) {
		struct split_job *j = pool.queue;
		unsigned piece;
		if (!j) {
			pthread_cond_wait(&pool.work, &pool.mu);
			continue;
		}
		if (!claim(j, &piece)) {
			unlink_job(j); /* (never queued without pieces; be sure) */
			continue;
		}
		j->users++;
		pthread_mutex_unlock(&pool.mu);
		j->fn(j->arg, piece);
		pthread_mutex_lock(&pool.mu);
		j->finished++;
		if (--j->users == 0 && j->finished == j->n)
			pthread_cond_signal(&j->done);
	}
	return NULL;
}

/* fork (the crash tests fork a writer): the child has none of the helper
 * threads, so it runs every piece itself; the pool's lock is taken across the
 * fork so the child never inherits it held by a helper. */
static void before_fork(void) { pthread_mutex_lock(&pool.mu); }
static void after_fork_parent(void) { pthread_mutex_unlock(&pool.mu); }
static void after_fork_child(void)
{
	pool.nhelpers = 0;
	pool.queue = NULL;
	pthread_mutex_unlock(&pool.mu);
}

static void start(void)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned want = cores > 1 ? (unsigned)(cores - 1) : 0;
	if (want > SPLIT_MAX_HELPERS)
		want = SPLIT_MAX_HELPERS;
	if (pthread_atfork(before_fork, after_fork_parent, after_fork_child))
		return; /* no helpers: split_run runs everything in the caller */
	/* signals stay with the threads that handle them (lunlab-target's
	 * main thread, tcmu-runner's) */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_mutex_lock(&pool.mu);
	for (unsigned i = 0; i < want; i++) {
		pthread_t t;
		if (pthread_create(&t, &at, helper, NULL))
			break;
		pool.nhelpers++;
	}
	pthread_mutex_unlock(&pool.mu);
	pthread_attr_destroy(&at);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

unsigned split_width(void)
{
	pthread_once(&start_once, start);
	pthread_mutex_lock(&pool.mu);
	unsigned w = pool.nhelpers + 1;
	pthread_mutex_unlock(&pool.mu);
	return w;
}

/* Queue j (pool.mu held) and wake as many helpers as it has pieces for
 * them beyond the `own` the caller will run itself. */
static void enqueue(struct split_job *j, unsigned own)
{
	struct split_job **tail = &pool.queue;
	while (*tail)
		tail = &(*tail)->link;
	*tail = j;
	for (unsigned i = own; i < j->n && i - own < pool.nhelpers; i++)
		pthread_cond_signal(&pool.work);
}

/* Run the unclaimed pieces of j here, then wait for the helpers' (pool.mu
 * held on entry and on return). */
static void run_and_wait(struct split_job *j)
{
	unsigned piece;
	while (claim(j, &piece)) {
		pthread_mutex_unlock(&pool.mu);
		j->fn(j->arg, piece);
		pthread_mutex_lock(&pool.mu);
		j->finished++;
	}
	while (j->finished < j->n || j->users)
		pthread_cond_wait(&j->done, &pool.mu);
}

void split_run(unsigned n, void (*fn)(void *arg, unsigned piece), void *arg)
{
	if (n <= 1 || split_width() <= 1) {
		for (unsigned i = 0; i < n; i++)
			fn(arg, i);
		return;
	}
	struct split_job j = { .fn = fn, .arg = arg, .n = n };
	pthread_cond_init(&j.done, NULL);
	pthread_mutex_lock(&pool.mu);
	enqueue(&j, 1);
	run_and_wait(&j);
	pthread_mutex_unlock(&pool.mu);
	pthread_cond_destroy(&j.done);
}

void split_post(struct split_job *j, unsigned n, void (*fn)(void *arg, unsigned piece), void *arg)
{
	*j = (struct split_job){ .fn = fn, .arg = arg, .n = n };
	pthread_cond_init(&j->done, NULL);
	if (!n || split_width() <= 1)
		return; /* no helpers: split_join runs them */
	pthread_mutex_lock(&pool.mu);
	enqueue(j, 0);
	pthread_mutex_unlock(&pool.mu);
}

void split_join(struct split_job *j)
{
	/* a job never queued (no helpers) has all its pieces left to claim */
	pthread_mutex_lock(&pool.mu);
	run_and_wait(j);
	pthread_mutex_unlock(&pool.mu);
	pthread_cond_destroy(&j->done);
}
