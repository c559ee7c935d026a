/* test_lu_rcu.c — grace periods: a writer waits for a reader thread that
 * is online and has not been quiescent since, and not for one that is
 * offline or unregistered.
 *
 * No check here is a time: "does not wait" is proven by construction.  The
 * reader stays offline until the main thread has returned from its second
 * lu_rcu_synchronize() (phase 2 is set only after it), so a synchronize
 * that waited for an offline reader would never return and the test would
 * end on meson's timeout instead of passing; with nobody registered there is
 * nobody a wrong synchronize could wait for.  (The grace period used to be
 * checked as "under 0.1 s", which a loaded machine can exceed.) */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>
#include <cmocka.h>

#include "target/lu/lu_rcu.h"

static atomic_int phase;
static atomic_bool quiesced;

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

	/* nobody registered: returns (nobody to wait for) */
	lu_rcu_synchronize();

	assert_int_equal(pthread_create(&t, NULL, reader, NULL), 0);
	while (atomic_load(&phase) != 1)
		usleep(1000);
	lu_rcu_synchronize();
	assert_true(atomic_load(&quiesced)); /* not before the reader's quiescent point */
	/* the reader is offline now, and stays offline until phase 2, which is
	 * set only after this returns: a synchronize that waited for it would
	 * deadlock here */
	lu_rcu_synchronize();
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
