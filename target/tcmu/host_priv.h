/* host_priv.h — the host's private view of a device and a command.
 *
 * struct tcmu_device is opaque to handlers (they only hold pointers and call
 * the tcmu_dev_* accessors), so its layout is ours to choose.  One device is
 * one LU: it carries what LIO would have told tcmu-runner through configfs,
 * the handler's private pointer, and its queue in the shared worker pool. */
#ifndef LUNLAB_TCMU_HOST_PRIV_H
#define LUNLAB_TCMU_HOST_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "lunlab/host_ext.h"
#include "lunlab/tcmu_abi.h"
#include "target/lu/lu_cmd.h"
#include "target/tcmu/host.h"
#include "target/tcmu/work_pool.h"

#define container_of_host(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/* One command in flight: the two tcmu structures a handler sees, the lu_cmd
 * it came from and a private copy of the iovec array (handlers consume
 * iovecs by advancing iov_base/iov_len, the transport's array must survive). */
struct host_cmd {
	struct tcmulib_cmd lib;
	struct tcmur_cmd rcmd;
	struct lu_cmd *lu;
	struct tcmu_device *dev;
	struct work_item item;       /* in the device's work queue */
	struct timespec t_start;     /* CLOCK_MONOTONIC at submit, for latency */
	size_t buf_len;              /* bytes the transport's iovec holds */
	bool data_ready_sent;        /* host_ext_cmd_data_ready forwarded */
	bool on_worker;              /* counted in dev->backlog */
	struct iovec iov[];          /* lu->iov_cnt entries */
};

struct tcmu_device {
	struct lu_backend be;        /* what the transport holds */
	struct tcmur_handler *handler;
	void *hpriv;                 /* tcmur_dev_{set,get}_private */
	char *cfgstring;
	char *name;                  /* "lun0": log prefix */
	char *wwn;                   /* unit serial or NULL */
	char uio_name[64];

	_Atomic uint64_t num_lbas;
	uint32_t block_size;
	uint32_t max_xfer_len;
	uint32_t opt_xcopy_rw_len;
	uint32_t max_unmap_len;
	uint32_t opt_unmap_gran;
	bool split_unmaps;
	uint32_t unmap_gran_align;
	bool write_cache;
	bool solid_state;
	bool unmap_enabled;
	_Atomic uint64_t size_bytes;
	atomic_uint pending_ua;      /* bit 0: capacity changed (tcmur_dev_update_size) */

	struct work_queue q;         /* its commands in the shared pool (work_pool.h) */
	int nr_workers;              /* the queue's cap; 0: handle_cmd inline */
	atomic_long inflight;        /* submitted, not yet completed */
	/* host_ext_dev_set_inline: set by open(), before any command */
	lunlab_inline_fn may_inline;
	/* host_ext_dev_set_data_arrived: set by open(), before any command */
	lunlab_data_arrived_fn data_arrived;
	void (*early_drop)(void *state);
	atomic_long backlog;         /* commands queued or handed to workers, not yet completed */
	bool opened;

	struct tcmu_device *next_dev, *prev_dev; /* host's device list (shutdown); doubly
	                              * linked: LUs by the thousand leave in any order */
};

#define HOST_UA_CAPACITY_CHANGED 1u

/* registry.c */
struct tcmur_handler *host_find_handler(const char *subtype, size_t len);
/* the array-control table the module that registered h gave the host
 * (lunlab_host_ops.handler_set_array_ctl), or NULL */
struct lunlab_array_ctl;
const struct lunlab_array_ctl *host_handler_array_ctl(const struct tcmur_handler *h);
void host_handlers_destroy(void);

/* The extension contract's members (include/lunlab/host_ext.h), which
 * host_ops.c gathers into the one exported struct lunlab_host_ops.
 * dispatch.c: */
void host_ext_cmd_data_ready(struct tcmu_device *dev, struct tcmulib_cmd *cmd);
void host_ext_cmd_data_progress(struct tcmu_device *dev, struct tcmulib_cmd *cmd, size_t bytes);
uint64_t host_ext_cmd_arrival_ns(const struct tcmulib_cmd *cmd);
uint64_t host_ext_cmd_nexus(const struct tcmulib_cmd *cmd);
bool host_ext_cmd_xcopy_fault(const struct tcmulib_cmd *cmd, uint32_t *segments, uint8_t sense[3]);
uint64_t host_ext_cmd_fault_delay_ns(const struct tcmulib_cmd *cmd);
void host_ext_dev_set_inline(struct tcmu_device *dev, lunlab_inline_fn may_run_inline);
void host_ext_dev_set_data_arrived(struct tcmu_device *dev, lunlab_data_arrived_fn arrived,
				   void (*drop)(void *state));
void *host_ext_cmd_early(const struct tcmulib_cmd *cmd);
/* device_attrs.c: */
void host_ext_dev_set_tpgs(struct tcmu_device *dev, unsigned tpgs);
/* registry.c: */
int host_ext_handler_set_array_ctl(const struct tcmur_handler *h, const struct lunlab_array_ctl *ctl);
/* host_ops.c: the struct itself, exported (export_dynamic) under
 * LUNLAB_HOST_OPS_SYMBOL for handlers to find */
extern const struct lunlab_host_ops lunlab_host_ops;

/* host.c: stop workers, close(), free; unlinks from the device list */
void host_dev_destroy(struct tcmu_device *dev);

/* dispatch.c: a device joins the shared pool with at most nr commands
 * running at once (0: none, handle_cmd inline), and leaves it drained;
 * host_pool_stop joins the pool's threads once every device is gone */
int host_dev_start_workers(struct tcmu_device *dev, int nr, char **err);
void host_dev_stop_workers(struct tcmu_device *dev);
void host_pool_stop(void);
extern const struct lu_backend_ops host_backend_ops;

/* sts_map.c: TCMU_STS_* -> SCSI status + sense (exactly what tcmu-runner
 * 1.5.4 sends).  sense_buf is the handler's 96-byte buffer and is updated in
 * place; returns the SCSI status byte.  dev (may be NULL) names the log line. */
uint8_t host_sts_to_scsi(struct tcmu_device *dev, int sts, uint8_t *sense_buf);
/* bytes of valid sense in buf (fixed: 8 + ADDITIONAL SENSE LENGTH, >= 18) */
uint8_t host_sense_len(const uint8_t *buf, size_t cap);

/* sense.c: set response code, key, ADDITIONAL SENSE LENGTH and ASC/ASCQ,
 * keeping whatever else the buffer holds (VALID, INFORMATION, SKSV...) */
void host_sense_fill(uint8_t *sense_buf, uint8_t key, uint16_t asc_ascq);

/* trace.c */
extern atomic_bool host_trace_on;
void host_trace_cmd(const struct tcmu_device *dev, const struct lu_cmd *lu,
		    const struct timespec *t_start);

/* log.c */
extern atomic_int host_log_level;

#endif
