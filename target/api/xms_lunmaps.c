/* xms_lunmaps.c — `lun-maps`: volume vol-id visible at LUN lun to every
 * initiator of group ig-id, through the one target group "Default".  The
 * LUN is the lowest free one (from 1) when not given; LUNs the --lun LUs
 * hold (0..n-1, seen by everyone) are never given out.  XMS names a map
 * VOLINDEX_IGINDEX_TGINDEX.  Every change republishes the LU table's maps:
 * the initiators concerned get 06/3F/0E REPORTED LUNS DATA HAS CHANGED. */
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "target/api/api_json.h"
#include "target/api/xms_common.h"
#include "target/api/xms_resources.h"
#include "target/api/xms_scsi.h"
#include "target/lu/lu_table.h"

static void list_maps(struct xms_ctx *x, struct json_object *arr)
{
	const uint64_t *want;
	size_t nwant;
	bool some = xms_wanted_candidates(x, XMS_NAME_LUNMAP, &want, &nwant);

	for (size_t i = 0; i < (some ? nwant : g_xms.lunmaps.n); i++) {
		/* one map wanted: found through the name index, not by naming every map */
		const struct xms_lunmap *l = some ? xms_lunmap_get(&g_xms, want[i]) : &g_xms.lunmaps.v[i];
		char name[64];

		if (!l)
			continue;
		xms_lunmap_name(l, name, sizeof(name));
		if (!xms_wanted(x, l->index, name))
			continue;
		const struct xms_volume *v = xms_volume_get(&g_xms, l->vol);
		const struct xms_ig *g = xms_ig_get(&g_xms, l->ig);
		const struct xms_cluster *c = xms_cluster_get(&g_xms, l->cluster);
		struct json_object *o = json_object_new_object();
		json_object_object_add(o, "name", json_object_new_string(name));
		json_object_object_add(o, "index", json_object_new_int64((int64_t)l->index));
		json_object_object_add(o, "guid", json_object_new_string(l->guid));
		json_object_object_add(o, "mapping-id", xms_oid(l->guid, name, l->index));
		json_object_object_add(o, "mapping-index", json_object_new_int64((int64_t)l->index));
		if (c)
			json_object_object_add(o, "sys-id", xms_cluster_oid(c));
		json_object_object_add(o, "vol-name", json_object_new_string(v ? v->name : ""));
		json_object_object_add(o, "vol-index", json_object_new_int64((int64_t)l->vol));
		json_object_object_add(o, "ig-name", json_object_new_string(g ? g->name : ""));
		json_object_object_add(o, "ig-index", json_object_new_int64((int64_t)l->ig));
		json_object_object_add(o, "tg-name", json_object_new_string("Default"));
		json_object_object_add(o, "tg-index", json_object_new_int(1));
		json_object_object_add(o, "lun", json_object_new_int64((int64_t)l->lun));
		json_object_array_add(arr, o);
	}
}

/* do groups a and b hold one iSCSI name?  (Two clusters may each have a
 * group with the same initiator: lunlab serves every cluster on one target,
 * so that initiator sees both groups' maps in one LUN space.) */
static bool share_initiator(uint64_t a, uint64_t b)
{
	for (size_t i = 0; i < g_xms.initiators.n; i++) {
		if (g_xms.initiators.v[i].ig != a)
			continue;
		for (size_t j = 0; j < g_xms.initiators.n; j++)
			if (g_xms.initiators.v[j].ig == b &&
			    strcasecmp(g_xms.initiators.v[i].port_address, g_xms.initiators.v[j].port_address) == 0)
				return true;
	}
	return false;
}

static bool lun_taken(uint64_t ig, uint64_t lun)
{
	if (lun < xms_scsi_global_luns())
		return true;
	for (size_t i = 0; i < g_xms.lunmaps.n; i++)
		if (g_xms.lunmaps.v[i].lun == lun &&
		    (g_xms.lunmaps.v[i].ig == ig || share_initiator(ig, g_xms.lunmaps.v[i].ig)))
			return true;
	return false;
}

static void post_map(struct xms_ctx *x)
{
	static const char *const vol_fields[] = { "vol-id", "vol-name", NULL };
	static const char *const ig_fields[] = { "ig-id", "ig-name", NULL };
	const char *vref, *gref;
	char vbuf[24], gbuf[24];
	const struct xms_volume *v;
	const struct xms_ig *g;
	struct xms_lunmap *l;
	uint64_t lun = 0, index;
	int rc;

	if ((rc = xms_field_ref(x, vol_fields, vbuf, sizeof(vbuf), &vref)) < 0)
		return;
	if (rc == 0) {
		api_error(x->rsp, 400, "Command Syntax Error: vol-id: missing");
		return;
	}
	if ((rc = xms_field_ref(x, ig_fields, gbuf, sizeof(gbuf), &gref)) < 0)
		return;
	if (rc == 0) {
		api_error(x->rsp, 400, "Command Syntax Error: ig-id: missing");
		return;
	}
	if ((rc = xms_field_uint(x, "lun", LU_TABLE_MAX - 1, &lun)) < 0)
		return;
	v = xms_volume_ref(&g_xms, vref);
	if (!v) {
		api_error(x->rsp, 400, XMS_ERR_VOL_NOT_FOUND);
		return;
	}
	g = xms_ig_ref(&g_xms, gref);
	if (!g) {
		api_error(x->rsp, 400, XMS_ERR_IG_NOT_FOUND);
		return;
	}
	if (v->cluster != g->cluster) {
		api_error(x->rsp, 400, "Command Syntax Error: the volume and the initiator group are of different clusters");
		return;
	}
	if (xms_lunmap_find(&g_xms, v->index, g->index)) {
		api_error(x->rsp, 400, XMS_ERR_ALREADY_MAPPED);
		return;
	}
	if (rc > 0 && lun_taken(g->index, lun)) {
		api_error(x->rsp, 400, XMS_ERR_LUN_IN_USE);
		return;
	}
	if (rc == 0) {
		for (lun = 1; lun < LU_TABLE_MAX && lun_taken(g->index, lun); lun++)
			;
		if (lun == LU_TABLE_MAX) {
			api_error(x->rsp, 400, XMS_ERR_TOO_MANY);
			return;
		}
	}
	if (g_xms.lunmaps.n >= XMS_MAX_OBJECTS) {
		api_error(x->rsp, 400, XMS_ERR_TOO_MANY);
		return;
	}
	l = xms_lunmap_add(&g_xms);
	if (!l) {
		api_error(x->rsp, 500, "out of memory");
		return;
	}
	index = l->index;
	if (!xms_lunmap_set(&g_xms, l, v->index, g->index, v->cluster)) {
		xms_lunmap_del(&g_xms, index);
		api_error(x->rsp, 500, "out of memory");
		return;
	}
	l->lun = lun;
	if (!xms_republish(x)) {
		xms_lunmap_del(&g_xms, index);
		return;
	}
	xms_reply_created(x, "lun-maps", index);
}

static void del_map(struct xms_ctx *x, uint64_t index)
{
	xms_lunmap_del(&g_xms, index);
	if (xms_republish(x))
		xms_reply_ok(x);
}

const struct xms_type xms_type_lunmaps = {
	.name = "lun-maps",
	.v1 = true,
	.list = list_maps,
	.post = post_map,
	.del = del_map,
};
