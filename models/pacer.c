/* pacer.c — one timer thread per process holding completions until their deadline.
 *
 * A min-heap of (deadline, sequence) under one mutex; the thread sleeps until the
 * earliest deadline with pthread_cond_timedwait on a CLOCK_MONOTONIC condition
 * variable — an absolute monotonic sleep like clock_nanosleep(TIMER_ABSTIME), but
 * one that an earlier deadline scheduled meanwhile can cut short.  Callbacks run on
 * the pacer thread, without the lock, in deadline order (equal deadlines: in the
 * order they were scheduled).  The thread starts with the first pacer_schedule. */
#include "models/pacer.h"

#include <pthread.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <time.h>

struct timer {
	uint64_t deadline;
	uint64_t seq;
	void (*fn)(void *);
	void *arg;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct timer *heap;
static size_t len, cap;
static uint64_t next_seq;
static int start_error;

uint64_t pacer_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int before(const struct timer *a, const struct timer *b)
{
	return a->deadline < b->deadline || (a->deadline == b->deadline && a->seq < b->seq);
}

static void swap(size_t i, size_t j)
{
	struct timer t = heap[i];
	heap[i] = heap[j];
	heap[j] = t;
}

static void sift_up(size_t i)
{
	while (i > 0 && before(&heap[i], &heap[(i - 1) / 2])) {
		swap(i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void sift_down(size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < len && before(&heap[l], &heap[m]))
			m = l;
		if (r < len && before(&heap[r], &heap[m]))
			m = r;
		if (m == i)
			return;
		swap(i, m);
		i = m;
	}
}

/* Grow the heap; on failure the old one stays valid.  Caller holds the lock. */
static struct timer *realloc_heap(void)
{
	size_t ncap = cap ? cap * 2 : 256;
	struct timer *n = realloc(heap, ncap * sizeof(*n));
	if (!n)
		return NULL;
	cap = ncap;
	return n;
}

static void *pacer_main(void *unused)
{
	(void)unused;
	/* A timed sleep ends up to the thread's timer slack late (50 us by
	 * default, for wake-ups the kernel may batch): every paced command
	 * would complete that much after its modeled time. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	pthread_mutex_lock(&lock);
	for (;;) {
		if (len == 0) {
			pthread_cond_wait(&wake, &lock);
			continue;
		}
		uint64_t now = pacer_now_ns();
		if (heap[0].deadline > now) {
			struct timespec ts = { .tv_sec = (time_t)(heap[0].deadline / 1000000000ull),
					       .tv_nsec = (long)(heap[0].deadline % 1000000000ull) };
			pthread_cond_timedwait(&wake, &lock, &ts);
			continue; /* re-check: woken early, or a new earlier deadline */
		}
		struct timer t = heap[0];
		heap[0] = heap[--len];
		sift_down(0);
		pthread_mutex_unlock(&lock);
		t.fn(t.arg);
		pthread_mutex_lock(&lock);
	}
	return NULL;
}

static void start(void)
{
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&wake, &ca);
	pthread_condattr_destroy(&ca);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_t th;
	start_error = pthread_create(&th, &attr, pacer_main, NULL);
	pthread_attr_destroy(&attr);
	if (start_error)
		fprintf(stderr, "pacer: cannot start the timer thread (error %d): completions run inline\n",
			start_error);
}

void pacer_schedule(uint64_t deadline_ns, void (*fn)(void *arg), void *arg)
{
	pthread_once(&once, start);
	pthread_mutex_lock(&lock);
	struct timer *grown = NULL;
	if (!start_error && len == cap && (grown = realloc_heap()))
		heap = grown;
	if (start_error || len == cap) {
		pthread_mutex_unlock(&lock);
		fn(arg); /* never lose a completion: late is better than never */
		return;
	}
	heap[len] = (struct timer){ deadline_ns, next_seq++, fn, arg };
	sift_up(len++);
	if (heap[0].seq == next_seq - 1)
		pthread_cond_signal(&wake); /* the new timer is the earliest */
	pthread_mutex_unlock(&lock);
}
