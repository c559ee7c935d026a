/* xms_perf_history.c — see xms_perf_history.h. */
#include "target/api/xms_perf_history.h"

#include <errno.h>
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
#include "target/api/xms_log_store.h"
#include "target/api/xms_resources.h"
#include "target/iscsi/target.h"
#include "target/lu/lu_table.h"
#include "target/lu/proc_figures.h"


struct reading {
	int64_t ms;                        /* wall clock */
	union {
		struct xms_perf_counters c;  /* what an object's I/O counted */
		uint64_t cpu_us;             /* an XEnv: its share of the target's CPU time */
	};
};

struct hist_obj {
	bool used;
	enum xms_perf_entity kind;
	uint64_t index;
	uint64_t cluster;                  /* its cluster's index; 0: every cluster's (targets) */
	char guid[XMS_GUID_LEN + 1];
	char name[XMS_NAME_MAX + 1];
	size_t head, n;                    /* ring: head is the next slot */
	/* --state-dir: the counters of the last reading kept before the
	 * restart, under this start's (which count from 0 again), so an
	 * object's counters keep growing and a row spanning the restart counts
	 * what the new start did */
	struct xms_perf_counters base;
	struct reading r[XMS_PERF_HIST_SAMPLES];
};

static struct hist_obj objs[XMS_PERF_HIST_OBJS];
static int64_t last_ms;

/* the stored record's field names (xms_perf_history.h) */
#define F_OBJECTS "objects"
#define F_KIND "entity"
#define F_INDEX "index"
#define F_CLUSTER "cluster"
#define F_GUID "guid"
#define F_NAME "name"
#define F_READINGS "readings"

/* --state-dir: the keys (ms) of the records stored, oldest first (a ring) */
static int64_t kept[XMS_PERF_STORE_RECORDS];
static size_t kept_head, kept_n;
static int64_t stored_ms;                  /* the last record's */

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

/* the newest reading of h (NULL: none) */
static const struct reading *newest(const struct hist_obj *h)
{
	return h && h->n ? &h->r[(h->head + XMS_PERF_HIST_SAMPLES - 1) % XMS_PERF_HIST_SAMPLES] : NULL;
}

static void add(struct hist_obj *h, uint64_t cluster, const char *guid, const char *name, int64_t now_ms,
		const struct xms_perf_counters *c)
{
	if (!h)
		return; /* every slot taken: this object has no history (the bound) */
	h->cluster = cluster;
	snprintf(h->guid, sizeof(h->guid), "%s", guid);
	snprintf(h->name, sizeof(h->name), "%s", name);
	h->r[h->head].ms = now_ms;
	h->r[h->head].c = *c;
	h->r[h->head].c.rd_n += h->base.rd_n;
	h->r[h->head].c.wr_n += h->base.wr_n;
	h->r[h->head].c.rd_bytes += h->base.rd_bytes;
	h->r[h->head].c.wr_bytes += h->base.wr_bytes;
	h->r[h->head].c.rd_lat_ns += h->base.rd_lat_ns;
	h->r[h->head].c.wr_lat_ns += h->base.wr_lat_ns;
	h->head = (h->head + 1) % XMS_PERF_HIST_SAMPLES;
	if (h->n < XMS_PERF_HIST_SAMPLES)
		h->n++;
}

/* the target process's CPU seconds at the last reading (-1: none yet) */
static double last_cpu_s = -1;

static uint64_t div_or_0(uint64_t a, unsigned b) { return b ? a / b : 0; }

/* cluster index's place in the model's list (the list's length: none) */
static size_t cluster_pos(uint64_t index)
{
	size_t i = 0;

	while (i < g_xms.clusters.n && g_xms.clusters.v[i].index != index)
		i++;
	return i;
}

/* the XEnvs and SSDs (xms_inventory.h), after the clusters: an XEnv's
 * reading adds its share of the CPU time the target process used since the
 * last reading (the four XEnvs of a brick share it, as the inventory's
 * cpu-usage does; a failed controller's XEnvs none); an SSD's counters are
 * its cluster's over the working SSDs (XDP stripes every write over all
 * of them), a failed one's stay as they were */
static void sample_units(int64_t now_ms, const struct xms_perf_counters *cl)
{
	struct xms_inv_unit *u;
	size_t n = xms_inv_units(&u);
	double cpu_s = proc_cpu_seconds();
	uint64_t share_us = last_cpu_s >= 0 && cpu_s > last_cpu_s
				    ? (uint64_t)((cpu_s - last_cpu_s) * 1e6 / (XMS_INV_SCS * XMS_INV_XENVS_PER_SC))
				    : 0;

	last_cpu_s = cpu_s;
	for (size_t i = 0; i < n; i++) {
		struct hist_obj *h = slot_of(u[i].ssd ? XMS_PERF_SSD : XMS_PERF_XENV, u[i].index);
		const struct reading *last = newest(h);
		struct xms_perf_counters pc = { 0 };

		if (!u[i].ssd) {
			uint64_t cpu_us = (last ? last->cpu_us : 0) + (u[i].failed ? 0 : share_us);

			add(h, u[i].cluster, u[i].guid, u[i].name, now_ms, &pc);
			if (h) /* the counters' place holds the CPU time (struct reading) */
				h->r[(h->head + XMS_PERF_HIST_SAMPLES - 1) % XMS_PERF_HIST_SAMPLES].cpu_us = cpu_us;
			continue;
		}
		if (u[i].failed) {
			if (last) { /* as it was: add() puts the base back */
				pc = last->c;
				pc.rd_n -= h->base.rd_n;
				pc.wr_n -= h->base.wr_n;
				pc.rd_bytes -= h->base.rd_bytes;
				pc.wr_bytes -= h->base.wr_bytes;
				pc.rd_lat_ns -= h->base.rd_lat_ns;
				pc.wr_lat_ns -= h->base.wr_lat_ns;
			}
		} else {
			const struct xms_perf_counters *c = &cl[cluster_pos(u[i].cluster)];

			pc.rd_n = div_or_0(c->rd_n, u[i].working);
			pc.wr_n = div_or_0(c->wr_n, u[i].working);
			pc.rd_bytes = div_or_0(c->rd_bytes, u[i].working);
			pc.wr_bytes = div_or_0(c->wr_bytes, u[i].working);
			pc.rd_lat_ns = div_or_0(c->rd_lat_ns, u[i].working);
			pc.wr_lat_ns = div_or_0(c->wr_lat_ns, u[i].working);
		}
		add(h, u[i].cluster, u[i].guid, u[i].name, now_ms, &pc);
	}
	free(u);
}

/* whether the object a slot keeps is still there */
static bool alive(const struct hist_obj *h)
{
	switch (h->kind) {
	case XMS_PERF_VOLUME:
		return xms_volume_get(&g_xms, h->index) != NULL;
	case XMS_PERF_IG:
		return xms_ig_get(&g_xms, h->index) != NULL;
	case XMS_PERF_INITIATOR:
		return xms_initiator_get(&g_xms, h->index) != NULL;
	case XMS_PERF_TARGET:
		return h->index >= 1 && h->index <= (uint64_t)g_target.nportals;
	default: /* a cluster, its XEnvs and SSDs */
		return xms_cluster_get(&g_xms, h->kind == XMS_PERF_CLUSTER ? h->index : h->cluster) != NULL;
	}
}

void xms_perf_history_sample(int64_t now_ms)
{
	struct xms_perf_counters *cl = calloc(g_xms.clusters.n + 1, sizeof(*cl));

	if (!cl)
		return; /* out of memory: no reading this time */
	/* an object gone gives its slot up */
	for (size_t i = 0; i < XMS_PERF_HIST_OBJS; i++)
		if (objs[i].used && !alive(&objs[i]))
			objs[i].used = false;
	for (size_t i = 0; i < g_xms.clusters.n; i++) {
		const struct xms_cluster *c = &g_xms.clusters.v[i];

		for (size_t v = 0; v < g_xms.volumes.n; v++)
			if (g_xms.volumes.v[v].cluster == c->index && g_xms.volumes.v[v].lu)
				xms_perf_add(&cl[i], g_xms.volumes.v[v].lu->stats);
		add(slot_of(XMS_PERF_CLUSTER, c->index), c->index, c->guid, c->name, now_ms, &cl[i]);
	}
	for (size_t v = 0; v < g_xms.volumes.n; v++) {
		const struct xms_volume *vol = &g_xms.volumes.v[v];
		struct xms_perf_counters pc = { 0 };

		if (vol->lu)
			xms_perf_add(&pc, vol->lu->stats);
		add(slot_of(XMS_PERF_VOLUME, vol->index), vol->cluster, vol->guid, vol->name, now_ms, &pc);
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
		add(slot_of(XMS_PERF_IG, ig->index), ig->cluster, ig->guid, ig->name, now_ms, &pc);
	}
	free(sums);
	for (int t = 0; t < g_target.nportals; t++) {
		struct xms_perf_counters pc = { 0 };
		char name[32], guid[XMS_GUID_LEN + 1];

		xms_inv_target_name(t, name, sizeof(name));
		xms_target_guid(guid, t);
		xms_perf_add_portal(&pc, t);
		add(slot_of(XMS_PERF_TARGET, (uint64_t)t + 1), 0, guid, name, now_ms, &pc);
	}
	/* initiators: what their IQN sent, the counters an initiator group
	 * sums (last: the objects XMS's clients ask about most come first
	 * when the slots run out) */
	for (size_t k = 0; k < g_xms.initiators.n; k++) {
		const struct xms_initiator *ini = &g_xms.initiators.v[k];
		struct xms_perf_counters pc = { 0 };

		xms_perf_add_initiator(&pc, ini->port_address);
		add(slot_of(XMS_PERF_INITIATOR, ini->index), ini->cluster, ini->guid, ini->name, now_ms, &pc);
	}
	sample_units(now_ms, cl);
	free(cl);
	last_ms = now_ms;
}

void xms_perf_history_reset(void)
{
	memset(objs, 0, sizeof(objs));
	last_ms = 0;
	last_cpu_s = -1;
	kept_head = kept_n = 0;
	stored_ms = 0;
}

static int64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- kept across restarts (--state-dir) ---- */


static struct json_object *reading_json(enum xms_perf_entity kind, const struct reading *r)
{
	struct json_object *v = json_object_new_array();

	json_object_array_add(v, json_object_new_int64(r->ms));
	if (kind == XMS_PERF_XENV) {
		json_object_array_add(v, json_object_new_int64((int64_t)(r->cpu_us & INT64_MAX)));
	} else {
		const uint64_t c[6] = { r->c.rd_n, r->c.wr_n, r->c.rd_bytes, r->c.wr_bytes, r->c.rd_lat_ns, r->c.wr_lat_ns };
		for (size_t k = 0; k < 6; k++)
			json_object_array_add(v, json_object_new_int64((int64_t)(c[k] & INT64_MAX)));
	}
	return v;
}

/* one record: each object's readings since the last record, at most one
 * per XMS_PERF_HIST_PERIOD_MS (a client querying every second adds
 * readings the sampler would not) and always the newest (malloc'd text;
 * NULL: nothing to keep or out of memory).  Under the model lock. */
static char *store_record(int64_t now_ms)
{
	struct json_object *o = json_object_new_object(), *arr = json_object_new_array();
	char *text = NULL;

	for (size_t i = 0; i < XMS_PERF_HIST_OBJS; i++) {
		const struct hist_obj *h = &objs[i];
		struct json_object *e, *rs;
		int64_t kept_ms = stored_ms;

		if (!h->used || !newest(h) || newest(h)->ms <= stored_ms)
			continue;
		e = json_object_new_object();
		rs = json_object_new_array();
		json_object_object_add(e, F_KIND, json_object_new_string(xms_perf_entity_names[h->kind]));
		json_object_object_add(e, F_INDEX, json_object_new_int64((int64_t)h->index));
		json_object_object_add(e, F_CLUSTER, json_object_new_int64((int64_t)h->cluster));
		json_object_object_add(e, F_GUID, json_object_new_string(h->guid));
		json_object_object_add(e, F_NAME, json_object_new_string(h->name));
		for (size_t k = 0; k < h->n; k++) {
			const struct reading *r = &h->r[(h->head + XMS_PERF_HIST_SAMPLES - h->n + k) % XMS_PERF_HIST_SAMPLES];

			if (r->ms <= stored_ms || (k + 1 < h->n && kept_ms && r->ms - kept_ms < XMS_PERF_HIST_PERIOD_MS))
				continue;
			json_object_array_add(rs, reading_json(h->kind, r));
			kept_ms = r->ms;
		}
		json_object_object_add(e, F_READINGS, rs);
		json_object_array_add(arr, e);
	}
	json_object_object_add(o, F_OBJECTS, arr);
	if (json_object_array_length(arr))
		text = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	stored_ms = now_ms;
	return text;
}

/* rec (freed) stored as the record of now_ms; the oldest beyond the bound
 * deleted.  Outside the model lock: it waits for the disk. */
static void store_put(int64_t now_ms, char *rec)
{
	if (!rec)
		return;
	if (kept_n && now_ms <= kept[(kept_head + kept_n - 1) % XMS_PERF_STORE_RECORDS]) {
		free(rec); /* the clock went back: keys must grow */
		return;
	}
	/* the bound: the newest XMS_PERF_STORE_RECORDS, none older than the
	 * in-memory history's hour */
	while (kept_n == XMS_PERF_STORE_RECORDS ||
	       (kept_n && kept[kept_head] < now_ms - (int64_t)XMS_PERF_HIST_SAMPLES * XMS_PERF_HIST_PERIOD_MS)) {
		xms_log_del(XMS_LOG_NS_PERF, (uint64_t)kept[kept_head]);
		kept_head = (kept_head + 1) % XMS_PERF_STORE_RECORDS;
		kept_n--;
	}
	xms_log_put(XMS_LOG_NS_PERF, (uint64_t)now_ms, rec);
	kept[(kept_head + kept_n++) % XMS_PERF_STORE_RECORDS] = now_ms;
	free(rec);
}

static bool rec_u64(struct json_object *a, size_t i, uint64_t *out)
{
	struct json_object *v = json_object_array_get_idx(a, i);

	if (!v || !json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
		return false;
	*out = (uint64_t)json_object_get_int64(v);
	return true;
}

static bool rec_str(struct json_object *e, const char *k, char *dst, size_t cap, bool empty_ok)
{
	struct json_object *v;

	if (!json_object_object_get_ex(e, k, &v) || !json_object_is_type(v, json_type_string) ||
	    (size_t)json_object_get_string_len(v) >= cap || (!empty_ok && !json_object_get_string_len(v)))
		return false;
	memcpy(dst, json_object_get_string(v), (size_t)json_object_get_string_len(v) + 1);
	return true;
}

/* one object's reading of a record: NULL, or the field that is wrong */
static const char *load_entry(struct json_object *e)
{
	struct json_object *v, *rs;
	enum xms_perf_entity kind = XMS_PERF_ENTITIES;
	struct hist_obj *h;
	uint64_t index, cluster;
	char guid[XMS_GUID_LEN + 1], name[XMS_NAME_MAX + 1];

	if (!json_object_is_type(e, json_type_object))
		return F_OBJECTS;
	if (json_object_object_get_ex(e, F_KIND, &v) && json_object_is_type(v, json_type_string))
		for (kind = 0; kind < XMS_PERF_ENTITIES && strcmp(json_object_get_string(v), xms_perf_entity_names[kind]);
		     kind++)
			;
	if (kind == XMS_PERF_ENTITIES)
		return F_KIND;
	if (!json_object_object_get_ex(e, F_INDEX, &v) || !json_object_is_type(v, json_type_int) ||
	    json_object_get_int64(v) < 1)
		return F_INDEX;
	index = (uint64_t)json_object_get_int64(v);
	if (!json_object_object_get_ex(e, F_CLUSTER, &v) || !json_object_is_type(v, json_type_int) ||
	    json_object_get_int64(v) < 0)
		return F_CLUSTER;
	cluster = (uint64_t)json_object_get_int64(v);
	if (!rec_str(e, F_GUID, guid, sizeof(guid), true))
		return F_GUID;
	if (!rec_str(e, F_NAME, name, sizeof(name), false))
		return F_NAME;
	if (!json_object_object_get_ex(e, F_READINGS, &rs) || !json_object_is_type(rs, json_type_array) ||
	    json_object_array_length(rs) > XMS_PERF_HIST_SAMPLES)
		return F_READINGS;
	h = slot_of(kind, index);
	if (!h)
		return NULL; /* every slot taken: the bound (as at run time) */
	h->cluster = cluster;
	memcpy(h->guid, guid, sizeof(guid));
	memcpy(h->name, name, sizeof(name));
	for (size_t i = 0; i < json_object_array_length(rs); i++) {
		struct json_object *r = json_object_array_get_idx(rs, i);
		struct reading rd;
		uint64_t ms;

		memset(&rd, 0, sizeof(rd));
		if (!json_object_is_type(r, json_type_array) ||
		    json_object_array_length(r) != (kind == XMS_PERF_XENV ? 2u : 7u) || !rec_u64(r, 0, &ms) ||
		    ms > (uint64_t)INT64_MAX)
			return F_READINGS;
		rd.ms = (int64_t)ms;
		if (kind == XMS_PERF_XENV ? !rec_u64(r, 1, &rd.cpu_us)
					  : (!rec_u64(r, 1, &rd.c.rd_n) || !rec_u64(r, 2, &rd.c.wr_n) ||
					     !rec_u64(r, 3, &rd.c.rd_bytes) || !rec_u64(r, 4, &rd.c.wr_bytes) ||
					     !rec_u64(r, 5, &rd.c.rd_lat_ns) || !rec_u64(r, 6, &rd.c.wr_lat_ns)))
			return F_READINGS;
		if (newest(h) && newest(h)->ms >= rd.ms)
			return F_READINGS; /* readings go forward in time */
		h->r[h->head] = rd;
		h->head = (h->head + 1) % XMS_PERF_HIST_SAMPLES;
		if (h->n < XMS_PERF_HIST_SAMPLES)
			h->n++;
		if (kind != XMS_PERF_XENV)
			h->base = rd.c;
	}
	return NULL;
}

struct load_ctx {
	char *err;
	size_t errlen;
};

static int load_one(const char *key, const void *val, size_t len, void *arg)
{
	struct load_ctx *lc = arg;
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o = NULL, *arr;
	const char *bad = NULL;
	char *end;
	unsigned long long ms = strtoull(key, &end, 10);

	if (*end || !*key || ms > INT64_MAX)
		bad = "key";
	else if (tok && len <= XMS_PERF_STORE_RECORD_MAX)
		o = json_tokener_parse_ex(tok, val, (int)len);
	if (!bad && (!o || !json_object_is_type(o, json_type_object) || json_tokener_get_parse_end(tok) != len))
		bad = len > XMS_PERF_STORE_RECORD_MAX ? "too long" : "not a JSON object";
	else if (!bad && (!json_object_object_get_ex(o, F_OBJECTS, &arr) || !json_object_is_type(arr, json_type_array) ||
			  json_object_array_length(arr) > XMS_PERF_HIST_OBJS))
		bad = F_OBJECTS;
	for (size_t i = 0; !bad && i < json_object_array_length(arr); i++)
		bad = load_entry(json_object_array_get_idx(arr, i));
	json_object_put(o);
	json_tokener_free(tok);
	if (bad) {
		snprintf(lc->err, lc->errlen, "performance record %.20s: %s", key, bad);
		return -1;
	}
	/* the keys kept: the newest XMS_PERF_STORE_RECORDS; an older one is deleted now */
	if (kept_n == XMS_PERF_STORE_RECORDS) {
		xms_log_del(XMS_LOG_NS_PERF, (uint64_t)kept[kept_head]);
		kept_head = (kept_head + 1) % XMS_PERF_STORE_RECORDS;
		kept_n--;
	}
	kept[(kept_head + kept_n++) % XMS_PERF_STORE_RECORDS] = (int64_t)ms;
	stored_ms = (int64_t)ms;
	return 0;
}

int xms_perf_history_load(char *err, size_t errlen)
{
	struct load_ctx lc = { err, errlen };
	int rc;

	xms_perf_history_reset();
	err[0] = '\0';
	rc = xms_log_each(XMS_LOG_NS_PERF, load_one, &lc, err, errlen);
	if (rc != 0) {
		xms_perf_history_reset();
		if (!err[0])
			snprintf(err, errlen, "the stored performance history could not be read");
		return -1;
	}
	return 0;
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
		int64_t now = wall_ms();
		char *rec = NULL;
		xms_lock();
		xms_perf_history_sample(now);
		/* --state-dir: once a minute */
		if (xms_log_store_active() && now / XMS_PERF_STORE_PERIOD_MS != stored_ms / XMS_PERF_STORE_PERIOD_MS)
			rec = store_record(now);
		xms_unlock();
		store_put(now, rec);
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
	/* a clean stop keeps the readings since the last minute's record */
	if (xms_log_store_active()) {
		int64_t now = wall_ms();
		char *rec;

		xms_lock();
		xms_perf_history_sample(now);
		rec = store_record(now);
		xms_unlock();
		store_put(now, rec);
	}
}

/* ---- the query ---- */

/* what a row says of an object (after timestamp, guid, name, index): one
 * member per aggregation type asked and counter (TYPE__counter); then
 * lunlab's exact counts of the row's interval (the rates are rounded down;
 * a test or a client adding rows up needs the counts): an I/O entity's
 * commands and bytes, an XEnv's CPU time (µs) */
static const char *const io_counters[] = { "iops", "rd_iops", "wr_iops", "bw", "rd_bw", "wr_bw",
					   "avg_latency", "rd_latency", "wr_latency" };
#define IO_COUNTERS (sizeof(io_counters) / sizeof(io_counters[0]))
static const char *const cpu_counters[] = { "cpu_usage" };
static const char *const exact_members[] = { "lunlab__rd_ios", "lunlab__wr_ios", "lunlab__rd_bytes",
					     "lunlab__wr_bytes" };
#define EXACT_MEMBERS 4
#define MAX_MEMBERS (4 + XMS_PERF_AGGS * IO_COUNTERS + EXACT_MEMBERS)

static uint64_t d(uint64_t a, uint64_t b) { return b > a ? b - a : 0; }

/* what some intervals counted (one interval, or a bucket's sum) */
struct span {
	uint64_t ms;
	uint64_t rn, wn, rb, wb, rl, wl, cpu_us;
};

static void span_of(bool xenv, const struct reading *a, const struct reading *b, struct span *s)
{
	memset(s, 0, sizeof(*s));
	s->ms = b->ms > a->ms ? (uint64_t)(b->ms - a->ms) : 0;
	if (xenv) {
		s->cpu_us = d(a->cpu_us, b->cpu_us);
		return;
	}
	s->rn = d(a->c.rd_n, b->c.rd_n);
	s->wn = d(a->c.wr_n, b->c.wr_n);
	s->rb = d(a->c.rd_bytes, b->c.rd_bytes);
	s->wb = d(a->c.wr_bytes, b->c.wr_bytes);
	s->rl = d(a->c.rd_lat_ns, b->c.rd_lat_ns);
	s->wl = d(a->c.wr_lat_ns, b->c.wr_lat_ns);
}

/* the counters of a span: per second, KiB/s, µs rounded down as integers;
 * an XEnv's CPU percent of one core */
static size_t values_of(bool xenv, const struct span *s, double *v)
{
	uint64_t dt = s->ms ? s->ms : 1;

	if (xenv) {
		v[0] = (double)s->cpu_us / 10.0 / (double)dt; /* µs per ms / 10 = percent */
		return 1;
	}
	v[0] = (double)((s->rn + s->wn) * 1000 / dt);
	v[1] = (double)(s->rn * 1000 / dt);
	v[2] = (double)(s->wn * 1000 / dt);
	v[3] = (double)((s->rb + s->wb) * 1000 / 1024 / dt);
	v[4] = (double)(s->rb * 1000 / 1024 / dt);
	v[5] = (double)(s->wb * 1000 / 1024 / dt);
	v[6] = (double)(s->rn + s->wn ? (s->rl + s->wl) / (s->rn + s->wn) / 1000 : 0);
	v[7] = (double)(s->rn ? s->rl / s->rn / 1000 : 0);
	v[8] = (double)(s->wn ? s->wl / s->wn / 1000 : 0);
	return IO_COUNTERS;
}

/* a bucket's readings, pair by pair */
struct bucket {
	size_t pairs;
	struct span sum;
	double min[IO_COUNTERS], max[IO_COUNTERS];
};

static void bucket_add(bool xenv, struct bucket *b, const struct reading *r0, const struct reading *r1)
{
	struct span s;
	double v[IO_COUNTERS];
	size_t n;

	span_of(xenv, r0, r1, &s);
	n = values_of(xenv, &s, v);
	for (size_t i = 0; i < n; i++) {
		if (!b->pairs || v[i] < b->min[i])
			b->min[i] = v[i];
		if (!b->pairs || v[i] > b->max[i])
			b->max[i] = v[i];
	}
	b->pairs++;
	b->sum.ms += s.ms;
	b->sum.rn += s.rn;
	b->sum.wn += s.wn;
	b->sum.rb += s.rb;
	b->sum.wb += s.wb;
	b->sum.rl += s.rl;
	b->sum.wl += s.wl;
	b->sum.cpu_us += s.cpu_us;
}

static struct json_object *number(bool xenv, double v)
{
	/* CPU to a tenth of a percent, as the inventory's cpu-usage; the rest integers */
	return xenv ? json_object_new_double((double)(int64_t)(v * 10 + 0.5) / 10) : json_object_new_int64((int64_t)v);
}

/* one row: avg over the bucket's whole span (counts / time), min and max
 * of its intervals; keep[] says which members the query answers */
static struct json_object *row(const struct hist_obj *h, const struct xms_perf_query *q, const struct bucket *b,
			       int64_t ms, const bool *keep)
{
	bool xenv = h->kind == XMS_PERF_XENV;
	struct json_object *r = json_object_new_array();
	double avg[IO_COUNTERS];
	size_t n = values_of(xenv, &b->sum, avg), m = 4;

	json_object_array_add(r, json_object_new_int64(ms));
	json_object_array_add(r, json_object_new_string(h->guid));
	json_object_array_add(r, json_object_new_string(h->name));
	json_object_array_add(r, json_object_new_int64((int64_t)h->index));
	for (unsigned a = 0; a < q->naggs; a++)
		for (size_t i = 0; i < n; i++, m++)
			if (keep[m])
				json_object_array_add(r, number(xenv, q->aggs[a] == XMS_PERF_MIN   ? b->min[i]
								      : q->aggs[a] == XMS_PERF_MAX ? b->max[i]
												   : avg[i]));
	if (xenv) {
		if (keep[m])
			json_object_array_add(r, json_object_new_int64((int64_t)b->sum.cpu_us));
	} else {
		const uint64_t exact[EXACT_MEMBERS] = { b->sum.rn, b->sum.wn, b->sum.rb, b->sum.wb };
		for (size_t i = 0; i < EXACT_MEMBERS; i++, m++)
			if (keep[m])
				json_object_array_add(r, json_object_new_int64((int64_t)exact[i]));
	}
	return r;
}

/* the members of q's answer into mem, keep[] which of them (prop=, one
 * name a parameter, limits them; the four that name a row are always
 * there: MTSXtremIO takes members[0] for the timestamp) */
static void members_of(const struct api_request *req, const struct xms_perf_query *q, struct json_object *mem,
		       bool *keep)
{
	static const char *const ids[] = { "timestamp", "guid", "name", "index" };
	bool xenv = q->entity == XMS_PERF_XENV, props = false;
	const char *const *ctr = xenv ? cpu_counters : io_counters;
	size_t nctr = xenv ? 1 : IO_COUNTERS, m = 0;
	char names[MAX_MEMBERS][48];

	for (size_t i = 0; i < 4; i++)
		snprintf(names[m++], sizeof(names[0]), "%s", ids[i]);
	for (unsigned a = 0; a < q->naggs; a++)
		for (size_t i = 0; i < nctr; i++)
			snprintf(names[m++], sizeof(names[0]), "%s__%s", xms_perf_agg_names[q->aggs[a]], ctr[i]);
	for (size_t i = 0; i < (xenv ? 1 : EXACT_MEMBERS); i++)
		snprintf(names[m++], sizeof(names[0]), "%s", xenv ? "lunlab__cpu_us" : exact_members[i]);
	for (size_t i = 0; i < req->nparams; i++)
		if (strcmp(req->params[i].key, "prop") == 0 && req->params[i].value && *req->params[i].value)
			props = true;
	for (size_t k = 0; k < m; k++) {
		keep[k] = k < 4 || !props;
		for (size_t i = 0; !keep[k] && i < req->nparams; i++)
			keep[k] = strcmp(req->params[i].key, "prop") == 0 && req->params[i].value &&
				  strcmp(req->params[i].value, names[k]) == 0;
		if (keep[k])
			json_object_array_add(mem, json_object_new_string(names[k]));
	}
	for (size_t k = m; k < MAX_MEMBERS; k++)
		keep[k] = false;
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
	bool keep[MAX_MEMBERS];
	uint64_t scope = 0;

	if (*req->rest && strcmp(req->rest, "/") != 0) {
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
	members_of(req, &q, mem, keep);
	xms_lock();
	if (q.cluster) {
		const struct xms_cluster *c = xms_cluster_ref(&g_xms, q.cluster);
		if (!c) {
			xms_unlock();
			json_object_put(o);
			json_object_put(rows);
			json_object_put(mem);
			api_error(rsp, 400, "obj_not_found");
			return;
		}
		scope = c->index;
	}
	/* a reading for this query, at most once a second (a client polling
	 * faster than the sampler sees fresh figures) */
	if (now - last_ms >= 1000)
		xms_perf_history_sample(now);
	for (size_t i = 0; i < XMS_PERF_HIST_OBJS && json_object_array_length(rows) < q.limit; i++) {
		const struct hist_obj *h = &objs[i];
		const struct reading *prev = NULL;
		struct bucket b;

		/* a target is every cluster's (docs/api.md "Clusters") */
		if (!h->used || h->kind != q.entity || (scope && h->cluster && h->cluster != scope) ||
		    !listed(req, h->name))
			continue;
		memset(&b, 0, sizeof(b));
		for (size_t k = 0; k < h->n && json_object_array_length(rows) < q.limit; k++) {
			const struct reading *r = &h->r[(h->head + XMS_PERF_HIST_SAMPLES - h->n + k) % XMS_PERF_HIST_SAMPLES];

			if (r->ms < q.t0_ms || r->ms > q.t1_ms || !prev) {
				prev = r;
				continue;
			}
			bucket_add(h->kind == XMS_PERF_XENV, &b, prev, r);
			/* raw: every pair; else one row per bucket, at its last reading */
			bool bucket_ends = !q.granularity_ms || k + 1 == h->n ||
					   h->r[(h->head + XMS_PERF_HIST_SAMPLES - h->n + k + 1) % XMS_PERF_HIST_SAMPLES].ms / q.granularity_ms !=
						   r->ms / q.granularity_ms;
			if (bucket_ends) {
				json_object_array_add(rows, row(h, &q, &b, r->ms, keep));
				memset(&b, 0, sizeof(b));
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
