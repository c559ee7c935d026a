/* host_ext.h — the one extension contract between lunlab-target's
 * libtcmu-compatible host (target/tcmu) and a handler module: what the host
 * offers beyond what tcmu-runner 1.5.4 exports.
 *
 * Finding it.  A host that offers the extensions exports ONE data symbol,
 * LUNLAB_HOST_OPS_SYMBOL, a const struct lunlab_host_ops.  A handler looks it
 * up once, dlsym(RTLD_DEFAULT, LUNLAB_HOST_OPS_SYMBOL), and never binds to a
 * lunlab_* function by name: its undefined symbols stay exactly the tcmu_* /
 * tcmur_* ones tcmu-runner and libtcmu export, so the module loads unchanged
 * in both hosts.  tcmu-runner has no such symbol: the lookup finds nothing
 * and the handler takes its tcmu-runner path (handlers/host.c is where
 * handler_lunlab makes that one decision).  The other direction rides on it
 * too: the module's handler_init hands its array-control table
 * (array_ctl.h) to the host through handler_set_array_ctl, so the module
 * exports handler_init and nothing else.  tests/check-handler-symbols.sh
 * fails a module that binds a lunlab_* symbol by name or exports more.
 *
 * Versioning.  version = LUNLAB_HOST_OPS_VERSION(major, minor); size =
 * sizeof(struct lunlab_host_ops) as the host was built.
 *   - A minor version only ever appends members at the end (size grows);
 *     every member it had keeps its place and meaning.  A handler built for
 *     minor N works with a host of minor N or newer.
 *   - A major version changes a member's place or meaning.
 * A handler refuses (one log line, then the tcmu-runner path) a struct whose
 * major version differs from LUNLAB_HOST_OPS_MAJOR, whose size is smaller
 * than the members it calls need, or that leaves a member NULL.  A host of a newer minor version, with a
 * bigger struct, is accepted: the handler uses the members it knows.  A
 * member a handler wants to treat as optional (appended in a later minor) is
 * tested with lunlab_host_ops_has().
 *
 * What a host promises with major 1, beyond the members below: every member
 * is set (none NULL), and a handler's TCMU_STS_ASYNC_HANDLED from
 * handle_cmd on a worker thread means "completion comes later through
 * tcmur_cmd_complete" (tcmu-runner 1.5.4 completes the command with that
 * return value instead, so a handler must not return it there). */
#ifndef LUNLAB_HOST_EXT_H
#define LUNLAB_HOST_EXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LUNLAB_HOST_OPS_SYMBOL "lunlab_host_ops"
#define LUNLAB_HOST_OPS_MAJOR 1u
#define LUNLAB_HOST_OPS_MINOR 0u
#define LUNLAB_HOST_OPS_VERSION(major, minor) (((uint32_t)(major) << 16) | ((uint32_t)(minor) & 0xffffu))
#define LUNLAB_HOST_OPS_VERSION_MAJOR(v) ((uint32_t)(v) >> 16)
#define LUNLAB_HOST_OPS_VERSION_MINOR(v) ((uint32_t)(v) & 0xffffu)

struct iovec;
struct lunlab_array_ctl;
struct tcmu_device;
struct tcmulib_cmd;
struct tcmur_handler;

/* What a handler passes to dev_set_inline: true when this
 * command (its CDB and the bytes its data buffer holds) will complete
 * inside handle_cmd without waiting for anything but memory work of its
 * own: no sleep, no pacing, no I/O, no completion from another thread.  It
 * is asked on the submitting thread before the command runs, so it must be
 * cheap and must not block either. */
typedef bool (*lunlab_inline_fn)(struct tcmu_device *dev, const uint8_t *cdb, size_t data_len);

/* What a handler passes to dev_set_data_arrived (below). */
typedef void (*lunlab_data_arrived_fn)(struct tcmu_device *dev, const uint8_t *cdb, const struct iovec *iov,
				       size_t iovcnt, size_t bytes, void **state);

struct lunlab_host_ops {
	uint32_t version; /* LUNLAB_HOST_OPS_VERSION(major, minor) of the host */
	uint32_t size;    /* sizeof(struct lunlab_host_ops) as the host was built */

	/* ---- major 1, minor 0 ---- */

	/* The data buffer of this READ-type command (its iovecs) already holds
	 * every byte the command returns, and the handler expects GOOD status; its
	 * completion (tcmur_cmd_complete) comes later, e.g. at the end of a modeled
	 * service time.  The transport starts sending the data now and sends the
	 * status on completion, so the wire transfer overlaps the wait instead of
	 * following it.  Call it at most once per command, from any thread, strictly
	 * before completing the command; a later error status is still reported
	 * correctly (after the data).  Ignored for commands that are not READ-type. */
	void (*cmd_data_ready)(struct tcmu_device *dev, struct tcmulib_cmd *cmd);

	/* The first `bytes` bytes of this READ-type command's data buffer (its
	 * iovecs, in order) hold their final data; the rest is still being filled.
	 * The transport may start sending them.  Call it any number of times with
	 * growing values, from any thread, strictly before completing the command
	 * (and before cmd_data_ready, if that is called at all).
	 * Ignored for commands that are not READ-type. */
	void (*cmd_data_progress)(struct tcmu_device *dev, struct tcmulib_cmd *cmd, size_t bytes);

	/* When the transport received this command (its SCSI Command PDU's header),
	 * CLOCK_MONOTONIC ns; 0 when unknown.  A WRITE reaches handle_cmd only after
	 * all of its data arrived (R2T round trips, Data-Out): a handler that models
	 * a service time starts it here, so that transfer overlaps the modeled time
	 * as it would on a real array instead of adding to it. */
	uint64_t (*cmd_arrival_ns)(const struct tcmulib_cmd *cmd);

	/* The I_T nexus (iSCSI session) that sent this command, as a number unique
	 * within the process; 0 when unknown.  EXTENDED COPY scopes list identifiers
	 * and held copy results to it, as SPC-4 does (tcmu-runner cannot tell). */
	uint64_t (*cmd_nexus)(const struct tcmulib_cmd *cmd);

	/* A fault rule of lunlab-target (docs/faults.md, xcopy-fail-after=N) asks
	 * this EXTENDED COPY to fail when it would start segment N (0-based: N
	 * segments are copied, the rest are not) and end with CHECK CONDITION
	 * sense[0]/[1]/[2] (key, ASC, ASCQ; key 0: the handler's own sense for a
	 * copy that broke off, COPY ABORTED).  The handler reports the progress in
	 * RECEIVE COPY RESULTS as for any copy that failed part way.  false: no
	 * rule applies (the copy runs normally).  Only the array can stop a copy
	 * part way, which is why this one fault travels to the handler. */
	bool (*cmd_xcopy_fault)(const struct tcmulib_cmd *cmd, uint32_t *segments, uint8_t sense[3]);

	/* How long a fault rule of lunlab-target (docs/faults.md, delay=MS) held
	 * this command before it reached the handler, ns; 0 for most commands.
	 * The handler sums it apart from its model (LOG SENSE page 31h parameter
	 * 000Fh), so that a client can tell injected time from the machine's. */
	uint64_t (*cmd_fault_delay_ns)(const struct tcmulib_cmd *cmd);

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
	void (*dev_set_tpgs)(struct tcmu_device *dev, unsigned tpgs);


	/* Optional, from open(): lets the host run the commands may_run_inline
	 * accepts on the thread that submits them (lunlab-target: the connection's
	 * I/O thread) instead of handing them to a worker thread, which for a
	 * 4 KiB READ costs more than the handler's work (a queue lock, a wake-up
	 * and two context switches).  The host still hands a command to a worker
	 * whenever commands of this device are queued or on workers, so an inline
	 * command never overtakes one submitted before it.  NULL turns it off (the
	 * default).  Everything else is unchanged: pending UNIT ATTENTIONs, status
	 * mapping, --trace. */
	void (*dev_set_inline)(struct tcmu_device *dev, lunlab_inline_fn may_run_inline);

	/* Optional, from open(): lets the handler start on a large WRITE while its
	 * data is still arriving.  lunlab-target receives a WRITE's data in bursts
	 * (one R2T round trip each); after each burst but the last it calls
	 * arrived(dev, cdb, iov, iovcnt, bytes, &state) on its I/O thread, before
	 * the command reaches handle_cmd: the first `bytes` of the buffer (iov, the
	 * whole buffer) are final and stay unchanged until the command is freed.
	 * state starts NULL; arrived may set it, and handle_cmd finds it with
	 * cmd_early.  The host calls drop(state) once the command is
	 * done, or instead of handle_cmd when the command never runs (aborted,
	 * refused before the handler), on the I/O thread.  arrived must not block.
	 * Under tcmu-runner the kernel collects the data and nothing of this
	 * happens. */
	void (*dev_set_data_arrived)(struct tcmu_device *dev, lunlab_data_arrived_fn arrived,
				     void (*drop)(void *state));

	/* In handle_cmd: the state arrived left for this command, or
	 * NULL.  It stays the host's to drop. */
	void *(*cmd_early)(const struct tcmulib_cmd *cmd);

	/* From handler_init, once tcmur_register_handler(h) succeeded: the
	 * array-control table (include/lunlab/array_ctl.h) of the module that
	 * registered h, through which lunlab-target's management plane (the
	 * API, /metrics, --check-state) reaches the array.  The table must
	 * outlive the process (a const object of the module: hosts never
	 * unload a handler).  0; -ENOENT when h is not registered; -EINVAL for
	 * a NULL ctl.  Under tcmu-runner no one asks for a table. */
	int (*handler_set_array_ctl)(const struct tcmur_handler *h, const struct lunlab_array_ctl *ctl);
};

/* Whether ops offers member `member`: its struct is long enough to hold it
 * (members are only ever appended) and sets it. */
#define lunlab_host_ops_has(ops, member)                                                          \
	((ops) && (ops)->size >= offsetof(struct lunlab_host_ops, member) + sizeof((ops)->member) && \
	 (ops)->member)

#endif
