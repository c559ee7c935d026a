/* hosttest_group.h — what the cmocka groups driving the test handler
 * (handler_hosttest.c) share: loading it into the host from a fresh handler
 * directory, unloading it, and asking it how many commands are inside
 * handle_cmd.  Include after <cmocka.h> and tcmu_test_util.h. */
#ifndef LUNLAB_HOSTTEST_GROUP_H
#define LUNLAB_HOSTTEST_GROUP_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "target/tcmu/host.h"

static char *hosttest_dir;

/* Commands of the test handler inside handle_cmd right now. */
static inline int hosttest_busy(void)
{
	void *h = dlopen(HOSTTEST_SO, RTLD_NOW | RTLD_NOLOAD);
	int (*fn)(void);

	assert_non_null(h);
	*(void **)&fn = dlsym(h, "hosttest_busy");
	assert_non_null(fn);
	int n = fn();

	dlclose(h);
	return n;
}

/* Let n commands blocked at the test handler's gate (opcode 0xC7 0) go on. */
static inline void hosttest_release(unsigned n)
{
	void *h = dlopen(HOSTTEST_SO, RTLD_NOW | RTLD_NOLOAD);
	void (*fn)(unsigned);

	assert_non_null(h);
	*(void **)&fn = dlsym(h, "hosttest_release");
	assert_non_null(fn);
	fn(n);
	dlclose(h);
}

/* Group setup: the test handler's two subtypes (one .so) loaded. */
static inline int hosttest_setup_all(void **state)
{
	char *err = NULL;

	(void)state;
	hosttest_dir = tmp_handler_dir();
	if (!hosttest_dir)
		return -1;
	if (tcmu_host_load_handlers(hosttest_dir, &err) != 2) {
		fprintf(stderr, "load: %s\n", err ? err : "?");
		return -1;
	}
	return 0;
}

static inline int hosttest_teardown_all(void **state)
{
	(void)state;
	tcmu_host_shutdown();
	rm_dir(hosttest_dir);
	free(hosttest_dir);
	return 0;
}

#endif
