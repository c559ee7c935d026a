/* copy_nexus.c — the I_T nexus of a command, from lunlab-target's host when
 * it exports lunlab_host_cmd_nexus() (see copy_nexus.h). */
#include <stddef.h>

#include "handlers/copy/copy_nexus.h"

/* Weak and undefined: resolves to NULL under tcmu-runner (and in unit tests
 * that do not define it), to the host's function in lunlab-target.  Default
 * visibility so the module's hidden-by-default build still binds it. */
extern uint64_t lunlab_host_cmd_nexus(const struct tcmulib_cmd *cmd) __attribute__((weak, visibility("default")));

uint64_t copy_cmd_nexus(const struct scsi_cmd *cmd)
{
	if (!lunlab_host_cmd_nexus || !cmd->sense)
		return 0;
	/* scsi_cmd.sense is the tcmulib_cmd's own sense_buf (lunlab_dev.h), so
	 * the library command is found from it; only the host dereferences it */
	const struct tcmulib_cmd *lc =
		(const struct tcmulib_cmd *)(const void *)(cmd->sense - offsetof(struct tcmulib_cmd, sense_buf));
	return lunlab_host_cmd_nexus(lc);
}
