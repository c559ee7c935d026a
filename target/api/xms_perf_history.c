/* xms_perf_history.c — see xms_perf_history.h. */
#include "target/api/xms_perf_history.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "target/api/api_json.h"
#include "target/api/api_nice.h"
#include "target/api/xms_common.h"
#include "target/api/xms_events.h"
#include "target/api/xms_perf.h"
#include "target/api/xms_perf_query.h"
#include "target/api/xms_inventory.h"
#include "target/api/xms_resources.h"
#include "target/iscsi/target.h"
#include "target/lu/lu_table.h"


struct reading {
	int64_t ms;                        /* wall clock */
	struct xms_perf_counters c;
};

struct hist_obj {
	bool used;
	enum xms_perf_entity kind;
	uint64_t index;
	char guid[XMS_GUID_LEN + 1];
	char name[XMS_NAME_MAX + 1];
	size_t head, n;                    /* ring: head is the next slot */
	struct reading r[XMS_PERF_HIST_SAMPLES];
};

static struct hist_obj objs[XMS_PERF_HIST_OBJS];
static int64_t last_ms;

static struct hist_obj *slot_of(enum xms_perf_entity kind, uint64_t index)
{
	struct hist_obj *free_slot = NULL;

	for (size_t i = 0; i < XMS_PERF_HIST_OBJS; i++) {
		if (objs[i].used && objs[i].kind == kind && objs[i].index == index)
			return &objs[i];
		if (!objs[i].used && !free_slot)
			free_slot = &objs[i];
	}
	if (free_slot) {
		memset(free_slot, 0, sizeof(*free_slot));
		free_slot->used = true;
		free_slot->kind = kind;
		free_slot->index = index;
	}
	return free_slot;
}

static void add(struct hist_obj *h, const char *guid, const char *name, int64_t now_ms,
		const struct xms_perf_counters *c)
{
	if (!h)
		return; /* every slot taken: this object has no history (the bound) */
	snprintf(h->guid, sizeof(h->guid), "%s", guid);
	snprintf(h->name, sizeof(h->name), "%s", name);
	h->r[h->head].ms = now_ms;
	h->r[h->head].c = *c;
	h->head = (h->head + 1) % XMS_PERF_HIST_SAMPLES;
	if (h->n < XMS_PERF_HIST_SAMPLES)
		h->n++;
}

void xms_perf_history_sample(int64_t now_ms)
{
	/* a volume, an initiator group or an initiator gone gives its slot up */
	for (size_t i = 0; i < XMS_PERF_HIST_OBJS; i++)
		if (objs[i].used && ((objs[i].kind == XMS_PERF_VOLUME && !xms_volume_get(&g_xms, objs[i].index)) ||
				     (objs[i].kind == XMS_PERF_IG && !xms_ig_get(&g_xms, objs[i].index)) ||
				     (objs[i].kind == XMS_PERF_INITIATOR && !xms_initiator_get(&g_xms, objs[i].index))))
			objs[i].used = false;
	for (size_t i = 0; i < g_xms.clusters.n; i++) {
		const struct xms_cluster *c = &g_xms.clusters.v[i];
		struct xms_perf_counters pc = { 0 };

		for (size_t v = 0; v < g_xms.volumes.n; v++)
			if (g_xms.volumes.v[v].cluster == c->index && g_xms.volumes.v[v].lu)
				xms_perf_add(&pc, g_xms.volumes.v[v].lu->stats);
		add(slot_of(XMS_PERF_CLUSTER, c->index), c->guid, c->name, now_ms, &pc);
	}
	for (size_t v = 0; v < g_xms.volumes.n; v++) {
		const struct xms_volume *vol = &g_xms.volumes.v[v];
		struct xms_perf_counters pc = { 0 };

		if (vol->lu)
			xms_perf_add(&pc, vol->lu->stats);
		add(slot_of(XMS_PERF_VOLUME, vol->index), vol->guid, vol->name, now_ms, &pc);
	}
	/* initiator groups: their initiators' counters; targets: their
	 * portals' (target/iscsi/path_stats.h, as /metrics serves them) */
	/* summed in one pass over the initiators, by the group's position
	 * (not groups x initiators); out of memory: per group */
	struct xms_perf_counters *sums = calloc(g_xms.igs.n ? g_xms.igs.n : 1, sizeof(*sums));
	for (size_t k = 0; sums && k < g_xms.initiators.n; k++) {
		const struct xms_ig *ig = xms_ig_get(&g_xms, g_xms.initiators.v[k].ig);
		if (ig)
			xms_perf_add_initiator(&sums[ig - g_xms.igs.v], g_xms.initiators.v[k].port_address);
	}
	for (size_t g = 0; g < g_xms.igs.n; g++) {
		const struct xms_ig *ig = &g_xms.igs.v[g];
		struct xms_perf_counters pc = { 0 };

		if (sums)
			pc = sums[g];
		for (size_t k = 0; !sums && k < g_xms.initiators.n; k++)
			if (g_xms.initiators.v[k].ig == ig->index)
				xms_perf_add_initiator(&pc, g_xms.initiators.v[k].port_address);
		add(slot_of(XMS_PERF_IG, ig->index), ig->guid, ig->name, now_ms, &pc);
	}
	free(sums);
	for (int t = 0; t < g_target.nportals; t++) {
		struct xms_perf_counters pc = { 0 };
		char name[32], guid[XMS_GUID_LEN + 1];

		xms_inv_target_name(t, name, sizeof(name));
		xms_target_guid(guid, t);
		xms_perf_add_portal(&pc, t);
		add(slot_of(XMS_PERF_TARGET, (uint64_t)t + 1), guid, name, now_ms, &pc);
	}
	/* initiators: what their IQN sent, the counters an initiator group
	 * sums (last: the objects XMS's clients ask about most come first
	 * when the slots run out) */
	for (size_t k = 0; k < g_xms.initiators.n; k++) {
		const struct xms_initiator *ini = &g_xms.initiators.v[k];
		struct xms_perf_counters pc = { 0 };

		xms_perf_add_initiator(&pc, ini->port_address);
		add(slot_of(XMS_PERF_INITIATOR, ini->index), ini->guid, ini->name, now_ms, &pc);
	}
	last_ms = now_ms;
}

void xms_perf_history_reset(void)
{
	memset(objs, 0, sizeof(objs));
	last_ms = 0;
}

static int64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- the sampler ---- */

static pthread_t sampler;
static bool sampler_on;
static pthread_mutex_t stop_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t stop_cond = PTHREAD_COND_INITIALIZER;
static bool stopping;

static void *sampler_main(void *arg)
{
	char err[160];

	(void)arg;
	/* API work: below the I/O threads (api_nice.h); named for ps and the tests */
	pthread_setname_np(pthread_self(), "xms-perf-hist");
	if (api_nice_self(err, sizeof(err)) < 0)
		fprintf(stderr, "lunlab-target: the performance sampler: %s\n", err);
	pthread_mutex_lock(&stop_lock);
	while (!stopping) {
		struct timespec until;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += XMS_PERF_HIST_PERIOD_MS / 1000;
		pthread_cond_timedwait(&stop_cond, &stop_lock, &until);
		if (stopping)
			break;
		pthread_mutex_unlock(&stop_lock);
		xms_lock();
		xms_perf_history_sample(wall_ms());
		xms_unlock();
		pthread_mutex_lock(&stop_lock);
	}
	pthread_mutex_unlock(&stop_lock);
	return NULL;
}

void xms_perf_history_stop(void)
{
	if (!sampler_on)
		return;
	pthread_mutex_lock(&stop_lock);
	stopping = true;
	pthread_cond_signal(&stop_cond);
	pthread_mutex_unlock(&stop_lock);
	pthread_join(sampler, NULL);
	sampler_on = false;
	stopping = false;
}

/* ---- the query ---- */

static const char *const members[] = { "timestamp", "guid", "name", "index", "avg__iops", "avg__rd_iops",
				       "avg__wr_iops", "avg__bw", "avg__rd_bw", "avg__wr_bw", "avg__avg_latency",
				       "avg__rd_latency", "avg__wr_latency",
				       /* lunlab's: what the row's interval counted, exactly
					* (the rates above are rounded down; a test or a
					* client adding rows up needs the counts) */
				       "lunlab__rd_ios", "lunlab__wr_ios", "lunlab__rd_bytes", "lunlab__wr_bytes" };

static uint64_t d(uint64_t a, uint64_t b) { return b > a ? b - a : 0; }

/* one row: the rates between readings a and b (numbers, as XMS sends them here) */
static struct json_object *row(const struct hist_obj *h, const struct reading *a, const struct reading *b)
{
	struct json_object *r = json_object_new_array();
	uint64_t dt = b->ms > a->ms ? (uint64_t)(b->ms - a->ms) : 1;
	uint64_t rn = d(a->c.rd_n, b->c.rd_n), wn = d(a->c.wr_n, b->c.wr_n);
	uint64_t rb = d(a->c.rd_bytes, b->c.rd_bytes), wb = d(a->c.wr_bytes, b->c.wr_bytes);
	uint64_t rl = d(a->c.rd_lat_ns, b->c.rd_lat_ns), wl = d(a->c.wr_lat_ns, b->c.wr_lat_ns);

	json_object_array_add(r, json_object_new_int64(b->ms));
	json_object_array_add(r, json_object_new_string(h->guid));
	json_object_array_add(r, json_object_new_string(h->name));
	json_object_array_add(r, json_object_new_int64((int64_t)h->index));
	json_object_array_add(r, json_object_new_int64((int64_t)((rn + wn) * 1000 / dt)));
	json_object_array_add(r, json_object_new_int64((int64_t)(rn * 1000 / dt)));
	json_object_array_add(r, json_object_new_int64((int64_t)(wn * 1000 / dt)));
	json_object_array_add(r, json_object_new_int64((int64_t)((rb + wb) * 1000 / 1024 / dt)));
	json_object_array_add(r, json_object_new_int64((int64_t)(rb * 1000 / 1024 / dt)));
	json_object_array_add(r, json_object_new_int64((int64_t)(wb * 1000 / 1024 / dt)));
	json_object_array_add(r, json_object_new_int64((int64_t)(rn + wn ? (rl + wl) / (rn + wn) / 1000 : 0)));
	json_object_array_add(r, json_object_new_int64((int64_t)(rn ? rl / rn / 1000 : 0)));
	json_object_array_add(r, json_object_new_int64((int64_t)(wn ? wl / wn / 1000 : 0)));
	json_object_array_add(r, json_object_new_int64((int64_t)rn));
	json_object_array_add(r, json_object_new_int64((int64_t)wn));
	json_object_array_add(r, json_object_new_int64((int64_t)rb));
	json_object_array_add(r, json_object_new_int64((int64_t)wb));
	return r;
}

static bool listed(const struct api_request *req, const char *name)
{
	bool any = false;

	for (size_t i = 0; i < req->nparams; i++) {
		if (strcmp(req->params[i].key, "obj-list") != 0 || !req->params[i].value || !*req->params[i].value)
			continue;
		any = true;
		if (strcmp(req->params[i].value, name) == 0)
			return true;
	}
	return !any;
}

static void query(const struct api_request *req, struct api_response *rsp)
{
	int64_t now = wall_ms();
	struct xms_perf_query q;
	char err[200];
	struct json_object *o, *rows, *mem;

	if (*req->rest) {
		api_error(rsp, 404, "not_found");
		return;
	}
	if (xms_perf_query_parse(req->params, req->nparams, now, &q, err, sizeof(err)) < 0) {
		api_error(rsp, 400, err);
		return;
	}
	o = json_object_new_object();
	rows = json_object_new_array();
	mem = json_object_new_array();
	for (size_t i = 0; i < sizeof(members) / sizeof(members[0]); i++)
		json_object_array_add(mem, json_object_new_string(members[i]));
	xms_lock();
	/* a reading for this query, at most once a second (a client polling
	 * faster than the sampler sees fresh figures) */
	if (now - last_ms >= 1000)
		xms_perf_history_sample(now);
	for (size_t i = 0; i < XMS_PERF_HIST_OBJS && json_object_array_length(rows) < q.limit; i++) {
		const struct hist_obj *h = &objs[i];
		const struct reading *first = NULL, *prev = NULL;

		if (!h->used || h->kind != q.entity || !listed(req, h->name))
			continue;
		for (size_t k = 0; k < h->n && json_object_array_length(rows) < q.limit; k++) {
			const struct reading *r = &h->r[(h->head + XMS_PERF_HIST_SAMPLES - h->n + k) % XMS_PERF_HIST_SAMPLES];

			if (r->ms < q.t0_ms || r->ms > q.t1_ms) {
				prev = r;
				continue;
			}
			if (!prev) {
				prev = r;
				continue;
			}
			if (!first)
				first = prev;
			/* raw: every pair; else one row per bucket, at its last reading */
			bool bucket_ends = !q.granularity_ms || k + 1 == h->n ||
					   h->r[(h->head + XMS_PERF_HIST_SAMPLES - h->n + k + 1) % XMS_PERF_HIST_SAMPLES].ms / q.granularity_ms !=
						   r->ms / q.granularity_ms;
			if (bucket_ends) {
				json_object_array_add(rows, row(h, first, r));
				first = NULL;
			}
			prev = r;
		}
	}
	xms_unlock();
	json_object_object_add(o, "members", mem);
	json_object_object_add(o, "counters", rows);
	json_object_object_add(o, "granularity", json_object_new_string(q.granularity));
	json_object_object_add(o, "entity", json_object_new_string(xms_perf_entity_names[q.entity]));
	struct json_object *links = json_object_new_array(), *self = json_object_new_object();
	char href[512];
	snprintf(href, sizeof(href), "https://%s%s", *req->host ? req->host : "localhost", req->path);
	json_object_object_add(self, "href", json_object_new_string(href));
	json_object_object_add(self, "rel", json_object_new_string("self"));
	json_object_array_add(links, self);
	json_object_object_add(o, "links", links);
	api_reply_json(rsp, 200, o);
}

int xms_perf_history_register(char *err, size_t errlen)
{
	static const struct api_route routes[] = {
		{ API_GET | API_HEAD, "/api/json/v3/queries/performance", API_ROUTE_PREFIX, query, NULL },
		{ API_GET | API_HEAD, "/api/json/v2/queries/performance", API_ROUTE_PREFIX, query, NULL },
		{ API_GET | API_HEAD, "/api/json/v3/types/performance", API_ROUTE_PREFIX, query, NULL },
		{ API_GET | API_HEAD, "/api/json/v2/types/performance", API_ROUTE_PREFIX, query, NULL },
	};

	if (api_routes_add(routes, sizeof(routes) / sizeof(routes[0]), err, errlen) < 0)
		return -1;
	if (!sampler_on && pthread_create(&sampler, NULL, sampler_main, NULL) == 0)
		sampler_on = true;
	return 0;
}
