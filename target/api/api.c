/* api.c — see api.h. */
#include "target/api/api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/api/api_nice.h"
#include "target/api/api_router.h"
#include "target/api/xms_alerts.h"
#include "target/api/xms_cluster_spec.h"
#include "target/api/xms_engine.h"
#include "target/api/xms_folders.h"
#include "target/api/xms_inventory.h"
#include "target/api/xms_hw_store.h"
#include "target/api/xms_perf_history.h"
#include "target/api/xms_events.h"
#include "target/api/xms_hw_fault_spec.h"
#include "target/api/xms_model.h"
#include "lunlab/fnv1a.h"
#include "target/api/xms_resources.h"
#include "target/api/xms_scsi.h"
#include "target/api/xms_store.h"
#include "target/api/xms_tags.h"

static const struct xms_type *const xms_all_types[] = {
	&xms_type_xms,
	&xms_type_clusters,
	&xms_type_volumes,
	&xms_type_snapshots,
	&xms_type_snapsets,
	&xms_type_cgs,
	&xms_type_cg_volumes,
	&xms_type_igs,
	&xms_type_initiators,
	&xms_type_lunmaps,
	&xms_type_portals,
	&xms_type_targets,
	&xms_type_tgs,
	&xms_type_alerts,
	&xms_type_alert_defs,
	&xms_type_bricks,
	&xms_type_scs,
	&xms_type_xenvs,
	&xms_type_local_disks,
	&xms_type_bbus,
	&xms_type_dae_lccs,
	&xms_type_dae_psus,
	&xms_type_ssds,
	&xms_type_tags,
	&xms_type_volume_folders,
	&xms_type_ig_folders,
};

/* sys-psnt-serial-number: stable per name */
static void serial_of(const char *name, char *out, size_t cap)
{
	snprintf(out, cap, "LL%08X", ll_fnv1a32(LL_FNV1A32_BASIS, name, strlen(name)));
}

/* A volume the stored model has but its array does not was deleted just
 * before a crash: the array's delete is durable before the model is stored
 * again.  Opening it would make an empty volume of that name: it goes,
 * with its LUN maps, as the DELETE meant. */
static void drop_deleted(const struct xms_cluster *c, const struct lunlab_volume_info *vols, size_t nvols)
{
	for (size_t i = g_xms.volumes.n; i-- > 0;) {
		struct xms_volume *v = &g_xms.volumes.v[i];
		uint64_t index = v->index;

		if (v->cluster != c->index || xms_scsi_info_of(vols, nvols, v))
			continue;
		fprintf(stderr, "lunlab-target: --state-dir: volume %s: array %s no longer has it (deleted before a "
			"crash): dropped from the model\n", v->name, c->name);
		for (size_t k = g_xms.lunmaps.n; k-- > 0;)
			if (g_xms.lunmaps.v[k].vol == index)
				xms_lunmap_del(&g_xms, g_xms.lunmaps.v[k].index);
		xms_volume_del(&g_xms, index);
	}
}

void api_set_store(const char *state_dir, const struct xms_store_ops *ops, const struct xms_log_store_ops *log)
{
	xms_scsi_set_state_dir(state_dir);
	xms_store_set(ops);
	xms_log_store_set(log);
}

/* the model came back from --state-dir: the start is a restart (an event says so) */
static bool restarted;

int api_clusters_setup(const char *const *specs, int n, char *err, size_t errlen)
{
	static const char *const def[] = { "name=" XMS_CLUSTER_DEFAULT_NAME };
	char why[320];
	int loaded;

	if (n == 0) {
		specs = def;
		n = 1;
	}
	xms_lock();
	/* --state-dir: what the API made before the restart comes back first;
	 * a --cluster the stored model already has is that cluster */
	loaded = xms_store_load(&g_xms, why, sizeof(why));
	if (loaded < 0) {
		snprintf(err, errlen, "--state-dir: %s", why);
		goto fail;
	}
	restarted = loaded > 0;
	/* the event log and the alerts of before, with their ids and times */
	if (xms_log_store_active() &&
	    (xms_events_load(why, sizeof(why)) < 0 || xms_alerts_load(why, sizeof(why)) < 0 ||
	     xms_perf_history_load(why, sizeof(why)) < 0)) {
		snprintf(err, errlen, "--state-dir: %s", why);
		goto fail;
	}
	for (size_t i = 0; loaded && i < g_xms.clusters.n; i++) {
		struct lunlab_volume_info *vols;
		size_t nvols;

		if (xms_scsi_cluster_probe_volumes(&g_xms.clusters.v[i], &vols, &nvols, why, sizeof(why)) < 0) {
			snprintf(err, errlen, "--state-dir: cluster %s: %s", g_xms.clusters.v[i].name, why);
			goto fail;
		}
		drop_deleted(&g_xms.clusters.v[i], vols, nvols);
		free(vols);
	}
	for (int i = 0; i < n; i++) {
		struct xms_cluster_spec cs;
		struct xms_cluster *c;

		if (!xms_cluster_spec_parse(specs[i], &cs, why, sizeof(why))) {
			snprintf(err, errlen, "--cluster %s: %s", specs[i], why);
			goto fail;
		}
		c = xms_cluster_by_name(&g_xms, cs.name);
		if (c) { /* kept from before the restart: its limits are this start's */
			c->max_volumes = cs.max_volumes;
			c->max_snaps_per_vol = cs.max_snaps_per_vol;
			continue;
		}
		c = xms_cluster_add(&g_xms);
		if (!c) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		snprintf(c->name, sizeof(c->name), "%s", cs.name);
		snprintf(c->keys, sizeof(c->keys), "%s", cs.keys);
		c->lb_size = cs.lb_size;
		c->max_volumes = cs.max_volumes;
		c->max_snaps_per_vol = cs.max_snaps_per_vol;
		c->chap_auth = (enum xms_chap_mode)cs.chap_auth;
		c->chap_discovery = (enum xms_chap_mode)cs.chap_discovery;
		serial_of(c->name, c->serial, sizeof(c->serial));
		if (xms_scsi_cluster_probe(c, why, sizeof(why)) < 0) {
			snprintf(err, errlen, "--cluster %s: %s", specs[i], why);
			goto fail;
		}
	}
	if (loaded && xms_scsi_open_all(&g_xms, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "--state-dir: %s", why);
		goto fail;
	}
	/* the SSDs and controllers failed before the restart fail again (the
	 * clusters' bricks are known now); alerts of the others are over */
	if (xms_log_store_active()) {
		if (xms_hw_store_load(why, sizeof(why)) < 0) {
			snprintf(err, errlen, "--state-dir: %s", why);
			goto fail;
		}
		xms_alerts_hw_sync();
	}
	if (xms_store_save(&g_xms, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "--state-dir: %s", why);
		goto fail;
	}
	xms_unlock();
	return 0;
fail:
	xms_scsi_close_all(&g_xms);
	xms_model_free(&g_xms);
	xms_unlock();
	return -1;
}

int api_hw_fault_apply(const char *spec, char *err, size_t errlen)
{
	struct xms_hw_fault_spec hs;
	struct xms_cluster *c;
	enum xms_inv_component kind;
	const char *what;
	unsigned n;
	int rc = -1;

	if (!xms_hw_fault_spec_parse(spec, &hs, err, errlen))
		return -1;
	kind = hs.kind == XMS_HW_SSD ? XMS_INV_SSD : XMS_INV_SC;
	what = hs.kind == XMS_HW_SSD ? "ssd" : "storage-controller";
	xms_lock();
	c = hs.cluster[0] ? xms_cluster_by_name(&g_xms, hs.cluster) : g_xms.clusters.n ? &g_xms.clusters.v[0] : NULL;
	if (!c)
		snprintf(err, errlen, "cluster: no cluster %s (the API's clusters: --cluster)", hs.cluster);
	else if (!(n = xms_inv_find(c->index, kind, hs.name)))
		snprintf(err, errlen, "hw: no %s \"%s\" in cluster %s", what, hs.name, c->name);
	else
		rc = xms_inv_set_failed(c->index, kind, n, true, err, errlen);
	xms_unlock();
	return rc;
}

int api_start(const struct api_server_cfg *cfg, char *err, size_t errlen)
{
	if (!g_xms.clusters.n && api_clusters_setup(NULL, 0, err, errlen) < 0)
		return -1;
	/* before the sampler (xms_perf_history_register) and the server start
	 * their threads at it */
	api_nice_set(cfg->nice_steps);
	if (xms_routes_register(xms_all_types, sizeof(xms_all_types) / sizeof(xms_all_types[0]), err, errlen) < 0 ||
	    xms_commands_register(err, errlen) < 0 || xms_events_register(err, errlen) < 0 ||
	    xms_perf_history_register(err, errlen) < 0)
		return -1;
	/* before the server answers: any client that gets an answer (a scenario's
	 * expectation read after a restart) finds the start in the log */
	if (restarted)
		xms_event(XMS_SEV_INFO, "activity", "XMS", "xms", "LL0002",
			  "The management server restarted with its model from --state-dir (%zu cluster%s, %zu volume%s)",
			  g_xms.clusters.n, g_xms.clusters.n == 1 ? "" : "s", g_xms.volumes.n,
			  g_xms.volumes.n == 1 ? "" : "s");
	else
		xms_event(XMS_SEV_INFO, "activity", "XMS", "xms", "LL0001", "The management server started (%zu cluster%s)",
			  g_xms.clusters.n, g_xms.clusters.n == 1 ? "" : "s");
	if (api_server_start(cfg, err, errlen) < 0) {
		api_routes_clear();
		return -1;
	}
	return 0;
}

void api_stop(void)
{
	api_server_stop();
	xms_events_flush(); /* failed CHAP logins told since the last flush */
	xms_perf_history_stop();
	api_routes_clear();
	xms_lock();
	xms_scsi_close_all(&g_xms);
	xms_model_free(&g_xms);
	xms_unlock();
}
