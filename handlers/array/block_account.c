/* block_account.c — background accounting (block_account.h): one process-wide
 * pool of worker threads, one per online CPU (at most ACCT_MAX_WORKERS), at
 * the lowest scheduling priority (SCHED_IDLE, else nice 19), so they use
 * cores the data path leaves idle.  Each attached block store is a source of work: when a new
 * block enters a store's backlog the store runs acct_kick once, a worker
 * takes the store's pending blocks in batches, compresses each (zlib, the
 * array's level and window: block_compress.c) outside every lock, and posts
 * the sizes back; while blocks keep coming it looks again every 5 ms rather
 * than being woken by each write.  A block freed before it was accounted is dropped by the
 * store.  Whoever needs exact figures calls acct_drain, which works through
 * the backlog in its own thread too, so it does not depend on how much idle
 * time the workers get. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "handlers/array/block_account.h"
#include "handlers/array/block_compress.h"
#include "handlers/array/block_store.h"

#define ACCT_MAX_WORKERS 8
#define ACCT_BATCH 32      /* blocks per bs_acct_take: one shard lock trip each way */
#define ACCT_NICE 19
#define ACCT_POLL_NS 5000000L /* how soon a busy store is looked at again */
/* While new blocks keep arriving a worker accounts one batch per
 * ACCT_YIELD_NS (at most 1,600 blocks a second per worker), until the
 * backlog reaches ACCT_BACKLOG_MAX blocks or its worst case the array's
 * headroom (acct_params.headroom); then, and whenever writes of new data
 * pause, at full speed. */
#define ACCT_YIELD_NS 20000000L
#define ACCT_BACKLOG_MAX (1u << 20)

struct acct_entry {
	struct block_store *bs;
	struct acct_params p;
	bool has_work;             /* kicked since a worker last started on it (pool.mu) */
	int busy;                  /* workers working on it now (pool.mu) */
	atomic_bool leaving;       /* acct_detach: stop after the batch in hand */
	struct acct_entry *next;
};

static struct {
	pthread_mutex_t mu;        /* the list, has_work, busy, stop */
	pthread_cond_t work;       /* workers wait here for a kick */
	pthread_cond_t idle;       /* acct_detach waits here for busy == 0 */
	struct acct_entry *list;
	bool stop;
	unsigned nthreads;
	pthread_t threads[ACCT_MAX_WORKERS];
} pool = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, false, 0, { 0 } };

/* attach and detach (thread start and stop) one at a time */
static pthread_mutex_t life_mu = PTHREAD_MUTEX_INITIALIZER;

static void account_jobs(const struct acct_params *p, struct block_store *bs, struct bs_acct_job *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		jobs[i].csize = compressed_size(p->zlib_level, p->zlib_window_bits, jobs[i].data, bs->block);
	bs_acct_done(bs, jobs, n);
}

static void nap(long ns)
{
	struct timespec ts = { 0, ns };
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Whether a worker should hold back from e's store for now: new blocks
 * arrived since it last looked (*seen), and neither the backlog's size nor
 * the array's headroom calls for exact figures.  Even in the idle class
 * (below) a worker compressing beside the data path cost it: 4 KiB random
 * unique writes at QD32 ran 36-44k IOPS with the workers busy and 49-59k with
 * them held back (profile unlimited, the 2-core machine; zlib's tables and
 * the blocks it reads push the I/O threads' data out of the caches). */
bool acct_hold_back(uint64_t arrived, uint64_t pending, uint64_t headroom, uint32_t block)
{
	return arrived && pending < ACCT_BACKLOG_MAX && headroom / block > pending;
}

static bool hold_back(struct acct_entry *e, uint64_t *seen)
{
	uint64_t a = bs_arrivals(e->bs), arrived = a - *seen;
	*seen = a;
	if (!arrived)
		return false;
	return acct_hold_back(arrived, bs_backlog(e->bs), e->p.headroom ? e->p.headroom(e->p.ctx) : UINT64_MAX,
			      e->bs->block);
}

/* Work through bs's backlog until it is empty (or only other threads'
 * batches remain).  seen: NULL works at full speed (acct_drain), else the
 * worker's last look at the store's arrivals (hold_back). */
static void work_through(struct acct_entry *e, uint64_t *seen)
{
	struct bs_acct_job jobs[ACCT_BATCH];
	size_t n;

	while (!atomic_load_explicit(&e->leaving, memory_order_relaxed) &&
	       (n = bs_acct_take(e->bs, jobs, ACCT_BATCH)) != 0) {
		account_jobs(&e->p, e->bs, jobs, n);
		if (seen && hold_back(e, seen))
			nap(ACCT_YIELD_NS);
	}
}

/* The store's notification: a block entered its backlog. */
static void acct_kick(void *ctx)
{
	struct acct_entry *e = ctx;

	pthread_mutex_lock(&pool.mu);
	e->has_work = true;
	pthread_cond_signal(&pool.work);
	pthread_mutex_unlock(&pool.mu);
}

static void *worker(void *arg)
{
	(void)arg;
	/* Linux: nice is per thread.  Raising it needs no privilege. */
	pid_t tid = (pid_t)syscall(SYS_gettid);
	setpriority(PRIO_PROCESS, (id_t)tid, ACCT_NICE);
	/* SCHED_IDLE on top (Linux; lowering a thread's policy needs no
	 * privilege): a nice-19 thread still takes a share of a core from a
	 * data-path thread that wakes, and on 2 cores that cost 4 KiB random
	 * writes a third of their rate (docs/accounting.md "Scheduling"); an
	 * idle-class thread is preempted at once.  If refused, nice 19 stays. */
	struct sched_param sp = { 0 };
	(void)sched_setscheduler(tid, SCHED_IDLE, &sp);
	pthread_setname_np(pthread_self(), "lunlab-acct");
	pthread_mutex_lock(&pool.mu);
	while (!pool.stop) {
		struct acct_entry **pe = &pool.list, *e;
		while (*pe && !(*pe)->has_work)
			pe = &(*pe)->next;
		if (!(e = *pe)) {
			pthread_cond_wait(&pool.work, &pool.mu);
			continue;
		}
		/* to the end of the list: arrays with work take turns */
		*pe = e->next;
		e->next = NULL;
		for (pe = &pool.list; *pe; pe = &(*pe)->next)
			;
		*pe = e;
		e->has_work = false;
		e->busy++;
		pthread_mutex_unlock(&pool.mu);
		/* While blocks keep coming, look again every ACCT_POLL_NS instead of
		 * rearming the store's notification: a write then never pays for
		 * waking a worker (a futex wake-up per write, measured at 4 KiB).
		 * Only once a look finds nothing is the notification rearmed. */
		uint64_t seen = bs_arrivals(e->bs);
		for (;;) {
			work_through(e, &seen);
			/* acct_detach: the backlog stays as it is, so stop looking */
			if (atomic_load_explicit(&e->leaving, memory_order_relaxed))
				break;
			if (!bs_backlog(e->bs)) {
				nap(ACCT_POLL_NS);
				if (!bs_backlog(e->bs))
					break;
			}
		}
		bs_acct_rearm(e->bs);
		/* blocks that came between the last look and the rearm kicked nobody */
		work_through(e, &seen);
		pthread_mutex_lock(&pool.mu);
		if (--e->busy == 0)
			pthread_cond_broadcast(&pool.idle);
	}
	pthread_mutex_unlock(&pool.mu);
	return NULL;
}

static unsigned wanted_workers(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		n = 1;
	return n > ACCT_MAX_WORKERS ? ACCT_MAX_WORKERS : (unsigned)n;
}

/* Under life_mu. */
static int start_workers(void)
{
	sigset_t all, old;
	unsigned want = wanted_workers();

	/* workers take no signals: the host (lunlab-target's signalfd,
	 * tcmu-runner) expects them in its own threads */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pool.stop = false;
	while (pool.nthreads < want && pthread_create(&pool.threads[pool.nthreads], NULL, worker, NULL) == 0)
		pool.nthreads++;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return pool.nthreads ? 0 : -ENOMEM;
}

/* Under life_mu, with no store attached. */
static void stop_workers(void)
{
	pthread_mutex_lock(&pool.mu);
	pool.stop = true;
	pthread_cond_broadcast(&pool.work);
	pthread_mutex_unlock(&pool.mu);
	for (unsigned i = 0; i < pool.nthreads; i++)
		pthread_join(pool.threads[i], NULL);
	pool.nthreads = 0;
	pool.stop = false;
}

int acct_attach(struct block_store *bs, const struct acct_params *p)
{
	struct acct_entry *e = calloc(1, sizeof(*e));

	if (!e)
		return -ENOMEM;
	e->bs = bs;
	e->p = *p;
	pthread_mutex_lock(&life_mu);
	if (!pool.nthreads && start_workers()) {
		pthread_mutex_unlock(&life_mu);
		free(e);
		return -ENOMEM;
	}
	pthread_mutex_lock(&pool.mu);
	e->next = pool.list;
	pool.list = e;
	pthread_mutex_unlock(&pool.mu);
	bs_set_backlog_notify(bs, acct_kick, e);
	pthread_mutex_unlock(&life_mu);
	if (bs_backlog(bs))
		acct_kick(e);
	return 0;
}

void acct_detach(struct block_store *bs)
{
	struct acct_entry *e = NULL;

	pthread_mutex_lock(&life_mu);
	pthread_mutex_lock(&pool.mu);
	for (struct acct_entry **pp = &pool.list; *pp; pp = &(*pp)->next)
		if ((*pp)->bs == bs) {
			e = *pp;
			*pp = e->next;
			break;
		}
	/* what is still pending stays pending (a state directory keeps it so;
	 * the next start accounts it): a stop does not wait for the backlog */
	if (e)
		atomic_store(&e->leaving, true);
	while (e && e->busy)
		pthread_cond_wait(&pool.idle, &pool.mu);
	bool last = !pool.list;
	pthread_mutex_unlock(&pool.mu);
	if (e) {
		bs_set_backlog_notify(bs, NULL, NULL);
		free(e);
	}
	if (last && pool.nthreads)
		stop_workers();
	pthread_mutex_unlock(&life_mu);
}

void acct_drain(struct block_store *bs)
{
	struct acct_entry *e = NULL, self;

	pthread_mutex_lock(&pool.mu);
	for (e = pool.list; e && e->bs != bs; e = e->next)
		;
	if (e)
		self = *e;
	pthread_mutex_unlock(&pool.mu);
	if (!e)
		return; /* not accounted here: nothing will drain */
	self.bs = bs;
	while (bs_backlog(bs)) {
		work_through(&self, NULL);
		/* what is left is in other threads' batches: wait for them */
		if (bs_backlog(bs))
			bs_wait_drained(bs, 5);
	}
}

unsigned acct_workers(void)
{
	pthread_mutex_lock(&life_mu);
	unsigned n = pool.nthreads;
	pthread_mutex_unlock(&life_mu);
	return n;
}
