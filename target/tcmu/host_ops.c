/* host_ops.c — the extension contract lunlab-target's host offers handler
 * modules (include/lunlab/host_ext.h): one exported data symbol, found by a
 * handler with a single dlsym(RTLD_DEFAULT, LUNLAB_HOST_OPS_SYMBOL).  The
 * members live where the state they touch lives (dispatch.c: commands,
 * device_attrs.c: device attributes); this file only gathers them, so the
 * contract's version and its list of members are in one place.  tcmu-runner
 * has no such symbol, which is how a handler tells the two hosts apart. */
#include "lunlab/host_ext.h"
#include "target/tcmu/host_priv.h"

__attribute__((visibility("default"))) const struct lunlab_host_ops lunlab_host_ops = {
	.version = LUNLAB_HOST_OPS_VERSION(LUNLAB_HOST_OPS_MAJOR, LUNLAB_HOST_OPS_MINOR),
	.size = sizeof(struct lunlab_host_ops),
	.cmd_data_ready = host_ext_cmd_data_ready,
	.cmd_data_progress = host_ext_cmd_data_progress,
	.cmd_arrival_ns = host_ext_cmd_arrival_ns,
	.cmd_nexus = host_ext_cmd_nexus,
	.cmd_xcopy_fault = host_ext_cmd_xcopy_fault,
	.cmd_fault_delay_ns = host_ext_cmd_fault_delay_ns,
	.dev_set_tpgs = host_ext_dev_set_tpgs,
	.dev_set_inline = host_ext_dev_set_inline,
	.dev_set_data_arrived = host_ext_dev_set_data_arrived,
	.cmd_early = host_ext_cmd_early,
	.handler_set_array_ctl = host_ext_handler_set_array_ctl,
};
