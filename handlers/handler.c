/* handler.c — handler_lunlab.so's tcmu-runner 1.5.4 ABI glue, and nothing
 * else: registration, cfgstring checking, open/close of an LU (array,
 * volume, cost model), and handle_cmd, which hands the CDB to the SCSI
 * personality (scsi/) and paces its completion by the array's cost model.
 *
 * Passthrough mode: no read/write/flush callbacks, so every CDB reaches
 * handle_cmd on a worker thread: one of the nr_threads tcmu-runner starts
 * per device, or under lunlab-target one of its process-wide pool, with at
 * most nr_threads commands of an LU at once (target/tcmu/README.md "Worker
 * pool": an LU costs no thread of its own there).  Only handler_init is
 * exported (handler.map); tcmu_* / tcmur_* resolve from the host at dlopen.
 * What only lunlab-target's host offers comes through handlers/host.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "handlers/array/array_admin.h"
#include "handlers/array/array_state.h"
#include "handlers/array/store_db.h"
#include "handlers/array/volume.h"
#include "handlers/array/volume_names.h"
#include "handlers/array_ctl.h"
#include "handlers/copy/copy.h"
#include "handlers/host.h"
#include "handlers/lu_metrics.h"
#include "handlers/lunlab_dev.h"
#include "handlers/scsi/lu_config.h"
#include "handlers/scsi/naa.h"
#include "handlers/scsi/scsi.h"
#include "lunlab/tcmu_abi.h"
#include "lunlab/scsi_vocab.h"
#include "models/cost.h"
#include "lunlab/fnv1a.h"
#include "models/cost_virtual.h"
#include "models/pacer.h"
#include "models/vsessions.h"
#include "models/profile.h"

#define DEFAULT_MAX_XFER_BYTES (8u << 20)

int handler_init(void) __attribute__((visibility("default")));

/* Largest READ/WRITE run inline: a 64 KiB write (dedup hashing and zlib of
 * four 16 KiB blocks) is still well under the time a worker hand-off and
 * the I/O thread's next batch cost; larger ones would hold the I/O
 * thread's other connections back, so they go to workers. */
#define INLINE_MAX_BYTES (64u << 10)

/* lunlab_inline_fn: READ/WRITE(6/10/12/16) only (memory work under the
 * volume's range locks, no waits of their own); everything else (EXTENDED
 * COPY, WRITE SAME over a range, UNMAP, ...) may take long.  Only installed
 * for LUs whose model never paces (handle_cmd then never sleeps nor
 * completes asynchronously). */
static bool lunlab_may_inline(struct tcmu_device *tdev, const uint8_t *cdb, size_t data_len)
{
	(void)tdev;
	switch (cdb[0]) {
	case SCSI_OP_READ_6: case SCSI_OP_READ_10: case SCSI_OP_READ_12: case SCSI_OP_READ_16:
	case SCSI_OP_WRITE_6: case SCSI_OP_WRITE_10: case SCSI_OP_WRITE_12: case SCSI_OP_WRITE_16:
		return data_len <= INLINE_MAX_BYTES;
	default:
		return false;
	}
}

/* lunlab_data_arrived_fn: the SBC personality's (sbc_write_early.c). */
static void lunlab_data_arrived(struct tcmu_device *tdev, const uint8_t *cdb, const struct iovec *iov, size_t iovcnt,
				size_t bytes, void **state)
{
	struct scsi_lu *lu = tcmur_dev_get_private(tdev);

	if (lu)
		sbc_write_early_feed(&lu->dev, cdb, iov, iovcnt, bytes, state);
}

/* Whether the LU's cost model ever holds a completion back: the array's
 * first LU fixed its profile and time scale, so ask the model itself (its
 * totals: reading the telemetry would flush a session host's waiting commands
 * in the middle of a run, models/vsessions.h). */
static bool model_paces(struct cost_model *m)
{
	struct cost_totals t;

	if (!m)
		return false;
	cost_model_totals(m, &t);
	return t.cores > 0 && t.time_scale > 0;
}

static bool lunlab_check_config(const char *cfgstring, char **reason)
{
	struct lu_config c;

	return lu_config_parse(cfgstring, &c, reason) == 0;
}

/* serial: configured, else LIO's unit serial, else the uio name */
static void pick_serial(struct tcmu_device *tdev, const struct lu_config *c, char *out, size_t len)
{
	if (c->serial[0]) {
		snprintf(out, len, "%s", c->serial);
		return;
	}
	char *wwn = tcmu_cfgfs_dev_get_wwn(tdev);
	if (wwn && wwn[0]) {
		snprintf(out, len, "%s", wwn);
		free(wwn);
		return;
	}
	free(wwn);
	const char *uio = tcmu_dev_get_uio_name(tdev);
	snprintf(out, len, "lunlab-%s", uio && uio[0] ? uio : "lu");
}

static void lu_free(struct scsi_lu *lu)
{
	struct lunlab_dev *d = &lu->dev;

	if (d->model)
		cost_model_put(d->model);
	if (d->vol)
		array_volume_close(d->vol); /* named or kept in a state directory: stays */
	if (d->array)
		array_put(d->array);
	scsi_lu_fini(lu);
	free(lu);
}

/* The array of a LU without array=: its own, named after the device.  In a
 * state directory the name must be the same at every start, so it derives
 * from the unit serial (LIO's wwn under tcmu-runner, whose uio names change
 * between runs); a long serial keeps its head and a hash of the whole. */
static void private_array_name(struct tcmu_device *tdev, const struct lu_config *c, const char *serial,
			       char *out, size_t len)
{
	if (c->state_dir[0]) {
		if (strlen(serial) <= len - 1 - strlen("private:")) {
			snprintf(out, len, "private:%s", serial);
		} else {
			uint64_t h = ll_fnv1a64(LL_FNV1A64_BASIS, serial, strlen(serial));

			snprintf(out, len, "private:%.38s-%016llx", serial, (unsigned long long)h);
		}
		return;
	}
	const char *uio = tcmu_dev_get_uio_name(tdev);
	snprintf(out, len, "private:%.55s", uio && uio[0] ? uio : serial);
}

static int lunlab_open(struct tcmu_device *tdev, bool reopen)
{
	struct lu_config c;
	char *reason = NULL, *err = NULL;

	if (lu_config_parse(tcmu_dev_get_cfgstring(tdev), &c, &reason) != 0) {
		tcmu_dev_err(tdev, "lunlab: bad config: %s\n", reason ? reason : "?");
		free(reason);
		return -EINVAL;
	}
	const struct lunlab_profile *prof = profile_get(c.profile[0] ? c.profile : c.model, &err);
	if (!prof) {
		tcmu_dev_err(tdev, "lunlab: profile: %s\n", err ? err : "?");
		free(err);
		return -EINVAL;
	}
	struct scsi_lu *lu = calloc(1, sizeof(*lu));
	if (!lu)
		return -ENOMEM;
	struct lunlab_dev *d = &lu->dev;
	d->tdev = tdev;
	d->profile = prof;
	snprintf(d->model_name, sizeof(d->model_name), "%s", prof->name);
	d->xtremio_identity = c.xtremio_identity;
	pick_serial(tdev, &c, d->serial, sizeof(d->serial));
	if (c.array[0])
		snprintf(d->array_name, sizeof(d->array_name), "%s", c.array);
	else
		private_array_name(tdev, &c, d->serial, d->array_name, sizeof(d->array_name));
	d->block_size = tcmu_dev_get_block_size(tdev);
	d->num_lbas = tcmu_dev_get_num_lbas(tdev);
	if (d->block_size != 512 && d->block_size != 4096) {
		tcmu_dev_err(tdev, "lunlab: block size %u: want 512 or 4096\n", d->block_size);
		lu_free(lu);
		return -EINVAL;
	}

	struct array_params ap = {
		.dedup_block = prof->dedup_block,
		.zlib_level = prof->zlib_level,
		.zlib_window_bits = prof->zlib_window_bits,
		.alloc_unit = prof->alloc_unit,
	};
	d->array = array_get_state(d->array_name, &ap, c.state_dir[0] ? c.state_dir : NULL, prof->name, &err);
	if (!d->array) {
		tcmu_dev_err(tdev, "lunlab: array '%s': %s\n", d->array_name, err ? err : "cannot create");
		free(err);
		lu_free(lu);
		return -EINVAL;
	}
	array_set_profile(d->array, prof->name);
	array_space_default(d->array, prof->capacity_bytes, prof->soft_threshold_percent);
	if (c.volume[0]) {
		int rc = volume_attach(d->array, c.volume, d->num_lbas * d->block_size, d->block_size, &d->vol, &err);
		if (rc) {
			tcmu_dev_err(tdev, "lunlab: %s\n", err ? err : "cannot attach the volume");
			free(err);
			lu_free(lu);
			return rc;
		}
		snprintf(d->volume_name, sizeof(d->volume_name), "%s", c.volume);
	} else {
		/* the LU's own volume: in a state directory the one this serial had */
		char key[STORE_KEY_MAX];
		snprintf(key, sizeof(key), "lu:%s", d->serial);
		d->vol = array_volume_open(d->array, key, d->num_lbas * d->block_size, d->block_size, &err);
	}
	if (!d->vol) {
		tcmu_dev_err(tdev, "lunlab: array '%s': %s\n", d->array_name, err ? err : "cannot create the volume");
		free(err);
		lu_free(lu);
		return -EINVAL;
	}
	naa_from_serial(d->serial, d->naa);

	uint32_t max_xfer = tcmu_dev_get_max_xfer_len(tdev);
	if (max_xfer == 0 || max_xfer > DEFAULT_MAX_XFER_BYTES / d->block_size)
		max_xfer = DEFAULT_MAX_XFER_BYTES / d->block_size;
	d->max_xfer_len = max_xfer;
	tcmu_dev_set_max_xfer_len(tdev, max_xfer);
	lu->readonly = c.readonly || volume_is_readonly(d->vol); /* a read-only snapshot */
	if (scsi_lu_set_physical_block(lu, c.physical_block) != 0) {
		tcmu_dev_err(tdev, "lunlab: physical_block %u: want a power-of-two multiple of the %u-byte block, "
			     "at most 32768 blocks\n", c.physical_block, d->block_size);
		lu_free(lu);
		return -EINVAL;
	}
	uint32_t gran = scsi_opt_gran(d);
	tcmu_dev_set_max_unmap_len(tdev, SCSI_MAX_UNMAP_LBA_COUNT);
	tcmu_dev_set_opt_unmap_gran(tdev, gran, false);
	tcmu_dev_set_unmap_gran_align(tdev, gran); /* >= 1: the runner divides by it */
	tcmu_dev_set_unmap_enabled(tdev, true);
	tcmu_dev_set_solid_state_media(tdev, true);
	/* a power on: the saved mode page values become current (SPC-4
	 * 6.13); in memory nothing was saved: the write cache is on */
	uint32_t saved = array_volume_flags(d->vol);
	d->write_cache = !(saved & STORE_VOL_WCE_OFF);
	tcmu_dev_set_write_cache_enabled(tdev, d->write_cache);

	/* EXTENDED COPY finds its CSCDs by designator among the LUs of one
	 * array: two LUs there with one serial would make that ambiguous */
	if (lunlab_dev_find_by_naa(d->array, d->naa)) {
		tcmu_dev_err(tdev, "lunlab: serial '%s' is already used by another LU of array '%s'\n", d->serial,
			     d->array_name);
		lu_free(lu);
		return -EEXIST;
	}
	/* last of the checks, as it changes the array: array_capacity= and
	 * soft_threshold= must agree with the array's other LUNs */
	int krc = array_space_keys(d->array, c.array_capacity, c.soft_threshold, &err);
	if (krc) {
		tcmu_dev_err(tdev, "lunlab: %s\n", err ? err : "array_capacity refused");
		free(err);
		lu_free(lu);
		return krc;
	}
	d->model = cost_model_get(d->array_name, prof, c.time_scale);
	if (d->model && c.host_streams) /* configured: a client's LOG SELECT may not change it */
		cost_model_pin_virtual_streams(d->model);
	/* one stream per initiator session: the host is the array's, so one LU turns it on for all */
	if (d->model && c.host_sessions && cost_model_use_sessions(d->model) != 0) {
		tcmu_dev_err(tdev, "lunlab: host_streams=session: array '%s' has no virtual clock\n", d->array_name);
		lu_free(lu);
		return -EINVAL;
	}
	scsi_lu_init(lu);
	atomic_store(&lu->swp, (saved & STORE_VOL_SWP) != 0);
	lunlab_dev_register(d);
	tcmur_dev_set_private(tdev, lu);
	lu->unpaced = !model_paces(d->model);
	lu->sessions = d->model && cost_model_sessions(d->model);
	/* lunlab-target only (handlers/host.h): short READs and WRITEs of an
	 * unpaced LU run on the I/O thread */
	if (lu->unpaced)
		host_dev_set_inline(tdev, lunlab_may_inline);
	/* Only where the model paces: there a WRITE's modeled time runs from its
	 * arrival and the cores idle while its data trickles in, so storing each
	 * burst as it lands takes the store off the command's critical path.
	 * Unpaced, the store only competes with the transfer for the same cores
	 * and the helper wake-ups cost more than they save (1 MiB QD1 unique
	 * writes, alternating runs: 1,072-1,193 MB/s with it, 1,489-1,665
	 * without). */
	if (!lu->unpaced)
		host_dev_set_data_arrived(tdev, lunlab_data_arrived, sbc_write_early_drop);
	/* the ALUA the LU reports (lunlab-target's core keeps the port groups:
	 * target/lu/alua.h; under tcmu-runner LIO's configfs alua/ does) */
	host_dev_set_tpgs(tdev, (unsigned)(c.tpgs >= 0 ? c.tpgs : prof->tpgs));
	tcmu_dev_info(tdev, "lunlab: LU serial %s, model %s, array %s, %llu x %u bytes\n", d->serial,
		      d->model_name, d->array_name, (unsigned long long)d->num_lbas, d->block_size);
	return 0;
}

static void lunlab_close(struct tcmu_device *tdev)
{
	struct scsi_lu *lu = tcmur_dev_get_private(tdev);

	if (!lu)
		return;
	/* commands waiting for their modeled turn report to this LU's figures: charge them now */
	if (lu->dev.model)
		cost_model_flush(lu->dev.model);
	lunlab_dev_unregister(&lu->dev);
	copy_dev_forget(&lu->dev);
	tcmur_dev_set_private(tdev, NULL);
	lu_free(lu);
}

/* LIO attribute changes that tcmu-runner forwards: a resize (the runner then
 * sets num_lbas itself and raises CAPACITY DATA HAS CHANGED) and the write
 * cache switch.  A new cfgstring would mean another array or model under a
 * live LU: refused. */
static int lunlab_reconfig(struct tcmu_device *tdev, struct tcmulib_cfg_info *cfg)
{
	struct scsi_lu *lu = tcmur_dev_get_private(tdev);
	struct lunlab_dev *d = &lu->dev;

	switch (cfg->type) {
	case TCMULIB_CFG_DEV_SIZE: {
		uint64_t lbas = cfg->data.dev_size / d->block_size;
		int rc = volume_resize(d->vol, lbas * d->block_size);
		if (rc)
			return rc;
		/* commands racing the resize are still safe: the volume checks
		 * every range against its own size (-ERANGE -> LBA OUT OF RANGE) */
		__atomic_store_n(&d->num_lbas, lbas, __ATOMIC_RELEASE);
		return 0;
	}
	case TCMULIB_CFG_WRITE_CACHE:
		/* LIO's emulate_write_cache: the administrator's setting, kept as
		 * the saved value where the array is in a state directory */
		atomic_store(&lu->wce, cfg->data.write_cache);
		d->write_cache = cfg->data.write_cache;
		return array_volume_set_flags(d->vol, STORE_VOL_WCE_OFF, cfg->data.write_cache ? 0 : STORE_VOL_WCE_OFF);
	default:
		return -EOPNOTSUPP;
	}
}

/* scsi_cmd.data_progress for lunlab-target: the host sends the Data-In of
 * the first final_bytes while sbc_read copies the rest. */
struct host_cmd {
	struct tcmu_device *tdev;
	struct tcmulib_cmd *lc;
};

static void host_data_progress(struct scsi_cmd *cmd, size_t final_bytes)
{
	struct host_cmd *h = cmd->host_ctx;

	host_cmd_data_progress(h->tdev, h->lc, final_bytes);
}

struct paced_completion {
	struct tcmu_device *tdev;
	struct tcmur_cmd *cmd;
	int status;
};

static void complete_paced(void *arg)
{
	struct paced_completion *pc = arg;

	tcmur_cmd_complete(pc->tdev, pc->cmd, pc->status);
	free(pc);
}

/* A command the session host charged (vsessions.h), maybe after it completed. */
static void record_charged(void *ctx, const struct cost_req *r, const struct cost_result *res)
{
	lu_metrics_record(ctx, r, res->latency_ns, res->cpu_ns);
}

static int lunlab_handle_cmd(struct tcmu_device *tdev, struct tcmur_cmd *tcmur_cmd)
{
	struct scsi_lu *lu = tcmur_dev_get_private(tdev);
	struct tcmulib_cmd *lc = tcmur_cmd->lib_cmd;
	struct scsi_cmd cmd = {
		.dev = &lu->dev,
		.cdb = lc->cdb,
		.iov = lc->iovec,
		.iov_cnt = lc->iov_cnt,
		.sense = lc->sense_buf,
		.early = host_cmd_early(lc),
	};
	struct host_cmd host = { tdev, lc };
	enum cost_kind kind;

	for (size_t i = 0; i < lc->iov_cnt; i++)
		cmd.iov_len += lc->iovec[i].iov_len;
	/* a large READ of an unpaced LU goes out in pieces (sbc_read); a paced
	 * one goes out whole at once (host_cmd_data_ready, below); under
	 * tcmu-runner the kernel sends the data after completion anyway */
	if (host_has_data_progress() && lu->unpaced) {
		cmd.data_progress = host_data_progress;
		cmd.host_ctx = &host;
	}
	/* A command's modeled time starts when it arrived, as on a real array:
	 * a WRITE's data transfer (R2T round trips, Data-Out) and the work
	 * below (fingerprinting, storing) overlap its modeled service time
	 * instead of adding to it; only what exceeds it shows. */
	uint64_t arrival = host_cmd_arrival_ns(lc); /* 0 under tcmu-runner: now */
	uint64_t now = pacer_now_ns();
	if (!arrival || arrival > now)
		arrival = now;
	int status = scsi_dispatch(&cmd, &kind);
	if (!lu->dev.model)
		return status;

	struct cost_req req;
	struct cost_result res;
	scsi_cost_req(&cmd, kind, &req);
	if (lu->sessions) {
		/* virtual clock, one stream per session: charged in modeled order, maybe after
		 * this command's answer went (vsessions.h); nothing is paced */
		cost_model_charge_session(lu->dev.model, &req, host_cmd_nexus(lc), record_charged, &lu->metrics);
		cost_model_note_fault_delay(lu->dev.model, host_cmd_fault_delay_ns(lc));
		return status;
	}
	uint64_t deadline = cost_model_charge_ex(lu->dev.model, &req, arrival, &res);
	/* lunlab-target only: how long a fault rule (delay=) held the command
	 * (0 under tcmu-runner, which injects no faults) */
	cost_model_note_fault_delay(lu->dev.model, host_cmd_fault_delay_ns(lc));
	lu_metrics_record(&lu->metrics, &req, res.latency_ns, res.cpu_ns);
	if (deadline <= pacer_now_ns())
		return status;
	/* tcmu-runner 1.5.4 would complete an ASYNC_HANDLED from a worker at
	 * once with that value (tcmur_aio.c, io_work_queue): sleep there */
	if (!host_completes_async()) {
		struct timespec ts = { (time_t)(deadline / 1000000000u), (long)(deadline % 1000000000u) };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		return status;
	}
	struct paced_completion *pc = malloc(sizeof(*pc));
	if (!pc)
		return status; /* cannot pace: complete now rather than fail */
	pc->tdev = tdev;
	pc->cmd = tcmur_cmd;
	pc->status = status;
	if (status == TCMU_STS_OK) /* start the Data-In during the modeled time */
		host_cmd_data_ready(tdev, lc);
	pacer_schedule(deadline, complete_paced, pc);
	return TCMU_STS_ASYNC_HANDLED;
}

/* The host shuts down (its devices are closed): free the named volumes,
 * and with them the arrays they kept alive. */
static void lunlab_destroy(void)
{
	array_drop_named_volumes();
}

static struct tcmur_handler lunlab_handler = {
	.name = "lunlab XtremIO-like array emulator",
	.subtype = "lunlab",
	.cfg_desc = lu_config_desc,
	.check_config = lunlab_check_config,
	.reconfig = lunlab_reconfig,
	.open = lunlab_open,
	.close = lunlab_close,
	/* tcmu-runner: threads per LU; lunlab-target: commands of an LU at
	 * once on its shared pool */
	.nr_threads = 4,
	.handle_cmd = lunlab_handle_cmd,
	.destroy = lunlab_destroy,
};

int handler_init(void)
{
	int rc = tcmur_register_handler(&lunlab_handler);

	/* lunlab-target: its management plane reaches the arrays through this
	 * table (under tcmu-runner this does nothing) */
	if (rc == 0)
		host_handler_set_array_ctl(&lunlab_handler, &lunlab_array_ctl);
	return rc;
}
