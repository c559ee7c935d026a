/* host.c — device life cycle: create a tcmu_device from a cfgstring the
 * way LIO + tcmu-runner would (check_config, configfs values, open(),
 * its queue in the worker pool), expose it as an lu_backend, and tear
 * everything down. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "target/tcmu/host_priv.h"

/* max_xfer_len when the configuration gives none.  LIO's default
 * hw_max_sectors (128) would cap commands at 64 KiB; lunlab-target has no
 * kernel ring to fit, so it allows 8 MiB (large sequential I/O in one
 * command, as the benchmarks use). */
#define DEFAULT_MAX_XFER_BYTES (8u << 20)
/* per device; a handler asking for more is almost certainly confused */
#define MAX_WORKERS 64

static pthread_mutex_t devs_lock = PTHREAD_MUTEX_INITIALIZER; /* create/destroy only */
static struct tcmu_device *devs;

atomic_bool host_trace_on;

void tcmu_host_set_trace(bool on) { atomic_store(&host_trace_on, on); }

/* "<name>: <what>[: <detail>]" as ONE line: a handler's reason may carry a
 * newline, and the error ends up in a single log line. */
static void set_errf(char **err, const char *name, const char *what, const char *detail)
{
	if (!err)
		return;
	if (asprintf(err, "%s: %s%s%s", name, what, detail ? ": " : "", detail ? detail : "") < 0) {
		*err = NULL;
		return;
	}
	size_t n = strlen(*err);

	while (n && ((*err)[n - 1] == '\n' || (*err)[n - 1] == '\r'))
		(*err)[--n] = 0;
	for (char *p = *err; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
}

static void dev_free(struct tcmu_device *dev)
{
	free(dev->cfgstring);
	free(dev->name);
	free(dev->wwn);
	free(dev);
}

struct lu_backend *tcmu_host_create_device(const struct tcmu_host_dev_cfg *cfg, char **err)
{
	const char *name = cfg && cfg->name ? cfg->name : "lu";

	if (err)
		*err = NULL;
	if (!cfg || !cfg->cfgstring) {
		set_errf(err, name, "no cfgstring", NULL);
		return NULL;
	}
	const char *slash = strchr(cfg->cfgstring, '/');

	if (!slash || slash == cfg->cfgstring) {
		set_errf(err, name, "cfgstring must be \"<subtype>/<config>\"", cfg->cfgstring);
		return NULL;
	}
	if (cfg->block_size == 0 || (cfg->block_size & (cfg->block_size - 1)) != 0) {
		set_errf(err, name, "block size must be a power of two", NULL);
		return NULL;
	}
	if (cfg->size_bytes < cfg->block_size) {
		set_errf(err, name, "size is smaller than one block", NULL);
		return NULL;
	}
	struct tcmur_handler *h = host_find_handler(cfg->cfgstring, (size_t)(slash - cfg->cfgstring));

	if (!h) {
		char sub[64];

		snprintf(sub, sizeof(sub), "%.*s", (int)(slash - cfg->cfgstring), cfg->cfgstring);
		set_errf(err, name, "no handler registered for subtype", sub);
		return NULL;
	}
	if (!h->handle_cmd) {
		set_errf(err, name, "handler has no handle_cmd (only passthrough handlers are hosted)", h->subtype);
		return NULL;
	}
	if (h->check_config) {
		char *reason = NULL;

		if (!h->check_config(cfg->cfgstring, &reason)) {
			set_errf(err, name, reason ? reason : "configuration refused by the handler", NULL);
			free(reason);
			return NULL;
		}
		free(reason);
	}

	struct tcmu_device *dev = calloc(1, sizeof(*dev));

	if (!dev || !(dev->cfgstring = strdup(cfg->cfgstring)) || !(dev->name = strdup(name)) ||
	    (cfg->wwn && !(dev->wwn = strdup(cfg->wwn)))) {
		if (dev)
			dev_free(dev);
		set_errf(err, name, "out of memory", NULL);
		return NULL;
	}
	dev->handler = h;
	dev->be.ops = &host_backend_ops;
	snprintf(dev->uio_name, sizeof(dev->uio_name), "uio-lunlab-%s", name);
	tcmu_dev_set_block_size(dev, cfg->block_size);
	tcmu_dev_set_num_lbas(dev, cfg->size_bytes / cfg->block_size);
	atomic_store(&dev->size_bytes, cfg->size_bytes);
	dev->max_xfer_len = cfg->max_xfer_len ? cfg->max_xfer_len : DEFAULT_MAX_XFER_BYTES / cfg->block_size;
	/* LIO's defaults for a new TCMU device: write cache off, rotational,
	 * unmap off; the handler changes what it supports in open() */
	dev->unmap_gran_align = 0;

	int rc = h->open ? h->open(dev, false) : 0;

	if (rc != 0) {
		set_errf(err, name, "handler open() failed", strerror(rc < 0 ? -rc : rc));
		dev_free(dev);
		return NULL;
	}
	dev->opened = true;
	/* the handler may have changed block size / num_lbas in open() */
	dev->be.block_size = dev->block_size;
	dev->be.num_lbas = atomic_load(&dev->num_lbas);
	int nr = h->nr_threads;

	if (nr > MAX_WORKERS) {
		tcmu_warn_message(dev, __func__, __LINE__, "handler asks for %d threads, using %d", nr, MAX_WORKERS);
		nr = MAX_WORKERS;
	}
	if (host_dev_start_workers(dev, nr, err) != 0) {
		if (h->close)
			h->close(dev);
		dev_free(dev);
		return NULL;
	}
	pthread_mutex_lock(&devs_lock);
	dev->next_dev = devs;
	dev->prev_dev = NULL;
	if (devs)
		devs->prev_dev = dev;
	devs = dev;
	pthread_mutex_unlock(&devs_lock);
	return &dev->be;
}

void host_dev_destroy(struct tcmu_device *dev)
{
	pthread_mutex_lock(&devs_lock);
	if (dev->prev_dev)
		dev->prev_dev->next_dev = dev->next_dev;
	else if (devs == dev)
		devs = dev->next_dev;
	if (dev->next_dev)
		dev->next_dev->prev_dev = dev->prev_dev;
	dev->next_dev = dev->prev_dev = NULL;
	pthread_mutex_unlock(&devs_lock);
	host_dev_stop_workers(dev);
	/* asynchronous completions may still be running on handler threads:
	 * give them up to 10 s before close() */
	for (int i = 0; i < 10000 && atomic_load(&dev->inflight) > 0; i++)
		usleep(1000);
	if (atomic_load(&dev->inflight) > 0)
		tcmu_warn_message(dev, __func__, __LINE__, "closing with %ld commands still in flight",
				  atomic_load(&dev->inflight));
	if (dev->opened && dev->handler->close)
		dev->handler->close(dev);
	dev_free(dev);
}

int tcmu_host_resize_device(struct lu_backend *be, uint64_t size_bytes, char **err)
{
	struct tcmu_device *dev = container_of_host(be, struct tcmu_device, be);
	struct tcmulib_cfg_info cfg;
	int rc;

	if (err)
		*err = NULL;
	if (size_bytes < dev->block_size || size_bytes % dev->block_size) {
		set_errf(err, dev->name, "resize", "the size is not a whole number of blocks");
		return -1;
	}
	if (!dev->handler->reconfig) {
		set_errf(err, dev->name, "resize", "the handler has no reconfig()");
		return -1;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.type = TCMULIB_CFG_DEV_SIZE;
	cfg.data.dev_size = size_bytes;
	rc = dev->handler->reconfig(dev, &cfg);
	if (rc != 0) {
		set_errf(err, dev->name, "resize refused by the handler", strerror(rc < 0 ? -rc : rc));
		return -1;
	}
	atomic_store(&dev->size_bytes, size_bytes);
	tcmu_dev_set_num_lbas(dev, size_bytes / dev->block_size);
	__atomic_store_n(&dev->be.num_lbas, size_bytes / dev->block_size, __ATOMIC_RELEASE);
	return 0;
}

void tcmu_host_destroy_device(struct lu_backend *be)
{
	if (be)
		host_dev_destroy(container_of_host(be, struct tcmu_device, be));
}

void tcmu_host_shutdown(void)
{
	for (;;) {
		pthread_mutex_lock(&devs_lock);
		struct tcmu_device *dev = devs;

		pthread_mutex_unlock(&devs_lock);
		if (!dev)
			break;
		host_dev_destroy(dev);
	}
	host_pool_stop();
	host_handlers_destroy();
}
