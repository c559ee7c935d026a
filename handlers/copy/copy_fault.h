/* copy_fault.h — an EXTENDED COPY a fault rule of lunlab-target wants to
 * break off part way (xcopy-fail-after=N, docs/faults.md), when the host can
 * say so: lunlab-target tells it through the extension contract's
 * cmd_xcopy_fault (include/lunlab/host_ext.h, handlers/host.h); under
 * tcmu-runner no copy is ever broken off. */
#ifndef LUNLAB_COPY_FAULT_H
#define LUNLAB_COPY_FAULT_H

#include <stdbool.h>
#include <stdint.h>

#include "handlers/lunlab_dev.h"

/* true: stop before segment *segments (0-based) with sense key/asc/ascq
 * sense[0..2] (key 0: COPY ABORTED, COPY TARGET DEVICE NOT REACHABLE). */
bool copy_cmd_fault(const struct scsi_cmd *cmd, uint32_t *segments, uint8_t sense[3]);

#endif
