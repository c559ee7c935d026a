/* dispatch.c — the command path: lu_cmd in, handle_cmd on a worker of the
 * process's pool, TCMU_STS_* out as SCSI status + sense, lu_cmd->done().
 *
 * Each device has its own queue in the shared pool (work_pool.h: per-device
 * order and cap, devices served in turn); its lock is held only to splice
 * lists.  Submitters wake a worker only when none is free.  Commands the
 * handler declares non-blocking (host_ext_dev_set_inline) skip the queue
 * and run on the submitting thread while the device has nothing queued or
 * on a worker. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lunlab/host_ext.h"
#include "lunlab/scsi_vocab.h"
#include "target/tcmu/host_priv.h"

/* A worker that runs dry sleeps at once.  Spinning a few microseconds for
 * more work first was measured (iscsi-perf 4 KiB random QD32, 2 CPUs shared
 * with the initiator): 5-20 us of spinning cost 10-25% IOPS, the spinner
 * takes the CPU the I/O thread and the initiator need.
 * A batch longer than this per free worker wakes another one: */
#define HOST_CMDS_PER_FREE 8

/* Final step of every command, on whatever thread completed it. */
static void host_cmd_finish(struct host_cmd *hc, int sts)
{
	struct tcmu_device *dev = hc->dev;
	struct lu_cmd *lu = hc->lu;
	uint8_t status = host_sts_to_scsi(dev, sts, hc->lib.sense_buf);

	lu->status = status;
	if (status == SCSI_STAT_CHECK_CONDITION) {
		lu->sense_len = host_sense_len(hc->lib.sense_buf, LU_SENSE_MAX);
		memcpy(lu->sense, hc->lib.sense_buf, lu->sense_len);
	} else {
		lu->sense_len = 0;
	}
	/* Handlers do not report how much Data-In they produced; like LIO with
	 * tcmu, a GOOD command moved the whole expected length (never more
	 * than the buffer the transport gave). */
	lu->data_len = status == SCSI_STAT_GOOD ? (lu->xfer_len < hc->buf_len ? lu->xfer_len : hc->buf_len) : 0;
	lu->backend_priv = NULL;
	if (atomic_load_explicit(&host_trace_on, memory_order_relaxed))
		host_trace_cmd(dev, lu, &hc->t_start);
	if (hc->on_worker)
		atomic_fetch_sub_explicit(&dev->backlog, 1, memory_order_release);
	free(hc);
	atomic_fetch_sub_explicit(&dev->inflight, 1, memory_order_release);
	lu->done(lu);
}

/* tcmur_cmd.done: how an ASYNC_HANDLED command comes back. */
static void host_cmd_done_cb(struct tcmu_device *dev, struct tcmur_cmd *rcmd, int rc)
{
	struct host_cmd *hc = container_of_host(rcmd, struct host_cmd, rcmd);

	(void)dev;
	host_cmd_finish(hc, rc);
}

void tcmur_cmd_complete(struct tcmu_device *dev, void *data, int rc)
{
	struct tcmur_cmd *rcmd = data;

	rcmd->done(dev, rcmd, rc);
}

/* The host command of a READ-type command whose data is not final as a whole
 * yet (data_ready not forwarded), or NULL.  The handler owns the command
 * until it completes it, so hc is alive here. */
static struct host_cmd *host_read_in_progress(struct tcmulib_cmd *cmd)
{
	struct host_cmd *hc;

	if (!cmd)
		return NULL;
	hc = container_of_host(cmd, struct host_cmd, lib);
	if (!hc->lu || hc->data_ready_sent || hc->lu->dir != LU_DIR_READ)
		return NULL;
	return hc;
}

/* host_ext.h: forwarded to the transport once, for reads only. */
void host_ext_cmd_data_ready(struct tcmu_device *dev, struct tcmulib_cmd *cmd)
{
	struct host_cmd *hc = host_read_in_progress(cmd);

	(void)dev;
	if (!hc || !hc->lu->data_ready)
		return;
	hc->data_ready_sent = true;
	hc->lu->data_ready(hc->lu);
}

/* host_ext.h: forwarded to the transport, for reads only, while the data
 * is not final as a whole yet (data_ready not forwarded). */
void host_ext_cmd_data_progress(struct tcmu_device *dev, struct tcmulib_cmd *cmd, size_t bytes)
{
	struct host_cmd *hc = host_read_in_progress(cmd);

	(void)dev;
	if (!hc || !hc->lu->data_progress)
		return;
	hc->lu->data_progress(hc->lu, bytes < hc->buf_len ? bytes : hc->buf_len);
}

/* The transport's command behind a handler's tcmulib_cmd, or NULL. */
static const struct lu_cmd *lu_of(const struct tcmulib_cmd *cmd)
{
	return cmd ? container_of_host(cmd, struct host_cmd, lib)->lu : NULL;
}

uint64_t host_ext_cmd_nexus(const struct tcmulib_cmd *cmd)
{
	const struct lu_cmd *lu = lu_of(cmd);

	return lu ? lu->nexus_id : 0;
}

uint64_t host_ext_cmd_arrival_ns(const struct tcmulib_cmd *cmd)
{
	const struct lu_cmd *lu = lu_of(cmd);

	return lu ? lu->arrival_ns : 0;
}

uint64_t host_ext_cmd_fault_delay_ns(const struct tcmulib_cmd *cmd)
{
	const struct lu_cmd *lu = lu_of(cmd);

	return lu ? lu->fault.delay_ns : 0;
}

bool host_ext_cmd_xcopy_fault(const struct tcmulib_cmd *cmd, uint32_t *segments, uint8_t sense[3])
{
	const struct host_cmd *hc;

	if (!cmd)
		return false;
	hc = container_of_host(cmd, struct host_cmd, lib);
	if (!hc->lu || !hc->lu->fault.xcopy_fail)
		return false;
	*segments = hc->lu->fault.xcopy_segments;
	sense[0] = hc->lu->fault.key;
	sense[1] = hc->lu->fault.asc;
	sense[2] = hc->lu->fault.ascq;
	return true;
}

void *host_ext_cmd_early(const struct tcmulib_cmd *cmd)
{
	const struct lu_cmd *lu = lu_of(cmd);

	return lu ? lu->early : NULL;
}

void host_ext_dev_set_data_arrived(struct tcmu_device *dev, lunlab_data_arrived_fn arrived,
				   void (*drop)(void *state))
{
	if (dev && (!arrived || drop)) {
		dev->data_arrived = arrived;
		dev->early_drop = drop;
		dev->be.wants_data_arrived = arrived != NULL;
	}
}

/* lu_backend_ops.data_arrived: the handler's, with the state kept in the
 * transport's command (which drops it when it frees the command). */
static void host_data_arrived(struct lu_backend *be, struct lu_cmd *lu, size_t bytes)
{
	struct tcmu_device *dev = container_of_host(be, struct tcmu_device, be);

	if (!dev->data_arrived)
		return;
	dev->data_arrived(dev, lu->cdb, lu->iov, lu->iov_cnt, bytes, &lu->early);
	if (lu->early)
		lu->early_drop = dev->early_drop;
}

static void host_cmd_run(struct host_cmd *hc)
{
	struct tcmu_device *dev = hc->dev;
	uint8_t op = hc->lib.cdb[0];

	/* the runner reports a pending UNIT ATTENTION before the handler sees
	 * the CDB (the kernel answers REPORT LUNS itself) */
	if (op != SCSI_OP_INQUIRY && op != SCSI_OP_REQUEST_SENSE &&
	    atomic_load_explicit(&dev->pending_ua, memory_order_relaxed)) {
		unsigned ua = atomic_fetch_and(&dev->pending_ua, ~HOST_UA_CAPACITY_CHANGED);

		if (ua & HOST_UA_CAPACITY_CHANGED) {
			host_cmd_finish(hc, TCMU_STS_CAPACITY_CHANGED);
			return;
		}
	}
	int rc = dev->handler->handle_cmd(dev, &hc->rcmd);

	if (rc != TCMU_STS_ASYNC_HANDLED)
		host_cmd_finish(hc, rc);
}

void host_ext_dev_set_inline(struct tcmu_device *dev, lunlab_inline_fn may_run_inline)
{
	if (dev)
		dev->may_inline = may_run_inline;
}

/* Run this command on the submitting thread?  Only when the handler says it
 * cannot block, and only while nothing of this device is queued or on a
 * worker: then it overtakes no earlier command, and cannot wait for a range
 * lock a worker's command of this device holds.  The acquire pairs with the
 * release in host_cmd_finish: a backlog seen at 0 means those commands are
 * done, not merely counted down. */
static bool host_run_inline(struct tcmu_device *dev, const struct host_cmd *hc)
{
	lunlab_inline_fn ok = dev->may_inline;

	return ok && atomic_load_explicit(&dev->backlog, memory_order_acquire) == 0 &&
	       ok(dev, hc->lib.cdb, hc->buf_len);
}

static bool is_media_read(uint8_t op)
{
	return op == SCSI_OP_READ_6 || op == SCSI_OP_READ_10 || op == SCSI_OP_READ_12 || op == SCSI_OP_READ_16;
}

static struct host_cmd *host_cmd_new(struct tcmu_device *dev, struct lu_cmd *lu)
{
	struct host_cmd *hc = malloc(sizeof(*hc) + lu->iov_cnt * sizeof(struct iovec));

	if (!hc)
		return NULL;
	memset(hc, 0, sizeof(*hc));
	if (lu->iov_cnt)
		memcpy(hc->iov, lu->iov, lu->iov_cnt * sizeof(struct iovec));
	/* Handlers do not say how much Data-In they produced and the whole
	 * expected length goes back to the initiator: clear the buffer of
	 * small replies (INQUIRY, MODE SENSE, ...) so no stale transport memory
	 * is ever sent.  READs fill every byte they return, and are the ones
	 * where a memset would cost. */
	if (lu->dir == LU_DIR_READ && !is_media_read(lu->cdb[0]) && lu->iov_cnt)
		tcmu_iovec_zero(hc->iov, lu->iov_cnt);
	hc->buf_len = tcmu_iovec_length(hc->iov, lu->iov_cnt);
	hc->lu = lu;
	hc->dev = dev;
	hc->lib.cmd_id = (uint16_t)lu->itt_tag;
	hc->lib.cdb = lu->cdb;
	hc->lib.iovec = hc->iov;
	hc->lib.iov_cnt = lu->iov_cnt;
	hc->lib.hm_private = &hc->rcmd;
	hc->rcmd.lib_cmd = &hc->lib;
	hc->rcmd.done = host_cmd_done_cb;
	hc->rcmd.requested = lu->xfer_len;
	clock_gettime(CLOCK_MONOTONIC, &hc->t_start);
	hc->rcmd.start_time = hc->t_start;
	lu->backend_priv = &hc->rcmd;
	return hc;
}

/* Builds the host command; NULL when it completed already (no memory, or
 * it ran inline: nr_threads == 0, or a command the handler declared
 * non-blocking).  Otherwise it is counted in the backlog, for the queue. */
static struct host_cmd *host_accept(struct tcmu_device *dev, struct lu_cmd *lu)
{
	struct host_cmd *hc;

	atomic_fetch_add_explicit(&dev->inflight, 1, memory_order_relaxed);
	hc = host_cmd_new(dev, lu);
	if (!hc) {
		/* no memory for the command: ask the initiator to retry later */
		lu->status = SCSI_STAT_TASK_SET_FULL;
		lu->sense_len = 0;
		lu->data_len = 0;
		atomic_fetch_sub(&dev->inflight, 1);
		lu->done(lu);
		return NULL;
	}
	if (dev->nr_workers == 0 || host_run_inline(dev, hc)) {
		host_cmd_run(hc); /* nr_threads == 0: inline, as the runner does */
		return NULL;
	}
	hc->on_worker = true;
	atomic_fetch_add_explicit(&dev->backlog, 1, memory_order_relaxed);
	return hc;
}

/* The pool runs a device's commands through this. */
static void host_queue_run(struct work_queue *q, struct work_item *it)
{
	(void)q;
	host_cmd_run(container_of_host(it, struct host_cmd, item));
}

static void host_submit(struct lu_backend *be, struct lu_cmd *lu)
{
	struct tcmu_device *dev = container_of_host(be, struct tcmu_device, be);
	struct host_cmd *hc = host_accept(dev, lu);

	if (hc)
		work_queue_push(&dev->q, &hc->item, true);
}

/* The transport's batch path: queue now, wake in host_kick().  A worker
 * finishing another command may start it before the kick already. */
static void host_submit_deferred(struct lu_backend *be, struct lu_cmd *lu)
{
	struct tcmu_device *dev = container_of_host(be, struct tcmu_device, be);
	struct host_cmd *hc = host_accept(dev, lu);

	if (hc)
		work_queue_push(&dev->q, &hc->item, false);
}

/* End of a transport batch: wake one worker if none is free to pop, and
 * more only for a queue longer than the free ones take quickly. */
static void host_kick(struct lu_backend *be)
{
	struct tcmu_device *dev = container_of_host(be, struct tcmu_device, be);

	/* a batch that ran inline queued nothing: no lock to take.  This
	 * thread counted what it queued itself, so it cannot miss its own. */
	if (dev->nr_workers == 0 || atomic_load_explicit(&dev->backlog, memory_order_relaxed) == 0)
		return;
	work_pool_kick(dev->q.pool, HOST_CMDS_PER_FREE);
}

/* ---- the process's worker pool (work_pool.h) ---- */

/* Workers when tcmu_host_set_workers gave none: 4 per CPU (a command may
 * block in the handler's I/O, so more than one per CPU), at least 8 (so
 * that one LU gets the 4 concurrent commands lunlab's nr_threads asks for
 * and others still find free workers), at most 256. */
#define HOST_WORKERS_MIN 8u
#define HOST_WORKERS_PER_CPU 4u
#define HOST_WORKERS_MAX 256u

static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static struct work_pool host_pool;
static bool pool_running;
static unsigned workers_wanted; /* 0: the default */

void tcmu_host_set_workers(unsigned n)
{
	pthread_mutex_lock(&pool_mu);
	workers_wanted = n;
	pthread_mutex_unlock(&pool_mu);
}

static unsigned default_workers(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long n = (cpus > 0 ? (unsigned long)cpus : 1) * HOST_WORKERS_PER_CPU;

	return n < HOST_WORKERS_MIN ? HOST_WORKERS_MIN : n > HOST_WORKERS_MAX ? HOST_WORKERS_MAX : (unsigned)n;
}

unsigned tcmu_host_workers(void)
{
	pthread_mutex_lock(&pool_mu);
	unsigned n = pool_running ? host_pool.nthreads : workers_wanted ? workers_wanted : default_workers();

	pthread_mutex_unlock(&pool_mu);
	return n;
}

/* A device with nr_threads > 0 joins the pool (started by the first one):
 * at most nr commands of it run at once, as with tcmu-runner's nr workers
 * per device, and never every worker of the pool, so that one LU whose
 * commands block cannot hold up the others. */
int host_dev_start_workers(struct tcmu_device *dev, int nr, char **err)
{
	dev->nr_workers = 0;
	if (nr <= 0)
		return 0;
	pthread_mutex_lock(&pool_mu);
	if (!pool_running) {
		char *why = NULL;
		unsigned n = workers_wanted ? workers_wanted : default_workers();
		int rc = work_pool_start(&host_pool, n, "tcmu", &why);

		if (rc) {
			pthread_mutex_unlock(&pool_mu);
			if (err && asprintf(err, "%s: %s", dev->name, why ? why : "cannot start the worker pool") < 0)
				*err = NULL;
			free(why);
			return rc;
		}
		pool_running = true;
	}
	unsigned cap = (unsigned)nr, most = host_pool.nthreads > 1 ? host_pool.nthreads - 1 : 1;

	pthread_mutex_unlock(&pool_mu);
	if (cap > most)
		cap = most;
	work_queue_init(&dev->q, &host_pool, cap, host_queue_run);
	dev->nr_workers = (int)cap;
	return 0;
}

/* Runs the device's queue dry (the pool's workers do); the pool stays. */
void host_dev_stop_workers(struct tcmu_device *dev)
{
	if (dev->nr_workers)
		work_queue_drain(&dev->q);
	dev->nr_workers = 0;
}

/* Every device is gone (tcmu_host_shutdown): join the pool's threads; the
 * next device starts a new pool, of the size asked for then. */
void host_pool_stop(void)
{
	pthread_mutex_lock(&pool_mu);
	if (pool_running) {
		work_pool_stop(&host_pool);
		pool_running = false;
	}
	pthread_mutex_unlock(&pool_mu);
}

static bool of_nexus(const struct work_item *it, void *ctx)
{
	const struct host_cmd *hc = container_of_host(it, struct host_cmd, item);

	return hc->lu->nexus_id == *(const uint64_t *)ctx;
}

/* Commands of the nexus still waiting in the queue never reach the handler:
 * they complete with TASK ABORTED (the transport decides whether that
 * status is sent).  Commands already in the handler finish normally. */
static void host_abort_nexus(struct lu_backend *be, uint64_t nexus_id)
{
	struct tcmu_device *dev = container_of_host(be, struct tcmu_device, be);
	struct work_item *aborted;

	if (dev->nr_workers == 0)
		return;
	aborted = work_queue_take_if(&dev->q, of_nexus, &nexus_id);
	while (aborted) {
		struct work_item *next = aborted->next;
		struct host_cmd *hc = container_of_host(aborted, struct host_cmd, item);
		struct lu_cmd *lu = hc->lu;

		lu->status = SCSI_STAT_TASK_ABORTED;
		lu->sense_len = 0;
		lu->data_len = 0;
		lu->backend_priv = NULL;
		if (atomic_load_explicit(&host_trace_on, memory_order_relaxed))
			host_trace_cmd(dev, lu, &hc->t_start);
		free(hc);
		atomic_fetch_sub_explicit(&dev->backlog, 1, memory_order_release);
		atomic_fetch_sub(&dev->inflight, 1);
		lu->done(lu);
		aborted = next;
	}
}

static void host_backend_destroy(struct lu_backend *be)
{
	host_dev_destroy(container_of_host(be, struct tcmu_device, be));
}

const struct lu_backend_ops host_backend_ops = {
	.submit = host_submit,
	.abort_nexus = host_abort_nexus,
	.destroy = host_backend_destroy,
	.submit_deferred = host_submit_deferred,
	.kick = host_kick,
	.data_arrived = host_data_arrived,
};
