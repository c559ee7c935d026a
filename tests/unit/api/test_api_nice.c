/* test_api_nice.c — the API's threads below the I/O threads (api_nice.h):
 * a thread that calls api_nice_self() runs at the base (the nice of the
 * thread that called api_nice_set) plus the steps, at most 19; the threads
 * it creates inherit that; 0 steps changes nothing.  Each case runs in a
 * thread of its own: a thread cannot take its own priority back without
 * privilege, so the test's main thread is never lowered. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <cmocka.h>

#include "target/api/api_nice.h"

static int nice_now(void)
{
	errno = 0;
	int v = getpriority(PRIO_PROCESS, (id_t)gettid());
	assert_false(v == -1 && errno);
	return v;
}

struct probe {
	int rc;
	int after;  /* the thread's nice after api_nice_self() */
	int child;  /* the nice of a thread it then created */
};

static void *child_main(void *arg)
{
	*(int *)arg = nice_now();
	return NULL;
}

static void *probe_main(void *arg)
{
	struct probe *p = arg;
	char err[160];
	pthread_t t;

	p->rc = api_nice_self(err, sizeof(err));
	p->after = nice_now();
	assert_int_equal(pthread_create(&t, NULL, child_main, &p->child), 0);
	pthread_join(t, NULL);
	return NULL;
}

static struct probe run_probe(void)
{
	struct probe p = { -2, -100, -100 };
	pthread_t t;

	assert_int_equal(pthread_create(&t, NULL, probe_main, &p), 0);
	pthread_join(t, NULL);
	return p;
}

static void test_steps_below_the_base(void **state)
{
	int base = nice_now();
	(void)state;

	if (base + 3 > API_NICE_MAX)
		skip(); /* the test itself runs at nice 17 or more: no room for 3 steps */
	api_nice_set(3);
	assert_int_equal(api_nice_steps(), 3);
	assert_int_equal(api_nice_value(), base + 3);
	assert_int_equal(api_nice_base(), base);
	struct probe p = run_probe();
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.after, base + 3);
	assert_int_equal(p.child, base + 3); /* inherited: how MHD's threads get it */
	assert_int_equal(nice_now(), base);  /* the caller of api_nice_set is untouched */
}

static void test_at_most_19(void **state)
{
	(void)state;
	api_nice_set(19);
	assert_int_equal(api_nice_value(), API_NICE_MAX);
	struct probe p = run_probe();
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.after, API_NICE_MAX);
	api_nice_set(40); /* more steps than there are: 19 */
	assert_int_equal(api_nice_steps(), API_NICE_MAX);
	assert_int_equal(api_nice_value(), API_NICE_MAX);
}

static void test_zero_changes_nothing(void **state)
{
	int base = nice_now();
	(void)state;

	api_nice_set(0);
	assert_int_equal(api_nice_value(), base);
	struct probe p = run_probe();
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.after, base);
	assert_int_equal(p.child, base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steps_below_the_base),
		cmocka_unit_test(test_at_most_19),
		cmocka_unit_test(test_zero_changes_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
