/* tcmu_log_double.c — the host's logging functions for unit tests.  In the
 * handler they resolve from the tcmu host at dlopen; here the SCSI and copy
 * modules run without a host, so messages go to stderr (errors only). */
#include <stdarg.h>
#include <stdio.h>

#include "lunlab/tcmu_abi.h"

static void emit(const char *lvl, const char *fn, int line, const char *fmt, va_list ap)
{
	fprintf(stderr, "[%s] %s:%d: ", lvl, fn, line);
	vfprintf(stderr, fmt, ap);
}

#define DOUBLE(name, lvl, loud)                                                                 \
	void name(struct tcmu_device *dev, const char *funcname, int linenr, const char *fmt, ...) \
	{                                                                                       \
		va_list ap;                                                                     \
		if (!(loud))                                                                    \
			return;                                                                 \
		va_start(ap, fmt);                                                              \
		emit(lvl, funcname, linenr, fmt, ap);                                           \
		va_end(ap);                                                                     \
	}

DOUBLE(tcmu_crit_message, "crit", 1)
DOUBLE(tcmu_err_message, "err", 1)
DOUBLE(tcmu_warn_message, "warn", 0)
DOUBLE(tcmu_info_message, "info", 0)
DOUBLE(tcmu_dbg_message, "dbg", 0)
DOUBLE(tcmu_dbg_scsi_cmd_message, "dbg", 0)
