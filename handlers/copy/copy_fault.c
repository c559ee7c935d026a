/* copy_fault.c — a fault rule's EXTENDED COPY break-off, from lunlab-target's
 * host when it exports lunlab_host_cmd_xcopy_fault() (copy_fault.h). */
#include <stddef.h>

#include "handlers/copy/copy_fault.h"

/* Weak and undefined: NULL under tcmu-runner and in unit tests that do not
 * define it; default visibility so the hidden-by-default module binds it. */
extern bool lunlab_host_cmd_xcopy_fault(const struct tcmulib_cmd *cmd, uint32_t *segments, uint8_t sense[3])
	__attribute__((weak, visibility("default")));

bool copy_cmd_fault(const struct scsi_cmd *cmd, uint32_t *segments, uint8_t sense[3])
{
	if (!lunlab_host_cmd_xcopy_fault || !cmd->sense)
		return false;
	/* scsi_cmd.sense is the tcmulib_cmd's own sense_buf (as copy_nexus.c) */
	const struct tcmulib_cmd *lc =
		(const struct tcmulib_cmd *)(const void *)(cmd->sense - offsetof(struct tcmulib_cmd, sense_buf));
	return lunlab_host_cmd_xcopy_fault(lc, segments, sense);
}
