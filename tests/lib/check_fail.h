/* check_fail.h — how a test program that goes on after a failed check says
 * so (the error convention, include/lunlab/errf.h): "FAIL: reason" on
 * stdout, flushed at once so it lands in order with the program's other
 * lines in the meson log, and counted; main returns ll_check_failures ? 1 : 0.
 * Header-only: each of these programs is one file. */
#ifndef LUNLAB_TESTS_CHECK_FAIL_H
#define LUNLAB_TESTS_CHECK_FAIL_H

#include <stdarg.h>
#include <stdio.h>

static int ll_check_failures;

static inline void ll_check_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void ll_check_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("FAIL: ", stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	va_end(ap);
	fflush(stdout);
	ll_check_failures++;
}

#endif
