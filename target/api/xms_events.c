/* xms_events.c — see xms_events.h.  A ring of fixed-size records: no
 * allocation per event, a bounded footprint (XMS_EVENTS_MAX x ~600 bytes).
 * With a store (xms_log_store.h) each event is also one record there, and
 * the one the ring pushes out is deleted: the stored log has the same bound. */
#include "target/api/xms_events.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "target/api/api_json.h"
#include "target/api/json_text.h"
#include "target/api/xms_alerts.h"
#include "target/api/xms_engine.h"
#include "target/api/xms_log_store.h"
#include "target/api/xms_time.h"
#include "target/iscsi/login_throttle.h"

struct event {
	uint64_t id;
	int64_t sec;
	uint32_t usec;
	enum xms_severity sev;
	char classification[16];
	char entity[32];
	char details[130];
	char code[16];
	char description[384];
	/* the time index (a bsearch instead of a scan for from-date-time= /
	 * to-date-time=): events are in id order, their times almost in time
	 * order (a happening of the SCSI side is told later, with the time it
	 * happened), so two monotonic bounds: the latest time of this event and
	 * every older one, and the earliest of this one and every newer one */
	int64_t max_upto, min_from;
};

/* the stored form's field names (also what load checks) */
#define F_ID "id"
#define F_SEC "sec"
#define F_USEC "usec"
#define F_SEV "severity"
#define F_CLASS "classification"
#define F_ENTITY "entity"
#define F_DETAILS "entity_details"
#define F_CODE "event_code"
#define F_DESC "description"

static struct event ring[XMS_EVENTS_MAX];
static size_t head, count;     /* head: where the next one goes */
static uint64_t next_id = 1;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* the store's side, under save_lock (taken before lock, never inside it):
 * every id below saved_below is stored or was pushed out before it was;
 * every id below stored_lo is deleted from the store */
static pthread_mutex_t save_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t saved_below = 1, stored_lo = 1;

static const char *const sev_names[] = { "information", "minor", "major", "critical" };

const char *xms_severity_name(enum xms_severity s)
{
	return (unsigned)s < 4 ? sev_names[s] : "information";
}

bool xms_severity_parse(const char *s, enum xms_severity *out)
{
	for (int i = 0; i < 4; i++) {
		if (strcmp(s, sev_names[i]) == 0) {
			*out = (enum xms_severity)i;
			return true;
		}
	}
	return false;
}

/* the event at logical place i (0 the oldest); under lock */
static struct event *at(size_t i)
{
	return &ring[(head + XMS_EVENTS_MAX - count + i) % XMS_EVENTS_MAX];
}

/* e, just written at ring[head] and not counted yet, into the time index:
 * its max_upto from the newest before it, and the min_from of the newer
 * end lowered where e is earlier (a run that stops at the first event not
 * later than e: O(1) when times arrive in order); under lock */
static void time_index_add(struct event *e)
{
	e->max_upto = count && at(count - 1)->max_upto > e->sec ? at(count - 1)->max_upto : e->sec;
	e->min_from = e->sec;
	/* the slot e takes is the oldest's when the ring is full: not walked */
	for (size_t i = count; i-- > (count == XMS_EVENTS_MAX ? 1 : 0);) {
		struct event *o = at(i);
		if (o->min_from <= e->sec)
			break;
		o->min_from = e->sec;
	}
}

/* the logical places [*lo, *hi) of the events that may lie in [t0, t1]:
 * none before the first whose max_upto reaches t0, none from the first
 * whose min_from is past t1; under lock */
static void time_range(int64_t t0, int64_t t1, size_t *lo, size_t *hi)
{
	size_t a = 0, b = count;

	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (at(m)->max_upto < t0)
			a = m + 1;
		else
			b = m;
	}
	*lo = a;
	b = count;
	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (at(m)->min_from <= t1)
			a = m + 1;
		else
			b = m;
	}
	*hi = a;
}

/* printable, bounded: text from requests and the wire goes in */
static void safe_copy(char *dst, size_t cap, const char *src)
{
	size_t i = 0;

	for (; src && src[i] && i + 1 < cap; i++)
		dst[i] = (unsigned char)src[i] >= ' ' && (unsigned char)src[i] < 0x7f ? src[i] : '?';
	dst[i] = '\0';
}

/* the stored record of e (malloc'd; NULL out of memory) */
static char *record_of(const struct event *e)
{
	struct json_object *o = json_object_new_object();
	char *text;

	json_object_object_add(o, F_ID, json_object_new_int64((int64_t)e->id));
	json_object_object_add(o, F_SEC, json_object_new_int64(e->sec));
	json_object_object_add(o, F_USEC, json_object_new_int64(e->usec));
	json_object_object_add(o, F_SEV, json_object_new_string(xms_severity_name(e->sev)));
	json_object_object_add(o, F_CLASS, json_object_new_string(e->classification));
	json_object_object_add(o, F_ENTITY, json_object_new_string(e->entity));
	json_object_object_add(o, F_DETAILS, json_object_new_string(e->details));
	json_object_object_add(o, F_CODE, json_object_new_string(e->code));
	json_object_object_add(o, F_DESC, json_object_new_string(e->description));
	text = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return text;
}

void xms_events_flush(void)
{
	if (!xms_log_store_active())
		return;
	pthread_mutex_lock(&save_lock);
	for (;;) {
		struct event copy;
		uint64_t oldest;
		bool got = false;

		pthread_mutex_lock(&lock);
		oldest = next_id - count;
		if (saved_below < oldest)
			saved_below = oldest; /* pushed out before it was stored */
		if (saved_below < next_id) {
			copy = ring[(head + XMS_EVENTS_MAX - (size_t)(next_id - saved_below)) % XMS_EVENTS_MAX];
			saved_below++;
			got = true;
		}
		pthread_mutex_unlock(&lock);
		/* what the ring pushed out leaves the store too (a delete of one
		 * never stored changes nothing) */
		for (; stored_lo < oldest; stored_lo++)
			xms_log_del(XMS_LOG_NS_EVENTS, stored_lo);
		if (!got)
			break;
		char *rec = record_of(&copy);
		if (rec)
			xms_log_put(XMS_LOG_NS_EVENTS, copy.id, rec);
		else
			fprintf(stderr, "lunlab-target: --state-dir: event %llu not saved: out of memory\n",
				(unsigned long long)copy.id);
		free(rec);
	}
	pthread_mutex_unlock(&save_lock);
}

static void event_v(bool defer, int64_t sec, uint32_t usec, enum xms_severity sev, const char *classification,
		    const char *entity, const char *details, const char *code, const char *fmt, va_list ap)
	__attribute__((format(printf, 9, 0)));

/* defer: kept in memory now, stored at the next flush (the caller is an I/O
 * thread, which must not wait for a disk) */
static void event_v(bool defer, int64_t sec, uint32_t usec, enum xms_severity sev, const char *classification,
		    const char *entity, const char *details, const char *code, const char *fmt, va_list ap)
{
	char text[512];
	struct event *e;

	vsnprintf(text, sizeof(text), fmt, ap);
	pthread_mutex_lock(&lock);
	e = &ring[head];
	memset(e, 0, sizeof(*e));
	e->id = next_id++;
	e->sec = sec;
	e->usec = usec;
	e->sev = sev;
	safe_copy(e->classification, sizeof(e->classification), classification);
	safe_copy(e->entity, sizeof(e->entity), entity);
	safe_copy(e->details, sizeof(e->details), details);
	safe_copy(e->code, sizeof(e->code), code);
	safe_copy(e->description, sizeof(e->description), text);
	time_index_add(e);
	head = (head + 1) % XMS_EVENTS_MAX;
	if (count < XMS_EVENTS_MAX)
		count++;
	pthread_mutex_unlock(&lock);
	if (!defer)
		xms_events_flush();
}

void xms_event(enum xms_severity sev, const char *classification, const char *entity, const char *details,
	       const char *code, const char *fmt, ...)
{
	struct timespec ts;
	va_list ap;

	clock_gettime(CLOCK_REALTIME, &ts);
	va_start(ap, fmt);
	event_v(false, (int64_t)ts.tv_sec, (uint32_t)(ts.tv_nsec / 1000), sev, classification, entity, details, code,
		fmt, ap);
	va_end(ap);
}

static void event_at_defer(bool defer, int64_t sec, uint32_t usec, enum xms_severity sev,
			   const char *classification, const char *entity, const char *details, const char *code,
			   const char *fmt, ...) __attribute__((format(printf, 9, 10)));

static void event_at_defer(bool defer, int64_t sec, uint32_t usec, enum xms_severity sev,
			   const char *classification, const char *entity, const char *details, const char *code,
			   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	event_v(defer, sec, usec, sev, classification, entity, details, code, fmt, ap);
	va_end(ap);
}

void xms_event_at(int64_t sec, uint32_t usec, enum xms_severity sev, const char *classification, const char *entity,
		  const char *details, const char *code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	event_v(false, sec, usec, sev, classification, entity, details, code, fmt, ap);
	va_end(ap);
}

void xms_events_reset(void)
{
	pthread_mutex_lock(&save_lock);
	pthread_mutex_lock(&lock);
	head = count = 0;
	next_id = saved_below = stored_lo = 1;
	pthread_mutex_unlock(&lock);
	pthread_mutex_unlock(&save_lock);
}

/* a string field of a stored record into dst (cap bytes): false when it is
 * missing, not a string or too long */
static bool rec_str(struct json_object *o, const char *k, char *dst, size_t cap)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, k, &v) || !json_object_is_type(v, json_type_string) ||
	    (size_t)json_object_get_string_len(v) >= cap)
		return false;
	safe_copy(dst, cap, json_object_get_string(v));
	return true;
}

static bool rec_int(struct json_object *o, const char *k, int64_t lo, int64_t hi, int64_t *out)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, k, &v) || !json_object_is_type(v, json_type_int))
		return false;
	*out = json_object_get_int64(v);
	return *out >= lo && *out <= hi;
}

struct load_ctx {
	char *err;
	size_t errlen;
	uint64_t first; /* the first id loaded */
};

/* one stored record, in key (= id) order, into the ring */
static int load_one(const char *key, const void *val, size_t len, void *arg)
{
	struct load_ctx *lc = arg;
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o = NULL;
	struct event ev;
	int64_t id = 0, sec = 0, usec = 0;
	char sev[16];
	const char *bad = NULL;

	memset(&ev, 0, sizeof(ev));
	if (tok && len <= (size_t)INT32_MAX)
		o = json_tokener_parse_ex(tok, val, (int)len);
	if (!o || !json_object_is_type(o, json_type_object) || json_tokener_get_parse_end(tok) != len)
		bad = "not a JSON object";
	else if (!rec_int(o, F_ID, 1, INT64_MAX, &id) || id <= (int64_t)(next_id - 1))
		bad = F_ID; /* ids increase with the keys */
	else if (!rec_int(o, F_SEC, 0, INT64_MAX, &sec))
		bad = F_SEC;
	else if (!rec_int(o, F_USEC, 0, 999999, &usec))
		bad = F_USEC;
	else if (!rec_str(o, F_SEV, sev, sizeof(sev)) || !xms_severity_parse(sev, &ev.sev))
		bad = F_SEV;
	else if (!rec_str(o, F_CLASS, ev.classification, sizeof(ev.classification)))
		bad = F_CLASS;
	else if (!rec_str(o, F_ENTITY, ev.entity, sizeof(ev.entity)))
		bad = F_ENTITY;
	else if (!rec_str(o, F_DETAILS, ev.details, sizeof(ev.details)))
		bad = F_DETAILS;
	else if (!rec_str(o, F_CODE, ev.code, sizeof(ev.code)))
		bad = F_CODE;
	else if (!rec_str(o, F_DESC, ev.description, sizeof(ev.description)))
		bad = F_DESC;
	json_object_put(o);
	json_tokener_free(tok);
	if (bad) {
		snprintf(lc->err, lc->errlen, "event record %s: %s", key, bad);
		return -1;
	}
	ev.id = (uint64_t)id;
	if (!lc->first)
		lc->first = ev.id;
	ev.sec = sec;
	ev.usec = (uint32_t)usec;
	ring[head] = ev;
	time_index_add(&ring[head]);
	head = (head + 1) % XMS_EVENTS_MAX;
	if (count < XMS_EVENTS_MAX)
		count++;
	next_id = ev.id + 1;
	return 0;
}

int xms_events_load(char *err, size_t errlen)
{
	struct load_ctx lc = { err, errlen, 0 };
	int rc;

	pthread_mutex_lock(&save_lock);
	pthread_mutex_lock(&lock);
	head = count = 0;
	next_id = 1;
	err[0] = '\0';
	rc = xms_log_each(XMS_LOG_NS_EVENTS, load_one, &lc, err, errlen);
	if (rc != 0) {
		head = count = 0;
		next_id = 1;
		lc.first = 0;
	}
	/* more records than the bound (never written so, but the store is
	 * outside input): the ring kept the newest; the next flush deletes
	 * the rest from the store */
	stored_lo = lc.first ? lc.first : next_id;
	saved_below = next_id;
	pthread_mutex_unlock(&lock);
	pthread_mutex_unlock(&save_lock);
	if (rc != 0 && !err[0])
		snprintf(err, errlen, "the stored events could not be read");
	return rc != 0 ? -1 : 0;
}

bool xms_events_parse_time(const char *s, int64_t *out)
{
	return xms_time_parse(s, out);
}

/* one event as XMS lists it, written as text (json_text.h): the bytes
 * json-c would send for the object, without building it.  Why: a monitoring
 * tool lists the events every poll, and json-c's objects cost the listing
 * of ~100 events three times the CPU of its TLS and HTTP (docs/api.md
 * "Pollers and I/O") */
/* v's last n decimal digits at p, zero-padded */
static char *digits_at(char *p, unsigned v, int n)
{
	for (int i = n - 1; i >= 0; i--, v /= 10)
		p[i] = (char)('0' + v % 10);
	return p + n;
}

/* "YYYY-MM-DD HH:MM:SS.UUUUUU" (UTC) into ts[48]: what snprintf's
 * "%04d-%02d-%02d %02d:%02d:%02d.%06u" writes, by hand for the years
 * 0..9999 (every event of every listing: snprintf was a third of its
 * cost); a time outside them (a stored record is outside input) still
 * through snprintf */
static void timestamp(const struct event *e, char ts[48])
{
	struct tm tm;
	time_t t = (time_t)e->sec;
	char *p = ts;

	if (!gmtime_r(&t, &tm))
		memset(&tm, 0, sizeof(tm));
	if (tm.tm_year + 1900 < 0 || tm.tm_year + 1900 > 9999 || e->usec > 999999) {
		snprintf(ts, 48, "%04d-%02d-%02d %02d:%02d:%02d.%06u", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
			 tm.tm_hour, tm.tm_min, tm.tm_sec, e->usec);
		return;
	}
	p = digits_at(p, (unsigned)(tm.tm_year + 1900), 4);
	*p++ = '-';
	p = digits_at(p, (unsigned)tm.tm_mon + 1, 2);
	*p++ = '-';
	p = digits_at(p, (unsigned)tm.tm_mday, 2);
	*p++ = ' ';
	p = digits_at(p, (unsigned)tm.tm_hour, 2);
	*p++ = ':';
	p = digits_at(p, (unsigned)tm.tm_min, 2);
	*p++ = ':';
	p = digits_at(p, (unsigned)tm.tm_sec, 2);
	*p++ = '.';
	p = digits_at(p, e->usec, 6);
	*p = '\0';
}

static void event_text(struct json_text *w, const struct event *e)
{
	char ts[48];

	timestamp(e, ts);
	jt_obj_open(w);
	jt_kint(w, "id", (int64_t)e->id);
	jt_kstr(w, "timestamp", ts);
	jt_kstr(w, "severity", xms_severity_name(e->sev));
	jt_kstr(w, "classification", e->classification);
	jt_kstr(w, "entity", e->entity);
	jt_kstr(w, "entity_details", e->details);
	jt_kstr(w, "event_code", e->code);
	jt_kstr(w, "description", e->description);
	jt_obj_close(w);
}

/* GET .../types/events: newest first, as XMS lists them */
static void list_events(const struct api_request *req, struct api_response *rsp)
{
	const char *sev = api_param(req, "severity"), *ent = api_param(req, "entity");
	const char *from = api_param(req, "from-date-time"), *to = api_param(req, "to-date-time");
	const char *lim = api_param(req, "limit");
	enum xms_severity want = XMS_SEV_INFO;
	int64_t t0 = INT64_MIN, t1 = INT64_MAX;
	unsigned long limit = XMS_EVENTS_MAX, listed = 0;
	struct json_text w;
	char href[512], *body;
	size_t len;

	if (*req->rest) {
		api_error(rsp, 404, "not_found");
		return;
	}
	if (sev && *sev && !xms_severity_parse(sev, &want)) {
		api_error(rsp, 400, "Command Syntax Error: severity: want information, minor, major or critical");
		return;
	}
	if ((from && *from && !xms_events_parse_time(from, &t0)) || (to && *to && !xms_events_parse_time(to, &t1))) {
		api_errorf(rsp, 400, "Command Syntax Error: %s: want YYYY-MM-DD HH:MM:SS",
			   from && *from && !xms_events_parse_time(from, &t0) ? "from-date-time" : "to-date-time");
		return;
	}
	if (lim && *lim) {
		char *end;
		limit = strtoul(lim, &end, 10);
		if (*lim < '0' || *lim > '9' || *end || limit == 0 || limit > XMS_EVENTS_MAX) {
			api_errorf(rsp, 400, "Command Syntax Error: limit: want 1..%d", XMS_EVENTS_MAX);
			return;
		}
	}
	/* what the SCSI side posted since the last read becomes events first */
	xms_lock();
	xms_feed_sync();
	xms_unlock();
	xms_events_flush(); /* and deferred ones are stored */
	jt_init(&w);
	jt_obj_open(&w);
	jt_key(&w, "events");
	jt_arr_open(&w);
	pthread_mutex_lock(&lock);
	size_t lo, hi;
	time_range(t0, t1, &lo, &hi);
	/* newest first, only the places the times allow (a poller asking for
	 * what is new since its last poll reads those, not the ring) */
	for (size_t i = hi; i-- > lo && listed < limit;) {
		const struct event *e = at(i);
		if ((sev && *sev && e->sev != want) || (ent && *ent && strcmp(e->entity, ent) != 0) || e->sec < t0 ||
		    e->sec > t1)
			continue;
		event_text(&w, e);
		listed++;
	}
	pthread_mutex_unlock(&lock);
	jt_arr_close(&w);
	/* the list's own link, as every XMS list has (the exporter reads links[0].href) */
	snprintf(href, sizeof(href), "https://%s%s/", *req->host ? req->host : "localhost", req->path);
	jt_key(&w, "links");
	jt_arr_open(&w);
	jt_obj_open(&w);
	jt_kstr(&w, "href", href);
	jt_kstr(&w, "rel", "self");
	jt_obj_close(&w);
	jt_arr_close(&w);
	jt_obj_close(&w);
	body = jt_take(&w, &len);
	if (!body) {
		api_error(rsp, 500, "out of memory");
		return;
	}
	free(rsp->body);
	rsp->body = body;
	rsp->body_len = len;
	rsp->status = 200;
	rsp->content_type = NULL;
}

static void on_failed_login(enum login_throttle_kind k, const char *host, const char *user, unsigned in_row,
			    uint64_t wait_ms)
{
	bool locked = in_row >= LOGIN_THROTTLE_LOCK_FAILS;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	/* a CHAP failure is told on the iSCSI thread: stored at the next flush */
	event_at_defer(k != LOGIN_THROTTLE_API, (int64_t)ts.tv_sec, (uint32_t)(ts.tv_nsec / 1000),
		       locked ? XMS_SEV_MAJOR : XMS_SEV_MINOR, "security", k == LOGIN_THROTTLE_API ? "XMS" : "Target",
		       user ? user : "", locked ? "LL0902" : "LL0901",
		       "%s login failed for user %.64s from %s (%u in a row); %s %llu s",
		       k == LOGIN_THROTTLE_API ? "API" : "iSCSI CHAP", user ? user : "-", host, in_row,
		       locked ? "locked out for" : "next try in", (unsigned long long)((wait_ms + 999) / 1000));
}

int xms_events_register(char *err, size_t errlen)
{
	static const struct api_route routes[] = {
		{ API_GET | API_HEAD, "/api/json/types/events", API_ROUTE_PREFIX, list_events, NULL },
		{ API_GET | API_HEAD, "/api/json/v2/types/events", API_ROUTE_PREFIX, list_events, NULL },
		{ API_GET | API_HEAD, "/api/json/v3/types/events", API_ROUTE_PREFIX, list_events, NULL },
	};

	login_throttle_set_listener(on_failed_login);
	return api_routes_add(routes, sizeof(routes) / sizeof(routes[0]), err, errlen);
}
