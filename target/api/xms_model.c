/* xms_model.c — see xms_model.h.  Each type is a growable array kept in
 * index order (new objects get the highest index), so a lookup by index is
 * a binary search and a list comes out in creation order. */
#include "target/api/xms_model.h"
#include "target/api/xms_tag_model.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct xms_model g_xms;

/* ---- generic array helpers (each object type starts with index, guid) ---- */

static void *arr_add(void **v, size_t *n, size_t *cap, uint64_t *next, size_t size)
{
	char *obj;

	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		void *nv = realloc(*v, nc * size);
		if (!nv)
			return NULL;
		*v = nv;
		*cap = nc;
	}
	obj = (char *)*v + *n * size;
	memset(obj, 0, size);
	if (*next == 0)
		*next = 1;
	*(uint64_t *)(void *)obj = (*next)++;
	if (!xms_guid_new(obj + sizeof(uint64_t)))
		return NULL;
	(*n)++;
	return obj;
}

static void *arr_get(void *v, size_t n, size_t size, uint64_t index)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		uint64_t at = *(uint64_t *)(void *)((char *)v + mid * size);
		if (at == index)
			return (char *)v + mid * size;
		if (index < at)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

static void arr_del(void *v, size_t *n, size_t size, uint64_t index)
{
	char *o = arr_get(v, *n, size, index);
	size_t i;

	if (!o)
		return;
	i = (size_t)(o - (char *)v) / size;
	memmove(o, o + size, (*n - i - 1) * size);
	(*n)--;
}

#define ADD(arr) arr_add((void **)&(arr).v, &(arr).n, &(arr).cap, &(arr).next, sizeof(*(arr).v))
#define GET(arr, i) arr_get((arr).v, (arr).n, sizeof(*(arr).v), (i))
#define DEL(arr, i) arr_del((arr).v, &(arr).n, sizeof(*(arr).v), (i))

#define BY_NAME(arr, nm)                                                        \
	do {                                                                    \
		for (size_t i_ = 0; i_ < (arr).n; i_++)                         \
			if (strcmp((arr).v[i_].name, (nm)) == 0)                \
				return &(arr).v[i_];                            \
		return NULL;                                                    \
	} while (0)

/* a new object is marked at once: its fields are filled in after the
 * add, and a save reads them then (xms_dirty.h) */
static void *added(struct xms_model *m, enum xms_kind k, void *obj)
{
	if (obj)
		xms_model_changed(m, k, *(uint64_t *)obj);
	return obj;
}

struct xms_cluster *xms_cluster_add(struct xms_model *m) { return added(m, XMS_KIND_CLUSTER, ADD(m->clusters)); }
struct xms_volume *xms_volume_add(struct xms_model *m) { return added(m, XMS_KIND_VOLUME, ADD(m->volumes)); }
struct xms_snapset *xms_snapset_add(struct xms_model *m) { return added(m, XMS_KIND_SNAPSET, ADD(m->snapsets)); }
struct xms_cg *xms_cg_add(struct xms_model *m) { return added(m, XMS_KIND_CG, ADD(m->cgs)); }
struct xms_ig *xms_ig_add(struct xms_model *m) { return added(m, XMS_KIND_IG, ADD(m->igs)); }
struct xms_initiator *xms_initiator_add(struct xms_model *m)
{
	return added(m, XMS_KIND_INITIATOR, ADD(m->initiators));
}
struct xms_lunmap *xms_lunmap_add(struct xms_model *m) { return added(m, XMS_KIND_LUNMAP, ADD(m->lunmaps)); }
struct xms_tag *xms_tag_add(struct xms_model *m) { return added(m, XMS_KIND_TAG, ADD(m->tags)); }
struct xms_inv_tagged *xms_inv_tagged_add(struct xms_model *m)
{
	return added(m, XMS_KIND_INV_TAGGED, ADD(m->inv_tagged));
}

struct xms_cluster *xms_cluster_get(struct xms_model *m, uint64_t i) { return GET(m->clusters, i); }
struct xms_volume *xms_volume_get(struct xms_model *m, uint64_t i) { return GET(m->volumes, i); }
struct xms_snapset *xms_snapset_get(struct xms_model *m, uint64_t i) { return GET(m->snapsets, i); }
struct xms_cg *xms_cg_get(struct xms_model *m, uint64_t i) { return GET(m->cgs, i); }
struct xms_ig *xms_ig_get(struct xms_model *m, uint64_t i) { return GET(m->igs, i); }
struct xms_initiator *xms_initiator_get(struct xms_model *m, uint64_t i) { return GET(m->initiators, i); }
struct xms_lunmap *xms_lunmap_get(struct xms_model *m, uint64_t i) { return GET(m->lunmaps, i); }
struct xms_tag *xms_tag_get(struct xms_model *m, uint64_t i) { return GET(m->tags, i); }

/* clusters are few (one per --cluster): a scan */
struct xms_cluster *xms_cluster_by_name(struct xms_model *m, const char *n) { BY_NAME(m->clusters, n); }

/* by name within the model's scope (a cluster's objects, or all): the
 * lowest index the name index holds, as the scan in index order found */
#define BY_NAME_SCOPED(m, kind, get, nm) return get((m), xms_names_first(&(m)->names, (kind), (m)->scope, (nm)))

struct xms_volume *xms_volume_by_name(struct xms_model *m, const char *n)
{
	BY_NAME_SCOPED(m, XMS_NAME_VOLUME, xms_volume_get, n);
}
struct xms_snapset *xms_snapset_by_name(struct xms_model *m, const char *n)
{
	BY_NAME_SCOPED(m, XMS_NAME_SNAPSET, xms_snapset_get, n);
}
struct xms_cg *xms_cg_by_name(struct xms_model *m, const char *n) { BY_NAME_SCOPED(m, XMS_NAME_CG, xms_cg_get, n); }
struct xms_ig *xms_ig_by_name(struct xms_model *m, const char *n) { BY_NAME_SCOPED(m, XMS_NAME_IG, xms_ig_get, n); }
struct xms_initiator *xms_initiator_by_name(struct xms_model *m, const char *n)
{
	BY_NAME_SCOPED(m, XMS_NAME_INITIATOR, xms_initiator_get, n);
}

struct xms_initiator *xms_initiator_by_port(struct xms_model *m, const char *port)
{
	BY_NAME_SCOPED(m, XMS_NAME_PORT, xms_initiator_get, port);
}

void xms_lunmap_name(const struct xms_lunmap *l, char *out, size_t cap)
{
	snprintf(out, cap, "%llu_%llu_1", (unsigned long long)l->vol, (unsigned long long)l->ig);
}

/* a map of any cluster (the volume's index names its cluster) */
struct xms_lunmap *xms_lunmap_find(struct xms_model *m, uint64_t vol, uint64_t ig)
{
	struct xms_lunmap key = { .vol = vol, .ig = ig };
	char name[48];

	xms_lunmap_name(&key, name, sizeof(name));
	return xms_lunmap_get(m, xms_names_first(&m->names, XMS_NAME_LUNMAP, 0, name));
}

/* ---- names: the setters keep the index (xms_names.h) ---- */

/* A name field's change: what it will hold (cut as the field cuts it) in
 * next, and the index's move in *c.  Then the move, then commit(). */
struct rename {
	char *field;
	size_t cap;
	char next[XMS_IQN_MAX + 1];
};

static void rename_prep(struct rename *r, struct xms_name_change *c, enum xms_name_kind k, uint64_t index,
			uint64_t cluster, char *field, size_t cap, uint64_t new_cluster, const char *new_name)
{
	r->field = field;
	r->cap = cap;
	snprintf(r->next, cap < sizeof(r->next) ? cap : sizeof(r->next), "%s", new_name ? new_name : field);
	*c = (struct xms_name_change){ k, index, cluster, field[0] ? field : NULL, new_cluster,
				       r->next[0] ? r->next : NULL };
}

static void rename_commit(const struct rename *r)
{
	memcpy(r->field, r->next, strlen(r->next) + 1);
}

/* a rename or move marks its object for the store too (xms_dirty.h): dk */
#define RENAME(m, k, dk, o, c, nm)                                                                          \
	do {                                                                                                \
		struct rename r_;                                                                           \
		struct xms_name_change c_;                                                                  \
		rename_prep(&r_, &c_, (k), (o)->index, (o)->cluster, (o)->name, sizeof((o)->name), (c), (nm)); \
		if (!xms_names_apply(&(m)->names, &c_, 1))                                                  \
			return false;                                                                       \
		rename_commit(&r_);                                                                         \
		(o)->cluster = (c);                                                                         \
		xms_model_changed((m), (dk), (o)->index);                                                   \
		return true;                                                                                \
	} while (0)

bool xms_volume_set_name(struct xms_model *m, struct xms_volume *v, uint64_t cluster, const char *name)
{
	RENAME(m, XMS_NAME_VOLUME, XMS_KIND_VOLUME, v, cluster, name);
}

bool xms_snapset_set_name(struct xms_model *m, struct xms_snapset *s, uint64_t cluster, const char *name)
{
	RENAME(m, XMS_NAME_SNAPSET, XMS_KIND_SNAPSET, s, cluster, name);
}

bool xms_cg_set_name(struct xms_model *m, struct xms_cg *g, uint64_t cluster, const char *name)
{
	RENAME(m, XMS_NAME_CG, XMS_KIND_CG, g, cluster, name);
}

bool xms_ig_set_name(struct xms_model *m, struct xms_ig *g, uint64_t cluster, const char *name)
{
	RENAME(m, XMS_NAME_IG, XMS_KIND_IG, g, cluster, name);
}

/* its name and its iSCSI name move together, or neither does */
bool xms_initiator_set_name(struct xms_model *m, struct xms_initiator *n, uint64_t cluster, const char *name,
			    const char *port)
{
	struct rename r[2];
	struct xms_name_change c[2];

	rename_prep(&r[0], &c[0], XMS_NAME_INITIATOR, n->index, n->cluster, n->name, sizeof(n->name), cluster, name);
	rename_prep(&r[1], &c[1], XMS_NAME_PORT, n->index, n->cluster, n->port_address, sizeof(n->port_address),
		    cluster, port);
	if (!xms_names_apply(&m->names, c, 2))
		return false;
	rename_commit(&r[0]);
	rename_commit(&r[1]);
	n->cluster = cluster;
	xms_model_changed(m, XMS_KIND_INITIATOR, n->index);
	return true;
}

bool xms_lunmap_set(struct xms_model *m, struct xms_lunmap *l, uint64_t vol, uint64_t ig, uint64_t cluster)
{
	struct xms_lunmap next = *l;
	char was[48], now[48];

	next.vol = vol;
	next.ig = ig;
	xms_lunmap_name(l, was, sizeof(was));
	xms_lunmap_name(&next, now, sizeof(now));
	if (!xms_names_move(&m->names, XMS_NAME_LUNMAP, l->index, l->cluster, l->vol && l->ig ? was : NULL, cluster,
			    vol && ig ? now : NULL))
		return false;
	l->vol = vol;
	l->ig = ig;
	l->cluster = cluster;
	xms_model_changed(m, XMS_KIND_LUNMAP, l->index);
	return true;
}

/* "12" is an index only when no object is named "12" */
static bool as_index(const char *ref, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*ref < '1' || *ref > '9')
		return false;
	errno = 0;
	v = strtoull(ref, &end, 10);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

struct xms_cluster *xms_cluster_ref(struct xms_model *m, const char *ref)
{
	uint64_t i;
	struct xms_cluster *c = xms_cluster_by_name(m, ref);

	if (!c && as_index(ref, &i))
		c = xms_cluster_get(m, i);
	return c;
}

struct xms_volume *xms_volume_ref(struct xms_model *m, const char *ref)
{
	uint64_t i;
	struct xms_volume *v = xms_volume_by_name(m, ref);

	if (!v && as_index(ref, &i))
		v = xms_volume_get(m, i);
	return v;
}

struct xms_ig *xms_ig_ref(struct xms_model *m, const char *ref)
{
	uint64_t i;
	struct xms_ig *g = xms_ig_by_name(m, ref);

	if (!g && as_index(ref, &i))
		g = xms_ig_get(m, i);
	return g;
}

struct xms_cg *xms_cg_ref(struct xms_model *m, const char *ref)
{
	uint64_t i;
	struct xms_cg *g = xms_cg_by_name(m, ref);

	if (!g && as_index(ref, &i))
		g = xms_cg_get(m, i);
	return g;
}

struct xms_snapset *xms_snapset_ref(struct xms_model *m, const char *ref)
{
	uint64_t i;
	struct xms_snapset *s = xms_snapset_by_name(m, ref);

	if (!s && as_index(ref, &i))
		s = xms_snapset_get(m, i);
	return s;
}

/* ---- index lists ---- */

bool xms_idlist_has(const struct xms_idlist *l, uint64_t v)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i] == v)
			return true;
	return false;
}

bool xms_idlist_add(struct xms_idlist *l, uint64_t v)
{
	uint64_t *n;

	if (xms_idlist_has(l, v))
		return true;
	n = realloc(l->v, (l->n + 1) * sizeof(*n));
	if (!n)
		return false;
	l->v = n;
	l->v[l->n++] = v;
	return true;
}

void xms_idlist_remove(struct xms_idlist *l, uint64_t v)
{
	for (size_t i = 0; i < l->n; i++) {
		if (l->v[i] == v) {
			memmove(&l->v[i], &l->v[i + 1], (l->n - i - 1) * sizeof(*l->v));
			l->n--;
			return;
		}
	}
}

/* ---- removals ---- */

/* an object leaving the model leaves the name index */
#define UNNAME(m, k, o)                                                                        \
	do {                                                                                   \
		if ((o) && (o)->name[0])                                                       \
			xms_names_move(&(m)->names, (k), (o)->index, (o)->cluster, (o)->name, 0, NULL); \
	} while (0)

/* each removal marks the object (its record goes) and every other object
 * it changes (xms_dirty.h) */
void xms_volume_del(struct xms_model *m, uint64_t index)
{
	UNNAME(m, XMS_NAME_VOLUME, xms_volume_get(m, index));
	for (size_t i = 0; i < m->cgs.n; i++) {
		if (xms_idlist_has(&m->cgs.v[i].vols, index)) {
			xms_idlist_remove(&m->cgs.v[i].vols, index);
			xms_model_changed(m, XMS_KIND_CG, m->cgs.v[i].index);
		}
	}
	for (size_t i = 0; i < m->snapsets.n; i++) {
		if (xms_idlist_has(&m->snapsets.v[i].vols, index)) {
			xms_idlist_remove(&m->snapsets.v[i].vols, index);
			xms_model_changed(m, XMS_KIND_SNAPSET, m->snapsets.v[i].index);
		}
	}
	if (xms_volume_get(m, index))
		xms_model_changed(m, XMS_KIND_VOLUME, index);
	DEL(m->volumes, index);
}

void xms_snapset_del(struct xms_model *m, uint64_t index)
{
	struct xms_snapset *s = xms_snapset_get(m, index);

	if (!s)
		return;
	UNNAME(m, XMS_NAME_SNAPSET, s);
	for (size_t i = 0; i < m->volumes.n; i++) {
		if (m->volumes.v[i].snapset == index) {
			m->volumes.v[i].snapset = 0;
			xms_model_changed(m, XMS_KIND_VOLUME, m->volumes.v[i].index);
		}
	}
	free(s->vols.v);
	xms_model_changed(m, XMS_KIND_SNAPSET, index);
	DEL(m->snapsets, index);
}

void xms_cg_del(struct xms_model *m, uint64_t index)
{
	struct xms_cg *g = xms_cg_get(m, index);

	if (!g)
		return;
	UNNAME(m, XMS_NAME_CG, g);
	free(g->vols.v);
	xms_model_changed(m, XMS_KIND_CG, index);
	DEL(m->cgs, index);
}

void xms_ig_del(struct xms_model *m, uint64_t index)
{
	UNNAME(m, XMS_NAME_IG, xms_ig_get(m, index));
	if (xms_ig_get(m, index))
		xms_model_changed(m, XMS_KIND_IG, index);
	DEL(m->igs, index);
}

void xms_initiator_del(struct xms_model *m, uint64_t index)
{
	struct xms_initiator *n = xms_initiator_get(m, index);

	/* leaving frees keys, it allocates none: it cannot fail */
	if (n) {
		xms_initiator_set_name(m, n, n->cluster, "", "");
		xms_model_changed(m, XMS_KIND_INITIATOR, index);
	}
	DEL(m->initiators, index);
}

void xms_lunmap_del(struct xms_model *m, uint64_t index)
{
	struct xms_lunmap *l = xms_lunmap_get(m, index);

	if (l) {
		xms_lunmap_set(m, l, 0, 0, l->cluster);
		xms_model_changed(m, XMS_KIND_LUNMAP, index);
	}
	DEL(m->lunmaps, index);
}

void xms_tag_del(struct xms_model *m, uint64_t index)
{
	if (GET(m->tags, index))
		xms_model_changed(m, XMS_KIND_TAG, index);
	DEL(m->tags, index);
}

void xms_inv_tagged_prune(struct xms_model *m)
{
	for (size_t i = m->inv_tagged.n; i-- > 0;) {
		uint64_t index = m->inv_tagged.v[i].index;

		if (m->inv_tagged.v[i].attrs.ntags)
			continue;
		xms_model_changed(m, XMS_KIND_INV_TAGGED, index);
		DEL(m->inv_tagged, index);
	}
}

static void wipe(void *p, size_t n)
{
	volatile unsigned char *c = p;

	while (n--)
		*c++ = 0;
}

void xms_model_free(struct xms_model *m)
{
	for (size_t i = 0; i < m->snapsets.n; i++)
		free(m->snapsets.v[i].vols.v);
	for (size_t i = 0; i < m->cgs.n; i++)
		free(m->cgs.v[i].vols.v);
	if (m->initiators.v)
		wipe(m->initiators.v, m->initiators.cap * sizeof(*m->initiators.v)); /* CHAP secrets */
	free(m->clusters.v);
	free(m->volumes.v);
	free(m->snapsets.v);
	free(m->cgs.v);
	free(m->igs.v);
	free(m->initiators.v);
	free(m->lunmaps.v);
	free(m->tags.v);
	free(m->inv_tagged.v);
	xms_names_free(&m->names);
	xms_dirty_free(&m->dirty);
	memset(m, 0, sizeof(*m));
}

const char *xms_chap_mode_name(enum xms_chap_mode mode)
{
	return mode == XMS_CHAP_INITIATOR ? "initiator" : mode == XMS_CHAP_MUTUAL ? "mutual" : "disabled";
}

bool xms_chap_mode_parse(const char *s, enum xms_chap_mode *out)
{
	if (strcmp(s, "disabled") == 0)
		*out = XMS_CHAP_DISABLED;
	else if (strcmp(s, "initiator") == 0)
		*out = XMS_CHAP_INITIATOR;
	else if (strcmp(s, "mutual") == 0)
		*out = XMS_CHAP_MUTUAL;
	else
		return false;
	return true;
}

/* ---- serialisation ---- */

#define PUT_STR(o, k, v) json_object_object_add((o), (k), json_object_new_string(v))
#define PUT_U64(o, k, v) json_object_object_add((o), (k), json_object_new_int64((int64_t)(v)))
#define PUT_BOOL(o, k, v) json_object_object_add((o), (k), json_object_new_boolean(v))

static struct json_object *ids_json(const struct xms_idlist *l)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < l->n; i++)
		json_object_array_add(a, json_object_new_int64((int64_t)l->v[i]));
	return a;
}

static void head(struct json_object *o, uint64_t index, const char *guid, const char *name)
{
	PUT_U64(o, "index", index);
	PUT_STR(o, "guid", guid);
	if (name)
		PUT_STR(o, "name", name);
}

static struct json_object *typed(struct json_object *doc, const char *key, uint64_t next)
{
	struct json_object *t = json_object_new_object(), *a = json_object_new_array();

	PUT_U64(t, "next-index", next ? next : 1);
	json_object_object_add(t, "objects", a);
	json_object_object_add(doc, key, t);
	return a;
}

/* the kept settings, when any is set (older documents have none) */
static void put_attrs(struct json_object *o, const struct xms_attrs *a)
{
	struct json_object *j = xms_attrs_to_json(a);

	if (j)
		json_object_object_add(o, "attrs", j);
}

static struct json_object *cluster_json(const struct xms_cluster *c)
{
	struct json_object *o = json_object_new_object();

	head(o, c->index, c->guid, c->name);
	PUT_STR(o, "keys", c->keys);
	PUT_U64(o, "lb-size", c->lb_size);
	PUT_STR(o, "chap-authentication-mode", xms_chap_mode_name(c->chap_auth));
	PUT_STR(o, "chap-discovery-mode", xms_chap_mode_name(c->chap_discovery));
	PUT_STR(o, "serial", c->serial);
	put_attrs(o, &c->attrs);
	return o;
}

static struct json_object *volume_json(const struct xms_volume *v)
{
	struct json_object *o = json_object_new_object();

	head(o, v->index, v->guid, v->name);
	PUT_U64(o, "cluster", v->cluster);
	PUT_U64(o, "size", v->size);
	PUT_U64(o, "lb-size", v->lb_size);
	PUT_U64(o, "ancestor", v->ancestor);
	PUT_U64(o, "snapset", v->snapset);
	PUT_BOOL(o, "snapshot", v->snapshot);
	PUT_BOOL(o, "readonly", v->readonly);
	PUT_U64(o, "created", v->created);
	put_attrs(o, &v->attrs);
	return o;
}

static struct json_object *snapset_json(const struct xms_snapset *s)
{
	struct json_object *o = json_object_new_object();

	head(o, s->index, s->guid, s->name);
	PUT_U64(o, "cluster", s->cluster);
	PUT_U64(o, "cg", s->cg);
	json_object_object_add(o, "vols", ids_json(&s->vols));
	PUT_U64(o, "created", s->created);
	put_attrs(o, &s->attrs);
	return o;
}

static struct json_object *cg_json(const struct xms_cg *g)
{
	struct json_object *o = json_object_new_object();

	head(o, g->index, g->guid, g->name);
	PUT_U64(o, "cluster", g->cluster);
	json_object_object_add(o, "vols", ids_json(&g->vols));
	put_attrs(o, &g->attrs);
	return o;
}

static struct json_object *ig_json(const struct xms_ig *g)
{
	struct json_object *o = json_object_new_object();

	head(o, g->index, g->guid, g->name);
	PUT_U64(o, "cluster", g->cluster);
	put_attrs(o, &g->attrs);
	return o;
}

static struct json_object *initiator_json(const struct xms_initiator *n)
{
	struct json_object *o = json_object_new_object();

	head(o, n->index, n->guid, n->name);
	PUT_STR(o, "port-address", n->port_address);
	PUT_U64(o, "ig", n->ig);
	PUT_U64(o, "cluster", n->cluster);
	PUT_STR(o, "auth-user", n->auth_user);
	PUT_STR(o, "auth-pass", n->auth_pass);
	PUT_STR(o, "disc-user", n->disc_user);
	PUT_STR(o, "disc-pass", n->disc_pass);
	put_attrs(o, &n->attrs);
	return o;
}

static struct json_object *lunmap_json(const struct xms_lunmap *l)
{
	struct json_object *o = json_object_new_object();

	head(o, l->index, l->guid, NULL);
	PUT_U64(o, "vol", l->vol);
	PUT_U64(o, "ig", l->ig);
	PUT_U64(o, "lun", l->lun);
	PUT_U64(o, "cluster", l->cluster);
	return o;
}

static struct json_object *tag_json(const struct xms_tag *t)
{
	struct json_object *o = json_object_new_object();

	head(o, t->index, t->guid, NULL);
	PUT_STR(o, "caption", t->caption);
	PUT_U64(o, "parent", t->parent);
	PUT_U64(o, "kind", t->kind);
	PUT_STR(o, "color", t->color);
	PUT_U64(o, "created-ms", t->created_ms);
	return o;
}

static struct json_object *inv_tagged_json(const struct xms_inv_tagged *t)
{
	struct json_object *o = json_object_new_object();

	head(o, t->index, t->guid, t->name);
	PUT_STR(o, "obj-guid", t->obj_guid);
	PUT_U64(o, "obj-index", t->obj_index);
	PUT_U64(o, "cluster", t->cluster);
	PUT_U64(o, "kind", t->kind);
	PUT_U64(o, "n", t->n);
	put_attrs(o, &t->attrs);
	return o;
}

/* the object of kind k at position i of its array */
static struct json_object *nth_json(const struct xms_model *m, enum xms_kind k, size_t i)
{
	switch (k) {
	case XMS_KIND_CLUSTER: return cluster_json(&m->clusters.v[i]);
	case XMS_KIND_VOLUME: return volume_json(&m->volumes.v[i]);
	case XMS_KIND_SNAPSET: return snapset_json(&m->snapsets.v[i]);
	case XMS_KIND_CG: return cg_json(&m->cgs.v[i]);
	case XMS_KIND_IG: return ig_json(&m->igs.v[i]);
	case XMS_KIND_INITIATOR: return initiator_json(&m->initiators.v[i]);
	case XMS_KIND_LUNMAP: return lunmap_json(&m->lunmaps.v[i]);
	case XMS_KIND_TAG: return tag_json(&m->tags.v[i]);
	case XMS_KIND_INV_TAGGED: return inv_tagged_json(&m->inv_tagged.v[i]);
	default: return NULL;
	}
}

/* kind k's array: its objects' size, count, start, next index */
static void kind_array(const struct xms_model *m, enum xms_kind k, const void **v, size_t *n, size_t *size,
		       uint64_t *next)
{
#define KA(arr) (*v = (arr).v, *n = (arr).n, *size = sizeof(*(arr).v), *next = (arr).next)
	switch (k) {
	case XMS_KIND_CLUSTER: KA(m->clusters); break;
	case XMS_KIND_VOLUME: KA(m->volumes); break;
	case XMS_KIND_SNAPSET: KA(m->snapsets); break;
	case XMS_KIND_CG: KA(m->cgs); break;
	case XMS_KIND_IG: KA(m->igs); break;
	case XMS_KIND_INITIATOR: KA(m->initiators); break;
	case XMS_KIND_LUNMAP: KA(m->lunmaps); break;
	case XMS_KIND_TAG: KA(m->tags); break;
	case XMS_KIND_INV_TAGGED: KA(m->inv_tagged); break;
	default: *v = NULL, *n = 0, *size = 1, *next = 0; break;
	}
#undef KA
}

struct json_object *xms_model_object_json(const struct xms_model *m, enum xms_kind k, uint64_t index)
{
	const void *v;
	const char *o;
	size_t n, size;
	uint64_t next;

	kind_array(m, k, &v, &n, &size, &next);
	o = arr_get((void *)(uintptr_t)v, n, size, index);
	return o ? nth_json(m, k, (size_t)(o - (const char *)v) / size) : NULL;
}

struct json_object *xms_model_head_json(const struct xms_model *m)
{
	struct json_object *doc = json_object_new_object();

	PUT_U64(doc, "format", 1);
	for (int k = 0; k < XMS_KINDS; k++) {
		const void *v;
		size_t n, size;
		uint64_t next;

		kind_array(m, (enum xms_kind)k, &v, &n, &size, &next);
		typed(doc, xms_kind_name((enum xms_kind)k), next);
	}
	return doc;
}

struct json_object *xms_model_to_json(const struct xms_model *m)
{
	struct json_object *doc = xms_model_head_json(m);

	for (int k = 0; doc && k < XMS_KINDS; k++) {
		struct json_object *t, *a;
		const void *v;
		size_t n, size;
		uint64_t next;

		kind_array(m, (enum xms_kind)k, &v, &n, &size, &next);
		if (!json_object_object_get_ex(doc, xms_kind_name((enum xms_kind)k), &t) ||
		    !json_object_object_get_ex(t, "objects", &a))
			continue;
		for (size_t i = 0; i < n; i++)
			json_object_array_add(a, nth_json(m, (enum xms_kind)k, i));
	}
	return doc;
}

/* ---- loading: every field checked, every error names it ---- */

struct rd {
	char *err;
	size_t errlen;
	const char *where;   /* "volumes[3]" */
	bool bad;
};

static struct json_object *fld(struct rd *r, struct json_object *o, const char *k, enum json_type t)
{
	struct json_object *v;

	if (r->bad)
		return NULL;
	if (!json_object_object_get_ex(o, k, &v) || !json_object_is_type(v, t)) {
		snprintf(r->err, r->errlen, "%s.%s: missing or not a %s", r->where, k, json_type_to_name(t));
		r->bad = true;
		return NULL;
	}
	return v;
}

static uint64_t rd_u64(struct rd *r, struct json_object *o, const char *k)
{
	struct json_object *v = fld(r, o, k, json_type_int);
	int64_t x = v ? json_object_get_int64(v) : 0;

	if (v && x < 0) {
		snprintf(r->err, r->errlen, "%s.%s: negative", r->where, k);
		r->bad = true;
		return 0;
	}
	return (uint64_t)x;
}

static void rd_str(struct rd *r, struct json_object *o, const char *k, char *dst, size_t cap, bool nonempty)
{
	struct json_object *v = fld(r, o, k, json_type_string);
	const char *s = v ? json_object_get_string(v) : "";
	size_t len = v ? (size_t)json_object_get_string_len(v) : 0;

	if (!v)
		return;
	if (len >= cap || strlen(s) != len || (nonempty && !len)) {
		snprintf(r->err, r->errlen, "%s.%s: want %s1..%zu bytes without NUL", r->where, k, nonempty ? "" : "0 or ",
			 cap - 1);
		r->bad = true;
		return;
	}
	memcpy(dst, s, len + 1);
}

static bool rd_bool(struct rd *r, struct json_object *o, const char *k)
{
	struct json_object *v = fld(r, o, k, json_type_boolean);

	return v && json_object_get_boolean(v);
}

static void rd_ids(struct rd *r, struct json_object *o, const char *k, struct xms_idlist *l)
{
	struct json_object *a = fld(r, o, k, json_type_array);

	for (size_t i = 0; a && !r->bad && i < json_object_array_length(a); i++) {
		struct json_object *e = json_object_array_get_idx(a, i);
		if (!e || !json_object_is_type(e, json_type_int) || json_object_get_int64(e) < 1) {
			snprintf(r->err, r->errlen, "%s.%s[%zu]: want an index >= 1", r->where, k, i);
			r->bad = true;
			return;
		}
		if (!xms_idlist_add(l, (uint64_t)json_object_get_int64(e))) {
			snprintf(r->err, r->errlen, "out of memory");
			r->bad = true;
		}
	}
}

static void rd_attrs(struct rd *r, struct json_object *o, struct xms_attrs *a)
{
	struct json_object *v = NULL;
	char why[200];

	if (r->bad)
		return;
	json_object_object_get_ex(o, "attrs", &v);
	if (xms_attrs_from_json(v, a, why, sizeof(why)) < 0) {
		snprintf(r->err, r->errlen, "%s.attrs.%s", r->where, why);
		r->bad = true;
	}
}

static void rd_mode(struct rd *r, struct json_object *o, const char *k, enum xms_chap_mode *out)
{
	struct json_object *v = fld(r, o, k, json_type_string);

	if (v && !xms_chap_mode_parse(json_object_get_string(v), out)) {
		snprintf(r->err, r->errlen, "%s.%s: want disabled, initiator or mutual", r->where, k);
		r->bad = true;
	}
}

/* the object list of one type, and its next index; every index below next,
 * ascending, unique */
static struct json_object *rd_type(struct rd *r, struct json_object *doc, const char *key, uint64_t *next)
{
	struct json_object *t, *a;

	r->where = key;
	t = fld(r, doc, key, json_type_object);
	if (!t)
		return NULL;
	*next = rd_u64(r, t, "next-index");
	a = fld(r, t, "objects", json_type_array);
	if (!r->bad && *next < 1) {
		snprintf(r->err, r->errlen, "%s.next-index: want >= 1", key);
		r->bad = true;
	}
	return r->bad ? NULL : a;
}

/* the index and GUID every object has; the array stays in index order */
static bool rd_head(struct rd *r, struct json_object *o, uint64_t *index, char *guid, uint64_t prev, uint64_t next)
{
	*index = rd_u64(r, o, "index");
	rd_str(r, o, "guid", guid, XMS_GUID_LEN + 1, true);
	if (r->bad)
		return false;
	if (*index <= prev || *index >= next) {
		snprintf(r->err, r->errlen, "%s.index: %llu is not above the one before (%llu) and below next-index (%llu)",
			 r->where, (unsigned long long)*index, (unsigned long long)prev, (unsigned long long)next);
		r->bad = true;
		return false;
	}
	return true;
}

#define EACH(r, doc, key, arr, body)                                                        \
	do {                                                                                \
		uint64_t next_, prev_ = 0;                                                  \
		struct json_object *a_ = rd_type((r), (doc), (key), &next_);                \
		char where_[64];                                                            \
		for (size_t i_ = 0; a_ && !(r)->bad && i_ < json_object_array_length(a_); i_++) { \
			struct json_object *o = json_object_array_get_idx(a_, i_);          \
			snprintf(where_, sizeof(where_), "%s[%zu]", (key), i_);             \
			(r)->where = where_;                                                \
			if (!o || !json_object_is_type(o, json_type_object)) {              \
				snprintf((r)->err, (r)->errlen, "%s: want an object", where_); \
				(r)->bad = true;                                            \
				break;                                                      \
			}                                                                   \
			if ((arr).n == (arr).cap) {                                         \
				size_t nc_ = (arr).cap ? 2 * (arr).cap : 16;                \
				void *nv_ = realloc((arr).v, nc_ * sizeof(*(arr).v));       \
				if (!nv_) {                                                 \
					snprintf((r)->err, (r)->errlen, "out of memory");  \
					(r)->bad = true;                                    \
					break;                                              \
				}                                                           \
				(arr).v = nv_;                                              \
				(arr).cap = nc_;                                            \
			}                                                                   \
			__typeof__((arr).v) x = &(arr).v[(arr).n];                          \
			memset(x, 0, sizeof(*x));                                           \
			if (!rd_head((r), o, &x->index, x->guid, prev_, next_))             \
				break;                                                      \
			prev_ = x->index;                                                   \
			(arr).n++;                                                          \
			body;                                                               \
		}                                                                           \
		(arr).next = next_;                                                         \
	} while (0)

/* the name index of a model loaded field by field */
static bool names_build(struct xms_model *m)
{
	for (size_t i = 0; i < m->volumes.n; i++)
		if (!xms_names_move(&m->names, XMS_NAME_VOLUME, m->volumes.v[i].index, 0, NULL, m->volumes.v[i].cluster,
				    m->volumes.v[i].name))
			return false;
	for (size_t i = 0; i < m->snapsets.n; i++)
		if (!xms_names_move(&m->names, XMS_NAME_SNAPSET, m->snapsets.v[i].index, 0, NULL,
				    m->snapsets.v[i].cluster, m->snapsets.v[i].name))
			return false;
	for (size_t i = 0; i < m->cgs.n; i++)
		if (!xms_names_move(&m->names, XMS_NAME_CG, m->cgs.v[i].index, 0, NULL, m->cgs.v[i].cluster,
				    m->cgs.v[i].name))
			return false;
	for (size_t i = 0; i < m->igs.n; i++)
		if (!xms_names_move(&m->names, XMS_NAME_IG, m->igs.v[i].index, 0, NULL, m->igs.v[i].cluster,
				    m->igs.v[i].name))
			return false;
	for (size_t i = 0; i < m->initiators.n; i++) {
		const struct xms_initiator *n = &m->initiators.v[i];
		if (!xms_names_move(&m->names, XMS_NAME_INITIATOR, n->index, 0, NULL, n->cluster, n->name) ||
		    !xms_names_move(&m->names, XMS_NAME_PORT, n->index, 0, NULL, n->cluster, n->port_address))
			return false;
	}
	for (size_t i = 0; i < m->lunmaps.n; i++) {
		char name[48];
		xms_lunmap_name(&m->lunmaps.v[i], name, sizeof(name));
		if (!xms_names_move(&m->names, XMS_NAME_LUNMAP, m->lunmaps.v[i].index, 0, NULL, m->lunmaps.v[i].cluster,
				    name))
			return false;
	}
	return true;
}

int xms_model_from_json(struct xms_model *m, struct json_object *doc, char *err, size_t errlen)
{
	struct rd r = { err, errlen, "(document)", false };

	memset(m, 0, sizeof(*m));
	if (!doc || !json_object_is_type(doc, json_type_object)) {
		snprintf(err, errlen, "(document): want a JSON object");
		return -1;
	}
	if (rd_u64(&r, doc, "format") != 1 && !r.bad) {
		snprintf(err, errlen, "format: want 1");
		return -1;
	}
	EACH(&r, doc, "clusters", m->clusters, {
		rd_str(&r, o, "name", x->name, sizeof(x->name), true);
		rd_str(&r, o, "keys", x->keys, sizeof(x->keys), false);
		x->lb_size = (uint32_t)rd_u64(&r, o, "lb-size");
		rd_mode(&r, o, "chap-authentication-mode", &x->chap_auth);
		rd_mode(&r, o, "chap-discovery-mode", &x->chap_discovery);
		rd_str(&r, o, "serial", x->serial, sizeof(x->serial), false);
		rd_attrs(&r, o, &x->attrs);
	});
	EACH(&r, doc, "volumes", m->volumes, {
		rd_str(&r, o, "name", x->name, sizeof(x->name), true);
		x->cluster = rd_u64(&r, o, "cluster");
		x->size = rd_u64(&r, o, "size");
		x->lb_size = (uint32_t)rd_u64(&r, o, "lb-size");
		x->ancestor = rd_u64(&r, o, "ancestor");
		x->snapset = rd_u64(&r, o, "snapset");
		x->snapshot = rd_bool(&r, o, "snapshot");
		x->readonly = rd_bool(&r, o, "readonly");
		x->created = (int64_t)rd_u64(&r, o, "created");
		rd_attrs(&r, o, &x->attrs);
		if (!r.bad && (x->lb_size != 512 && x->lb_size != 4096)) {
			snprintf(err, errlen, "%s.lb-size: want 512 or 4096", r.where);
			r.bad = true;
		}
		if (!r.bad && (x->size == 0 || x->size % x->lb_size)) {
			snprintf(err, errlen, "%s.size: want a positive multiple of lb-size", r.where);
			r.bad = true;
		}
	});
	EACH(&r, doc, "snapshot-sets", m->snapsets, {
		rd_str(&r, o, "name", x->name, sizeof(x->name), true);
		x->cluster = rd_u64(&r, o, "cluster");
		x->cg = rd_u64(&r, o, "cg");
		rd_ids(&r, o, "vols", &x->vols);
		x->created = (int64_t)rd_u64(&r, o, "created");
		rd_attrs(&r, o, &x->attrs);
	});
	EACH(&r, doc, "consistency-groups", m->cgs, {
		rd_str(&r, o, "name", x->name, sizeof(x->name), true);
		x->cluster = rd_u64(&r, o, "cluster");
		rd_ids(&r, o, "vols", &x->vols);
		rd_attrs(&r, o, &x->attrs);
	});
	EACH(&r, doc, "initiator-groups", m->igs, {
		rd_str(&r, o, "name", x->name, sizeof(x->name), true);
		x->cluster = rd_u64(&r, o, "cluster");
		rd_attrs(&r, o, &x->attrs);
	});
	EACH(&r, doc, "initiators", m->initiators, {
		rd_str(&r, o, "name", x->name, sizeof(x->name), true);
		rd_str(&r, o, "port-address", x->port_address, sizeof(x->port_address), true);
		x->ig = rd_u64(&r, o, "ig");
		x->cluster = rd_u64(&r, o, "cluster");
		rd_str(&r, o, "auth-user", x->auth_user, sizeof(x->auth_user), false);
		rd_str(&r, o, "auth-pass", x->auth_pass, sizeof(x->auth_pass), false);
		rd_str(&r, o, "disc-user", x->disc_user, sizeof(x->disc_user), false);
		rd_str(&r, o, "disc-pass", x->disc_pass, sizeof(x->disc_pass), false);
		rd_attrs(&r, o, &x->attrs);
	});
	EACH(&r, doc, "lun-maps", m->lunmaps, {
		x->vol = rd_u64(&r, o, "vol");
		x->ig = rd_u64(&r, o, "ig");
		x->lun = rd_u64(&r, o, "lun");
		x->cluster = rd_u64(&r, o, "cluster");
	});
	/* models stored before tags existed have none */
	if (json_object_object_get_ex(doc, "tags", NULL))
		EACH(&r, doc, "tags", m->tags, {
			rd_str(&r, o, "caption", x->caption, sizeof(x->caption), true);
			x->parent = rd_u64(&r, o, "parent");
			x->kind = (uint8_t)rd_u64(&r, o, "kind");
			rd_str(&r, o, "color", x->color, sizeof(x->color), false);
			x->created_ms = (int64_t)rd_u64(&r, o, "created-ms");
		});
	/* models stored before inventory objects were tagged have none */
	if (json_object_object_get_ex(doc, "inventory-tags", NULL))
		EACH(&r, doc, "inventory-tags", m->inv_tagged, {
			rd_str(&r, o, "name", x->name, sizeof(x->name), true);
			rd_str(&r, o, "obj-guid", x->obj_guid, sizeof(x->obj_guid), true);
			x->obj_index = rd_u64(&r, o, "obj-index");
			x->cluster = rd_u64(&r, o, "cluster");
			x->kind = (uint8_t)rd_u64(&r, o, "kind");
			x->n = (uint32_t)rd_u64(&r, o, "n");
			rd_attrs(&r, o, &x->attrs);
		});
	if (!r.bad && xms_tags_check(m, err, errlen) < 0)
		r.bad = true;
	/* references must name objects that exist */
	for (size_t i = 0; !r.bad && i < m->lunmaps.n; i++) {
		if (!xms_volume_get(m, m->lunmaps.v[i].vol) || !xms_ig_get(m, m->lunmaps.v[i].ig)) {
			snprintf(err, errlen, "lun-maps[%zu]: names a volume or initiator group that does not exist", i);
			r.bad = true;
		}
	}
	for (size_t i = 0; !r.bad && i < m->initiators.n; i++) {
		if (!xms_ig_get(m, m->initiators.v[i].ig)) {
			snprintf(err, errlen, "initiators[%zu].ig: no such initiator group", i);
			r.bad = true;
		}
	}
	for (size_t i = 0; !r.bad && i < m->volumes.n; i++) {
		if (!xms_cluster_get(m, m->volumes.v[i].cluster)) {
			snprintf(err, errlen, "volumes[%zu].cluster: no such cluster", i);
			r.bad = true;
		}
	}
	if (!r.bad && !names_build(m)) {
		snprintf(err, errlen, "out of memory (the name index)");
		r.bad = true;
	}
	if (r.bad) {
		xms_model_free(m);
		return -1;
	}
	return 0;
}

size_t xms_cluster_volume_count(const struct xms_model *m, uint64_t cluster)
{
	size_t n = 0;

	for (size_t i = 0; i < m->volumes.n; i++)
		n += m->volumes.v[i].cluster == cluster;
	return n;
}

/* the root of index's ancestry (bounded: a damaged chain ends the walk) */
uint64_t xms_family_root(struct xms_model *m, uint64_t index)
{
	for (size_t hops = 0; hops <= m->volumes.n; hops++) {
		const struct xms_volume *v = xms_volume_get(m, index);
		if (!v || !v->ancestor || !xms_volume_get(m, v->ancestor))
			return index;
		index = v->ancestor;
	}
	return index;
}

size_t xms_family_snapshot_count(struct xms_model *m, uint64_t index)
{
	uint64_t root = xms_family_root(m, index);
	size_t n = 0;

	for (size_t i = 0; i < m->volumes.n; i++)
		if (m->volumes.v[i].index != root && m->volumes.v[i].ancestor &&
		    xms_family_root(m, m->volumes.v[i].index) == root)
			n++;
	return n;
}

/* ---- the name index against a scan ---- */

static const char *const kind_names[XMS_NAME_KINDS] = { "volume", "snapshot-set", "consistency-group",
							 "initiator-group", "initiator", "initiator port-address",
							 "lun-map" };

/* object index of kind k is under (cluster, name) and (0, name); *pairs counts them */
static bool held(const struct xms_model *m, enum xms_name_kind k, uint64_t index, uint64_t cluster, const char *name,
		 size_t *pairs, char *why, size_t len)
{
	uint64_t keys[2] = { cluster, 0 };

	for (size_t j = 0; j < (cluster ? 2u : 1u); j++) {
		size_t n;
		const uint64_t *v = xms_names_find(&m->names, k, keys[j], name, &n);
		bool in = false;

		for (size_t i = 0; i < n && !in; i++)
			in = v[i] == index;
		if (!in) {
			snprintf(why, len, "%s %llu ('%s', cluster %llu) is not in the name index under cluster %llu",
				 kind_names[k], (unsigned long long)index, name, (unsigned long long)cluster,
				 (unsigned long long)keys[j]);
			return false;
		}
		(*pairs)++;
	}
	return true;
}

#define HELD_ALL(m, k, arr, pairs, why, len)                                                          \
	do {                                                                                          \
		for (size_t i_ = 0; i_ < (arr).n; i_++)                                               \
			if (!held((m), (k), (arr).v[i_].index, (arr).v[i_].cluster, (arr).v[i_].name, \
				  (pairs), (why), (len)))                                             \
				return -1;                                                            \
	} while (0)

int xms_model_names_check(const struct xms_model *m, char *why, size_t len)
{
	size_t pairs = 0;

	HELD_ALL(m, XMS_NAME_VOLUME, m->volumes, &pairs, why, len);
	HELD_ALL(m, XMS_NAME_SNAPSET, m->snapsets, &pairs, why, len);
	HELD_ALL(m, XMS_NAME_CG, m->cgs, &pairs, why, len);
	HELD_ALL(m, XMS_NAME_IG, m->igs, &pairs, why, len);
	HELD_ALL(m, XMS_NAME_INITIATOR, m->initiators, &pairs, why, len);
	for (size_t i = 0; i < m->initiators.n; i++) {
		const struct xms_initiator *n = &m->initiators.v[i];
		if (!held(m, XMS_NAME_PORT, n->index, n->cluster, n->port_address, &pairs, why, len))
			return -1;
	}
	for (size_t i = 0; i < m->lunmaps.n; i++) {
		char name[48];
		xms_lunmap_name(&m->lunmaps.v[i], name, sizeof(name));
		if (!held(m, XMS_NAME_LUNMAP, m->lunmaps.v[i].index, m->lunmaps.v[i].cluster, name, &pairs, why, len))
			return -1;
	}
	/* every object found where it should be: anything more is stale */
	if (pairs != m->names.pairs) {
		snprintf(why, len, "the name index holds %zu entries, the objects make %zu: a rename or delete left one "
			 "behind", m->names.pairs, pairs);
		return -1;
	}
	snprintf(why, len, "%zu entries, as the objects", pairs);
	return 0;
}
