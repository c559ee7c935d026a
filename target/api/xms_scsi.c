/* xms_scsi.c — see xms_scsi.h. */
#include "target/api/xms_scsi.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/iscsi/auth_dyn.h"
#include "target/lu/lu_table.h"
#include "target/lu/power_on.h"
#include "target/tcmu/host.h"

#define PROBE_SIZE (1u << 20)
#define MAX_PROBED 16

/* what the probe saw, per cluster index: the capacity and the profile an
 * empty array (no device open) still has to report */
static struct {
	uint64_t cluster;
	uint64_t capacity;
	char profile[32];
	uint32_t ssds;
} probed[MAX_PROBED];

/* --state-dir (absolute), given to every device as state_dir=; "" in memory */
static char state_dir[512];

void xms_scsi_set_state_dir(const char *dir)
{
	snprintf(state_dir, sizeof(state_dir), "%s", dir ? dir : "");
}

const struct lunlab_array_ctl *xms_scsi_ctl(void)
{
	return tcmu_host_array_ctl(XMS_HANDLER);
}

static void one_line(char *err, size_t errlen, const char *what, const char *why)
{
	snprintf(err, errlen, "%s: %s", what, why ? why : "refused by the handler");
}

/* "lunlab/KEYS;array=NAME[;volume=GUID][;readonly=1][;state_dir=DIR]" */
static int cfgstring(char *out, size_t cap, const struct xms_cluster *c, const struct xms_volume *v)
{
	int n = snprintf(out, cap, "%s/%s%sarray=%s%s%s%s%s%s", XMS_HANDLER, c->keys, c->keys[0] ? ";" : "", c->name,
			 v ? ";volume=" : "", v ? v->guid : "", v && v->readonly ? ";readonly=1" : "",
			 state_dir[0] ? ";state_dir=" : "", state_dir);

	return n < 0 || (size_t)n >= cap ? -1 : 0;
}

/* every volume name of c's array into *names (malloc'd), *n; -1 on any error */
static int list_names(const struct xms_cluster *c, struct lunlab_volume_info **names, size_t *n)
{
	const struct lunlab_array_ctl *ctl = xms_scsi_ctl();
	int want, got;

	*names = NULL;
	*n = 0;
	if (!ctl || (want = ctl->volume_list(c->name, NULL, 0)) < 0)
		return -1;
	*names = calloc((size_t)want + 1, sizeof(**names));
	if (!*names)
		return -1;
	got = ctl->volume_list(c->name, *names, want);
	if (got < 0 || got > want) { /* another volume appeared between the calls: none can here */
		free(*names);
		*names = NULL;
		return -1;
	}
	*n = (size_t)got;
	return 0;
}

int xms_scsi_cluster_probe(struct xms_cluster *c, char *err, size_t errlen)
{
	return xms_scsi_cluster_probe_volumes(c, NULL, NULL, err, errlen);
}

int xms_scsi_cluster_probe_volumes(struct xms_cluster *c, struct lunlab_volume_info **vols, size_t *nvols, char *err,
				   size_t errlen)
{
	char cfg[1024], name[96];
	struct tcmu_host_dev_cfg dc;
	struct lu_backend *be;
	const struct lunlab_array_ctl *ctl;
	struct lunlab_array_figures f;
	char *why = NULL;

	if (cfgstring(cfg, sizeof(cfg), c, NULL) < 0) {
		snprintf(err, errlen, "cluster %s: its keys are too long", c->name);
		return -1;
	}
	snprintf(name, sizeof(name), "cluster-%s", c->name);
	memset(&dc, 0, sizeof(dc));
	dc.cfgstring = cfg;
	dc.size_bytes = PROBE_SIZE;
	dc.block_size = c->lb_size;
	dc.name = name;
	be = tcmu_host_create_device(&dc, &why);
	if (!be) {
		size_t nl = strlen(name);
		/* the host names the device first ("cluster-NAME: "): the caller names the spec */
		const char *reason = why && strncmp(why, name, nl) == 0 && why[nl] == ':' ? why + nl + 2 : why;
		snprintf(err, errlen, "%s", reason ? reason : "refused by the handler");
		free(why);
		return -1;
	}
	ctl = xms_scsi_ctl();
	memset(&f, 0, sizeof(f));
	if (ctl && ctl->array_figures(c->name, false, &f) == 0) {
		for (size_t i = 0; i < MAX_PROBED; i++) {
			if (!probed[i].cluster || probed[i].cluster == c->index) {
				probed[i].cluster = c->index;
				probed[i].capacity = f.capacity_bytes;
				memcpy(probed[i].profile, f.profile, sizeof(probed[i].profile));
				probed[i].profile[sizeof(probed[i].profile) - 1] = '\0';
				probed[i].ssds = f.ssds;
				break;
			}
		}
	}
	if (vols && list_names(c, vols, nvols) < 0) {
		snprintf(err, errlen, "cluster %s: cannot list its array's volumes", c->name);
		tcmu_host_destroy_device(be);
		return -1;
	}
	tcmu_host_destroy_device(be);
	return 0;
}

uint64_t xms_scsi_cluster_probed_capacity(const struct xms_cluster *c)
{
	for (size_t i = 0; i < MAX_PROBED; i++)
		if (probed[i].cluster == c->index)
			return probed[i].capacity;
	return 0;
}

int xms_scsi_volume_open(const struct xms_cluster *c, struct xms_volume *v, char *err, size_t errlen)
{
	char cfg[1024], name[48];
	struct tcmu_host_dev_cfg dc;
	char *why = NULL;

	if (cfgstring(cfg, sizeof(cfg), c, v) < 0) {
		snprintf(err, errlen, "volume %s: the device configuration is too long", v->name);
		return -1;
	}
	snprintf(name, sizeof(name), "vol%llu", (unsigned long long)v->index);
	memset(&dc, 0, sizeof(dc));
	dc.cfgstring = cfg;
	dc.size_bytes = v->size;
	dc.block_size = v->lb_size;
	dc.wwn = v->guid; /* the unit serial number (VPD 80h) and the NAA designator derived from it */
	dc.name = name;
	v->be = tcmu_host_create_device(&dc, &why);
	if (!v->be) {
		one_line(err, errlen, "volume", why);
		free(why);
		return -1;
	}
	v->lu = lu_entry_new(v->be);
	if (!v->lu) {
		tcmu_host_destroy_device(v->be);
		v->be = NULL;
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

int xms_scsi_volume_resize(struct xms_volume *v, uint64_t size, char *err, size_t errlen)
{
	char *why = NULL;

	if (!v->be || tcmu_host_resize_device(v->be, size, &why) < 0) {
		one_line(err, errlen, "resize", v->be ? why : "the volume has no device");
		free(why);
		return -1;
	}
	v->size = size;
	lu_entry_capacity_changed(v->lu);
	return 0;
}

void xms_scsi_volume_close(struct xms_volume *v)
{
	lu_entry_free(v->lu);
	v->lu = NULL;
	tcmu_host_destroy_device(v->be);
	v->be = NULL;
}

int xms_scsi_volume_free(const struct xms_cluster *c, const struct xms_volume *v, char *err, size_t errlen)
{
	const struct lunlab_array_ctl *ctl = xms_scsi_ctl();
	int rc;

	if (!ctl) {
		snprintf(err, errlen, "the handler has no array-control interface: cannot free the volume's blocks");
		return -1;
	}
	rc = ctl->volume_delete(c->name, v->guid, err, errlen);
	if (rc == -ENOENT)
		return 0; /* never written and never kept: nothing to free */
	return rc < 0 ? -1 : 0;
}

/* The array names volumes by guid: the pairs of a copy (snapshot, refresh) as
 * two guid lists; false when either list could not be allocated. */
static bool guid_pairs(struct xms_volume *const *src, struct xms_volume *const *dst, size_t n, const char **s,
		       const char **d)
{
	if (!s || !d)
		return false;
	for (size_t i = 0; i < n; i++) {
		s[i] = src[i]->guid;
		d[i] = dst[i]->guid;
	}
	return true;
}

int xms_scsi_snapshot(const struct xms_cluster *c, struct xms_volume *const *src, struct xms_volume *const *dst,
		      size_t n, bool readonly, char *err, size_t errlen)
{
	const struct lunlab_array_ctl *ctl = xms_scsi_ctl();
	const char **s = calloc(n ? n : 1, sizeof(*s)), **d = calloc(n ? n : 1, sizeof(*d));
	int rc = -1;

	if (!ctl) {
		snprintf(err, errlen, "the handler has no array-control interface: no snapshots");
	} else if (!guid_pairs(src, dst, n, s, d)) {
		snprintf(err, errlen, "out of memory");
	} else {
		rc = ctl->snapshot(c->name, s, d, n, readonly, err, errlen) < 0 ? -1 : 0;
	}
	free(s);
	free(d);
	return rc;
}

int xms_scsi_refresh(const struct xms_cluster *c, struct xms_volume *const *src, struct xms_volume *const *dst,
		     size_t n, char *err, size_t errlen)
{
	const struct lunlab_array_ctl *ctl = xms_scsi_ctl();
	const char **s = calloc(n ? n : 1, sizeof(*s)), **d = calloc(n ? n : 1, sizeof(*d));
	int rc = -1;

	if (!lunlab_array_ctl_has(ctl, refresh)) {
		snprintf(err, errlen, "the handler's array-control interface has no refresh");
	} else if (!guid_pairs(src, dst, n, s, d)) {
		snprintf(err, errlen, "out of memory");
	} else {
		rc = ctl->refresh(c->name, s, d, n, err, errlen) < 0 ? -1 : 0;
	}
	/* the hosts of every refreshed LU learn that its medium changed */
	for (size_t i = 0; rc == 0 && i < n; i++)
		if (dst[i]->lu)
			lu_entry_medium_changed(dst[i]->lu);
	free(s);
	free(d);
	return rc;
}

uint64_t xms_scsi_global_luns(void)
{
	return lu_table_count();
}

int xms_scsi_publish_maps(struct xms_model *m, char *err, size_t errlen)
{
	size_t cap = 0, n = 0;
	struct lu_map_spec *maps;
	int rc;

	for (size_t i = 0; i < m->lunmaps.n; i++)
		for (size_t j = 0; j < m->initiators.n; j++)
			if (m->initiators.v[j].ig == m->lunmaps.v[i].ig)
				cap++;
	maps = calloc(cap ? cap : 1, sizeof(*maps));
	if (!maps) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < m->lunmaps.n; i++) {
		const struct xms_lunmap *l = &m->lunmaps.v[i];
		const struct xms_volume *v = xms_volume_get(m, l->vol);

		if (!v || !v->lu)
			continue;
		for (size_t j = 0; j < m->initiators.n; j++) {
			if (m->initiators.v[j].ig != l->ig)
				continue;
			maps[n].iqn = m->initiators.v[j].port_address;
			maps[n].lun = l->lun;
			maps[n].e = v->lu;
			n++;
		}
	}
	rc = lu_table_set_maps(maps, n, err, errlen);
	free(maps);
	return rc;
}

int xms_scsi_publish_chap(struct xms_model *m, char *err, size_t errlen)
{
	struct auth_dyn_entry *e = calloc(m->initiators.n ? m->initiators.n : 1, sizeof(*e));
	int rc;

	if (!e) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < m->initiators.n; i++) {
		const struct xms_initiator *in = &m->initiators.v[i];
		const struct xms_cluster *c = xms_cluster_get(m, in->cluster);

		snprintf(e[i].iqn, sizeof(e[i].iqn), "%s", in->port_address);
		snprintf(e[i].user, sizeof(e[i].user), "%s", in->auth_user);
		snprintf(e[i].secret, sizeof(e[i].secret), "%s", in->auth_pass);
		snprintf(e[i].disc_user, sizeof(e[i].disc_user), "%s", in->disc_user);
		snprintf(e[i].disc_secret, sizeof(e[i].disc_secret), "%s", in->disc_pass);
		e[i].login_on = c && c->chap_auth != XMS_CHAP_DISABLED;
		e[i].discovery_on = c && c->chap_discovery != XMS_CHAP_DISABLED;
	}
	rc = auth_dyn_set(e, m->initiators.n);
	explicit_bzero(e, (m->initiators.n ? m->initiators.n : 1) * sizeof(*e));
	free(e);
	if (rc < 0)
		snprintf(err, errlen, "out of memory");
	return rc;
}

int xms_scsi_cluster_figures(const struct xms_cluster *c, struct lunlab_array_figures *f)
{
	const struct lunlab_array_ctl *ctl = xms_scsi_ctl();
	int rc = -ENOENT;

	memset(f, 0, sizeof(*f));
	if (ctl)
		rc = ctl->array_figures(c->name, true, f);
	if (rc < 0) {
		memset(f, 0, sizeof(*f));
		f->capacity_bytes = xms_scsi_cluster_probed_capacity(c);
	}
	if (!f->profile[0]) {
		for (size_t i = 0; i < MAX_PROBED; i++) {
			if (probed[i].cluster == c->index) {
				memcpy(f->profile, probed[i].profile, sizeof(f->profile));
				f->ssds = probed[i].ssds;
			}
		}
	}
	return rc;
}

size_t xms_scsi_volume_infos(const struct xms_cluster *c, struct lunlab_volume_info **out)
{
	const struct lunlab_array_ctl *ctl = xms_scsi_ctl();
	int n, got;

	*out = NULL;
	if (!ctl)
		return 0;
	n = ctl->volume_list(c->name, NULL, 0);
	if (n <= 0)
		return 0;
	*out = calloc((size_t)n, sizeof(**out));
	if (!*out)
		return 0;
	got = ctl->volume_list(c->name, *out, n);
	if (got < 0) {
		free(*out);
		*out = NULL;
		return 0;
	}
	return (size_t)(got < n ? got : n);
}

bool xms_scsi_volume_info(const struct xms_cluster *c, const struct xms_volume *v, struct lunlab_volume_info *out)
{
	const struct lunlab_array_ctl *ctl = xms_scsi_ctl();
	struct lunlab_volume_info *infos;
	const struct lunlab_volume_info *found;
	size_t n;

	if (lunlab_array_ctl_has(ctl, volume_info))
		return ctl->volume_info(c->name, v->guid, out) == 0;
	n = xms_scsi_volume_infos(c, &infos);
	found = xms_scsi_info_of(infos, n, v);
	if (found)
		*out = *found;
	free(infos);
	return found != NULL;
}

const struct lunlab_volume_info *xms_scsi_info_of(const struct lunlab_volume_info *infos, size_t n,
						  const struct xms_volume *v)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(infos[i].name, v->guid) == 0)
			return &infos[i];
	return NULL;
}

int xms_scsi_open_all(struct xms_model *m, char *err, size_t errlen)
{
	char why[320];

	for (size_t i = 0; i < m->volumes.n; i++) {
		struct xms_volume *v = &m->volumes.v[i];
		const struct xms_cluster *c = xms_cluster_get(m, v->cluster);

		if (v->be)
			continue;
		if (!c || xms_scsi_volume_open(c, v, why, sizeof(why)) < 0) {
			snprintf(err, errlen, "volume %s: %s", v->name, c ? why : "no such cluster");
			return -1;
		}
		/* reopened from the state directory: like a --lun LU, it owes
		 * every initiator port its power on (06/29/01) */
		if (!lu_entry_power_on_arm(v->lu)) {
			snprintf(err, errlen, "volume %s: out of memory", v->name);
			return -1;
		}
	}
	if (xms_scsi_publish_maps(m, err, errlen) < 0 || xms_scsi_publish_chap(m, err, errlen) < 0)
		return -1;
	return 0;
}

int xms_scsi_sync_all(const struct xms_model *m, char *err, size_t errlen)
{
	const struct lunlab_array_ctl *ctl = xms_scsi_ctl();
	char why[320];

	if (!state_dir[0])
		return 0;
	if (!lunlab_array_ctl_has(ctl, array_sync)) {
		snprintf(err, errlen, "the handler cannot make its arrays durable (no array_sync)");
		return -1;
	}
	for (size_t i = 0; i < m->clusters.n; i++) {
		int rc = ctl->array_sync(m->clusters.v[i].name, why, sizeof(why));

		/* -ENOENT: no device of the array is open, so nothing of it changed */
		if (rc && rc != -ENOENT) {
			snprintf(err, errlen, "cluster %s: %s", m->clusters.v[i].name, why);
			return -1;
		}
	}
	return 0;
}

void xms_scsi_close_all(struct xms_model *m)
{
	char err[128];

	lu_table_set_maps(NULL, 0, err, sizeof(err));
	auth_dyn_clear();
	for (size_t i = 0; i < m->volumes.n; i++)
		if (m->volumes.v[i].be)
			xms_scsi_volume_close(&m->volumes.v[i]);
}
