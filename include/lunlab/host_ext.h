/* host_ext.h — functions only lunlab-target's libtcmu-compatible host
 * offers, beyond what tcmu-runner 1.5.4 exports.  A handler that must also
 * load under tcmu-runner calls them through a weak reference and skips the
 * call when the symbol resolved to NULL:
 *
 *     #pragma weak lunlab_host_cmd_data_ready
 *     if (lunlab_host_cmd_data_ready)
 *             lunlab_host_cmd_data_ready(dev, cmd);
 */
#ifndef LUNLAB_HOST_EXT_H
#define LUNLAB_HOST_EXT_H

#include <stdint.h>

struct tcmu_device;
struct tcmulib_cmd;

/* The data buffer of this READ-type command (its iovecs) already holds
 * every byte the command returns, and the handler expects GOOD status; its
 * completion (tcmur_cmd_complete) comes later, e.g. at the end of a modeled
 * service time.  The transport starts sending the data now and sends the
 * status on completion, so the wire transfer overlaps the wait instead of
 * following it.  Call it at most once per command, from any thread, strictly
 * before completing the command; a later error status is still reported
 * correctly (after the data).  Ignored for commands that are not READ-type. */
void lunlab_host_cmd_data_ready(struct tcmu_device *dev, struct tcmulib_cmd *cmd);

/* The I_T nexus (iSCSI session) that sent this command, as a number unique
 * within the process; 0 when unknown.  EXTENDED COPY scopes list identifiers
 * and held copy results to it, as SPC-4 does (tcmu-runner cannot tell). */
uint64_t lunlab_host_cmd_nexus(const struct tcmulib_cmd *cmd);

#endif
