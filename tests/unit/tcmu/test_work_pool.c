/* test_work_pool.c — the host's shared worker pool (target/tcmu/work_pool.h):
 * more queues (LUs) than threads all complete, a queue's items are taken in
 * push order (and run in it with cap 1), a queue never runs more than its
 * cap at once, a queue with a long backlog or with every item it may run
 * blocked does not starve another, take_if hands back exactly the matching
 * queued items; and through the host with the test handler: devices share
 * the pool, so creating 30 LUs starts no thread of their own.
 * No timing figures: blocked items wait on gates the test opens. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "target/tcmu/work_pool.h"
#include "target/tcmu/host.h"
#include "tcmu_test_util.h"
#include "hosttest_group.h"

/* ---- a test item: which queue, its number there, and an optional gate ---- */

struct gate {
	pthread_mutex_t m;
	pthread_cond_t c;
	bool open;
};

static void gate_init(struct gate *g)
{
	pthread_mutex_init(&g->m, NULL);
	pthread_cond_init(&g->c, NULL);
	g->open = false;
}

static void gate_open(struct gate *g)
{
	pthread_mutex_lock(&g->m);
	g->open = true;
	pthread_cond_broadcast(&g->c);
	pthread_mutex_unlock(&g->m);
}

static void gate_pass(struct gate *g)
{
	pthread_mutex_lock(&g->m);
	while (!g->open)
		pthread_cond_wait(&g->c, &g->m);
	pthread_mutex_unlock(&g->m);
}

struct tq {                        /* one queue (an LU) and what its items saw */
	struct work_queue q;
	int id;
	atomic_int running, most_running, done;
	int order[256];                /* item numbers in the order they ran (cap 1) */
	atomic_int ran;
};

struct titem {
	struct work_item it;
	struct tq *tq;
	int seq;
	struct gate *gate;             /* NULL: no wait */
	atomic_int *entered;           /* counted on entry, when set */
};

/* the order items of all queues ran in, for the single-thread pools */
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static int run_log[4096][2];
static int run_log_n;

static void trun(struct work_queue *q, struct work_item *w)
{
	struct tq *tq = (struct tq *)q;    /* q is the first member */
	struct titem *ti = (struct titem *)w;
	int now = atomic_fetch_add(&tq->running, 1) + 1;
	int most = atomic_load(&tq->most_running);

	while (now > most && !atomic_compare_exchange_weak(&tq->most_running, &most, now))
		;
	int k = atomic_fetch_add(&tq->ran, 1);

	if (k < 256)
		tq->order[k] = ti->seq;
	pthread_mutex_lock(&log_mu);
	if (run_log_n < 4096) {
		run_log[run_log_n][0] = tq->id;
		run_log[run_log_n][1] = ti->seq;
		run_log_n++;
	}
	pthread_mutex_unlock(&log_mu);
	if (ti->entered)
		atomic_fetch_add(ti->entered, 1);
	if (ti->gate)
		gate_pass(ti->gate);
	atomic_fetch_sub(&tq->running, 1);
	atomic_fetch_add(&tq->done, 1);
}

static struct titem *titem_new(struct tq *tq, int seq, struct gate *g, atomic_int *entered)
{
	struct titem *ti = calloc(1, sizeof(*ti));

	assert_non_null(ti);
	ti->tq = tq;
	ti->seq = seq;
	ti->gate = g;
	ti->entered = entered;
	return ti;
}

static void tq_init(struct tq *tq, struct work_pool *p, int id, unsigned cap)
{
	memset(tq, 0, sizeof(*tq));
	tq->id = id;
	work_queue_init(&tq->q, p, cap, trun);
}

/* Waits (no deadline: a starved queue hangs the test, which meson's
 * timeout then fails) until *v reaches want. */
static void wait_for(atomic_int *v, int want)
{
	while (atomic_load(v) < want) {
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
	}
}

/* Items are freed after the test (the pool never frees them). */
static struct titem *items[8192];
static int nitems;

static struct titem *push(struct tq *tq, int seq, struct gate *g, atomic_int *entered, bool wake)
{
	struct titem *ti = titem_new(tq, seq, g, entered);

	assert_true(nitems < 8192);
	items[nitems++] = ti;
	work_queue_push(&tq->q, &ti->it, wake);
	return ti;
}

static void free_items(void)
{
	for (int i = 0; i < nitems; i++)
		free(items[i]);
	nitems = 0;
}

/* ---- the pool alone ---- */

/* 3 threads, 40 queues of 50 items: all run exactly once; cap-1 queues
 * ran their items in push order; none ever ran more than its cap. */
static void test_more_queues_than_threads(void **state)
{
	enum { Q = 40, N = 50 };
	struct work_pool p;
	static struct tq tq[Q];
	char *err = NULL;

	(void)state;
	assert_int_equal(work_pool_start(&p, 3, "tp", &err), 0);
	for (int i = 0; i < Q; i++)
		tq_init(&tq[i], &p, i, i % 2 ? 2 : 1);
	/* interleaved, half with wake-ups, half as transport batches + kick */
	for (int s = 0; s < N; s++) {
		for (int i = 0; i < Q; i++)
			push(&tq[i], s, NULL, NULL, s % 2 == 0);
		work_pool_kick(&p, 8);
	}
	for (int i = 0; i < Q; i++)
		work_queue_drain(&tq[i].q);
	for (int i = 0; i < Q; i++) {
		assert_int_equal(atomic_load(&tq[i].done), N);
		assert_int_equal(atomic_load(&tq[i].ran), N);
		assert_true(atomic_load(&tq[i].most_running) <= (i % 2 ? 2 : 1));
		if (i % 2 == 0)
			for (int s = 0; s < N; s++)
				assert_int_equal(tq[i].order[s], s);
	}
	work_pool_stop(&p);
	free_items();
}

/* One thread makes the turns exact: a queue's backlog of 100 does not go
 * before another queue's single item, which runs after at most one item
 * of the busy queue (cap 1: right after the blocked one; cap 2: after one
 * more, which was ready before it). */
static void turns(unsigned cap, int b_pos)
{
	struct work_pool p;
	static struct tq a, b;
	struct gate g;
	atomic_int entered = 0;
	char *err = NULL;

	gate_init(&g);
	run_log_n = 0;
	assert_int_equal(work_pool_start(&p, 1, "tp", &err), 0);
	tq_init(&a, &p, 1, cap);
	tq_init(&b, &p, 2, cap);
	push(&a, 0, &g, &entered, true);
	wait_for(&entered, 1); /* the only worker is inside a's first item */
	for (int s = 1; s <= 100; s++)
		push(&a, s, NULL, NULL, true);
	push(&b, 0, NULL, NULL, true);
	gate_open(&g);
	work_queue_drain(&a.q);
	work_queue_drain(&b.q);
	assert_int_equal(run_log_n, 102);
	for (int i = 0; i < 102; i++)
		if (run_log[i][0] == 2)
			assert_int_equal(i, b_pos);
	/* and a's items still in push order around it */
	for (int s = 0; s <= 100; s++)
		assert_int_equal(a.order[s], s);
	work_pool_stop(&p);
	free_items();
}

static void test_backlog_does_not_starve_cap1(void **state)
{
	(void)state;
	turns(1, 1);
}

static void test_backlog_does_not_starve_cap2(void **state)
{
	(void)state;
	turns(2, 2);
}

/* 4 threads; a hog queue (cap 3) whose running items all block, with 500
 * more queued: another queue's 20 items all complete meanwhile, and the
 * hog never has more than 3 running. */
static void test_blocked_queue_does_not_starve(void **state)
{
	struct work_pool p;
	static struct tq hog, other;
	struct gate g;
	atomic_int entered = 0;
	char *err = NULL;

	(void)state;
	gate_init(&g);
	assert_int_equal(work_pool_start(&p, 4, "tp", &err), 0);
	tq_init(&hog, &p, 1, 3);
	tq_init(&other, &p, 2, 3);
	for (int s = 0; s < 503; s++)
		push(&hog, s, &g, &entered, true);
	wait_for(&entered, 3);
	for (int s = 0; s < 20; s++)
		push(&other, s, NULL, NULL, true);
	wait_for(&other.done, 20);
	assert_int_equal(atomic_load(&hog.done), 0);
	assert_int_equal(atomic_load(&entered), 3);
	assert_int_equal(atomic_load(&hog.most_running), 3);
	gate_open(&g);
	work_queue_drain(&hog.q);
	work_queue_drain(&other.q);
	assert_int_equal(atomic_load(&hog.done), 503);
	assert_true(atomic_load(&hog.most_running) <= 3);
	work_pool_stop(&p);
	free_items();
}

static bool odd_seq(const struct work_item *w, void *ctx)
{
	(void)ctx;
	return ((const struct titem *)w)->seq % 2 == 1;
}

/* take_if: the queued items that match come back in queue order and never
 * run; the item running and the others do. */
static void test_take_if(void **state)
{
	struct work_pool p;
	static struct tq a;
	struct gate g;
	atomic_int entered = 0;
	char *err = NULL;

	(void)state;
	gate_init(&g);
	assert_int_equal(work_pool_start(&p, 2, "tp", &err), 0);
	tq_init(&a, &p, 1, 1);
	push(&a, 1, &g, &entered, true); /* odd, but already running */
	wait_for(&entered, 1);
	for (int s = 2; s <= 9; s++)
		push(&a, s, NULL, NULL, true);
	struct work_item *t = work_queue_take_if(&a.q, odd_seq, NULL);
	int want[] = { 3, 5, 7, 9 }, n = 0;

	for (; t; t = t->next)
		assert_int_equal(((struct titem *)t)->seq, want[n++]);
	assert_int_equal(n, 4);
	gate_open(&g);
	work_queue_drain(&a.q);
	assert_int_equal(atomic_load(&a.done), 5);
	int ran[] = { 1, 2, 4, 6, 8 };

	for (int i = 0; i < 5; i++)
		assert_int_equal(a.order[i], ran[i]);
	work_pool_stop(&p);
	free_items();
}

/* ---- through the host: LUs share the pool ---- */

static int threads_now(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static void test_devices_share_the_pool(void **state)
{
	enum { D = 30, C = 5 };
	static const uint8_t who[6] = { 0xC6 };
	struct lu_backend *be[D];
	struct tcmd *t[D][C];
	char *err = NULL;

	(void)state;
	tcmu_host_set_workers(3);
	assert_int_equal(tcmu_host_workers(), 3);
	int before = threads_now();

	for (int i = 0; i < D; i++) {
		char name[16];
		struct tcmu_host_dev_cfg cfg = {
			.cfgstring = "hosttest/name=p", .size_bytes = 1 << 20, .block_size = 512, .name = name,
		};

		snprintf(name, sizeof(name), "lun%d", 100 + i);
		be[i] = tcmu_host_create_device(&cfg, &err);
		assert_non_null(be[i]);
	}
	/* the first device started the pool's 3 threads; the 29 others none */
	assert_int_equal(threads_now(), before + 3);
	for (int c = 0; c < C; c++)
		for (int i = 0; i < D; i++) {
			t[i][c] = tcmd_new(who, 6, LU_DIR_READ, 64, 1);
			be[i]->ops->submit(be[i], &t[i][c]->lu);
		}
	for (int i = 0; i < D; i++)
		for (int c = 0; c < C; c++) {
			tcmd_wait(t[i][c]);
			assert_int_equal(tcmd_calls(t[i][c]), 1);
			assert_int_equal(t[i][c]->lu.status, 0);
			assert_int_equal(strncmp((char *)t[i][c]->buf, "tcmu-w", 6), 0);
			tcmd_free(t[i][c]);
		}
	for (int i = 0; i < D; i++)
		be[i]->ops->destroy(be[i]);
	/* destroying LUs stops no thread: the pool is the process's */
	assert_int_equal(threads_now(), before + 3);
	tcmu_host_shutdown();
	assert_int_equal(threads_now(), before);
	tcmu_host_set_workers(0);
}

int main(void)
{
	const struct CMUnitTest pool_tests[] = {
		cmocka_unit_test(test_more_queues_than_threads),
		cmocka_unit_test(test_backlog_does_not_starve_cap1),
		cmocka_unit_test(test_backlog_does_not_starve_cap2),
		cmocka_unit_test(test_blocked_queue_does_not_starve),
		cmocka_unit_test(test_take_if),
	};
	const struct CMUnitTest host_tests[] = {
		cmocka_unit_test(test_devices_share_the_pool),
	};
	int rc = cmocka_run_group_tests(pool_tests, NULL, NULL);

	return rc | cmocka_run_group_tests(host_tests, hosttest_setup_all, hosttest_teardown_all);
}
