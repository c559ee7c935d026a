/* errf.h — lunlab's one error convention.
 *
 * A function that can fail for a reason a user must read takes the
 * caller's buffer, `char *err, size_t errlen`, as its last two parameters,
 * writes ONE line naming what was wrong (the field, the path, the value) and
 * returns -1 (or NULL / false).  No allocation, nothing to free, usable from
 * any thread.  ll_errf is the one helper that writes it.
 *
 * The exception is the tcmu-runner handler ABI, whose check_config() hands
 * back a malloc'd `char **reason` the runner frees: code on that path (the
 * handler's cfgstring parser, the array layer below it, the embedded host's
 * device setup) keeps `char **err` and makes the string with ll_strerrf.
 * New and changed code uses `char *err, size_t errlen`.
 *
 * A program or a test program that gives up prints "NAME: reason" to stderr
 * and exits non-zero; test checks that go on print "FAIL: reason" to stdout
 * (ll_check_fail in tests/lib/check_fail.h) so the runner's log shows every
 * failure and the exit code says whether any happened. */
#ifndef LUNLAB_ERRF_H
#define LUNLAB_ERRF_H

#include <stddef.h>

/* printf into err (one line: control characters become '?'); returns -1. */
int ll_errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The same as a malloc'd string into *reason (the tcmu ABI's convention);
 * *reason is NULL if memory ran out.  Returns -1. */
int ll_strerrf(char **reason, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The malloc'd one-line message itself (NULL if memory ran out), for code
 * that hands it on: `*err = ll_strf(...)`, `return ll_strf(...)`. */
char *ll_strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
