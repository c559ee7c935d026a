/* tcmu_log_capture.c — the host's logging entry points for unit tests: the
 * handler module gets them from the host at dlopen; here they keep the last
 * message so a test can check what a person would see in the log. */
#include <stdarg.h>
#include <stdio.h>

#include "lunlab/tcmu_abi.h"
#include "tests/unit/copy/tcmu_log_capture.h"

char tcmu_log_last[1024];

static void keep(const char *fmt, va_list ap)
{
	vsnprintf(tcmu_log_last, sizeof(tcmu_log_last), fmt, ap);
}

#define CAPTURE(fn)                                                                           \
	void fn(struct tcmu_device *dev, const char *funcname, int linenr, const char *fmt, ...) \
	{                                                                                     \
		va_list ap;                                                                   \
		va_start(ap, fmt);                                                            \
		keep(fmt, ap);                                                                \
		va_end(ap);                                                                   \
	}

CAPTURE(tcmu_crit_message)
CAPTURE(tcmu_err_message)
CAPTURE(tcmu_warn_message)
CAPTURE(tcmu_info_message)
CAPTURE(tcmu_dbg_message)
CAPTURE(tcmu_dbg_scsi_cmd_message)
