/* api.c — see api.h. */
#include "target/api/api.h"

#include <stdio.h>
#include <string.h>

#include "target/api/api_router.h"
#include "target/api/xms_cluster_spec.h"
#include "target/api/xms_engine.h"
#include "target/api/xms_model.h"
#include "target/api/xms_resources.h"
#include "target/api/xms_scsi.h"

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
};

/* sys-psnt-serial-number: stable per name */
static void serial_of(const char *name, char *out, size_t cap)
{
	uint32_t h = 2166136261u;

	for (const char *p = name; *p; p++) {
		h ^= (uint8_t)*p;
		h *= 16777619u;
	}
	snprintf(out, cap, "LL%08X", h);
}

int api_clusters_setup(const char *const *specs, int n, char *err, size_t errlen)
{
	static const char *const def[] = { "name=" XMS_CLUSTER_DEFAULT_NAME };
	char why[320];

	if (n == 0) {
		specs = def;
		n = 1;
	}
	xms_lock();
	for (int i = 0; i < n; i++) {
		struct xms_cluster_spec cs;
		struct xms_cluster *c;

		if (!xms_cluster_spec_parse(specs[i], &cs, why, sizeof(why))) {
			snprintf(err, errlen, "--cluster %s: %s", specs[i], why);
			goto fail;
		}
		c = xms_cluster_add(&g_xms);
		if (!c) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		snprintf(c->name, sizeof(c->name), "%s", cs.name);
		snprintf(c->keys, sizeof(c->keys), "%s", cs.keys);
		c->lb_size = cs.lb_size;
		c->chap_auth = (enum xms_chap_mode)cs.chap_auth;
		c->chap_discovery = (enum xms_chap_mode)cs.chap_discovery;
		serial_of(c->name, c->serial, sizeof(c->serial));
		if (xms_scsi_cluster_probe(c, why, sizeof(why)) < 0) {
			snprintf(err, errlen, "--cluster %s: %s", specs[i], why);
			goto fail;
		}
	}
	xms_unlock();
	return 0;
fail:
	xms_model_free(&g_xms);
	xms_unlock();
	return -1;
}

int api_start(const struct api_server_cfg *cfg, char *err, size_t errlen)
{
	if (!g_xms.clusters.n && api_clusters_setup(NULL, 0, err, errlen) < 0)
		return -1;
	if (xms_routes_register(xms_all_types, sizeof(xms_all_types) / sizeof(xms_all_types[0]), err, errlen) < 0)
		return -1;
	if (api_server_start(cfg, err, errlen) < 0) {
		api_routes_clear();
		return -1;
	}
	return 0;
}

void api_stop(void)
{
	api_server_stop();
	api_routes_clear();
	xms_lock();
	xms_scsi_close_all(&g_xms);
	xms_model_free(&g_xms);
	xms_unlock();
}
