/* copy_fault.c — a fault rule's EXTENDED COPY break-off, from lunlab-target's
 * host through the extension contract (handlers/host.h; copy_fault.h). */
#include <stddef.h>

#include "handlers/copy/copy_fault.h"
#include "handlers/host.h"

bool copy_cmd_fault(const struct scsi_cmd *cmd, uint32_t *segments, uint8_t sense[3])
{
	if (!cmd->sense)
		return false;
	/* scsi_cmd.sense is the tcmulib_cmd's own sense_buf (as copy_nexus.c) */
	const struct tcmulib_cmd *lc =
		(const struct tcmulib_cmd *)(const void *)(cmd->sense - offsetof(struct tcmulib_cmd, sense_buf));
	return host_cmd_xcopy_fault(lc, segments, sense);
}
