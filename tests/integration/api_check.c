/* api_check.c — fault rules, portals and ALUA changed at run time through
 * the management API's lunlab namespace (HTTPS, libcurl), each change seen
 * by libiscsi sessions: fault_run.sh (mode api) starts lunlab-target with
 * --api, an 'api' user in its auth file, portal groups 1 and 2, LUN 0 and 1
 * model=unlimited and LUN 2 model=fa420-ac, and runs
 *   api_check PORTAL1 PORTAL2 IQN API_PORT USER:SECRET
 * Checks: a rule added (201, canonical spec), its hit and match counts, its
 * removal (then GOOD again), a time window, the same seed giving the same
 * decisions, every error body; a portal set down (its session dropped, new
 * logins refused, SendTargets without it) and up; an ALUA state change
 * (06/2A/06, then the state's sense) and a timed transition (02/04/0A,
 * then a second 06/2A/06 and the new state); a hold rule released
 * (POST .../faults/ID/release): the READ it held answered GOOD with the
 * data, the rule gone. */
#include <json-c/json.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../unit/api/api_test_http.h"
#include "check_util.h"

#define INI "iqn.2026-11.org.lunlab:api-check"

static const char *g_p1, *g_p2, *g_iqn, *g_user;
static unsigned g_api;

/* one API call: the HTTP status, the parsed body in *out (NULL: none) */
static long api(const char *method, const char *path, const char *body, struct json_object **out)
{
	static struct http_result r;

	if (out)
		*out = NULL;
	if (http_request(g_api, method, path, g_user, body, body ? strlen(body) : 0, &r) != 0)
		return -1;
	if (out)
		*out = json_tokener_parse(r.body);
	return r.status;
}

static int64_t field_int(struct json_object *o, const char *k)
{
	struct json_object *v;
	return o && json_object_object_get_ex(o, k, &v) ? json_object_get_int64(v) : -1;
}

static const char *field_str(struct json_object *o, const char *k)
{
	struct json_object *v;
	return o && json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_string) ? json_object_get_string(v)
												       : "";
}

/* /metrics.json: the sense faults hit since the start, and the hits of live rule id (-1: not listed) */
static int64_t sense_hits(int64_t id, int64_t *rule_hits)
{
	struct json_object *o, *f, *v, *rules;
	int64_t n = -1;

	*rule_hits = -1;
	if (api("GET", "/metrics.json", NULL, &o) != 200 || !json_object_object_get_ex(o, "faults", &f)) {
		json_object_put(o);
		return -1;
	}
	if (json_object_object_get_ex(f, "hits_by_action", &v))
		n = field_int(v, "sense");
	if (json_object_object_get_ex(f, "rules", &rules))
		for (size_t i = 0; i < json_object_array_length(rules); i++)
			if (field_int(json_object_array_get_idx(rules, i), "id") == id)
				*rule_hits = field_int(json_object_array_get_idx(rules, i), "hits");
	json_object_put(o);
	return n;
}

static struct outcome tur(struct iscsi_context *i, int lun)
{
	return outcome_of(iscsi_testunitready_sync(i, lun));
}

static void rules(struct iscsi_context *s)
{
	struct json_object *o;
	struct outcome r;
	long st;
	int64_t id, rh, before = sense_hits(0, &rh), after;
	char path[64];

	st = api("POST", "/api/lunlab/faults", "{\"spec\": \"sense=medium-error,lba=100-199,op=read,lun=0\"}", &o);
	id = field_int(o, "id");
	check(st == 201 && id > 0 && strcmp(field_str(o, "spec"), "lun=0,op=read,lba=100-199,sense=03/11/00") == 0,
	      "POST /api/lunlab/faults: 201, rule %lld in canonical form (%s)", (long long)id, field_str(o, "spec"));
	json_object_put(o);
	r = outcome_of(iscsi_read10_sync(s, 0, 150, 512, 512, 0, 0, 0, 0, 0));
	check(r.status == ST_CHECK && r.sense == 0x031100 && r.info == 150, "  ... a READ in the range: 03/11/00 at 150");
	r = outcome_of(iscsi_read10_sync(s, 0, 300, 512, 512, 0, 0, 0, 0, 0));
	check(r.status == ST_GOOD, "  ... a READ outside it: GOOD");
	snprintf(path, sizeof(path), "/api/lunlab/faults/%lld", (long long)id);
	st = api("GET", path, NULL, &o);
	check(st == 200 && field_int(o, "hits") == 1 && field_int(o, "matches") == 1,
	      "GET %s: hits 1, matches 1 (got %lld, %lld)", path, (long long)field_int(o, "hits"),
	      (long long)field_int(o, "matches"));
	json_object_put(o);
	after = sense_hits(id, &rh);
	check(before >= 0 && after == before + 1 && rh == 1,
	      "/metrics.json: faults.hits_by_action.sense %lld -> %lld, the rule's hits %lld", (long long)before,
	      (long long)after, (long long)rh);
	st = api("DELETE", path, NULL, NULL);
	check(st == 200, "DELETE %s: 200", path);
	check(sense_hits(id, &rh) == after && rh == -1, "  ... after DELETE the total stays %lld, the rule is gone",
	      (long long)after);
	r = outcome_of(iscsi_read10_sync(s, 0, 150, 512, 512, 0, 0, 0, 0, 0));
	check(r.status == ST_GOOD, "  ... the same READ: GOOD again");
	st = api("GET", path, NULL, &o);
	check(st == 404 && strcmp(field_str(o, "message"), "obj_not_found") == 0, "GET of the removed rule: 404 obj_not_found");
	json_object_put(o);

	/* the SPEC's keys as JSON fields */
	st = api("POST", "/api/lunlab/faults", "{\"lun\": 1, \"op\": \"tur\", \"count\": 1, \"status\": \"busy\"}", &o);
	check(st == 201 && strcmp(field_str(o, "spec"), "lun=1,op=tur,count=1,status=busy") == 0,
	      "POST with the keys as fields: 201 (%s)", field_str(o, "spec"));
	json_object_put(o);
	r = tur(s, 1);
	check(r.status == ST_BUSY, "  ... TEST UNIT READY on LUN 1: BUSY once");
	r = tur(s, 1);
	check(r.status == ST_GOOD, "  ... then GOOD (count=1)");

	st = api("POST", "/api/lunlab/faults", "{\"spec\": \"op=raed,hold\"}", &o);
	check(st == 400 && strncmp(field_str(o, "message"), "op=raed: unknown command kind", 29) == 0,
	      "a bad SPEC: 400 naming the key (%s)", field_str(o, "message"));
	json_object_put(o);
	st = api("POST", "/api/lunlab/faults", "{\"spec\": ", &o);
	check(st == 400, "a body that is not JSON: 400 (%s)", field_str(o, "message"));
	json_object_put(o);
	st = api("POST", "/api/lunlab/faults", "{\"lun\": [0]}", &o);
	check(st == 400 && strcmp(field_str(o, "message"), "lun: want a string, a number or true") == 0,
	      "a field that is not a scalar: 400 (%s)", field_str(o, "message"));
	json_object_put(o);
}

struct pending_read {
	bool done;
	struct outcome o;
};

static void read_cb(struct iscsi_context *i, int status, void *data, void *priv)
{
	struct pending_read *p = priv;

	(void)i;
	(void)status;
	p->o = outcome_of(data); /* frees the task */
	p->done = true;
}

/* one turn of libiscsi's event loop (up to 50 ms) */
static void service_once(struct iscsi_context *i)
{
	struct pollfd p = { .fd = iscsi_get_fd(i), .events = (short)iscsi_which_events(i) };

	if (poll(&p, 1, 50) > 0)
		iscsi_service(i, p.revents);
}

/* A hold rule let go by its release: the READ it holds goes on to the LU and is answered
 * GOOD with the data written there, and the rule is gone.  Every wait is for an event (the
 * rule's hit in its listing, the READ's answer), none for a time: meson's timeout guards a
 * hang. */
static void released(struct iscsi_context *s)
{
	uint8_t data[512];
	struct json_object *o;
	struct pending_read rd = { 0 };
	struct outcome r;
	char path[80];
	long st;
	int64_t id;

	for (int b = 0; b < 512; b++)
		data[b] = (uint8_t)(b * 7 + 3);
	r = outcome_of(iscsi_write10_sync(s, 0, 700, data, 512, 512, 0, 0, 0, 0, 0));
	check(r.status == ST_GOOD, "WRITE of LBA 700 for the release check: GOOD");
	st = api("POST", "/api/lunlab/faults", "{\"spec\": \"lun=0,op=read,lba=700,hold\"}", &o);
	id = field_int(o, "id");
	json_object_put(o);
	check(st == 201 && id > 0, "POST a hold rule for LBA 700: 201, rule %lld", (long long)id);
	struct scsi_task *t = iscsi_read10_task(s, 0, 700, 512, 512, 0, 0, 0, 0, 0, read_cb, &rd);
	snprintf(path, sizeof(path), "/api/lunlab/faults/%lld", (long long)id);
	int64_t hits = 0;
	while (t && !rd.done && hits < 1) { /* until the rule holds it */
		service_once(s);
		st = api("GET", path, NULL, &o);
		hits = st == 200 ? field_int(o, "hits") : -1;
		json_object_put(o);
		if (hits < 0)
			break;
	}
	check(t && hits == 1 && !rd.done, "  ... the READ of LBA 700 is held (hits %lld, answered %d)", (long long)hits,
	      rd.done);
	snprintf(path, sizeof(path), "/api/lunlab/faults/%lld/release", (long long)id);
	st = api("GET", path, NULL, &o);
	check(st == 405, "GET %s: 405 (got %ld, %s)", path, st, field_str(o, "message"));
	json_object_put(o);
	st = api("POST", path, NULL, &o);
	check(st == 200 && field_int(o, "id") == id && field_int(o, "hits") == 1, "POST %s: 200, the rule as it was", path);
	json_object_put(o);
	while (t && !rd.done) /* the target owes the answer now */
		service_once(s);
	check(rd.done && rd.o.status == ST_GOOD && rd.o.data_len == 512 && memcmp(rd.o.data, data, 512) == 0,
	      "  ... the held READ is answered GOOD with the data written there (status %d, %d bytes)", rd.o.status,
	      rd.o.data_len);
	snprintf(path, sizeof(path), "/api/lunlab/faults/%lld", (long long)id);
	st = api("GET", path, NULL, &o);
	check(st == 404, "  ... and the rule is gone (GET: %ld)", st);
	json_object_put(o);
	r = outcome_of(iscsi_read10_sync(s, 0, 700, 512, 512, 0, 0, 0, 0, 0));
	check(r.status == ST_GOOD, "  ... a READ of LBA 700 is not held again: GOOD");
	st = api("POST", "/api/lunlab/faults/99999/release", NULL, &o);
	check(st == 404, "a release of a rule that does not exist: 404 (got %ld)", st);
	json_object_put(o);
	st = api("POST", "/api/lunlab/faults/1/relax", NULL, &o);
	check(st == 404, "POST /api/lunlab/faults/1/relax: 404 (got %ld)", st);
	json_object_put(o);
}

/* the rule's age as the target sees it (ms), -1 when it cannot be read */
static int64_t rule_age(const char *path)
{
	struct json_object *o;
	int64_t age = api("GET", path, NULL, &o) == 200 ? field_int(o, "age-ms") : -1;

	json_object_put(o);
	return age;
}

/* window=2-5: each TEST UNIT READY is judged by the rule's age (the target's
 * clock) just before and just after it, so a slow machine cannot mislead.  A
 * probe whose two ages straddle an edge is not judged.  Whether any probe lands
 * wholly inside the 3 s window is up to the machine (a stall of the test can
 * span it): a round without one judged nothing inside, says so, and the rule is
 * added anew - every answer that was judged counts at once, and the edges
 * themselves are held on a fake clock (tests/unit/lu/test_fault_rules.c
 * "window").  No time limit of its own: meson's timeout is the hang guard. */
static void window(struct iscsi_context *s)
{
	struct json_object *o;
	bool seen_in = false, seen_after = false, wrong = false;
	long st = 0;
	char path[64];
	int rounds = 0;

	while (!seen_in && !wrong) {
		seen_after = false;
		st = api("POST", "/api/lunlab/faults", "{\"spec\": \"lun=1,op=tur,window=2-5,sense=not-ready\"}", &o);
		snprintf(path, sizeof(path), "/api/lunlab/faults/%lld", (long long)field_int(o, "id"));
		json_object_put(o);
		if (st != 201)
			break;
		rounds++;
		while (!seen_after) {
			int64_t a0 = rule_age(path);
			struct outcome r = tur(s, 1);
			int64_t a1 = rule_age(path);

			if (a0 < 0 || a1 < 0)
				break;
			if (a1 < 2000) {
				wrong |= r.status != ST_GOOD;
			} else if (a0 >= 2000 && a1 < 5000) {
				seen_in = true;
				wrong |= !(r.status == ST_CHECK && r.sense == 0x020401);
			} else if (a0 >= 5000) {
				seen_after = true;
				wrong |= r.status != ST_GOOD;
			}
			usleep(100000);
		}
		if (!seen_after)
			break; /* the rule's age could not be read: failed below */
		if (!seen_in && !wrong) {
			printf("note: no probe fell wholly inside the window (the machine stalled across it): the rule again\n");
			api("DELETE", path, NULL, NULL);
		}
	}
	check(st == 201, "a rule with window=2-5: 201");
	check(seen_in && seen_after && !wrong,
	      "  ... GOOD before 2 s, 02/04/01 inside the window, GOOD after 5 s (by the rule's own age; %d round(s))",
	      rounds);
	api("GET", path, NULL, &o);
	check(field_int(o, "hits") >= 1 && json_object_get_boolean(json_object_object_get(o, "spent")),
	      "  ... listed as spent, %lld hit(s)", (long long)field_int(o, "hits"));
	json_object_put(o);
	api("DELETE", path, NULL, NULL);
}

/* p= with a seed: the same decisions each time the rule is added anew */
static void seeded(struct iscsi_context *s)
{
	char runs[2][41];

	for (int k = 0; k < 2; k++) {
		struct json_object *o;
		char path[64];
		api("POST", "/api/lunlab/faults", "{\"spec\": \"lun=1,op=tur,p=0.3,seed=5,status=busy\"}", &o);
		snprintf(path, sizeof(path), "/api/lunlab/faults/%lld", (long long)field_int(o, "id"));
		json_object_put(o);
		for (int n = 0; n < 40; n++)
			runs[k][n] = tur(s, 1).status == ST_BUSY ? 'B' : '.';
		runs[k][40] = '\0';
		api("DELETE", path, NULL, NULL);
	}
	check(strcmp(runs[0], runs[1]) == 0 && strchr(runs[0], 'B') && strchr(runs[0], '.'),
	      "p=0.3,seed=5 twice: the same 40 decisions (%s)", runs[0]);
}

static int portal_count(const char *via)
{
	struct iscsi_context *d = iscsi_create_context(INI);
	struct iscsi_discovery_address *da;
	int n = -1;

	iscsi_set_session_type(d, ISCSI_SESSION_DISCOVERY);
	if (iscsi_full_connect_sync(d, via, -1) == 0 && (da = iscsi_discovery_sync(d))) {
		n = 0;
		for (struct iscsi_target_portal *p = da->portals; p; p = p->next)
			n++;
		iscsi_free_discovery_data(d, da);
		iscsi_logout_sync(d);
	}
	iscsi_destroy_context(d);
	return n;
}

static void paths(void)
{
	struct iscsi_context *s2 = session(g_p2, g_iqn, INI, 0, false), *again;
	struct json_object *o;
	struct outcome r;
	long st;
	char path[128];

	check(s2 != NULL, "a session through portal 2");
	if (!s2)
		return;
	st = api("GET", "/api/lunlab/portals/2", NULL, &o);
	check(st == 200 && strcmp(field_str(o, "state"), "up") == 0 && field_int(o, "connections") >= 1 &&
	      field_int(o, "tpg") == 2, "GET portal 2: up, tpg 2, %lld connection(s)", (long long)field_int(o, "connections"));
	json_object_put(o);
	check(portal_count(g_p1) == 2, "SendTargets lists both portals");
	st = api("PUT", "/api/lunlab/portals/2", "{\"state\": \"down\"}", &o);
	check(st == 200 && strcmp(field_str(o, "state"), "down") == 0, "PUT portal 2 down: 200");
	json_object_put(o);
	/* the I/O threads close its connections: wait until the portal counts none (no limit of
	 * our own; a 200 ms sleep raced them on a loaded machine, and a session still open
	 * answered GOOD) */
	for (;;) {
		st = api("GET", "/api/lunlab/portals/1", NULL, &o);
		long long conns = st == 200 ? field_int(o, "connections") : -1;
		json_object_put(o);
		if (conns == 0)
			break;
		usleep(20000);
	}
	r = tur(s2, 0);
	check(r.status != ST_GOOD, "  ... its session is gone (TEST UNIT READY gets no status)");
	iscsi_destroy_context(s2);
	again = session(g_p2, g_iqn, INI, 0, false);
	check(again == NULL, "  ... a new login through it is refused");
	session_end(again);
	check(portal_count(g_p1) == 1, "  ... SendTargets lists only portal 1");
	st = api("GET", "/api/lunlab/portals/2", NULL, &o);
	check(st == 200 && field_int(o, "connections") == 0, "  ... no connection left on it");
	json_object_put(o);
	snprintf(path, sizeof(path), "/api/lunlab/portals/%s", g_p2);
	st = api("PUT", path, "{\"state\": \"up\"}", &o);
	check(st == 200 && strcmp(field_str(o, "state"), "up") == 0, "PUT portal %s up (named by address): 200", g_p2);
	json_object_put(o);
	again = session(g_p2, g_iqn, INI, 0, false);
	check(again != NULL && tur(again, 0).status == ST_GOOD, "  ... logins through it work again");
	session_end(again);
	st = api("PUT", "/api/lunlab/portals/9", "{\"state\": \"down\"}", &o);
	check(st == 404, "PUT portal 9: 404");
	json_object_put(o);
	st = api("PUT", "/api/lunlab/portals/0", "{\"state\": \"down\"}", &o);
	check(st == 404, "PUT portal 0: 404 (numbered from 1, as XMS iscsi-portals)");
	json_object_put(o);
	st = api("PUT", "/api/lunlab/portals/1", "{\"state\": \"sideways\"}", &o);
	check(st == 400 && strcmp(field_str(o, "message"), "state: want \"up\" or \"down\"") == 0, "a bad state: 400");
	json_object_put(o);
}

static void alua(void)
{
	struct iscsi_context *s2 = session(g_p2, g_iqn, INI, 0, true);
	struct json_object *o;
	struct outcome r;
	long st;
	double t0, t1;

	check(s2 != NULL, "a session through portal group 2 (LUN 2: fa420-ac, active/non-optimized there)");
	if (!s2)
		return;
	r = tur(s2, 2);
	check(r.status == ST_GOOD, "  ... TEST UNIT READY on LUN 2: GOOD");
	st = api("PUT", "/api/lunlab/alua", "{\"lun\": 2, \"tpg\": 2, \"state\": \"standby\"}", &o);
	check(st == 200, "PUT /api/lunlab/alua LUN 2 group 2 standby: 200");
	json_object_put(o);
	r = tur(s2, 2);
	check(r.status == ST_CHECK && r.sense == 0x062a06, "  ... 06/2A/06 ASYMMETRIC ACCESS STATE CHANGED (got %06x)", r.sense);
	r = tur(s2, 2);
	check(r.status == ST_CHECK && r.sense == 0x02040b, "  ... then 02/04/0B standby (got %06x)", r.sense);
	/* the transition starts between t0 and t1 and lasts 1.5 s */
	t0 = now_s();
	st = api("PUT", "/api/lunlab/alua", "{\"lun\": 2, \"tpg\": 2, \"state\": \"ao\", \"transition-ms\": 1500}", &o);
	t1 = now_s();
	check(st == 200, "PUT back to active/optimized with transition-ms 1500: 200");
	json_object_put(o);
	r = tur(s2, 2);
	check(r.status == ST_CHECK && r.sense == 0x062a06, "  ... 06/2A/06");
	r = tur(s2, 2);
	if (now_s() - t0 < 1.4)
		check(r.status == ST_CHECK && r.sense == 0x02040a, "  ... transitioning: 02/04/0A (got %06x)", r.sense);
	while (now_s() - t1 < 1.7)
		usleep(20000);
	r = tur(s2, 2);
	check(r.status == ST_CHECK && r.sense == 0x062a06, "  ... the transition over: 06/2A/06 again (got %06x)", r.sense);
	r = tur(s2, 2);
	check(r.status == ST_GOOD, "  ... then GOOD");
	st = api("GET", "/api/lunlab/alua", NULL, &o);
	{
		struct json_object *luns = json_object_object_get(o, "luns"), *l0 = luns ? json_object_array_get_idx(luns, 0) : NULL;
		struct json_object *g = l0 ? json_object_array_get_idx(json_object_object_get(l0, "groups"), 1) : NULL;
		check(st == 200 && luns && json_object_array_length(luns) == 1 && field_int(l0, "lun") == 2 &&
		      strcmp(field_str(g, "state"), "active/optimized") == 0 && strcmp(field_str(g, "status"), "implicit") == 0,
		      "GET /api/lunlab/alua: LUN 2 alone, group 2 active/optimized, altered implicitly");
	}
	json_object_put(o);
	st = api("PUT", "/api/lunlab/alua", "{\"lun\": 0, \"tpg\": 2, \"state\": \"standby\"}", &o);
	check(st == 400 && strstr(field_str(o, "message"), "reports no ALUA"), "ALUA on LUN 0 (unlimited): 400 (%s)",
	      field_str(o, "message"));
	json_object_put(o);
	st = api("PUT", "/api/lunlab/alua", "{\"lun\": 2, \"tpg\": 2, \"state\": \"sleepy\"}", &o);
	check(st == 400, "a bad ALUA state: 400");
	json_object_put(o);
	session_end(s2);
}

int main(int argc, char **argv)
{
	struct iscsi_context *s;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 6) {
		fprintf(stderr, "usage: %s PORTAL1 PORTAL2 IQN API_PORT USER:SECRET\n", argv[0]);
		return 2;
	}
	g_p1 = argv[1];
	g_p2 = argv[2];
	g_iqn = argv[3];
	g_api = (unsigned)atoi(argv[4]);
	g_user = argv[5];
	s = session(g_p1, g_iqn, INI, 0, true);
	if (!s) {
		printf("FAIL: login\n");
		return 1;
	}
	rules(s);
	released(s);
	window(s);
	seeded(s);
	session_end(s);
	paths();
	alua();
	printf("%s: %d check(s) failed\n", g_failed ? "FAIL" : "ok", g_failed);
	return g_failed ? 1 : 0;
}
