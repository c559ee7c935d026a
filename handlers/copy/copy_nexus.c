/* copy_nexus.c — the I_T nexus of a command, from lunlab-target's host
 * through the extension contract (handlers/host.h; see copy_nexus.h). */
#include <stddef.h>

#include "handlers/copy/copy_nexus.h"
#include "handlers/host.h"

uint64_t copy_cmd_nexus(const struct scsi_cmd *cmd)
{
	if (!cmd->sense)
		return 0;
	/* scsi_cmd.sense is the tcmulib_cmd's own sense_buf (lunlab_dev.h), so
	 * the library command is found from it; only the host dereferences it */
	const struct tcmulib_cmd *lc =
		(const struct tcmulib_cmd *)(const void *)(cmd->sense - offsetof(struct tcmulib_cmd, sense_buf));
	return host_cmd_nexus(lc);
}
