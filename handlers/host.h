/* host.h — which host handler_lunlab.so runs in, and what it can do.  The
 * one place where the handler's two paths meet: under lunlab-target the
 * host offers the extension contract (include/lunlab/host_ext.h) and these
 * functions use it; under tcmu-runner (no contract, or one this handler
 * refuses) each does what the tcmu-runner path needs, said below.  The
 * rest of the handler calls these and never asks which host it is in. */
#ifndef LUNLAB_HANDLER_HOST_H
#define LUNLAB_HANDLER_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lunlab/host_ext.h"

/* The host's contract, found once (dlsym(RTLD_DEFAULT,
 * LUNLAB_HOST_OPS_SYMBOL)) and checked (host_ops_check); NULL: the
 * tcmu-runner path. */
const struct lunlab_host_ops *host_ops(void);

/* The version check: 0 when this handler can use ops; else -1 with a
 * one-line reason in why[len].  Refused: NULL, a major version other than
 * LUNLAB_HOST_OPS_MAJOR, a size smaller than the struct this handler was
 * built with, a NULL member (major 1 promises them all).  A newer minor
 * version with a bigger struct is accepted. */
int host_ops_check(const struct lunlab_host_ops *ops, char *why, size_t len);

/* Make candidate what host_ops() answers from now on, after
 * host_ops_check(): a refused one logs one line and leaves NULL (the
 * tcmu-runner path).  The lookup uses it; so do unit tests that play the
 * host (they are not linked with export_dynamic, so the lookup finds none). */
const struct lunlab_host_ops *host_ops_adopt(const struct lunlab_host_ops *candidate);

/* tcmu-runner path: false.  lunlab-target completes a handler's
 * TCMU_STS_ASYNC_HANDLED later through tcmur_cmd_complete; tcmu-runner
 * 1.5.4 would complete it at once with that value, so a paced command
 * sleeps on its worker there instead. */
bool host_completes_async(void);

/* Per command (cmd: the library command handle_cmd got).  tcmu-runner path:
 * nexus 0 (unknown: one copy scope per LU), arrival 0 (unknown: now),
 * no xcopy fault (false), fault delay 0 (no fault rules there), no early
 * state (NULL), data_ready ignored. */
uint64_t host_cmd_nexus(const struct tcmulib_cmd *cmd);
uint64_t host_cmd_arrival_ns(const struct tcmulib_cmd *cmd);
bool host_cmd_xcopy_fault(const struct tcmulib_cmd *cmd, uint32_t *segments, uint8_t sense[3]);
uint64_t host_cmd_fault_delay_ns(const struct tcmulib_cmd *cmd);
void *host_cmd_early(const struct tcmulib_cmd *cmd);
void host_cmd_data_ready(struct tcmu_device *dev, struct tcmulib_cmd *cmd);
/* Whether host_cmd_data_progress reaches the transport (false: tcmu-runner,
 * where the kernel sends the data after completion, so a READ need not be
 * copied in pieces). */
bool host_has_data_progress(void);
void host_cmd_data_progress(struct tcmu_device *dev, struct tcmulib_cmd *cmd, size_t bytes);

/* From open().  tcmu-runner path: ignored (no inline runs, the kernel
 * collects a WRITE's data, LIO's configfs alua/ sets ALUA). */
void host_dev_set_inline(struct tcmu_device *dev, lunlab_inline_fn may_run_inline);
void host_dev_set_data_arrived(struct tcmu_device *dev, lunlab_data_arrived_fn arrived, void (*drop)(void *state));
void host_dev_set_tpgs(struct tcmu_device *dev, unsigned tpgs);

/* From handler_init, once h is registered: give lunlab-target the module's
 * array-control table (include/lunlab/array_ctl.h).  tcmu-runner path:
 * ignored (no one there asks for it). */
void host_handler_set_array_ctl(const struct tcmur_handler *h, const struct lunlab_array_ctl *ctl);

#endif
