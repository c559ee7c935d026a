/* lunlab_api.c — the lunlab namespace of the management API, beside the
 * XMS types (docs/faults.md "API"): fault rules, portals up and down, ALUA
 * states, changed while the target runs.
 *
 *   GET    /api/lunlab/faults            every rule with its counts
 *   POST   /api/lunlab/faults            {"spec": "lun=0,op=read,..."} or the
 *                                        SPEC's keys as fields; 201 + the rule
 *   GET    /api/lunlab/faults/ID         one rule
 *   DELETE /api/lunlab/faults/ID         remove it; DELETE .../faults: all
 *   POST   /api/lunlab/faults/ID/release remove it, and the commands it holds
 *                                        (hold) go on to their LU
 *   GET    /api/lunlab/portals           every --listen portal, up or down
 *   PUT    /api/lunlab/portals/N         {"state": "down"|"up"} (N: its
 *                                        number from 1, as XMS iscsi-portals,
 *                                        or its HOST:PORT)
 *   GET    /api/lunlab/alua              groups, and each ALUA LU's states
 *   PUT    /api/lunlab/alua              {"lun": N (absent: every ALUA LU),
 *                                        "tpg": N, "state": ..., "pref": bool,
 *                                        "transition-ms": N}
 * Errors have the XMS shape {"message", "error_code"}; a refused value is
 * named in the message, as --fault and --alua name it. */
#include "target/api/lunlab_api.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "target/api/api_faults.h"
#include "target/api/api_json.h"
#include "target/iscsi/io_thread.h"
#include "target/iscsi/portal.h"
#include "target/iscsi/target.h"
#include "target/lu/alua.h"
#include "target/lu/fault_rules.h"
#include "target/lu/lu_table.h"

#define FAULTS "/api/lunlab/faults"

static struct json_object *rule_json(const struct api_request *req, const struct fault_rule_info *r)
{
	struct json_object *o = json_object_new_object();
	char href[320];

	snprintf(href, sizeof(href), "https://%s" FAULTS "/%u", req->host, r->id);
	json_object_object_add(o, "id", json_object_new_int64(r->id));
	json_object_object_add(o, "spec", json_object_new_string(r->spec));
	json_object_object_add(o, "matches", json_object_new_int64((int64_t)r->matches));
	json_object_object_add(o, "hits", json_object_new_int64((int64_t)r->hits));
	json_object_object_add(o, "spent", json_object_new_boolean(r->spent));
	json_object_object_add(o, "age-ms", json_object_new_int64((int64_t)r->age_ms));
	json_object_object_add(o, "href", json_object_new_string(href));
	return o;
}

/* "7" (the path below /faults/) -> 7; false for anything else */
static bool rule_id(const char *rest, unsigned *id)
{
	char *end;
	unsigned long v;

	if (rest[0] < '1' || rest[0] > '9' || strlen(rest) > 10)
		return false;
	v = strtoul(rest, &end, 10);
	if (*end || v > 0xffffffffu)
		return false;
	*id = (unsigned)v;
	return true;
}

/* The SPEC of a POST body: "spec", or every field as key=value (true: the
 * bare key, as hold or corrupt).  false after answering 400. */
static bool spec_of(struct json_object *body, char *spec, size_t cap, struct api_response *rsp)
{
	struct json_object *s;
	size_t o = 0;

	if (json_object_object_get_ex(body, "spec", &s)) {
		if (json_object_object_length(body) != 1 || !json_object_is_type(s, json_type_string))
			return api_error(rsp, 400, "spec: want a string, and no other field beside it");
		if ((size_t)json_object_get_string_len(s) >= cap)
			return api_errorf(rsp, 400, "spec: longer than %d bytes", FAULT_SPEC_MAX);
		snprintf(spec, cap, "%s", json_object_get_string(s));
		return true;
	}
	json_object_object_foreach(body, key, val)
	{
		int n;

		if (json_object_is_type(val, json_type_boolean) && json_object_get_boolean(val))
			n = snprintf(spec + o, cap - o, "%s%s", o ? "," : "", key);
		else if (json_object_is_type(val, json_type_string) || json_object_is_type(val, json_type_int) ||
			 json_object_is_type(val, json_type_double))
			n = snprintf(spec + o, cap - o, "%s%s=%s", o ? "," : "", key, json_object_get_string(val));
		else
			return api_errorf(rsp, 400, "%.40s: want a string, a number or true", key);
		if (n < 0 || (size_t)n >= cap - o)
			return api_errorf(rsp, 400, "rule longer than %d bytes", FAULT_SPEC_MAX);
		if (strchr(json_object_get_string(val), ','))
			return api_errorf(rsp, 400, "%.40s: a value may not contain ','", key);
		o += (size_t)n;
	}
	if (!o)
		return api_error(rsp, 400, "empty rule: give \"spec\" or the rule's keys (docs/faults.md)");
	return true;
}

static void faults_get_all(const struct api_request *req, struct api_response *rsp)
{
	struct fault_rule_info *list = calloc(FAULT_RULES_MAX, sizeof(*list));
	struct json_object *o = json_object_new_object(), *arr = json_object_new_array();
	size_t n;

	if (!list || !o || !arr) {
		free(list);
		json_object_put(o);
		json_object_put(arr);
		api_error(rsp, 500, "out of memory");
		return;
	}
	n = fault_rules_list(list, FAULT_RULES_MAX);
	for (size_t i = 0; i < n && i < FAULT_RULES_MAX; i++)
		json_object_array_add(arr, rule_json(req, &list[i]));
	free(list);
	json_object_object_add(o, "faults", arr);
	api_reply_json(rsp, 200, o);
}

static void faults_post(const struct api_request *req, struct api_response *rsp)
{
	char err[320], spec[FAULT_SPEC_MAX + 64];
	struct json_object *body = api_json_parse_body(req->body, req->body_len, err, sizeof(err));
	struct fault_rule_info info;
	int id;

	if (!body) {
		api_error(rsp, 400, err);
		return;
	}
	if (!json_object_is_type(body, json_type_object) || !spec_of(body, spec, sizeof(spec), rsp)) {
		if (!rsp->body)
			api_error(rsp, 400, "body: want a JSON object");
		json_object_put(body);
		return;
	}
	json_object_put(body);
	id = fault_rules_add(spec, err, sizeof(err));
	if (id < 0 || !fault_rules_get((unsigned)id, &info)) {
		api_errorf(rsp, 400, "%s", err);
		return;
	}
	target_log("API: %s added fault rule %d: %s", req->user ? req->user : "?", id, info.spec);
	api_reply_json(rsp, 201, rule_json(req, &info));
}

static void faults(const struct api_request *req, struct api_response *rsp)
{
	struct fault_rule_info info;
	unsigned id;

	if (!*req->rest) {
		if (req->method == API_POST) {
			faults_post(req, rsp);
		} else if (req->method == API_DELETE) {
			size_t n = fault_rules_list(NULL, 0);
			struct json_object *o = json_object_new_object();
			fault_rules_clear();
			target_log("API: %s removed every fault rule (%zu)", req->user ? req->user : "?", n);
			json_object_object_add(o, "removed", json_object_new_int64((int64_t)n));
			api_reply_json(rsp, 200, o);
		} else {
			faults_get_all(req, rsp);
		}
		return;
	}
	/* "ID/release": the rule goes as with DELETE, and what it holds goes on */
	char idtext[16];
	const char *slash = strchr(req->rest, '/');
	bool release = slash && !strcmp(slash, "/release");
	snprintf(idtext, sizeof(idtext), "%.*s", release ? (int)(slash - req->rest) : 15, req->rest);
	if ((slash && !release) || !rule_id(idtext, &id) || !fault_rules_get(id, &info)) {
		api_error(rsp, 404, "obj_not_found");
		return;
	}
	if (release != (req->method == API_POST)) {
		api_error(rsp, 405, release ? "release is a POST" : "method not allowed on a rule");
		return;
	}
	if (release) {
		/* removed first, so no thread holds anything more for it; then
		 * each thread lets go of what it already holds (a command the
		 * rule fired on before the removal is on its thread's list
		 * before the thread reads this request) */
		fault_rules_remove(id);
		io_threads_release_held(id);
		target_log("API: %s released fault rule %u (removed; the commands it held go on)",
			   req->user ? req->user : "?", id);
		api_reply_json(rsp, 200, rule_json(req, &info));
		return;
	}
	if (req->method == API_DELETE) {
		fault_rules_remove(id);
		target_log("API: %s removed fault rule %u", req->user ? req->user : "?", id);
	}
	api_reply_json(rsp, 200, rule_json(req, &info));
}

static struct json_object *portal_json(int i)
{
	const struct target_portal *p = &g_target.portals[i];
	struct json_object *o = json_object_new_object();

	/* numbered from 1, as XMS's iscsi-portals: the same portal has the same number in both */
	json_object_object_add(o, "index", json_object_new_int(i + 1));
	json_object_object_add(o, "address", json_object_new_string(p->name));
	json_object_object_add(o, "advertise", p->adv_name[0] ? json_object_new_string(p->adv_name) : NULL);
	json_object_object_add(o, "tpg", json_object_new_int(target_portal_tpgt(i)));
	json_object_object_add(o, "state", json_object_new_string(portal_is_down(i) ? "down" : "up"));
	json_object_object_add(o, "connections", json_object_new_int((int)portal_connections(i)));
	return o;
}

static void portals(const struct api_request *req, struct api_response *rsp)
{
	char err[320];
	const char *state = NULL;
	struct json_object *body;
	int idx;

	if (!*req->rest) {
		struct json_object *o, *arr;
		if (req->method != API_GET) {
			api_error(rsp, 405, "PUT a portal: /api/lunlab/portals/N");
			return;
		}
		o = json_object_new_object();
		arr = json_object_new_array();
		for (int i = 0; i < g_target.nportals; i++)
			json_object_array_add(arr, portal_json(i));
		json_object_object_add(o, "portals", arr);
		api_reply_json(rsp, 200, o);
		return;
	}
	idx = portal_find(req->rest);
	if (idx < 0) {
		api_error(rsp, 404, "obj_not_found");
		return;
	}
	if (req->method == API_GET) {
		api_reply_json(rsp, 200, portal_json(idx));
		return;
	}
	body = api_json_parse_body(req->body, req->body_len, err, sizeof(err));
	if (!body) {
		api_error(rsp, 400, err);
		return;
	}
	if (api_json_string(body, "state", 8, &state, err, sizeof(err)) != 1 ||
	    (strcmp(state, "up") != 0 && strcmp(state, "down") != 0)) {
		json_object_put(body);
		api_error(rsp, 400, "state: want \"up\" or \"down\"");
		return;
	}
	if (portal_set_down(idx, state[0] == 'd', err, sizeof(err)) < 0) {
		json_object_put(body);
		api_error(rsp, 409, err);
		return;
	}
	/* down: answer once its connections are gone (the I/O threads close
	 * them), at most 5 s, so a script's next step sees the path failed */
	for (int i = 0; i < 500 && portal_is_down(idx) && portal_connections(idx); i++)
		usleep(10000);
	json_object_put(body);
	target_log("API: %s set portal %d (%s) %s", req->user ? req->user : "?", idx + 1, g_target.portals[idx].name,
		   portal_is_down(idx) ? "down" : "up");
	api_reply_json(rsp, 200, portal_json(idx));
}

static const char *const tpgs_names[] = { "off", "implicit", "explicit", "both" };
static const char *const status_names[] = { "none", "explicit", "implicit" };

static struct json_object *alua_lun_json(struct lu_entry *e, uint64_t lun)
{
	struct alua_group_info g[ALUA_GROUPS_MAX];
	struct json_object *o = json_object_new_object(), *arr = json_object_new_array();
	int n = alua_list(e, lun, g, ALUA_GROUPS_MAX);

	json_object_object_add(o, "lun", json_object_new_int64((int64_t)lun));
	json_object_object_add(o, "tpgs", json_object_new_string(tpgs_names[alua_tpgs(e) & 3]));
	for (int i = 0; i < n && i < ALUA_GROUPS_MAX; i++) {
		struct json_object *d = json_object_new_object();
		json_object_object_add(d, "tpg", json_object_new_int(g[i].tpg));
		json_object_object_add(d, "state", json_object_new_string(alua_state_name(g[i].state)));
		json_object_object_add(d, "pref", json_object_new_boolean(g[i].pref));
		json_object_object_add(d, "status", json_object_new_string(status_names[g[i].status % 3]));
		json_object_array_add(arr, d);
	}
	json_object_object_add(o, "groups", arr);
	return o;
}

static void alua_reply(struct api_response *rsp, bool one, uint64_t only)
{
	struct json_object *o = json_object_new_object(), *groups = json_object_new_array(), *luns = json_object_new_array();
	uint16_t ids[ALUA_GROUPS_MAX];
	int ng = alua_groups(ids, ALUA_GROUPS_MAX);

	for (int i = 0; i < ng && i < ALUA_GROUPS_MAX; i++)
		json_object_array_add(groups, json_object_new_int(ids[i]));
	for (size_t lun = 0; lun < lu_table_count(); lun++) {
		struct lu_entry *e = lu_table_entry(lun);
		if (alua_tpgs(e) && (!one || lun == only))
			json_object_array_add(luns, alua_lun_json(e, lun));
	}
	json_object_object_add(o, "groups", groups);
	json_object_object_add(o, "luns", luns);
	api_reply_json(rsp, 200, o);
}

static void alua(const struct api_request *req, struct api_response *rsp)
{
	char err[320];
	struct json_object *body;
	const char *state;
	uint64_t lun = 0, tpg, ms = 0;
	int has_lun, pref = -1, applied = 0;
	enum alua_state st;
	struct json_object *pv;

	if (req->method == API_GET) {
		alua_reply(rsp, false, 0);
		return;
	}
	err[0] = '\0';
	body = api_json_parse_body(req->body, req->body_len, err, sizeof(err));
	if (!body) {
		api_error(rsp, 400, err);
		return;
	}
	if ((has_lun = api_json_uint(body, "lun", LU_TABLE_MAX - 1, &lun, err, sizeof(err))) < 0 ||
	    api_json_uint(body, "tpg", 65535, &tpg, err, sizeof(err)) != 1 ||
	    api_json_string(body, "state", 32, &state, err, sizeof(err)) != 1 ||
	    api_json_uint(body, "transition-ms", 600000, &ms, err, sizeof(err)) < 0) {
		json_object_put(body);
		api_error(rsp, 400, err[0] ? err : "want {\"tpg\": N, \"state\": STATE} (lun, pref, transition-ms optional)");
		return;
	}
	if (!alua_state_parse(state, &st)) {
		json_object_put(body);
		api_error(rsp, 400, "state: want ao, ano, standby, unavailable or transitioning (or their long names)");
		return;
	}
	if (json_object_object_get_ex(body, "pref", &pv)) {
		if (!json_object_is_type(pv, json_type_boolean)) {
			json_object_put(body);
			api_error(rsp, 400, "pref: want true or false");
			return;
		}
		pref = json_object_get_boolean(pv) ? 1 : 0;
	}
	json_object_put(body);
	for (size_t l = 0; l < lu_table_count(); l++) {
		struct lu_entry *e = lu_table_entry(l);
		if ((has_lun && l != lun) || (!has_lun && !alua_tpgs(e)))
			continue;
		if (alua_set(e, l, (uint16_t)tpg, st, pref, (unsigned)ms, err, sizeof(err)) < 0) {
			api_error(rsp, 400, err);
			return;
		}
		applied++;
	}
	if (!applied) {
		api_error(rsp, has_lun ? 404 : 400, has_lun ? "obj_not_found" : "no LU reports ALUA");
		return;
	}
	target_log("API: %s set ALUA group %llu of %d LU(s) to %s", req->user ? req->user : "?",
		   (unsigned long long)tpg, applied, alua_state_name(st));
	alua_reply(rsp, has_lun, lun);
}

static const struct api_route routes[] = {
	{ API_GET | API_POST | API_DELETE, FAULTS, API_ROUTE_PREFIX, faults, NULL },
	{ API_GET | API_PUT, "/api/lunlab/portals", API_ROUTE_PREFIX, portals, NULL },
	{ API_GET | API_PUT, "/api/lunlab/alua", 0, alua, NULL },
};

int lunlab_api_register(char *err, size_t errlen)
{
	if (api_routes_add(routes, sizeof(routes) / sizeof(routes[0]), err, errlen) < 0 ||
	    lunlab_arrays_register(err, errlen) < 0)
		return -1;
	if (lunlab_luns_register(err, errlen) < 0 || api_faults_register(err, errlen) < 0)
		return -1;
	if (lunlab_model_check_register(err, errlen) < 0)
		return -1;
	return lunlab_hardware_register(err, errlen);
}
