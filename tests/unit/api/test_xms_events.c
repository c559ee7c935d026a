/* test_xms_events.c — the event log (xms_events.h) through its route,
 * without a server (api_dispatch): the bytes json-c would send for the
 * listing (it is written as text), newest first, filters by severity,
 * entity, time range and limit, each bad parameter named, the ring keeping
 * the newest XMS_EVENTS_MAX, text from the wire made printable, a failed
 * login reported through the throttle's listener, the time parser, and the
 * log kept through a store (xms_log_store.h): loaded back with its ids and
 * times, the bound applied to the store too, a deferred CHAP failure stored
 * at the next flush, a damaged record refused naming its field. */
#include <json-c/json.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "target/api/api_router.h"
#include "target/api/xms_alerts.h"
#include "target/api/xms_engine.h"
#include "target/api/xms_events.h"
#include "target/api/xms_log_store.h"
#include "target/lu/happenings.h"
#include "target/iscsi/login_throttle.h"

static struct json_object *get(struct api_param *p, size_t np, unsigned *status)
{
	struct api_request req = { .method = API_GET, .path = "/api/json/v3/types/events", .params = p, .nparams = np,
				   .body = "", .host = "h" };
	struct api_response rsp = { 0 };
	struct json_object *o;

	api_dispatch(&req, &rsp);
	*status = rsp.status;
	o = json_tokener_parse(rsp.body);
	free(rsp.body);
	return o;
}

static struct json_object *events(struct api_param *p, size_t np)
{
	unsigned st;
	struct json_object *o = get(p, np, &st), *a;

	assert_int_equal(st, 200);
	assert_true(json_object_object_get_ex(o, "events", &a));
	json_object_get(a);
	json_object_put(o);
	return a;
}

static const char *str(struct json_object *a, size_t i, const char *k)
{
	struct json_object *e = json_object_array_get_idx(a, i), *v;

	assert_true(json_object_object_get_ex(e, k, &v));
	return json_object_get_string(v);
}

static int setup(void **state)
{
	char err[128];

	(void)state;
	api_routes_clear();
	assert_int_equal(xms_events_register(err, sizeof(err)), 0);
	xms_events_reset();
	happenings_reset();
	xms_alerts_reset();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	api_routes_clear();
	login_throttle_set_listener(NULL);
	return 0;
}

static void test_filters(void **state)
{
	struct json_object *a;
	struct api_param p[2];

	(void)state;
	xms_event(XMS_SEV_INFO, "audit", "Volume", "v1", "LL0101", "created %s", "v1");
	xms_event(XMS_SEV_MINOR, "security", "XMS", "bob", "LL0901", "failed");
	xms_event(XMS_SEV_INFO, "audit", "Volume", "v2\x01\n", "LL0101", "created v2\x7f");
	a = events(NULL, 0);
	assert_int_equal(json_object_array_length(a), 3);
	assert_string_equal(str(a, 0, "entity_details"), "v2??"); /* newest first, made printable */
	assert_string_equal(str(a, 0, "description"), "created v2?");
	assert_int_equal(json_object_get_int64(json_object_object_get(json_object_array_get_idx(a, 2), "id")), 1);
	assert_int_equal(strlen(str(a, 0, "timestamp")), strlen("2026-12-04 18:00:00.000000"));
	json_object_put(a);
	p[0] = (struct api_param){ "severity", "minor" };
	a = events(p, 1);
	assert_int_equal(json_object_array_length(a), 1);
	assert_string_equal(str(a, 0, "entity_details"), "bob");
	json_object_put(a);
	p[0] = (struct api_param){ "entity", "Volume" };
	p[1] = (struct api_param){ "limit", "1" };
	a = events(p, 2);
	assert_int_equal(json_object_array_length(a), 1);
	assert_string_equal(str(a, 0, "event_code"), "LL0101");
	json_object_put(a);
	p[0] = (struct api_param){ "to-date-time", "1999-12-31 23:59:59" };
	a = events(p, 1);
	assert_int_equal(json_object_array_length(a), 0);
	json_object_put(a);
	p[0] = (struct api_param){ "from-date-time", "1999-12-31 23:59:59" };
	a = events(p, 1);
	assert_int_equal(json_object_array_length(a), 3);
	json_object_put(a);
}

static void fmt_time(int64_t sec, char out[32])
{
	time_t t = (time_t)sec;
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%d %H:%M:%S", &tm);
}

/* from-date-time= / to-date-time= through the time index (a bsearch, not a
 * scan): with times out of id order (a happening told late, with the time
 * it happened) and past a full ring, every window lists exactly the events
 * a scan of every event finds, newest first */
static void test_time_index(void **state)
{
	enum { N = XMS_EVENTS_MAX + 300 };
	static int64_t secs[N];
	const int64_t base = 1796000000;
	char from[32], to[32];
	struct api_param p[3];

	(void)state;
	for (int i = 0; i < N; i++) {
		/* mostly rising, every 7th told 40 s late, every 13th far back */
		secs[i] = base + i - (i % 7 == 3 ? 40 : 0) - (i % 13 == 5 ? 5000 : 0);
		xms_event_at(secs[i], 0, XMS_SEV_INFO, "audit", "Volume", "v", "LL0101", "e%d", i);
	}
	static const int64_t windows[][2] = { { 0, 20 }, { 300, 345 }, { 4000, 4100 }, { N - 60, N + 10 },
					      { -6000, -4700 }, { N + 100, N + 200 }, { -1000000, 1000000 } };
	for (size_t w = 0; w < sizeof(windows) / sizeof(windows[0]); w++) {
		int64_t t0 = base + windows[w][0], t1 = base + windows[w][1];
		struct json_object *a;
		size_t k = 0;

		fmt_time(t0, from);
		fmt_time(t1, to);
		p[0] = (struct api_param){ "from-date-time", from };
		p[1] = (struct api_param){ "to-date-time", to };
		p[2] = (struct api_param){ "limit", "4096" };
		a = events(p, 3);
		/* ids are i + 1; the ring holds the newest XMS_EVENTS_MAX */
		for (int i = N - 1; i >= N - XMS_EVENTS_MAX; i--) {
			if (secs[i] < t0 || secs[i] > t1)
				continue;
			assert_true(k < json_object_array_length(a));
			assert_int_equal(json_object_get_int64(json_object_object_get(json_object_array_get_idx(a, k),
											 "id")),
					 i + 1);
			k++;
		}
		assert_int_equal(json_object_array_length(a), k);
		json_object_put(a);
	}
}

/* the expected listing, built with json-c as the listing was before it was
 * written as text: the same bytes */
static struct json_object *event_jsonc(int64_t id, const char *ts, const char *sev, const char *cls,
				       const char *ent, const char *det, const char *code, const char *desc)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "id", json_object_new_int64(id));
	json_object_object_add(o, "timestamp", json_object_new_string(ts));
	json_object_object_add(o, "severity", json_object_new_string(sev));
	json_object_object_add(o, "classification", json_object_new_string(cls));
	json_object_object_add(o, "entity", json_object_new_string(ent));
	json_object_object_add(o, "entity_details", json_object_new_string(det));
	json_object_object_add(o, "event_code", json_object_new_string(code));
	json_object_object_add(o, "description", json_object_new_string(desc));
	return o;
}

static void test_listing_bytes(void **state)
{
	struct api_request req = { .method = API_GET, .path = "/api/json/v3/types/events", .body = "", .host = "h" };
	struct api_response rsp = { 0 };
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();
	struct json_object *links = json_object_new_array(), *self = json_object_new_object();

	(void)state;
	/* 2026-12-04 18:00:01 UTC; quotes, backslashes and '/' as json-c escapes them */
	xms_event_at(1796407201, 2, XMS_SEV_INFO, "audit", "Volume", "v/1", "LL0101", "created \"v/1\"");
	xms_event_at(1796407201 + 86400, 999999, XMS_SEV_MAJOR, "security", "XMS", "b\\o", "LL0902", "a \\ b");
	api_dispatch(&req, &rsp);
	assert_int_equal(rsp.status, 200);
	json_object_array_add(a, event_jsonc(2, "2026-12-05 18:00:01.999999", "major", "security", "XMS", "b\\o",
					     "LL0902", "a \\ b"));
	json_object_array_add(a, event_jsonc(1, "2026-12-04 18:00:01.000002", "information", "audit", "Volume", "v/1",
					     "LL0101", "created \"v/1\""));
	json_object_object_add(o, "events", a);
	json_object_object_add(self, "href", json_object_new_string("https://h/api/json/v3/types/events/"));
	json_object_object_add(self, "rel", json_object_new_string("self"));
	json_object_array_add(links, self);
	json_object_object_add(o, "links", links);
	assert_string_equal(rsp.body,
			    json_object_to_json_string_ext(o, JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE));
	assert_int_equal(rsp.body_len, strlen(rsp.body));
	assert_non_null(strstr(rsp.body, "{ \"id\": 1, \"timestamp\": \"2026-12-04 18:00:01.000002\", "
					 "\"severity\": \"information\""));
	assert_non_null(strstr(rsp.body, "\"description\": \"created \\\"v/1\\\"\" }"));
	free(rsp.body);
	json_object_put(o);
	/* none listed: an empty list, as json-c writes it */
	struct api_param p = { "severity", "critical" };
	req.params = &p;
	req.nparams = 1;
	memset(&rsp, 0, sizeof(rsp));
	api_dispatch(&req, &rsp);
	assert_int_equal(rsp.status, 200);
	assert_string_equal(rsp.body, "{ \"events\": [ ], \"links\": [ { \"href\": \"https://h/api/json/v3/types/events/\", "
				      "\"rel\": \"self\" } ] }");
	free(rsp.body);
	/* the timestamps written by hand, at the epoch and past the year 9999 (snprintf's form) */
	xms_event_at(0, 0, XMS_SEV_INFO, "audit", "XMS", "", "LL0001", "epoch");
	xms_event_at(253402300800, 5, XMS_SEV_INFO, "audit", "XMS", "", "LL0001", "year 10000");
	struct json_object *all = events(NULL, 0);
	assert_string_equal(str(all, 0, "timestamp"), "10000-01-01 00:00:00.000005");
	assert_string_equal(str(all, 1, "timestamp"), "1970-01-01 00:00:00.000000");
	json_object_put(all);
}

static void test_bad_parameters(void **state)
{
	static const struct {
		const char *k, *v, *msg;
	} bad[] = {
		{ "severity", "fatal", "Command Syntax Error: severity: want information, minor, major or critical" },
		{ "from-date-time", "2026-13-01 00:00:00", "Command Syntax Error: from-date-time: want YYYY-MM-DD HH:MM:SS" },
		{ "to-date-time", "2026-01-01T00:00:00", "Command Syntax Error: to-date-time: want YYYY-MM-DD HH:MM:SS" },
		{ "limit", "0", "Command Syntax Error: limit: want 1..4096" },
		{ "limit", "4097", "Command Syntax Error: limit: want 1..4096" },
		{ "limit", "-1", "Command Syntax Error: limit: want 1..4096" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct api_param p = { bad[i].k, bad[i].v };
		unsigned st;
		struct json_object *o = get(&p, 1, &st);
		assert_int_equal(st, 400);
		assert_string_equal(json_object_get_string(json_object_object_get(o, "message")), bad[i].msg);
		json_object_put(o);
	}
}

static void test_ring_keeps_newest(void **state)
{
	struct json_object *a;

	(void)state;
	for (int i = 0; i < XMS_EVENTS_MAX + 5; i++)
		xms_event(XMS_SEV_INFO, "audit", "Volume", "", "LL0101", "event %d", i);
	a = events(NULL, 0);
	assert_int_equal(json_object_array_length(a), XMS_EVENTS_MAX);
	assert_string_equal(str(a, 0, "description"), "event 4100");
	assert_string_equal(str(a, XMS_EVENTS_MAX - 1, "description"), "event 5");
	json_object_put(a);
}

static void test_failed_login_listener(void **state)
{
	struct json_object *a;

	(void)state;
	login_throttle_notify(LOGIN_THROTTLE_CHAP, "10.0.0.9", "eve", 4, 1000);
	login_throttle_notify(LOGIN_THROTTLE_API, "10.0.0.9", "root", 10, 900000);
	a = events(NULL, 0);
	assert_int_equal(json_object_array_length(a), 2);
	assert_string_equal(str(a, 0, "severity"), "major");
	assert_string_equal(str(a, 0, "entity"), "XMS");
	assert_string_equal(str(a, 0, "description"),
			    "API login failed for user root from 10.0.0.9 (10 in a row); locked out for 900 s");
	assert_string_equal(str(a, 1, "severity"), "minor");
	assert_string_equal(str(a, 1, "entity"), "Target");
	assert_string_equal(str(a, 1, "entity_details"), "eve");
	json_object_put(a);
}

/* The SCSI side's happenings (happenings.h) become events when the log is
 * read, with their own time; a portal down raises an alert that its
 * coming up clears, and a fault rule's first hit is an event only. */
static void test_feed_events_and_alerts(void **state)
{
	struct json_object *a;
	bool out;

	(void)state;
	happening_post(HAPPEN_PORTAL_DOWN, 1, "portal 2 (127.0.0.1:3261) down");
	happening_post(HAPPEN_FAULT_FIRED, 3, "fault rule 3 fired: LUN 0");
	a = events(NULL, 0);
	assert_int_equal(json_object_array_length(a), 2);
	assert_string_equal(str(a, 0, "description"), "fault rule 3 fired: LUN 0");
	assert_string_equal(str(a, 0, "event_code"), "LL0401");
	assert_string_equal(str(a, 1, "entity"), "Target");
	assert_string_equal(str(a, 1, "entity_details"), "X1-SC2-iscsi1");
	assert_string_equal(str(a, 1, "severity"), "major");
	json_object_put(a);
	xms_lock();
	out = xms_alert_outstanding(XMS_ALERT_PORT_DOWN, 0, "X1-SC2-iscsi1");
	xms_unlock();
	assert_true(out);
	/* read once: a second listing adds nothing */
	a = events(NULL, 0);
	assert_int_equal(json_object_array_length(a), 2);
	json_object_put(a);
	happening_post(HAPPEN_PORTAL_UP, 1, "portal 2 (127.0.0.1:3261) up");
	a = events(NULL, 0);
	assert_int_equal(json_object_array_length(a), 3);
	assert_string_equal(str(a, 0, "severity"), "information");
	json_object_put(a);
	xms_lock();
	out = xms_alert_outstanding(XMS_ALERT_PORT_DOWN, 0, "X1-SC2-iscsi1");
	xms_unlock();
	assert_false(out);
}

static void test_time_parse(void **state)
{
	int64_t t;

	(void)state;
	assert_true(xms_events_parse_time("1970-01-01 00:00:00", &t));
	assert_int_equal(t, 0);
	assert_true(xms_events_parse_time("2026-12-04 18:30:00", &t));
	assert_int_equal(t, 1796409000);
	assert_false(xms_events_parse_time("2026-12-04 18:30", &t));
	assert_false(xms_events_parse_time("2026-12-04 24:00:00", &t));
	assert_false(xms_events_parse_time("1969-12-31 23:59:59", &t));
	assert_false(xms_events_parse_time("2026-12-04 18:30:00Z", &t));
	assert_false(xms_events_parse_time("", &t));
}

/* ---- a store in memory (xms_log_store_ops) ---- */

#define MEM_MAX (XMS_EVENTS_MAX + 64)
struct mem_rec {
	char ns[16], key[24];
	char *val;
	size_t len;
};
static struct mem_rec mem[MEM_MAX];
static size_t nmem;

static struct mem_rec *mem_find(const char *ns, const char *key)
{
	for (size_t i = 0; i < nmem; i++)
		if (strcmp(mem[i].ns, ns) == 0 && strcmp(mem[i].key, key) == 0)
			return &mem[i];
	return NULL;
}

static int mem_put(const char *ns, const char *key, const void *val, size_t len, char *err, size_t errlen)
{
	struct mem_rec *r = mem_find(ns, key);

	(void)err;
	(void)errlen;
	if (!r) {
		assert_true(nmem < MEM_MAX);
		r = &mem[nmem++];
		snprintf(r->ns, sizeof(r->ns), "%s", ns);
		snprintf(r->key, sizeof(r->key), "%s", key);
	} else {
		free(r->val);
	}
	/* one byte more, a NUL: the tests read records with strstr */
	r->val = calloc(1, len + 1);
	assert_non_null(r->val);
	memcpy(r->val, val, len);
	r->len = len;
	return 0;
}

static int mem_del(const char *ns, const char *key, char *err, size_t errlen)
{
	struct mem_rec *r = mem_find(ns, key);

	(void)err;
	(void)errlen;
	if (r) {
		free(r->val);
		*r = mem[--nmem];
	}
	return 0;
}

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct mem_rec *)a)->key, ((const struct mem_rec *)b)->key);
}

static int mem_each(const char *ns, xms_log_each_fn *fn, void *arg, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	qsort(mem, nmem, sizeof(mem[0]), by_key);
	for (size_t i = 0; i < nmem; i++) {
		if (strcmp(mem[i].ns, ns) != 0)
			continue;
		int rc = fn(mem[i].key, mem[i].val, mem[i].len, arg);
		if (rc)
			return rc;
	}
	return 0;
}

static const struct xms_log_store_ops mem_ops = { mem_put, mem_del, mem_each };

static size_t mem_count(const char *ns)
{
	size_t n = 0;

	for (size_t i = 0; i < nmem; i++)
		n += strcmp(mem[i].ns, ns) == 0;
	return n;
}

static void mem_clear(void)
{
	for (size_t i = 0; i < nmem; i++)
		free(mem[i].val);
	nmem = 0;
}

static int setup_store(void **state)
{
	mem_clear();
	xms_log_store_set(&mem_ops);
	return setup(state);
}

static int teardown_store(void **state)
{
	xms_log_store_set(NULL);
	mem_clear();
	return teardown(state);
}

static int64_t num(struct json_object *a, size_t i, const char *k)
{
	struct json_object *e = json_object_array_get_idx(a, i), *v;

	assert_true(json_object_object_get_ex(e, k, &v));
	return json_object_get_int64(v);
}

/* made, forgotten (a restart), loaded: the same ids, times and texts, and
 * the next event gets the next id */
static void test_store_restart(void **state)
{
	struct json_object *a;
	char err[256], ts[2][48];

	(void)state;
	xms_event_at(1796409000, 123456, XMS_SEV_MINOR, "audit", "Volume", "db1", "LL0101", "first");
	xms_event_at(1796409001, 7, XMS_SEV_CRITICAL, "activity", "Cluster", "x1", "LL0202", "second");
	assert_int_equal(mem_count(XMS_LOG_NS_EVENTS), 2);
	a = events(NULL, 0);
	snprintf(ts[0], sizeof(ts[0]), "%s", str(a, 0, "timestamp"));
	snprintf(ts[1], sizeof(ts[1]), "%s", str(a, 1, "timestamp"));
	json_object_put(a);
	assert_string_equal(ts[0], "2026-12-04 18:30:01.000007");

	xms_events_reset();
	assert_int_equal(xms_events_load(err, sizeof(err)), 0);
	xms_event(XMS_SEV_INFO, "activity", "XMS", "xms", "LL0002", "restarted");
	a = events(NULL, 0);
	assert_int_equal(json_object_array_length(a), 3);
	assert_int_equal(num(a, 0, "id"), 3);
	assert_string_equal(str(a, 0, "event_code"), "LL0002");
	assert_int_equal(num(a, 1, "id"), 2);
	assert_string_equal(str(a, 1, "timestamp"), ts[0]);
	assert_string_equal(str(a, 1, "severity"), "critical");
	assert_string_equal(str(a, 1, "entity_details"), "x1");
	assert_string_equal(str(a, 1, "description"), "second");
	assert_int_equal(num(a, 2, "id"), 1);
	assert_string_equal(str(a, 2, "timestamp"), ts[1]);
	assert_string_equal(str(a, 2, "classification"), "audit");
	json_object_put(a);
	assert_int_equal(mem_count(XMS_LOG_NS_EVENTS), 3);
}

/* the store holds what the ring holds: the newest XMS_EVENTS_MAX */
static void test_store_bounded(void **state)
{
	struct json_object *a;
	char err[256], key[24];

	(void)state;
	for (int i = 0; i < XMS_EVENTS_MAX + 10; i++)
		xms_event(XMS_SEV_INFO, "audit", "Volume", "", "LL0101", "event %d", i);
	assert_int_equal(mem_count(XMS_LOG_NS_EVENTS), XMS_EVENTS_MAX);
	xms_log_key(key, 10);
	assert_null(mem_find(XMS_LOG_NS_EVENTS, key));
	xms_log_key(key, 11);
	assert_non_null(mem_find(XMS_LOG_NS_EVENTS, key));
	xms_events_reset();
	assert_int_equal(xms_events_load(err, sizeof(err)), 0);
	a = events(NULL, 0);
	assert_int_equal(json_object_array_length(a), XMS_EVENTS_MAX);
	assert_int_equal(num(a, 0, "id"), XMS_EVENTS_MAX + 10);
	assert_string_equal(str(a, XMS_EVENTS_MAX - 1, "description"), "event 10");
	json_object_put(a);
}

/* a failed CHAP login (told on an iSCSI thread) waits for the next flush;
 * a failed API login is stored at once */
static void test_store_deferred_chap(void **state)
{
	struct json_object *a;

	(void)state;
	login_throttle_notify(LOGIN_THROTTLE_CHAP, "10.0.0.9", "eve", 1, 1000);
	assert_int_equal(mem_count(XMS_LOG_NS_EVENTS), 0);
	login_throttle_notify(LOGIN_THROTTLE_API, "10.0.0.9", "root", 1, 1000);
	assert_int_equal(mem_count(XMS_LOG_NS_EVENTS), 2);
	login_throttle_notify(LOGIN_THROTTLE_CHAP, "10.0.0.9", "eve", 2, 2000);
	a = events(NULL, 0); /* a listing flushes */
	json_object_put(a);
	assert_int_equal(mem_count(XMS_LOG_NS_EVENTS), 3);
}

/* a stored record that does not decode stops the start, naming it */
static void test_store_bad_record(void **state)
{
	static const struct {
		const char *rec, *why;
	} bad[] = {
		{ "{\"id\":1,\"sec\":5,\"usec\":0,\"severity\":\"loud\",\"classification\":\"a\","
		  "\"entity\":\"b\",\"entity_details\":\"\",\"event_code\":\"c\",\"description\":\"d\"}",
		  "event record 00000000000000000001: severity" },
		{ "{\"id\":1,\"sec\":5,\"usec\":1000000}", "event record 00000000000000000001: usec" },
		{ "{\"id\":\"1\"}", "event record 00000000000000000001: id" },
		{ "[1]", "event record 00000000000000000001: not a JSON object" },
		{ "{\"id\":1} x", "event record 00000000000000000001: not a JSON object" },
	};
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		mem_clear();
		assert_int_equal(mem_put(XMS_LOG_NS_EVENTS, "00000000000000000001", bad[i].rec, strlen(bad[i].rec),
					 NULL, 0), 0);
		assert_int_equal(xms_events_load(err, sizeof(err)), -1);
		assert_string_equal(err, bad[i].why);
	}
}

/* alerts through the store: one record per alert, rewritten when it is
 * cleared; loaded back with the same index and raise time; a portal's
 * alert outstanding at the restart is cleared by it (LL0003) */
static void test_store_alerts(void **state)
{
	struct json_object *a;
	char err[256], key[24];
	struct mem_rec *r;

	(void)state;
	happening_post(HAPPEN_PORTAL_DOWN, 0, "portal 1 down");
	happening_post(HAPPEN_PORTAL_DOWN, 1, "portal 2 down");
	happening_post(HAPPEN_PORTAL_UP, 0, "portal 1 up");
	json_object_put(events(NULL, 0)); /* reads the feed */
	assert_int_equal(mem_count(XMS_LOG_NS_ALERTS), 2);
	xms_log_key(key, 1);
	r = mem_find(XMS_LOG_NS_ALERTS, key);
	assert_non_null(r);
	assert_non_null(strstr(r->val, "\"cleared\":true"));
	xms_log_key(key, 2);
	r = mem_find(XMS_LOG_NS_ALERTS, key);
	assert_non_null(strstr(r->val, "\"cleared\":false"));

	/* a restart: the SCSI side's feed starts empty too */
	happenings_reset();
	xms_alerts_reset();
	xms_events_reset();
	assert_int_equal(xms_events_load(err, sizeof(err)), 0);
	xms_lock();
	assert_int_equal(xms_alerts_load(err, sizeof(err)), 0);
	assert_false(xms_alert_outstanding(XMS_ALERT_PORT_DOWN, 0, "X1-SC2-iscsi1"));
	xms_unlock();
	assert_non_null(strstr(mem_find(XMS_LOG_NS_ALERTS, key)->val, "\"cleared\":true"));
	a = events(NULL, 0);
	assert_string_equal(str(a, 0, "event_code"), "LL0003");
	assert_string_equal(str(a, 0, "entity_details"), "X1-SC2-iscsi1");
	assert_string_equal(str(a, 0, "description"),
			    "target_port_down-2 cleared by the restart (Target X1-SC2-iscsi1 starts up)");
	assert_int_equal(num(a, 0, "id"), 4); /* after the three of before */
	json_object_put(a);

	/* a damaged alert record names its field */
	static const char bad[] = "{\"index\":3,\"alert-type\":\"no_such_alert\"}";
	xms_log_key(key, 3);
	mem_put(XMS_LOG_NS_ALERTS, key, bad, strlen(bad), NULL, 0);
	xms_lock();
	assert_int_equal(xms_alerts_load(err, sizeof(err)), -1);
	xms_unlock();
	assert_string_equal(err, "alert record 00000000000000000003: alert-type");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_filters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_time_index, setup, teardown),
		cmocka_unit_test_setup_teardown(test_listing_bytes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_parameters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ring_keeps_newest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_login_listener, setup, teardown),
		cmocka_unit_test_setup_teardown(test_time_parse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_feed_events_and_alerts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_restart, setup_store, teardown_store),
		cmocka_unit_test_setup_teardown(test_store_bounded, setup_store, teardown_store),
		cmocka_unit_test_setup_teardown(test_store_deferred_chap, setup_store, teardown_store),
		cmocka_unit_test_setup_teardown(test_store_bad_record, setup_store, teardown_store),
		cmocka_unit_test_setup_teardown(test_store_alerts, setup_store, teardown_store),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
