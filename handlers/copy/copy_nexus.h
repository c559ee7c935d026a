/* copy_nexus.h — which I_T nexus (iSCSI session) sent a command, when the
 * host can say.  SPC-4 scopes list identifiers and held copy statuses to an
 * I_T nexus; the TCMU handler ABI does not carry one (LIO never passes it to
 * userspace), so under tcmu-runner the answer is 0 ("unknown") and the copy
 * manager falls back to one scope per LU.  lunlab-target knows the nexus of
 * every command (lu_cmd.nexus_id) and tells it through the extension
 * contract's cmd_nexus (include/lunlab/host_ext.h, handlers/host.h). */
#ifndef LUNLAB_COPY_NEXUS_H
#define LUNLAB_COPY_NEXUS_H

#include <stdint.h>

#include "handlers/lunlab_dev.h"

/* The command's I_T nexus id, or 0 when the host does not tell. */
uint64_t copy_cmd_nexus(const struct scsi_cmd *cmd);

#endif
