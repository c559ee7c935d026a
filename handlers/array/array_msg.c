/* array_msg.c — the array layer's one message helper (array_internal.h):
 * a malloc'd one-line message for the *err of every file of the layer.  A
 * file of its own, below them all, so that a file low in the layers (space.c)
 * can word its errors without calling the registry above it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "handlers/array/array_internal.h"

char *array_msg(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}
