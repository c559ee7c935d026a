/* test_split_work.c — handlers/array/split_work.c: every piece runs exactly
 * once, for any count; a piece the caller is stuck in does not stop the
 * others (a helper takes them); many callers at once each get all their
 * pieces; a forked child (no helper threads) still runs everything.
 * Posted jobs (split_post): helpers run them with nobody waiting, and
 * split_join runs whatever is left and returns only once all have run. */
#include "array_test_util.h"

#include <pthread.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <time.h>

#include "handlers/array/split_work.h"

struct counts {
	atomic_uint ran[64];
};

static void count_piece(void *arg, unsigned piece)
{
	struct counts *c = arg;
	atomic_fetch_add(&c->ran[piece], 1);
}

static void test_each_piece_once(void **state)
{
	(void)state;
	for (unsigned n = 0; n <= 64; n++) {
		struct counts c;
		memset(&c, 0, sizeof(c));
		split_run(n, count_piece, &c);
		for (unsigned i = 0; i < 64; i++)
			assert_int_equal(atomic_load(&c.ran[i]), i < n ? 1 : 0);
	}
}

/* The caller's own piece waits (up to 5 s) until another thread has run one:
 * only a helper can, so the pieces were really shared out. */
struct shared {
	pthread_t caller;
	atomic_uint by_others;
	atomic_uint ran;
};

static void shared_piece(void *arg, unsigned piece)
{
	struct shared *s = arg;
	(void)piece;
	atomic_fetch_add(&s->ran, 1);
	if (!pthread_equal(pthread_self(), s->caller)) {
		atomic_fetch_add(&s->by_others, 1);
		return;
	}
	/* wait, without a limit of our own, until a helper has taken a piece: with
	 * split_width() >= 2 one must (the caller is busy here), however late a
	 * loaded machine schedules it; none ever doing so ends on meson's timeout */
	while (!atomic_load(&s->by_others))
		usleep(1000);
}

static void test_helpers_take_pieces(void **state)
{
	(void)state;
	if (split_width() < 2)
		skip(); /* one core: no helpers by design */
	struct shared s = { .caller = pthread_self() };
	split_run(8, shared_piece, &s);
	assert_int_equal(atomic_load(&s.ran), 8);
	assert_true(atomic_load(&s.by_others) >= 1);
}

/* Four threads, each running 300 jobs of 1..16 pieces at once. */
static void *caller_thread(void *arg)
{
	uint64_t seed = (uint64_t)(uintptr_t)arg;
	for (int k = 0; k < 300; k++) {
		unsigned n = 1 + (unsigned)(rng_next(&seed) % 16);
		struct counts c;
		memset(&c, 0, sizeof(c));
		split_run(n, count_piece, &c);
		for (unsigned i = 0; i < 64; i++)
			if (atomic_load(&c.ran[i]) != (i < n ? 1u : 0u))
				return (void *)1;
	}
	return NULL;
}

static void test_many_callers(void **state)
{
	(void)state;
	pthread_t t[4];
	for (uintptr_t i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, caller_thread, (void *)(i + 1)), 0);
	for (int i = 0; i < 4; i++) {
		void *r;
		assert_int_equal(pthread_join(t[i], &r), 0);
		assert_null(r);
	}
}

/* The forked child exits 0 within 10 s (a child stuck on the pool's lock
 * would never exit: it is killed and the test fails, naming where). */
static void expect_child_ok(pid_t pid, const char *where)
{
	int st = 0;
	for (int i = 0; i < 1000 && waitpid(pid, &st, WNOHANG) == 0; i++)
		usleep(10000);
	if (waitpid(pid, &st, WNOHANG) == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		fail_msg("the forked child hung in %s", where);
	}
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void test_fork_child_runs_all(void **state)
{
	(void)state;
	struct counts c;
	memset(&c, 0, sizeof(c));
	split_run(8, count_piece, &c); /* the pool is up in the parent */
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct counts cc;
		memset(&cc, 0, sizeof(cc));
		split_run(8, count_piece, &cc);
		for (unsigned i = 0; i < 8; i++)
			if (atomic_load(&cc.ran[i]) != 1)
				_exit(1);
		_exit(0);
	}
	expect_child_ok(pid, "split_run");
}

/* A posted job runs on the helpers while its owner does something else:
 * every piece is seen done (up to 5 s) before split_join is ever called. */
static void test_posted_job_runs_without_join(void **state)
{
	(void)state;
	if (split_width() < 2)
		skip(); /* one core: posted pieces wait for split_join */
	struct counts c;
	struct split_job j;
	memset(&c, 0, sizeof(c));
	split_post(&j, 6, count_piece, &c);
	unsigned total = 0;
	for (int i = 0; i < 5000 && total < 6; i++) {
		total = 0;
		for (unsigned k = 0; k < 6; k++)
			total += atomic_load(&c.ran[k]);
		if (total < 6)
			usleep(1000);
	}
	assert_int_equal(total, 6);
	split_join(&j);
	for (unsigned k = 0; k < 64; k++)
		assert_int_equal(atomic_load(&c.ran[k]), k < 6 ? 1 : 0);
}

/* Many posted jobs at once, joined in reverse order: each piece exactly
 * once, whoever ran it (a helper, or the joiner). */
static void test_posted_jobs_joined(void **state)
{
	(void)state;
	enum { JOBS = 40 };
	static struct counts c[JOBS];
	static struct split_job j[JOBS];
	memset(c, 0, sizeof(c));
	for (unsigned i = 0; i < JOBS; i++)
		split_post(&j[i], i % 9, count_piece, &c[i]);
	for (unsigned i = JOBS; i-- > 0;) {
		split_join(&j[i]);
		for (unsigned k = 0; k < 64; k++)
			assert_int_equal(atomic_load(&c[i].ran[k]), k < i % 9 ? 1 : 0);
	}
}

/* In a forked child (no helpers) a posted job runs at split_join. */
static void test_fork_child_posted(void **state)
{
	(void)state;
	struct counts c;
	memset(&c, 0, sizeof(c));
	split_run(4, count_piece, &c); /* the pool is up in the parent */
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct counts cc;
		struct split_job j;
		memset(&cc, 0, sizeof(cc));
		split_post(&j, 5, count_piece, &cc);
		for (unsigned i = 0; i < 5; i++)
			if (atomic_load(&cc.ran[i]) != 0)
				_exit(2); /* nobody but the joiner may run them */
		split_join(&j);
		for (unsigned i = 0; i < 5; i++)
			if (atomic_load(&cc.ran[i]) != 1)
				_exit(1);
		_exit(0);
	}
	expect_child_ok(pid, "split_join");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_piece_once),
		cmocka_unit_test(test_helpers_take_pieces),
		cmocka_unit_test(test_many_callers),
		cmocka_unit_test(test_fork_child_runs_all),
		cmocka_unit_test(test_posted_job_runs_without_join),
		cmocka_unit_test(test_posted_jobs_joined),
		cmocka_unit_test(test_fork_child_posted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
