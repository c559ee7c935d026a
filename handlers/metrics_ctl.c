/* metrics_ctl.c — array_model and lu_figures of the array-control interface
 * (array_ctl.h): the figures lunlab-target's /metrics exports that only the
 * array knows.  Read-only: nothing here changes the array. */
#include "handlers/metrics_ctl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "handlers/lu_metrics.h"
#include "handlers/scsi/scsi.h"
#include "models/cost.h"

int metrics_ctl_array_model(const char *array, struct lunlab_model_figures *out)
{
	struct cost_model *m = array ? cost_model_find(array) : NULL;
	struct cost_totals t;

	memset(out, 0, sizeof(*out));
	if (!m)
		return -ENOENT;
	cost_model_totals(m, &t);
	cost_model_put(m);
	out->commands = t.commands;
	out->cpu_ns = t.cpu_ns;
	out->latency_sum_ns = t.latency_sum_ns;
	memcpy(out->latency_buckets, t.latency_buckets, sizeof(out->latency_buckets));
	out->modeled_elapsed_ns = t.modeled_elapsed_ns;
	out->cores = t.cores;
	out->virtual_streams = t.virtual_streams;
	out->time_scale = t.time_scale;
	return 0;
}

int metrics_ctl_lu_figures(struct tcmu_device *dev, struct lunlab_lu_figures *out)
{
	/* found through the handler's device registry, not the device's private
	 * pointer: this file is plain array code, linked into the unit tests */
	struct lunlab_dev *d = dev ? lunlab_dev_find_by_tdev(dev) : NULL;
	struct scsi_lu *lu = d ? scsi_lu(d) : NULL;
	struct lu_metrics_figures f;

	memset(out, 0, sizeof(*out));
	if (!lu)
		return -ENODEV; /* not open (yet, or any more) */
	snprintf(out->array, sizeof(out->array), "%s", lu->dev.array_name);
	snprintf(out->volume, sizeof(out->volume), "%s", lu->dev.volume_name[0] ? lu->dev.volume_name : lu->dev.serial);
	snprintf(out->profile, sizeof(out->profile), "%s", lu->dev.model_name);
	out->mapped_bytes = volume_mapped_bytes(lu->dev.vol);
	lu_metrics_read(&lu->metrics, &f);
	out->xcopy_covered_bytes = f.xcopy_covered_bytes;
	out->write_same_covered_bytes = f.write_same_covered_bytes;
	out->unmap_covered_bytes = f.unmap_covered_bytes;
	out->model.commands = f.commands;
	out->model.cpu_ns = f.cpu_ns;
	out->model.latency_sum_ns = f.latency_sum_ns;
	memcpy(out->model.latency_buckets, f.latency_buckets, sizeof(out->model.latency_buckets));
	return 0;
}
