/* api_faults.c — see api_faults.h. */
#include "target/api/api_faults.h"

#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/api/api_json.h"
#include "target/iscsi/target.h"

/* The refusals a rule may answer with.  "confirmed": the name appears in a
 * public client's source (Cinder's xtremio.py matches each literally);
 * the others are lunlab's guesses at XMS's names. */
static const struct {
	const char *name;
	bool confirmed;
} errors[] = {
	{ "system_is_busy", true },             /* Cinder: XtremIOArrayBusy, retried */
	{ "too_many_objs", true },              /* Cinder: XtremIOSnapshotsLimitExceeded */
	{ "too_many_snapshots_per_vol", true }, /* Cinder: XtremIOSnapshotsLimitExceeded */
	{ "vol_obj_name_not_unique", true },
	{ "obj_not_found", true },
	{ "vol_obj_not_found", true },
	{ "vol_already_mapped", true },         /* Cinder matches "already_mapped" in it */
	{ "cluster_is_not_healthy", false },
	{ "out_of_space", false },
};

struct rule {
	unsigned id;
	unsigned methods;            /* API_GET | ...; every method when all set */
	char type[48];               /* "" any */
	char error[40];
	unsigned status;
	unsigned long long skip, count, matches, hits;
};

static struct rule rules[API_FAULTS_MAX];
static size_t nrules;
static unsigned next_id = 1;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

#define ALL_METHODS (API_GET | API_HEAD | API_POST | API_PUT | API_DELETE)

bool api_faults_check(const struct api_request *req, const char *type, struct api_response *rsp)
{
	char msg[48];
	unsigned status = 0;

	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < nrules && !status; i++) {
		struct rule *r = &rules[i];

		if (!(r->methods & (unsigned)req->method) || (r->type[0] && strcmp(r->type, type) != 0))
			continue;
		r->matches++;
		if (r->matches <= r->skip || (r->count && r->hits >= r->count))
			continue;
		r->hits++;
		status = r->status;
		snprintf(msg, sizeof(msg), "%s", r->error);
	}
	pthread_mutex_unlock(&lock);
	if (status)
		api_error(rsp, status, msg);
	return status != 0;
}

void api_faults_reset(void)
{
	pthread_mutex_lock(&lock);
	nrules = 0;
	next_id = 1;
	pthread_mutex_unlock(&lock);
}

static const char *method_name(unsigned m)
{
	switch (m) {
	case API_GET | API_HEAD:
		return "GET";
	case API_POST:
		return "POST";
	case API_PUT:
		return "PUT";
	case API_DELETE:
		return "DELETE";
	default:
		return "any";
	}
}

static struct json_object *rule_json(const struct rule *r)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "id", json_object_new_int64(r->id));
	json_object_object_add(o, "method", json_object_new_string(method_name(r->methods)));
	json_object_object_add(o, "type", json_object_new_string(r->type[0] ? r->type : "any"));
	json_object_object_add(o, "error", json_object_new_string(r->error));
	json_object_object_add(o, "status", json_object_new_int((int)r->status));
	json_object_object_add(o, "skip", json_object_new_int64((int64_t)r->skip));
	json_object_object_add(o, "count", json_object_new_int64((int64_t)r->count));
	json_object_object_add(o, "matches", json_object_new_int64((int64_t)r->matches));
	json_object_object_add(o, "hits", json_object_new_int64((int64_t)r->hits));
	json_object_object_add(o, "spent", json_object_new_boolean(r->count && r->hits >= r->count));
	return o;
}

/* a POST body into r; false after answering 400 naming the field */
static bool parse_rule(struct json_object *body, struct rule *r, struct api_response *rsp)
{
	static const char *const known[] = { "error", "method", "type", "skip", "count", "status" };
	const char *s;
	char err[160];
	uint64_t v;
	int rc;

	json_object_object_foreach(body, key, val)
	{
		bool ok = false;
		(void)val;
		for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
			ok |= strcmp(key, known[i]) == 0;
		if (!ok)
			return api_errorf(rsp, 400, "%.40s: unknown field (want error, method, type, skip, count, status)",
					  key);
	}
	memset(r, 0, sizeof(*r));
	if (api_json_string(body, "error", 39, &s, err, sizeof(err)) != 1)
		return api_error(rsp, 400, "error: want an XMS error name (docs/faults.md \"API faults\")");
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
		if (strcmp(s, errors[i].name) == 0)
			snprintf(r->error, sizeof(r->error), "%s", s);
	if (!r->error[0])
		return api_errorf(rsp, 400, "error: %.40s is not one lunlab answers with (docs/faults.md)", s);
	r->methods = ALL_METHODS;
	rc = api_json_string(body, "method", 8, &s, err, sizeof(err));
	if (rc < 0)
		return api_error(rsp, 400, "method: want GET, POST, PUT, DELETE or any");
	if (rc == 1) {
		if (!strcmp(s, "GET"))
			r->methods = API_GET | API_HEAD;
		else if (!strcmp(s, "POST"))
			r->methods = API_POST;
		else if (!strcmp(s, "PUT"))
			r->methods = API_PUT;
		else if (!strcmp(s, "DELETE"))
			r->methods = API_DELETE;
		else if (strcmp(s, "any") != 0)
			return api_error(rsp, 400, "method: want GET, POST, PUT, DELETE or any");
	}
	rc = api_json_string(body, "type", 47, &s, err, sizeof(err));
	if (rc < 0)
		return api_error(rsp, 400, "type: want an XMS resource type (volumes, snapshots, ...) or any");
	if (rc == 1 && strcmp(s, "any") != 0) {
		for (const char *p = s; *p; p++)
			if (!((*p >= 'a' && *p <= 'z') || *p == '-'))
				return api_error(rsp, 400, "type: want an XMS resource type (volumes, snapshots, ...) or any");
		snprintf(r->type, sizeof(r->type), "%s", s);
	}
	if (api_json_uint(body, "skip", 1000000000, &v, err, sizeof(err)) < 0)
		return api_error(rsp, 400, "skip: want 0..1000000000");
	r->skip = api_json_uint(body, "skip", 1000000000, &v, err, sizeof(err)) == 1 ? v : 0;
	if (api_json_uint(body, "count", 1000000000, &v, err, sizeof(err)) < 0)
		return api_error(rsp, 400, "count: want 0..1000000000 (0: every matching request)");
	r->count = api_json_uint(body, "count", 1000000000, &v, err, sizeof(err)) == 1 ? v : 0;
	r->status = 400;
	rc = api_json_uint(body, "status", 599, &v, err, sizeof(err));
	if (rc < 0 || (rc == 1 && v < 400))
		return api_error(rsp, 400, "status: want 400..599");
	if (rc == 1)
		r->status = (unsigned)v;
	return true;
}

static bool rule_id(const char *rest, unsigned *id)
{
	char *end;
	unsigned long v;

	if (rest[0] < '1' || rest[0] > '9' || strlen(rest) > 9)
		return false;
	v = strtoul(rest, &end, 10);
	if (*end)
		return false;
	*id = (unsigned)v;
	return true;
}

static void route(const struct api_request *req, struct api_response *rsp)
{
	unsigned id = 0;
	char err[320];

	if (*req->rest && !rule_id(req->rest, &id)) {
		api_error(rsp, 404, "obj_not_found");
		return;
	}
	if (req->method == API_POST) {
		struct json_object *body;
		struct rule r;

		if (id) {
			api_error(rsp, 405, "method_not_allowed");
			return;
		}
		body = api_json_parse_body(req->body, req->body_len, err, sizeof(err));
		if (!body) {
			api_error(rsp, 400, err);
			return;
		}
		if (!json_object_is_type(body, json_type_object)) {
			json_object_put(body);
			api_error(rsp, 400, "body: want a JSON object");
			return;
		}
		if (!parse_rule(body, &r, rsp)) {
			json_object_put(body);
			return;
		}
		json_object_put(body);
		pthread_mutex_lock(&lock);
		if (nrules == API_FAULTS_MAX) {
			pthread_mutex_unlock(&lock);
			api_errorf(rsp, 400, "too many API fault rules (%d)", API_FAULTS_MAX);
			return;
		}
		r.id = next_id++;
		rules[nrules++] = r;
		pthread_mutex_unlock(&lock);
		target_log("API: %s added API fault rule %u: %s %s -> %u %s", req->user ? req->user : "?", r.id,
			   method_name(r.methods), r.type[0] ? r.type : "any", r.status, r.error);
		api_reply_json(rsp, 201, rule_json(&r));
		return;
	}
	pthread_mutex_lock(&lock);
	if (!id) {
		struct json_object *o = json_object_new_object(), *a = json_object_new_array();
		size_t n = nrules;

		for (size_t i = 0; i < nrules; i++)
			json_object_array_add(a, rule_json(&rules[i]));
		if (req->method == API_DELETE) {
			json_object_put(a);
			nrules = 0;
			json_object_object_add(o, "removed", json_object_new_int64((int64_t)n));
		} else {
			json_object_object_add(o, "api-faults", a);
		}
		pthread_mutex_unlock(&lock);
		api_reply_json(rsp, 200, o);
		return;
	}
	for (size_t i = 0; i < nrules; i++) {
		if (rules[i].id != id)
			continue;
		struct json_object *o = rule_json(&rules[i]);
		if (req->method == API_DELETE) {
			memmove(&rules[i], &rules[i + 1], (nrules - i - 1) * sizeof(rules[0]));
			nrules--;
		}
		pthread_mutex_unlock(&lock);
		api_reply_json(rsp, 200, o);
		return;
	}
	pthread_mutex_unlock(&lock);
	api_error(rsp, 404, "obj_not_found");
}

int api_faults_register(char *err, size_t errlen)
{
	static const struct api_route routes[] = {
		{ API_GET | API_POST | API_DELETE, "/api/lunlab/api-faults", API_ROUTE_PREFIX, route, NULL },
	};

	return api_routes_add(routes, 1, err, errlen);
}
