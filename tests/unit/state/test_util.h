/* test_util.h — a scratch directory per test for the state tests. */
#ifndef LUNLAB_TEST_STATE_UTIL_H
#define LUNLAB_TEST_STATE_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* mkdtemp under /tmp; removed by rm_scratch.  Without one no test can run. */
static inline char *make_scratch(void)
{
	char *d = strdup("/tmp/lunlab-state-test.XXXXXX");

	if (!d || !mkdtemp(d)) {
		perror("mkdtemp");
		abort();
	}
	return d;
}

static inline void rm_scratch(char *d)
{
	char cmd[256];

	if (!d)
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", d);
	free(d);
}

#endif
