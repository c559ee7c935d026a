/* xms_engine.c — see xms_engine.h. */
#include "target/api/api_faults.h"
#include "target/api/xms_engine.h"

#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/api/api_json.h"
#include "target/api/json_text.h"
#include "target/api/xms_events.h"
#include "target/api/xms_ids.h"
#include "target/api/xms_store.h"

#define V3_BASE "/api/json/v3/types"
#define V2_BASE "/api/json/v2/types"
#define V1_BASE "/api/json/types"
#define MAX_TYPES 32

static pthread_mutex_t model_lock = PTHREAD_MUTEX_INITIALIZER;

void xms_lock(void) { pthread_mutex_lock(&model_lock); }
void xms_unlock(void) { pthread_mutex_unlock(&model_lock); }

struct json_object *xms_oid(const char *guid, const char *name, uint64_t index)
{
	struct json_object *a = json_object_new_array();

	json_object_array_add(a, json_object_new_string(guid));
	json_object_array_add(a, json_object_new_string(name));
	json_object_array_add(a, json_object_new_int64((int64_t)index));
	return a;
}

bool xms_wanted(const struct xms_ctx *x, uint64_t index, const char *name)
{
	return (!x->want_index || index == x->want_index) && (!x->want_name || strcmp(name, x->want_name) == 0);
}

struct json_object *xms_num_string(uint64_t v)
{
	char s[24];

	snprintf(s, sizeof(s), "%" PRIu64, v);
	return json_object_new_string(s);
}

static struct json_object *link(const char *href)
{
	struct json_object *l = json_object_new_object();

	json_object_object_add(l, "href", json_object_new_string(href));
	json_object_object_add(l, "rel", json_object_new_string("self"));
	return l;
}

static struct json_object *links_one(const char *href)
{
	struct json_object *a = json_object_new_array();

	json_object_array_add(a, link(href));
	return a;
}

void xms_reply_created_many(struct xms_ctx *x, const char *type, const uint64_t *index, size_t n)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();
	char href[512];

	for (size_t i = 0; i < n; i++) {
		snprintf(href, sizeof(href), "%s/%s/%" PRIu64, x->base, type, index[i]);
		json_object_array_add(a, link(href));
	}
	json_object_object_add(o, "links", a);
	api_reply_json(x->rsp, 201, o);
}

void xms_reply_created(struct xms_ctx *x, const char *type, uint64_t index)
{
	xms_reply_created_many(x, type, &index, 1);
}

void xms_reply_ok(struct xms_ctx *x)
{
	free(x->rsp->body);
	x->rsp->body = NULL;
	x->rsp->body_len = 0;
	x->rsp->status = 200;
}

/* ---- filters ---- */

static bool numeric(const char *s, double *out)
{
	char *end;

	if (!*s)
		return false;
	errno = 0;
	*out = strtod(s, &end);
	return !errno && !*end;
}

/* the text a property compares as: strings as they are, numbers in
 * decimal, an object id [guid, name, index] by its name */
static const char *prop_text(struct json_object *v, char *buf, size_t len)
{
	if (!v)
		return NULL;
	switch (json_object_get_type(v)) {
	case json_type_string:
		return json_object_get_string(v);
	case json_type_int:
		snprintf(buf, len, "%" PRId64, json_object_get_int64(v));
		return buf;
	case json_type_boolean:
		return json_object_get_boolean(v) ? "true" : "false";
	case json_type_array:
		if (json_object_array_length(v) == 3) {
			struct json_object *n = json_object_array_get_idx(v, 1);
			if (n && json_object_is_type(n, json_type_string))
				return json_object_get_string(n);
		}
		return NULL;
	default:
		return NULL;
	}
}

static bool term_holds(struct json_object *obj, const struct api_filter_term *t)
{
	struct json_object *v = NULL;
	char buf[32];
	const char *s;
	double a, b;
	int cmp;

	if (!json_object_object_get_ex(obj, t->field, &v))
		return t->op == API_OP_NE;
	s = prop_text(v, buf, sizeof(buf));
	if (!s)
		return t->op == API_OP_NE;
	if (t->op == API_OP_LIKE)
		return strstr(s, t->value) != NULL;
	if (numeric(s, &a) && numeric(t->value, &b))
		cmp = a < b ? -1 : a > b ? 1 : 0;
	else
		cmp = strcmp(s, t->value);
	switch (t->op) {
	case API_OP_EQ: return cmp == 0;
	case API_OP_NE: return cmp != 0;
	case API_OP_GT: return cmp > 0;
	case API_OP_GE: return cmp >= 0;
	case API_OP_LT: return cmp < 0;
	case API_OP_LE: return cmp <= 0;
	default: return false;
	}
}

static bool passes(struct json_object *obj, const struct api_query *q)
{
	for (size_t f = 0; f < q->nfilters; f++) {
		bool any = false;
		for (size_t t = 0; t < q->filters[f].nterms && !any; t++)
			any = term_holds(obj, &q->filters[f].terms[t]);
		if (!any)
			return false;
	}
	return true;
}

/* a copy of obj with only the asked properties (all when prop= is absent) */
static struct json_object *project(struct json_object *obj, const struct api_query *q)
{
	struct json_object *out;

	if (q->nprops == 0)
		return json_object_get(obj);
	out = json_object_new_object();
	json_object_object_foreach(obj, k, v) {
		if (api_query_wants(q, k))
			json_object_object_add(out, k, json_object_get(v));
	}
	return out;
}

static const char *obj_name(struct json_object *o)
{
	struct json_object *v;

	return json_object_object_get_ex(o, "name", &v) && json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v) : "";
}

static uint64_t obj_index(struct json_object *o)
{
	struct json_object *v;

	return json_object_object_get_ex(o, "index", &v) ? (uint64_t)json_object_get_int64(v) : 0;
}

/* ---- requests ---- */

/* rest: "" (the collection) or "INDEX" */
static int parse_index(const char *rest, uint64_t *index)
{
	char *end;
	unsigned long long v;

	*index = 0;
	if (!*rest)
		return 0;
	if (*rest < '1' || *rest > '9')
		return -1;
	errno = 0;
	v = strtoull(rest, &end, 10);
	if (errno || *end || v > INT64_MAX)
		return -1;
	*index = v;
	return 1;
}

/* the cluster index an object belongs to (its sys-id); 0: none */
static uint64_t obj_cluster(struct json_object *o)
{
	struct json_object *sid, *i;

	if (!json_object_object_get_ex(o, "sys-id", &sid) || !json_object_is_type(sid, json_type_array) ||
	    json_object_array_length(sid) != 3)
		return 0;
	i = json_object_array_get_idx(sid, 2);
	return i && json_object_is_type(i, json_type_int) ? (uint64_t)json_object_get_int64(i) : 0;
}

/* in the cluster the request names (cluster-name= / cluster-id), when it
 * names one; objects of no cluster (xms, ports) are in every scope */
static bool in_scope(struct json_object *o)
{
	uint64_t c = obj_cluster(o);

	return !g_xms.scope || !c || c == g_xms.scope;
}

/* the object the request names (by /INDEX or ?name=), from the list */
static struct json_object *find(struct json_object *all, uint64_t index, const char *name)
{
	for (size_t i = 0; i < json_object_array_length(all); i++) {
		struct json_object *o = json_object_array_get_idx(all, i);
		if (in_scope(o) && (index ? obj_index(o) == index : strcmp(obj_name(o), name) == 0))
			return o;
	}
	return NULL;
}

/* XMS names an object's cluster "sys-name" beside its "sys-id" (the
 * exporters read it, and v3 lists carry it): the name in the sys-id */
static void add_sys_name(struct json_object *o)
{
	struct json_object *sid, *n;

	/* every XMS object names its XMS (goxtremio's structs carry xms-id) */
	if (!json_object_object_get_ex(o, "xms-id", NULL))
		json_object_object_add(o, "xms-id", xms_oid(xms_ids_xms_guid(), "xms", 1));
	if (json_object_object_get_ex(o, "sys-name", NULL) || !json_object_object_get_ex(o, "sys-id", &sid) ||
	    !json_object_is_type(sid, json_type_array) || json_object_array_length(sid) != 3)
		return;
	n = json_object_array_get_idx(sid, 1);
	if (n && json_object_is_type(n, json_type_string))
		json_object_object_add(o, "sys-name", json_object_get(n));
}

static const char *list_key(const struct xms_type *t)
{
	return t->list_key ? t->list_key : t->name;
}

static bool wants_prop(const void *q, const char *key)
{
	return api_query_wants(q, key);
}

/* GET TYPE[?full=1[&prop=...]] of a type that writes its list as text: the
 * answer written straight, as json-c would write {LIST_KEY: [...], "links":
 * [...]}.  prop= leaves the objects' other members out as they are written
 * (jt_keep), the bytes project() would send: what a monitoring poll asks
 * for (six figures of every volume) costs no json-c object, no parse of
 * the full list back and no second serialisation (docs/api.md "Pollers and
 * I/O": at 100 volumes 1.6 ms of the target's CPU per request before, 0.15 ms
 * after, TLS included). */
static void get_list_text(struct xms_ctx *x)
{
	struct json_text w;
	char href[512], *body;
	size_t len;

	jt_init(&w);
	jt_obj_open(&w);
	jt_key(&w, list_key(x->type));
	jt_arr_open(&w);
	x->refs = !x->q.full;
	if (x->q.full && x->q.nprops)
		jt_keep(&w, jt_depth(&w) + 1, wants_prop, &x->q); /* the list's objects' members */
	x->type->list_text(x, &w);
	jt_keep(&w, 0, NULL, NULL);
	x->refs = false;
	jt_arr_close(&w);
	jt_key(&w, "links");
	jt_arr_open(&w);
	jt_obj_open(&w);
	snprintf(href, sizeof(href), "%s/%s/", x->base, x->type->name);
	jt_kstr(&w, "href", href);
	jt_kstr(&w, "rel", "self");
	jt_obj_close(&w);
	jt_arr_close(&w);
	jt_obj_close(&w);
	body = jt_take(&w, &len);
	if (!body) {
		api_error(x->rsp, 500, "out of memory");
		return;
	}
	free(x->rsp->body);
	x->rsp->body = body; /* handed to the server as it is: no copy of a multi-MB answer */
	x->rsp->body_len = len;
	x->rsp->status = 200;
	x->rsp->content_type = NULL;
}

static void get(struct xms_ctx *x, uint64_t index)
{
	struct json_object *all, *out, *one;
	char href[512];

	if (!index && !x->q.name && !x->q.nfilters && x->type->list_text) {
		get_list_text(x);
		return;
	}
	all = json_object_new_array();
	x->want_index = index;
	x->want_name = index ? NULL : x->q.name;
	x->type->list(x, all);
	x->want_index = 0;
	x->want_name = NULL;
	for (size_t i = 0; i < json_object_array_length(all); i++)
		add_sys_name(json_object_array_get_idx(all, i));
	if (index || x->q.name) {
		one = find(all, index, x->q.name);
		if (!one || !passes(one, &x->q)) {
			json_object_put(all);
			api_error(x->rsp, 400, "obj_not_found");
			return;
		}
		out = json_object_new_object();
		json_object_object_add(out, "content", project(one, &x->q));
		snprintf(href, sizeof(href), "%s/%s/%" PRIu64, x->base, x->type->name, obj_index(one));
		json_object_object_add(out, "links", links_one(href));
		json_object_put(all);
		api_reply_json(x->rsp, 200, out);
		return;
	}
	struct json_object *list = json_object_new_array();
	for (size_t i = 0; i < json_object_array_length(all); i++) {
		struct json_object *o = json_object_array_get_idx(all, i);
		if (!in_scope(o) || !passes(o, &x->q))
			continue;
		if (x->q.full) {
			json_object_array_add(list, project(o, &x->q));
		} else {
			struct json_object *ref = json_object_new_object();
			snprintf(href, sizeof(href), "%s/%s/%" PRIu64, x->base, x->type->name, obj_index(o));
			json_object_object_add(ref, "href", json_object_new_string(href));
			json_object_object_add(ref, "name", json_object_new_string(obj_name(o)));
			/* v3's list entries name the cluster too */
			struct json_object *sn;
			if (x->version == 3 && json_object_object_get_ex(o, "sys-name", &sn))
				json_object_object_add(ref, "sys-name", json_object_get(sn));
			json_object_array_add(list, ref);
		}
	}
	out = json_object_new_object();
	json_object_object_add(out, list_key(x->type), list);
	snprintf(href, sizeof(href), "%s/%s/", x->base, x->type->name);
	json_object_object_add(out, "links", links_one(href));
	json_object_put(all);
	api_reply_json(x->rsp, 200, out);
}

/* XMS's entity type of a resource, for its events */
static const char *entity_of(const char *type)
{
	static const struct {
		const char *type, *entity;
	} map[] = {
		{ "volumes", "Volume" }, { "snapshots", "Volume" }, { "snapshot-sets", "SnapshotSet" },
		{ "consistency-groups", "ConsistencyGroup" }, { "consistency-group-volumes", "ConsistencyGroup" },
		{ "initiator-groups", "InitiatorGroup" }, { "initiators", "Initiator" }, { "lun-maps", "LunMapping" },
		{ "clusters", "Cluster" }, { "tags", "Tag" },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(map[i].type, type) == 0)
			return map[i].entity;
	return "XMS";
}

/* the name of the object at index (after a change: a POST's new one) */
static void name_of(struct xms_ctx *x, uint64_t index, char *out, size_t len)
{
	struct json_object *all = json_object_new_array(), *o;
	uint64_t scope = g_xms.scope;

	g_xms.scope = 0;
	x->want_index = index;
	x->type->list(x, all);
	x->want_index = 0;
	g_xms.scope = scope;
	o = index ? find(all, index, NULL) : NULL;
	snprintf(out, len, "%s", o ? obj_name(o) : "");
	json_object_put(all);
}

/* the index in a 201's first link (".../TYPE/INDEX") */
static uint64_t created_index(const struct api_response *rsp)
{
	const char *l = rsp->body ? strstr(rsp->body, "\"href\"") : NULL, *slash = NULL;

	if (!l)
		return 0;
	for (const char *p = l + 6; *p && *p != ','; p++)
		if (*p == '/')
			slash = p;
	return slash ? strtoull(slash + 1, NULL, 10) : 0;
}

/* a change made: XMS's audit event */
static void audit(struct xms_ctx *x, uint64_t index)
{
	char name[sizeof(x->target_name)] = "";
	const char *v = x->req->method == API_POST ? "created" : x->req->method == API_PUT ? "modified" : "removed";

	if (x->req->method == API_POST)
		index = created_index(x->rsp);
	if (index && x->req->method != API_DELETE)
		name_of(x, index, name, sizeof(name));
	else
		snprintf(name, sizeof(name), "%s", x->target_name);
	xms_event(XMS_SEV_INFO, "audit", entity_of(x->type->name), name,
		  x->req->method == API_POST ? "LL0101" : x->req->method == API_PUT ? "LL0102" : "LL0103",
		  "User %s %s %s %s%s%s", x->req->user ? x->req->user : "-", v, x->type->name, name[0] ? "'" : "",
		  name, name[0] ? "'" : "");
}

/* the index of the object a PUT/DELETE names; 0 with the answer given */
static uint64_t target_of(struct xms_ctx *x, uint64_t index)
{
	struct json_object *all = json_object_new_array(), *o;
	uint64_t found = 0;

	x->want_index = index;
	x->want_name = index ? NULL : x->q.name;
	x->type->list(x, all);
	x->want_index = 0;
	x->want_name = NULL;
	o = find(all, index, x->q.name);
	if (o) {
		found = obj_index(o);
		snprintf(x->target_name, sizeof(x->target_name), "%s", obj_name(o));
		/* a change is checked against the names of the object's own cluster */
		if (obj_cluster(o))
			g_xms.scope = obj_cluster(o);
	}
	json_object_put(all);
	if (!found)
		api_error(x->rsp, 400, "obj_not_found");
	return found;
}

static int version_of(const char *path)
{
	if (strncmp(path, V3_BASE, strlen(V3_BASE)) == 0)
		return 3;
	return strncmp(path, V2_BASE, strlen(V2_BASE)) == 0 ? 2 : 1;
}

static const char *base_of(int version)
{
	return version == 3 ? V3_BASE : version == 2 ? V2_BASE : V1_BASE;
}

static void handle(const struct api_request *req, struct api_response *rsp)
{
	struct xms_ctx x;
	char err[320];
	uint64_t index;
	int ir;
	const char *cid = NULL;

	memset(&x, 0, sizeof(x));
	x.req = req;
	x.rsp = rsp;
	x.type = req->route_cls;
	/* an API fault rule answers before anything is looked at: nothing changes */
	if (api_faults_check(req, x.type->name, rsp))
		return;
	x.version = version_of(req->path);
	snprintf(x.base, sizeof(x.base), "https://%s%s", *req->host ? req->host : "localhost", base_of(x.version));
	ir = parse_index(req->rest, &index);
	if (ir < 0) {
		api_errorf(rsp, 400, "Command Syntax Error: '%.64s' is not an object index", req->rest);
		return;
	}
	if (api_query_parse(req->params, req->nparams, &x.q, err, sizeof(err)) < 0) {
		api_error(rsp, 400, err);
		api_query_free(&x.q);
		return;
	}
	if (ir == 1 && x.q.name) {
		api_error(rsp, 400, "Command Syntax Error: give the object by name or by index, not both");
		api_query_free(&x.q);
		return;
	}
	/* a GET's body is ignored (the Cinder driver sends its query there too) */
	x.body = req->method == API_GET || req->method == API_HEAD
			 ? json_object_new_object()
			 : api_json_parse_body(req->body, req->body_len, err, sizeof(err));
	if (!x.body) {
		api_errorf(rsp, 400, "Command Syntax Error: %s", err);
		api_query_free(&x.q);
		return;
	}
	x.cluster = x.q.cluster;
	/* MTSXtremIO names the cluster by its index in the query: ?cluster-id=1 */
	if (!x.cluster && api_param(req, "cluster-id") && *api_param(req, "cluster-id"))
		x.cluster = api_param(req, "cluster-id");
	struct json_object *cv;
	static _Thread_local char cbuf[24];
	if (json_object_object_get_ex(x.body, "cluster-id", &cv) && cv && json_object_is_type(cv, json_type_int)) {
		snprintf(cbuf, sizeof(cbuf), "%lld", (long long)json_object_get_int64(cv));
		cid = cbuf;
	} else if (api_json_string(x.body, "cluster-id", 256, &cid, err, sizeof(err)) < 0) {
		api_errorf(rsp, 400, "Command Syntax Error: %s", err);
		goto out;
	}
	if (cid && !x.cluster)
		x.cluster = cid;
	xms_lock();
	g_xms.scope = 0;
	if (x.cluster) {
		const struct xms_cluster *c = xms_cluster_ref(&g_xms, x.cluster);
		if (!c) {
			api_error(rsp, 400, "obj_not_found");
			xms_unlock();
			goto out;
		}
		g_xms.scope = c->index;
	}
	switch (req->method) {
	case API_GET:
	case API_HEAD:
		get(&x, index);
		break;
	case API_POST:
		if (ir == 1 || x.q.name)
			api_error(rsp, 400, "Command Syntax Error: POST creates: it names no object");
		else if (!x.type->post)
			api_errorf(rsp, 400, "Command Syntax Error: %s cannot be created", x.type->name);
		else
			x.type->post(&x);
		break;
	case API_PUT:
	case API_DELETE: {
		void (*fn)(struct xms_ctx *, uint64_t) = req->method == API_PUT ? x.type->put : x.type->del;
		uint64_t target = 0;

		if (!fn) {
			api_errorf(rsp, 400, "Command Syntax Error: %s cannot be %s", x.type->name,
				   req->method == API_PUT ? "changed" : "deleted");
			break;
		}
		if (ir == 1 || x.q.name) {
			target = target_of(&x, index);
			if (!target)
				break;
		} else if (req->method == API_PUT || !x.type->del_without_name) {
			api_error(rsp, 400, "Command Syntax Error: name the object: /INDEX or ?name=NAME");
			break;
		}
		x.target_index = target;
		fn(&x, target);
		break;
	}
	}
	uint64_t changed = 0;
	if (req->method == API_PUT || req->method == API_DELETE)
		changed = x.target_index;
	if (req->method != API_GET && req->method != API_HEAD && rsp->status >= 200 && rsp->status < 300)
		audit(&x, changed);
	if (req->method != API_GET && req->method != API_HEAD && rsp->status >= 200 && rsp->status < 300 &&
	    xms_store_active()) {
		/* --state-dir: the change is kept before the client hears of it */
		char why[400];

		if (xms_store_save(&g_xms, why, sizeof(why)) < 0)
			api_errorf(rsp, 500, "the change was made but could not be kept in the state directory: %s",
				   why);
	}
	g_xms.scope = 0;
	xms_unlock();
out:
	json_object_put(x.body);
	api_query_free(&x.q);
}

/* GET /api/json/v2/types: the children, as XMS lists its types */
static const struct xms_type *const *all_types;
static size_t nall_types;

static void list_types(const struct api_request *req, struct api_response *rsp)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();
	int version = version_of(req->path);
	char href[512];

	for (size_t i = 0; i < nall_types; i++) {
		struct json_object *c;
		if (version == 1 && !all_types[i]->v1)
			continue;
		c = json_object_new_object();
		snprintf(href, sizeof(href), "https://%s%s/%s", *req->host ? req->host : "localhost",
			 base_of(version), all_types[i]->name);
		json_object_object_add(c, "href", json_object_new_string(href));
		json_object_object_add(c, "name", json_object_new_string(all_types[i]->name));
		json_object_array_add(a, c);
	}
	json_object_object_add(o, "children", a);
	api_reply_json(rsp, 200, o);
}

int xms_routes_register(const struct xms_type *const *types, size_t n, char *err, size_t errlen)
{
	static struct api_route routes[3 * MAX_TYPES + 6];
	static char paths[3 * MAX_TYPES][96];
	size_t nr = 0;

	if (n > MAX_TYPES) {
		snprintf(err, errlen, "more than %d XMS types", MAX_TYPES);
		return -1;
	}
	all_types = types;
	nall_types = n;
	for (size_t i = 0; i < n; i++) {
		for (int v = 3; v >= 1; v--) {
			if (v == 1 && !types[i]->v1)
				continue;
			snprintf(paths[nr], sizeof(paths[nr]), "%s/%s", base_of(v), types[i]->name);
			routes[nr] = (struct api_route){ API_GET | API_HEAD | API_POST | API_PUT | API_DELETE, paths[nr],
							 API_ROUTE_PREFIX | API_ROUTE_NOCASE, handle, (void *)types[i] };
			nr++;
		}
	}
	routes[nr++] = (struct api_route){ API_GET | API_HEAD, V3_BASE, 0, list_types, NULL };
	routes[nr++] = (struct api_route){ API_GET | API_HEAD, V2_BASE, 0, list_types, NULL };
	routes[nr++] = (struct api_route){ API_GET | API_HEAD, V1_BASE, 0, list_types, NULL };
	/* with a trailing '/': MTSXtremIO's Get-XIOAPITypes GETs its base URI as it keeps it */
	routes[nr++] = (struct api_route){ API_GET | API_HEAD, V3_BASE "/", 0, list_types, NULL };
	routes[nr++] = (struct api_route){ API_GET | API_HEAD, V2_BASE "/", 0, list_types, NULL };
	routes[nr++] = (struct api_route){ API_GET | API_HEAD, V1_BASE "/", 0, list_types, NULL };
	return api_routes_add(routes, nr, err, errlen);
}
