/* api_nice.c — see api_nice.h. */
#include "target/api/api_nice.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static unsigned steps;
static int base;

static int nice_of_self(void)
{
	int v;

	errno = 0;
	v = getpriority(PRIO_PROCESS, (id_t)gettid()); /* this thread's, not the process's */
	return v == -1 && errno ? 0 : v;
}

void api_nice_set(unsigned n)
{
	steps = n > API_NICE_MAX ? API_NICE_MAX : n;
	base = nice_of_self();
}

unsigned api_nice_steps(void)
{
	return steps;
}

int api_nice_base(void)
{
	return base;
}

int api_nice_value(void)
{
	int v = base + (int)steps;

	return v > API_NICE_MAX ? API_NICE_MAX : v;
}

int api_nice_self(char *err, size_t errlen)
{
	if (!steps || nice_of_self() >= api_nice_value())
		return 0;
	if (setpriority(PRIO_PROCESS, (id_t)gettid(), api_nice_value()) < 0) {
		snprintf(err, errlen, "setpriority(nice %d): %s", api_nice_value(), strerror(errno));
		return -1;
	}
	return 0;
}
