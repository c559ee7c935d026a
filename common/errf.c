/* errf.c — the error convention's helpers (include/lunlab/errf.h). */
#include "lunlab/errf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* values quoted in a reason come from outside (a cfgstring, a file, a
 * request) and may hold control characters: keep the reason one line */
static void one_line(char *s)
{
	for (; s && *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

int ll_errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	one_line(err);
	return -1;
}

__attribute__((format(printf, 1, 0)))
static char *vstrf(const char *fmt, va_list ap)
{
	char *s = NULL;

	if (vasprintf(&s, fmt, ap) < 0)
		return NULL;
	one_line(s);
	return s;
}

char *ll_strf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = vstrf(fmt, ap);
	va_end(ap);
	return s;
}

int ll_strerrf(char **reason, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = vstrf(fmt, ap);
	va_end(ap);
	if (reason)
		*reason = s;
	else
		free(s);
	return -1;
}
