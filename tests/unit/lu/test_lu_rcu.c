/* test_lu_rcu.c — grace periods: a writer waits for a reader thread that
 * is online and has not been quiescent since, and not for one that is
 * offline or unregistered. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "target/lu/lu_rcu.h"

static atomic_int phase;
static atomic_bool quiesced;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *reader(void *arg)
{
	(void)arg;
	lu_rcu_register();
	atomic_store(&phase, 1);          /* online, holding "a pointer" */
	usleep(200000);
	atomic_store(&quiesced, true);
	lu_rcu_quiescent();               /* lets the writer go */
	lu_rcu_offline();                 /* a long wait: holds nobody up */
	while (atomic_load(&phase) != 2)
		usleep(1000);
	lu_rcu_online();
	lu_rcu_unregister();
	return NULL;
}

static void writer_waits_for_reader(void **state)
{
	pthread_t t;
	double t0;

	/* nobody registered: no wait */
	t0 = now();
	lu_rcu_synchronize();
	assert_true(now() - t0 < 0.1);

	assert_int_equal(pthread_create(&t, NULL, reader, NULL), 0);
	while (atomic_load(&phase) != 1)
		usleep(1000);
	lu_rcu_synchronize();
	assert_true(atomic_load(&quiesced)); /* not before the reader's quiescent point */
	/* the reader is offline now: a second grace period passes at once */
	t0 = now();
	lu_rcu_synchronize();
	assert_true(now() - t0 < 0.1);
	atomic_store(&phase, 2);
	pthread_join(t, NULL);
	/* unregistered: no wait either */
	lu_rcu_synchronize();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(writer_waits_for_reader),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
