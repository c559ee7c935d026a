/* tcmu_log_quiet.c — the host's logging functions for the SCSI fuzz targets.
 * In the handler they resolve from the tcmu host at dlopen; here nothing
 * hosts the handler, and a fuzzer that prints every refused command would
 * spend its time in stderr, so every message is dropped. */
#include "lunlab/tcmu_abi.h"

#define QUIET(name) \
	void name(struct tcmu_device *dev, const char *funcname, int linenr, const char *fmt, ...) {}

QUIET(tcmu_crit_message)
QUIET(tcmu_err_message)
QUIET(tcmu_warn_message)
QUIET(tcmu_info_message)
QUIET(tcmu_dbg_message)
QUIET(tcmu_dbg_scsi_cmd_message)
