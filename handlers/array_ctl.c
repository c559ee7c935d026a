/* array_ctl.c — handler_lunlab.so's side of include/lunlab/array_ctl.h: the
 * table handler_init gives lunlab-target's management plane through the
 * extension contract (handlers/host.h, host_handler_set_array_ctl).  Each
 * function looks its array up by name (holding a reference for the call),
 * asks the array layer (handlers/array) and turns the answer into the
 * contract's structures and one-line errors.  Under tcmu-runner no one asks
 * for it. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/array/array_admin.h"
#include "handlers/array/array_state.h"
#include "handlers/array/volume.h"
#include "handlers/array/volume_names.h"
#include "handlers/array_ctl.h"
#include "handlers/metrics_ctl.h"
#include "models/profile.h"
#include "lunlab/array_ctl.h"
#include "models/cost.h"
#include "models/pacer.h"

_Static_assert(ARRAY_NAME_MAX == LUNLAB_ARRAY_NAME_MAX, "array name sizes differ");
_Static_assert(VOLUME_NAME_MAX == LUNLAB_VOLUME_NAME_MAX, "volume name sizes differ");

__attribute__((format(printf, 3, 4)))
static void put_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	for (char *p = err; *p; p++) /* one line, whatever a name held */
		if ((unsigned char)*p < 0x20)
			*p = '?';
}

/* A message from the array layer (malloc'd, may be NULL) into err. */
static void take_err(char *err, size_t errlen, char *m, const char *fallback)
{
	put_err(err, errlen, "%s", m ? m : fallback);
	free(m);
}

static struct array *find(const char *array, char *err, size_t errlen)
{
	struct array *a = array_lookup(array);

	if (!a)
		put_err(err, errlen, "array '%s': no such array", array ? array : "");
	return a;
}

static int ctl_array_list(char (*names)[LUNLAB_ARRAY_NAME_MAX], int max)
{
	return array_names(names, max < 0 ? 0 : max);
}

static int ctl_array_figures(const char *array, bool wait_accounting, struct lunlab_array_figures *out)
{
	if (!out)
		return -EINVAL;
	struct array *a = find(array, NULL, 0);
	if (!a)
		return -ENOENT;
	struct array_stats st;
	struct array_space sp;
	uint64_t provisioned = 0;

	if (wait_accounting)
		array_flush_accounting(a);
	array_get_stats(a, &st);
	array_get_space(a, &sp);
	int volumes = array_volumes_info(a, NULL, 0, &provisioned);
	memset(out, 0, sizeof(*out));
	out->logical_bytes = st.logical_bytes;
	out->unique_bytes = st.unique_bytes;
	out->physical_bytes = st.physical_bytes;
	out->compressed_bytes = st.compressed_bytes;
	out->unique_blocks = st.unique_blocks;
	out->mapped_blocks = st.mapped_blocks;
	out->single_ref_blocks = st.single_ref_blocks;
	out->pending_blocks = st.pending_blocks;
	out->provisioned_bytes = provisioned;
	out->capacity_bytes = sp.capacity_bytes;
	out->soft_threshold_bytes = sp.soft_threshold_bytes;
	out->used_bytes = sp.used_bytes;
	out->dedup_block = array_params(a)->dedup_block;
	out->volumes = (uint32_t)volumes;
	array_profile(a, out->profile, sizeof(out->profile));
	/* the profile's SSD count (a built-in name or a file already loaded: no I/O) */
	char *perr = NULL;
	const struct lunlab_profile *prof = out->profile[0] ? profile_get(out->profile, &perr) : NULL;
	out->ssds = prof ? prof->ssds : 0;
	free(perr);
	array_put(a);
	return 0;
}

static int ctl_array_set_capacity(const char *array, uint64_t capacity_bytes, uint64_t soft_threshold_bytes,
				  char *err, size_t errlen)
{
	struct array *a = find(array, err, errlen);
	if (!a)
		return -ENOENT;
	char *m = NULL;
	int rc = array_set_capacity(a, capacity_bytes, soft_threshold_bytes, &m);
	if (rc)
		take_err(err, errlen, m, "capacity refused");
	else
		free(m);
	array_put(a);
	return rc;
}

static void to_ctl(const struct volume_info *vi, struct lunlab_volume_info *o)
{
	memset(o, 0, sizeof(*o));
	snprintf(o->name, sizeof(o->name), "%s", vi->name);
	snprintf(o->snapshot_of, sizeof(o->snapshot_of), "%s", vi->snapshot_of);
	o->size_bytes = vi->size_bytes;
	o->logical_bytes = vi->mapped_bytes;
	o->single_ref_bytes = vi->single_ref_bytes;
	o->lba_size = vi->lba_size;
	o->attached = vi->attached;
	o->readonly = vi->readonly;
}

static int ctl_volume_list(const char *array, struct lunlab_volume_info *out, int max)
{
	struct array *a = find(array, NULL, 0);
	if (!a)
		return -ENOENT;
	if (max < 0 || !out)
		max = 0;
	struct volume_info *vi = max ? calloc((size_t)max, sizeof(*vi)) : NULL;
	if (max && !vi) {
		array_put(a);
		return -ENOMEM;
	}
	int n = array_volumes_info(a, vi, max, NULL);
	for (int i = 0; i < n && i < max; i++) {
		to_ctl(&vi[i], &out[i]);
	}
	free(vi);
	array_put(a);
	return n;
}

static int ctl_volume_info(const char *array, const char *name, struct lunlab_volume_info *out)
{
	struct array *a = find(array, NULL, 0);
	struct volume_info vi;
	int rc;

	if (!a)
		return -ENOENT;
	rc = array_volume_info(a, name, &vi);
	if (rc == 0)
		to_ctl(&vi, out);
	array_put(a);
	return rc;
}

/* The array's cost model (if a LU made one) does the work of a copy of
 * every mapped block: one EXTENDED COPY covering them (docs/models.md). */
static void charge_copy(const char *array, uint64_t entries, uint32_t dedup_block)
{
	struct cost_model *m = cost_model_find(array);

	if (!m)
		return;
	struct cost_req req = {
		.kind = COST_XCOPY,
		.xcopy_bytes = entries * dedup_block,
		.xcopy_segments = 1,
	};
	(void)cost_model_charge(m, &req, pacer_now_ns());
	cost_model_put(m);
}

/* The end of a map copy (snapshot, refresh): its error passed on, or the cost
 * model charged for the entries it copied; the array reference dropped. */
static int copy_done(const char *array, struct array *a, int rc, uint64_t entries, char *m, const char *what,
		     char *err, size_t errlen)
{
	if (rc)
		take_err(err, errlen, m, what);
	else {
		charge_copy(array, entries, array_params(a)->dedup_block);
		free(m);
	}
	array_put(a);
	return rc;
}

static int ctl_snapshot(const char *array, const char *const *src, const char *const *dst, size_t n, bool readonly,
			char *err, size_t errlen)
{
	struct array *a = find(array, err, errlen);
	if (!a)
		return -ENOENT;
	char *m = NULL;
	uint64_t entries = 0;
	int rc = array_snapshot(a, src, dst, n, readonly, &entries, &m);
	return copy_done(array, a, rc, entries, m, "snapshot refused", err, errlen);
}

/* The cost model is charged like a snapshot: a copy of every entry that changed. */
static int ctl_refresh(const char *array, const char *const *src, const char *const *dst, size_t n, char *err,
		       size_t errlen)
{
	struct array *a = find(array, err, errlen);
	if (!a)
		return -ENOENT;
	char *m = NULL;
	uint64_t entries = 0;
	int rc = array_refresh(a, src, dst, n, &entries, &m);
	return copy_done(array, a, rc, entries, m, "refresh refused", err, errlen);
}

static int ctl_volume_delete(const char *array, const char *name, char *err, size_t errlen)
{
	struct array *a = find(array, err, errlen);
	if (!a)
		return -ENOENT;
	char *m = NULL;
	int rc = array_volume_delete(a, name, &m);
	if (rc)
		take_err(err, errlen, m, "delete refused");
	else
		free(m);
	array_put(a);
	return rc;
}

static int ctl_array_sync(const char *array, char *err, size_t errlen)
{
	struct array *a = find(array, err, errlen);
	int rc;

	if (!a)
		return -ENOENT;
	rc = array_sync(a);
	if (rc)
		put_err(err, errlen, "array '%s': its state directory could not be written (%d)", array, rc);
	array_put(a);
	return rc;
}

const struct lunlab_array_ctl lunlab_array_ctl = {
	.version = LUNLAB_ARRAY_CTL_VERSION,
	.size = sizeof(struct lunlab_array_ctl),
	.array_list = ctl_array_list,
	.array_figures = ctl_array_figures,
	.array_set_capacity = ctl_array_set_capacity,
	.volume_list = ctl_volume_list,
	.snapshot = ctl_snapshot,
	.volume_delete = ctl_volume_delete,
	.array_model = metrics_ctl_array_model, /* metrics_ctl.c (/metrics) */
	.lu_figures = metrics_ctl_lu_figures,
	.state_check = array_state_check,
	.array_sync = ctl_array_sync,
	.refresh = ctl_refresh,
	.volume_info = ctl_volume_info,
};
