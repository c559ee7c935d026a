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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct iovec;
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

/* The first `bytes` bytes of this READ-type command's data buffer (its
 * iovecs, in order) hold their final data; the rest is still being filled.
 * The transport may start sending them.  Call it any number of times with
 * growing values, from any thread, strictly before completing the command
 * (and before lunlab_host_cmd_data_ready, if that is called at all).
 * Ignored for commands that are not READ-type. */
void lunlab_host_cmd_data_progress(struct tcmu_device *dev, struct tcmulib_cmd *cmd, size_t bytes);

/* When the transport received this command (its SCSI Command PDU's header),
 * CLOCK_MONOTONIC ns; 0 when unknown.  A WRITE reaches handle_cmd only after
 * all of its data arrived (R2T round trips, Data-Out): a handler that models
 * a service time starts it here, so that transfer overlaps the modeled time
 * as it would on a real array instead of adding to it. */
uint64_t lunlab_host_cmd_arrival_ns(const struct tcmulib_cmd *cmd);

/* The I_T nexus (iSCSI session) that sent this command, as a number unique
 * within the process; 0 when unknown.  EXTENDED COPY scopes list identifiers
 * and held copy results to it, as SPC-4 does (tcmu-runner cannot tell). */
uint64_t lunlab_host_cmd_nexus(const struct tcmulib_cmd *cmd);

/* A fault rule of lunlab-target (docs/faults.md, xcopy-fail-after=N) asks
 * this EXTENDED COPY to fail when it would start segment N (0-based: N
 * segments are copied, the rest are not) and end with CHECK CONDITION
 * sense[0]/[1]/[2] (key, ASC, ASCQ; key 0: the handler's own sense for a
 * copy that broke off, COPY ABORTED).  The handler reports the progress in
 * RECEIVE COPY RESULTS as for any copy that failed part way.  false: no
 * rule applies (the copy runs normally).  Only the array can stop a copy
 * part way, which is why this one fault travels to the handler. */
bool lunlab_host_cmd_xcopy_fault(const struct tcmulib_cmd *cmd, uint32_t *segments, uint8_t sense[3]);

/* How long a fault rule of lunlab-target (docs/faults.md, delay=MS) held
 * this command before it reached the handler, ns; 0 for most commands.
 * The handler sums it apart from its model (LOG SENSE page 31h parameter
 * 000Fh), so that a client can tell injected time from the machine's. */
uint64_t lunlab_host_cmd_fault_delay_ns(const struct tcmulib_cmd *cmd);

/* Optional, from open(): the asymmetric logical unit access this LU
 * reports, as INQUIRY's TPGS field codes it (0 none, 1 implicit, 2
 * explicit, 3 both).  The handler knows only what its array supports; the
 * host knows the ports: lunlab-target's core then sets TPGS in the LU's
 * standard INQUIRY data, adds the relative target port and target port
 * group designators of the port a command came through to VPD page 0x83,
 * answers REPORT (and, with explicit ALUA, SET) TARGET PORT GROUPS, and
 * refuses commands on ports in standby, unavailable or transitioning
 * state (docs/faults.md "ALUA").  Under tcmu-runner, LIO's configfs alua/
 * groups play that part. */
void lunlab_host_dev_set_tpgs(struct tcmu_device *dev, unsigned tpgs);

/* What a handler passes to lunlab_host_dev_set_inline: true when this
 * command (its CDB and the bytes its data buffer holds) will complete
 * inside handle_cmd without waiting for anything but memory work of its
 * own: no sleep, no pacing, no I/O, no completion from another thread.  It
 * is asked on the submitting thread before the command runs, so it must be
 * cheap and must not block either. */
typedef bool (*lunlab_inline_fn)(struct tcmu_device *dev, const uint8_t *cdb, size_t data_len);

/* Optional, from open(): lets the host run the commands may_run_inline
 * accepts on the thread that submits them (lunlab-target: the connection's
 * I/O thread) instead of handing them to a worker thread, which for a
 * 4 KiB READ costs more than the handler's work (a queue lock, a wake-up
 * and two context switches).  The host still hands a command to a worker
 * whenever commands of this device are queued or on workers, so an inline
 * command never overtakes one submitted before it.  NULL turns it off (the
 * default).  Everything else is unchanged: pending UNIT ATTENTIONs, status
 * mapping, --trace. */
void lunlab_host_dev_set_inline(struct tcmu_device *dev, lunlab_inline_fn may_run_inline);

/* Optional, from open(): lets the handler start on a large WRITE while its
 * data is still arriving.  lunlab-target receives a WRITE's data in bursts
 * (one R2T round trip each); after each burst but the last it calls
 * arrived(dev, cdb, iov, iovcnt, bytes, &state) on its I/O thread, before
 * the command reaches handle_cmd: the first `bytes` of the buffer (iov, the
 * whole buffer) are final and stay unchanged until the command is freed.
 * state starts NULL; arrived may set it, and handle_cmd finds it with
 * lunlab_host_cmd_early.  The host calls drop(state) once the command is
 * done, or instead of handle_cmd when the command never runs (aborted,
 * refused before the handler), on the I/O thread.  arrived must not block.
 * Under tcmu-runner the kernel collects the data and nothing of this
 * happens. */
typedef void (*lunlab_data_arrived_fn)(struct tcmu_device *dev, const uint8_t *cdb, const struct iovec *iov,
				       size_t iovcnt, size_t bytes, void **state);
void lunlab_host_dev_set_data_arrived(struct tcmu_device *dev, lunlab_data_arrived_fn arrived,
				      void (*drop)(void *state));

/* In handle_cmd: the state lunlab_data_arrived_fn left for this command, or
 * NULL.  It stays the host's to drop. */
void *lunlab_host_cmd_early(const struct tcmulib_cmd *cmd);

#endif
