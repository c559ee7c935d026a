/* xms_cluster_spec.h — lunlab-target's --cluster SPEC (and the config
 * file's cluster: list): one XMS cluster the API manages, which is one
 * emulated array.  SPEC is comma-separated key=value like --lun's:
 *   name=NAME          the cluster's name = its array's name (default xbrick1);
 *                      --lun LUNs with array=NAME share its store
 *   block=512|4096     the default logical block size of new volumes (512)
 *   chap_authentication=disabled|initiator|mutual, chap_discovery=...
 *                      the cluster's CHAP modes at start (default disabled)
 *   max_volumes=N      volumes and snapshots the cluster holds at most (1..65536;
 *                      a POST beyond: 400 too_many_objs); default none
 *   max_snapshots_per_volume=N  snapshots of one volume's family (its
 *                      snapshots and theirs) at most (1..65536; beyond: 400
 *                      too_many_snapshots_per_vol); default none.  XMS has
 *                      both limits but their values are not public: these
 *                      let a client's refusal path be tested (docs/api.md
 *                      "Limits"); applied at every start, not stored
 *   any other key      goes to the handler with each of its volumes, as a
 *                      --lun key does: model=, profile=, array_capacity=,
 *                      soft_threshold=, time_scale=, ...
 * Pure parsing (libc only), so the option parser checks it before anything
 * starts; the handler checks its keys when the API starts. */
#ifndef LUNLAB_XMS_CLUSTER_SPEC_H
#define LUNLAB_XMS_CLUSTER_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XMS_CLUSTER_DEFAULT_NAME "xbrick1"
#define XMS_MAX_CLUSTERS 16

struct xms_cluster_spec {
	char name[64];
	uint32_t lb_size;
	int chap_auth;        /* enum xms_chap_mode */
	int chap_discovery;
	char keys[512];       /* handler keys, k=v;k=v */
	uint32_t max_volumes, max_snaps_per_vol; /* 0: no limit */
};

/* false with a one-line reason naming the key in err */
bool xms_cluster_spec_parse(const char *spec, struct xms_cluster_spec *out, char *err, size_t errlen);

#endif
