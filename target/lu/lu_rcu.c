/* lu_rcu.c — see lu_rcu.h.  Each registered thread publishes the grace
 * period counter it last saw while quiescent (0: offline); a writer starts
 * a new period and waits until each thread is offline or has seen it. */
#include "target/lu/lu_rcu.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

struct rcu_reader {
	_Atomic uint64_t seen;       /* grace period seen when last quiescent; 0 offline */
	struct rcu_reader *next;
};

static pthread_mutex_t readers_lock = PTHREAD_MUTEX_INITIALIZER; /* the list; writers */
static struct rcu_reader *readers;
static _Atomic uint64_t period = 1;
static _Thread_local struct rcu_reader *me;

void lu_rcu_register(void)
{
	if (me)
		return;
	me = calloc(1, sizeof(*me));
	if (!me)
		abort(); /* a reader the writers cannot see would read freed memory */
	atomic_store(&me->seen, atomic_load(&period));
	pthread_mutex_lock(&readers_lock);
	me->next = readers;
	readers = me;
	pthread_mutex_unlock(&readers_lock);
}

void lu_rcu_unregister(void)
{
	if (!me)
		return;
	atomic_store(&me->seen, 0); /* offline first: a writer waiting holds the list lock */
	pthread_mutex_lock(&readers_lock);
	for (struct rcu_reader **pp = &readers; *pp; pp = &(*pp)->next) {
		if (*pp == me) {
			*pp = me->next;
			break;
		}
	}
	pthread_mutex_unlock(&readers_lock);
	free(me);
	me = NULL;
}

void lu_rcu_quiescent(void)
{
	if (me)
		atomic_store(&me->seen, atomic_load(&period));
}

void lu_rcu_offline(void)
{
	if (me)
		atomic_store(&me->seen, 0);
}

void lu_rcu_online(void)
{
	if (me)
		atomic_store(&me->seen, atomic_load(&period));
}

void lu_rcu_synchronize(void)
{
	uint64_t p = atomic_fetch_add(&period, 1) + 1;
	struct timespec nap = { 0, 50000 };

	/* the list lock also keeps threads from leaving while we look at them */
	pthread_mutex_lock(&readers_lock);
	for (struct rcu_reader *r = readers; r; r = r->next) {
		for (;;) {
			uint64_t s = atomic_load(&r->seen);
			if (s == 0 || s >= p)
				break;
			nanosleep(&nap, NULL);
		}
	}
	pthread_mutex_unlock(&readers_lock);
}
