/* host.h — the libtcmu-compatible host: what tcmu-runner does, inside
 * lunlab-target.  It dlopen()s handler_*.so files, lets them register with
 * tcmur_register_handler(), creates devices from a cfgstring exactly as LIO
 * would hand them to tcmu-runner, and runs handle_cmd on worker threads: one
 * pool for the process, shared by every device (work_pool.h), where
 * tcmu-runner starts a handler's nr_threads per device.  Each device is
 * exposed to the transport as a struct lu_backend. */
#ifndef LUNLAB_TCMU_HOST_H
#define LUNLAB_TCMU_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include "target/lu/lu_cmd.h"

struct tcmu_host_dev_cfg {
	const char *cfgstring;     /* "<subtype>/<rest>", e.g. "lunlab/model=x2;array=b" */
	uint64_t size_bytes;       /* LIO: info "Size:" */
	uint32_t block_size;       /* LIO: attrib/hw_block_size (512 or 4096) */
	const char *wwn;           /* LIO: wwn/vpd_unit_serial; NULL: none */
	const char *name;          /* device name for logs, e.g. "lun0" */
	uint32_t max_xfer_len;     /* blocks (LIO: hw_max_sectors); 0: default */
};

/* Load every handler_*.so in dir (RTLD_NOW|RTLD_LOCAL, then handler_init()).
 * Returns the number of handlers registered, or -1 with *err (malloc'd). */
int tcmu_host_load_handlers(const char *dir, char **err);
/* Load the one handler file path (a directory shared with tcmu-runner holds
 * handlers that need tcmu-runner's own exports: target/handler_dir.h).
 * Returns the number of handlers it registered, or -1 with *err (malloc'd). */
int tcmu_host_load_handler_file(const char *path, char **err);

/* check_config + open(): NULL with *err (malloc'd, one line naming the bad
 * field) when the handler refuses the cfgstring or open() fails. */
struct lu_backend *tcmu_host_create_device(const struct tcmu_host_dev_cfg *cfg, char **err);

/* The array-control table (include/lunlab/array_ctl.h) of the handler
 * module serving the LU behind be, and that LU's tcmu device in *dev; NULL
 * when the module exports none (any plain tcmu-runner handler) or be is not
 * a device of this host.  Callers check the table's size before using a
 * function appended after version 1 (lunlab_array_ctl_has). */
struct lunlab_array_ctl;
struct tcmu_device;
const struct lunlab_array_ctl *tcmu_host_backend_array_ctl(struct lu_backend *be, struct tcmu_device **dev);

/* The worker pool's size (lunlab-target --handler-threads): taken when the
 * first device with nr_threads > 0 starts the pool (again after
 * tcmu_host_shutdown).  0: 4 per online CPU, at least 8, at most 256.
 * A handler's nr_threads is then how many of its commands per device run
 * at once (at most the pool's size less one), not a thread count. */
void tcmu_host_set_workers(unsigned n);
/* The pool's size: the running pool's, else what the next one gets. */
unsigned tcmu_host_workers(void);

/* --trace: print every command decoded for a person on stderr. */
void tcmu_host_set_trace(bool on);

/* Log threshold for tcmu_*_message (syslog numbering: 3 err, 4 warn,
 * 6 info (default), 7 debug, 8 debug + per-command scsi messages). */
void tcmu_host_set_log_level(int level);

/* Close every device and call handlers' destroy(); handler modules stay
 * loaded (as in tcmu-runner: their background threads may outlive destroy). */
void tcmu_host_shutdown(void);

/* Changes a device's capacity the way LIO does: the handler's
 * reconfig(TCMULIB_CFG_DEV_SIZE), then the new size and number of blocks.
 * No unit attention is raised here: the LU layer owes 06/2A/09 to each I_T
 * nexus (lu_entry_capacity_changed).  0, or -1 with *err (malloc'd). */
int tcmu_host_resize_device(struct lu_backend *be, uint64_t size_bytes, char **err);

/* Runs a device's queue dry, waits for its commands in flight, calls the
 * handler's close() and frees it.  The transport must no longer reach it
 * (the LU table's grace period has passed). */
void tcmu_host_destroy_device(struct lu_backend *be);

/* The array-control table of the module that registered subtype (before
 * any of its LUs exists: the API asks an array's figures by name); NULL when
 * it has none, or one whose version does not match. */
const struct lunlab_array_ctl *tcmu_host_array_ctl(const char *subtype);

#endif
