/* log.c — tcmu_*_message(): the logging entry points of libtcmu.  One line
 * on stderr per message, prefixed with the level and the device name so a
 * person can tell which LU spoke.  Handlers often end messages with '\n';
 * it is dropped so every message stays one line. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "target/tcmu/host_priv.h"

enum { LVL_CRIT = 2, LVL_ERR = 3, LVL_WARN = 4, LVL_INFO = 6, LVL_DBG = 7, LVL_DBG_SCSI = 8 };

/* syslog numbering, as tcmu-runner: messages above this level are dropped */
atomic_int host_log_level = LVL_INFO;

void tcmu_host_set_log_level(int level) { atomic_store(&host_log_level, level); }

__attribute__((format(printf, 6, 0)))
static void vlog(int lvl, const char *tag, struct tcmu_device *dev, const char *func, int line,
		 const char *fmt, va_list ap)
{
	char msg[1024];
	int n;

	if (lvl > atomic_load(&host_log_level))
		return;
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	if (n < 0)
		return;
	size_t len = strnlen(msg, sizeof(msg));

	while (len && (msg[len - 1] == '\n' || msg[len - 1] == '\r'))
		msg[--len] = 0;
	if (lvl >= LVL_DBG)
		fprintf(stderr, "tcmu %s %s: %s:%d: %s\n", tag, dev && dev->name ? dev->name : "-",
			func ? func : "?", line, msg);
	else
		fprintf(stderr, "tcmu %s %s: %s\n", tag, dev && dev->name ? dev->name : "-", msg);
}

#define DEFINE_LOG(fn, lvl, tag)                                                          \
	void fn(struct tcmu_device *dev, const char *funcname, int linenr, const char *fmt, ...) \
	{                                                                                 \
		va_list ap;                                                               \
		va_start(ap, fmt);                                                        \
		vlog(lvl, tag, dev, funcname, linenr, fmt, ap);                           \
		va_end(ap);                                                               \
	}

DEFINE_LOG(tcmu_crit_message, LVL_CRIT, "CRIT")
DEFINE_LOG(tcmu_err_message, LVL_ERR, "ERROR")
DEFINE_LOG(tcmu_warn_message, LVL_WARN, "WARN")
DEFINE_LOG(tcmu_info_message, LVL_INFO, "INFO")
DEFINE_LOG(tcmu_dbg_message, LVL_DBG, "DEBUG")
DEFINE_LOG(tcmu_dbg_scsi_cmd_message, LVL_DBG_SCSI, "DEBUG_SCSI_CMD")
