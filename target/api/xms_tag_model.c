/* xms_tag_model.c — see xms_tag_model.h.  The object-type words are the
 * ones XtremIO.Utils maps tags' object-type to (its tests: SnapshotSet
 * tags show "SnapSet", BBU tags "UPS"; its _New-ObjListFromProperty_byObjName
 * names Brick, Storagecontroller, Switch); those of SSD, DAE, Target,
 * Cluster and DataProtectionGroup are taken to be the entity word (not
 * confirmed from a public source). */
#include "target/api/xms_tag_model.h"

#include <stdio.h>
#include <string.h>

static const struct {
	const char *entity, *object_type;
} kinds[XMS_TAG_KINDS] = {
	[XMS_TAG_VOLUME] = { "Volume", "Volume" },
	[XMS_TAG_IG] = { "InitiatorGroup", "InitiatorGroup" },
	[XMS_TAG_INITIATOR] = { "Initiator", "Initiator" },
	[XMS_TAG_CG] = { "ConsistencyGroup", "ConsistencyGroup" },
	[XMS_TAG_SNAPSET] = { "SnapshotSet", "SnapSet" },
	[XMS_TAG_SCHEDULER] = { "Scheduler", "Scheduler" },
	[XMS_TAG_CLUSTER] = { "Cluster", "Cluster" },
	[XMS_TAG_BRICK] = { "X-Brick", "Brick" },
	[XMS_TAG_SC] = { "StorageController", "Storagecontroller" },
	[XMS_TAG_SSD] = { "SSD", "SSD" },
	[XMS_TAG_DAE] = { "DAE", "DAE" },
	[XMS_TAG_BBU] = { "BatteryBackupUnit", "UPS" },
	[XMS_TAG_IB_SWITCH] = { "InfinibandSwitch", "Switch" },
	[XMS_TAG_DPG] = { "DataProtectionGroup", "DataProtectionGroup" },
	[XMS_TAG_TARGET] = { "Target", "Target" },
};

const char *xms_tag_entity(enum xms_tag_kind k)
{
	return (unsigned)k < XMS_TAG_KINDS ? kinds[k].entity : "";
}

const char *xms_tag_object_type(enum xms_tag_kind k)
{
	return (unsigned)k < XMS_TAG_KINDS ? kinds[k].object_type : "";
}

int xms_tag_kind_parse(const char *entity)
{
	for (int k = 0; k < XMS_TAG_KINDS; k++)
		if (strcmp(entity, kinds[k].entity) == 0)
			return k;
	return -1;
}

/* the chain root..t, at most XMS_TAG_DEPTH_MAX (a longer or broken chain
 * is cut: xms_tags_check refuses such a model at load) */
static int chain(const struct xms_model *m, const struct xms_tag *t, const struct xms_tag **out)
{
	const struct xms_tag *rev[XMS_TAG_DEPTH_MAX];
	int n = 0;

	while (t && n < XMS_TAG_DEPTH_MAX) {
		rev[n++] = t;
		t = t->parent ? xms_tag_get((struct xms_model *)m, t->parent) : NULL;
	}
	for (int i = 0; i < n; i++)
		out[i] = rev[n - 1 - i];
	return n;
}

void xms_tag_name(const struct xms_model *m, const struct xms_tag *t, char *out)
{
	const struct xms_tag *c[XMS_TAG_DEPTH_MAX];
	int n = chain(m, t, c);
	size_t len = 0;

	out[0] = '\0';
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(out + len, XMS_TAG_NAME_MAX + 1 - len, "/%s", c[i]->caption);
}

int xms_tag_depth(const struct xms_model *m, const struct xms_tag *t)
{
	const struct xms_tag *c[XMS_TAG_DEPTH_MAX];

	return chain(m, t, c);
}

struct xms_tag *xms_tag_by_name(struct xms_model *m, const char *name)
{
	char n[XMS_TAG_NAME_MAX + 1];

	for (size_t i = 0; i < m->tags.n; i++) {
		xms_tag_name(m, &m->tags.v[i], n);
		if (strcmp(n, name) == 0)
			return &m->tags.v[i];
	}
	return NULL;
}

#define ENTITY(arr, with_cluster)                                                     \
	do {                                                                          \
		if (i >= (arr).n)                                                     \
			return false;                                                 \
		out->index = (arr).v[i].index;                                        \
		out->name = (arr).v[i].name;                                          \
		out->guid = (arr).v[i].guid;                                          \
		out->cluster = (with_cluster);                                        \
		out->attrs = &(arr).v[i].attrs;                                       \
		return true;                                                          \
	} while (0)

void xms_tag_entity_changed(struct xms_model *m, enum xms_tag_kind k, uint64_t index)
{
	static const int as_kind[XMS_TAG_MODEL_KINDS] = { [XMS_TAG_VOLUME] = XMS_KIND_VOLUME,
							[XMS_TAG_IG] = XMS_KIND_IG,
							[XMS_TAG_INITIATOR] = XMS_KIND_INITIATOR,
							[XMS_TAG_CG] = XMS_KIND_CG,
							[XMS_TAG_SNAPSET] = XMS_KIND_SNAPSET };

	if ((unsigned)k < XMS_TAG_MODEL_KINDS)
		xms_model_changed(m, (enum xms_kind)as_kind[k], index);
	else if (k == XMS_TAG_CLUSTER)
		xms_model_changed(m, XMS_KIND_CLUSTER, index);
	else if (xms_tag_kind_inventory(k))
		for (size_t i = 0; i < m->inv_tagged.n; i++) /* index is the object's: its record's */
			if (m->inv_tagged.v[i].kind == k && m->inv_tagged.v[i].obj_index == index)
				xms_model_changed(m, XMS_KIND_INV_TAGGED, m->inv_tagged.v[i].index);
}

bool xms_tag_entity_at(struct xms_model *m, enum xms_tag_kind k, size_t i, struct xms_tag_entity *out)
{
	switch (k) {
	case XMS_TAG_VOLUME:
		ENTITY(m->volumes, m->volumes.v[i].cluster);
	case XMS_TAG_IG:
		ENTITY(m->igs, m->igs.v[i].cluster);
	case XMS_TAG_INITIATOR:
		ENTITY(m->initiators, m->initiators.v[i].cluster);
	case XMS_TAG_CG:
		ENTITY(m->cgs, m->cgs.v[i].cluster);
	case XMS_TAG_SNAPSET:
		ENTITY(m->snapsets, m->snapsets.v[i].cluster);
	case XMS_TAG_CLUSTER:
		ENTITY(m->clusters, m->clusters.v[i].index);
	case XMS_TAG_BRICK:
	case XMS_TAG_SC:
	case XMS_TAG_SSD:
	case XMS_TAG_BBU:
	case XMS_TAG_TARGET:
		/* the tagged ones: their records (xms_model.h) */
		for (size_t j = 0, seen = 0; j < m->inv_tagged.n; j++) {
			struct xms_inv_tagged *t = &m->inv_tagged.v[j];
			if (t->kind != k || seen++ != i)
				continue;
			out->index = t->obj_index;
			out->name = t->name;
			out->guid = t->obj_guid;
			out->cluster = t->cluster;
			out->attrs = &t->attrs;
			return true;
		}
		return false;
	default:
		return false;
	}
}

bool xms_tag_kind_inventory(int k)
{
	return k == XMS_TAG_BRICK || k == XMS_TAG_SC || k == XMS_TAG_SSD || k == XMS_TAG_BBU || k == XMS_TAG_TARGET;
}

bool xms_attrs_has_tag(const struct xms_attrs *a, uint64_t tag)
{
	for (size_t i = 0; i < a->ntags; i++)
		if (a->tags[i] == tag)
			return true;
	return false;
}

void xms_attrs_untag(struct xms_attrs *a, uint64_t tag)
{
	for (size_t i = 0; i < a->ntags; i++) {
		if (a->tags[i] == tag) {
			memmove(&a->tags[i], &a->tags[i + 1], (a->ntags - i - 1) * sizeof(a->tags[0]));
			a->ntags--;
			return;
		}
	}
}

int xms_tags_check(struct xms_model *m, char *err, size_t errlen)
{
	char n1[XMS_TAG_NAME_MAX + 1], n2[XMS_TAG_NAME_MAX + 1];

	for (size_t i = 0; i < m->tags.n; i++) {
		const struct xms_tag *t = &m->tags.v[i], *p = t->parent ? xms_tag_get(m, t->parent) : NULL;

		if (t->kind >= XMS_TAG_KINDS) {
			snprintf(err, errlen, "tags[%zu].kind: want 0..%d", i, XMS_TAG_KINDS - 1);
			return -1;
		}
		/* a parent is older (smaller index): no cycle can form */
		if (t->parent && (!p || p->index >= t->index || p->kind != t->kind)) {
			snprintf(err, errlen, "tags[%zu].parent: no older tag of the same kind has index %llu", i,
				 (unsigned long long)t->parent);
			return -1;
		}
		if (!t->parent && strcmp(t->caption, xms_tag_entity(t->kind)) != 0) {
			snprintf(err, errlen, "tags[%zu].caption: a root tag is named after its kind (%s)", i,
				 xms_tag_entity(t->kind));
			return -1;
		}
		if (p && xms_tag_depth(m, p) >= XMS_TAG_DEPTH_MAX) {
			snprintf(err, errlen, "tags[%zu].parent: more than %d levels", i, XMS_TAG_DEPTH_MAX);
			return -1;
		}
		xms_tag_name(m, t, n1);
		for (size_t j = 0; j < i; j++) {
			xms_tag_name(m, &m->tags.v[j], n2);
			if (strcmp(n1, n2) == 0) {
				snprintf(err, errlen, "tags[%zu]: the name %.200s is taken by tags[%zu]", i, n1, j);
				return -1;
			}
		}
	}
	for (size_t i = 0; i < m->inv_tagged.n; i++) {
		const struct xms_inv_tagged *t = &m->inv_tagged.v[i];
		/* a target is every cluster's (lunlab serves them all through the
		 * same ports): its record names no cluster */
		if (!xms_tag_kind_inventory(t->kind) || !t->n ||
		    (t->kind == XMS_TAG_TARGET ? t->cluster != 0 : !xms_cluster_get(m, t->cluster))) {
			snprintf(err, errlen, "inventory-tags[%zu]: want kind X-Brick, StorageController, SSD, "
				 "BatteryBackupUnit or Target, n >= 1 and a cluster that exists (none for a Target)", i);
			return -1;
		}
	}
	for (int k = 0; k < XMS_TAG_KINDS; k++) {
		struct xms_tag_entity e;

		for (size_t i = 0; xms_tag_entity_at(m, (enum xms_tag_kind)k, i, &e); i++) {
			for (size_t j = 0; j < e.attrs->ntags; j++) {
				const struct xms_tag *t = xms_tag_get(m, e.attrs->tags[j]);
				if (!t || t->kind != k || !t->parent) {
					snprintf(err, errlen, "%s %.128s: attrs.tag-ids[%zu]: no tag of its kind has index %llu",
						 xms_tag_entity((enum xms_tag_kind)k), e.name, j,
						 (unsigned long long)e.attrs->tags[j]);
					return -1;
				}
			}
		}
	}
	return 0;
}
