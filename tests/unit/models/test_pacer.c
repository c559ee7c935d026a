/* test_pacer.c — the pacer fires every callback, never before its deadline, in deadline
 * order (ties in scheduling order), from any number of scheduling threads; an earlier
 * deadline scheduled later still fires first.  The machine is shared, so nothing here
 * asserts how late a callback may be, only order and "not early"; an order is asserted only
 * where it holds whatever the machine did (events all scheduled before any was due), and
 * waits have no limit of their own (meson's timeout is the hang guard). */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <cmocka.h>

#include "models/pacer.h"

#define MS 1000000ull

struct rec {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned fired;
	uint64_t deadline[512];
	uint64_t at[512];
	unsigned tag[512];
};

struct ev {
	struct rec *rec;
	uint64_t deadline;
	unsigned tag;
};

static void on_fire(void *arg)
{
	struct ev *e = arg;
	uint64_t now = pacer_now_ns();
	pthread_mutex_lock(&e->rec->mu);
	unsigned i = e->rec->fired++;
	e->rec->deadline[i] = e->deadline;
	e->rec->at[i] = now;
	e->rec->tag[i] = e->tag;
	pthread_cond_broadcast(&e->rec->cv);
	pthread_mutex_unlock(&e->rec->mu);
}

static void rec_init(struct rec *r)
{
	*r = (struct rec){ .fired = 0 };
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
}

/* Wait until n callbacks have fired (callbacks that never fire end the test on meson's
 * timeout: a limit here would race a loaded machine). */
static unsigned wait_fired(struct rec *r, unsigned n)
{
	pthread_mutex_lock(&r->mu);
	while (r->fired < n) {
		pthread_mutex_unlock(&r->mu);
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
		pthread_mutex_lock(&r->mu);
	}
	unsigned f = r->fired;
	pthread_mutex_unlock(&r->mu);
	return f;
}

static void ordered_and_never_early(void **state)
{
	(void)state;
	static struct rec r;
	static struct ev ev[100];
	rec_init(&r);
	uint64_t base = pacer_now_ns() + 20 * MS;
	srand(7);
	for (unsigned i = 0; i < 100; i++) {
		/* shuffled deadlines over 0..60 ms, scheduled in arbitrary order */
		ev[i] = (struct ev){ &r, base + (uint64_t)(rand() % 60000) * 1000, i };
		pacer_schedule(ev[i].deadline, on_fire, &ev[i]);
	}
	/* deadline order holds for events that were all waiting together: when this thread
	 * was held up past the first deadline while scheduling, one due early rightly fired
	 * before a smaller deadline was scheduled */
	bool together = pacer_now_ns() < base;
	assert_int_equal(wait_fired(&r, 100), 100);
	for (unsigned i = 0; i < 100; i++) {
		assert_true(r.at[i] >= r.deadline[i]);
		if (i && together)
			assert_true(r.deadline[i] >= r.deadline[i - 1]);
	}
}

static void ties_fire_in_scheduling_order(void **state)
{
	(void)state;
	static struct rec r;
	static struct ev ev[50];
	rec_init(&r);
	uint64_t d = pacer_now_ns() + 10 * MS;
	for (unsigned i = 0; i < 50; i++) {
		ev[i] = (struct ev){ &r, d, i };
		pacer_schedule(d, on_fire, &ev[i]);
	}
	assert_int_equal(wait_fired(&r, 50), 50);
	for (unsigned i = 0; i < 50; i++)
		assert_int_equal(r.tag[i], i);
}

static void earlier_deadline_scheduled_later(void **state)
{
	(void)state;
	static struct rec r;
	static struct ev late, early;
	rec_init(&r);
	uint64_t now = pacer_now_ns();
	/* the late deadline an hour away: a pacer that slept until it, not woken for the early
	 * one, would hold the early callback for an hour (the test ends on meson's timeout);
	 * "before 400 ms" used to stand for that, which a stalled pacer thread can exceed.  The
	 * late event stays queued until the process exits. */
	late = (struct ev){ &r, now + 3600000 * MS, 1 };
	early = (struct ev){ &r, now + 20 * MS, 2 };
	pacer_schedule(late.deadline, on_fire, &late);
	pacer_schedule(early.deadline, on_fire, &early);
	assert_int_equal(wait_fired(&r, 1), 1);
	assert_int_equal(r.tag[0], 2);
	assert_true(r.at[0] < late.deadline);
	assert_true(r.at[0] >= early.deadline);
}

static void past_deadline_fires(void **state)
{
	(void)state;
	static struct rec r;
	static struct ev e;
	rec_init(&r);
	e = (struct ev){ &r, 1, 0 }; /* long gone */
	pacer_schedule(e.deadline, on_fire, &e);
	assert_int_equal(wait_fired(&r, 1), 1);
}

static struct rec mt_rec;
static struct ev mt_ev[4][100];

static void *scheduler_main(void *arg)
{
	unsigned t = (unsigned)(uintptr_t)arg;
	for (unsigned i = 0; i < 100; i++) {
		mt_ev[t][i] = (struct ev){ &mt_rec, pacer_now_ns() + (uint64_t)((i * 7 + t) % 30) * MS, t * 100 + i };
		pacer_schedule(mt_ev[t][i].deadline, on_fire, &mt_ev[t][i]);
	}
	return NULL;
}

static void many_threads_schedule(void **state)
{
	(void)state;
	rec_init(&mt_rec);
	pthread_t th[4];
	for (unsigned t = 0; t < 4; t++)
		assert_int_equal(pthread_create(&th[t], NULL, scheduler_main, (void *)(uintptr_t)t), 0);
	for (unsigned t = 0; t < 4; t++)
		pthread_join(th[t], NULL);
	assert_int_equal(wait_fired(&mt_rec, 400), 400);
	unsigned seen[400] = { 0 };
	for (unsigned i = 0; i < 400; i++) {
		seen[mt_rec.tag[i]]++;
		assert_true(mt_rec.at[i] >= mt_rec.deadline[i]);
	}
	for (unsigned i = 0; i < 400; i++)
		assert_int_equal(seen[i], 1); /* each exactly once */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ordered_and_never_early),
		cmocka_unit_test(ties_fire_in_scheduling_order),
		cmocka_unit_test(earlier_deadline_scheduled_later),
		cmocka_unit_test(past_deadline_fires),
		cmocka_unit_test(many_threads_schedule),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
