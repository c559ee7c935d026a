/* fuzz_xms_log_store.c — the API's stored events, alerts and hardware
 * faults (--state-dir: the api-events, api-alerts and api-hardware records
 * of DIR/target.db, target/api/xms_log_store.h) fed to their loaders,
 * xms_events_load, xms_alerts_load and xms_hw_store_load
 * (target/api/xms_events.c, xms_alerts.c, xms_hw_store.c), from an
 * in-memory store holding any records.
 *
 * Also the performance history's records (api-perf, xms_perf_history_load,
 * target/api/xms_perf_history.c).
 *
 * Input: byte 0 picks what is loaded (bit 0: events, else bit 2: hardware
 * faults, else bit 3: the performance history, else alerts; bit 1: the store itself reports a damaged record
 * after the last one, as SQLite would); the rest is the records, one after another, split at "\n\x1e"
 * (each the value of one key, keys 00..01, 00..02, ... in order; past 8,192
 * records the rest is one record).
 * Invariants: a refused load answers -1 with a one-line reason that names
 * the record (or the store's own reason) and leaves nothing loaded (the
 * next event gets id 1); an accepted one keeps at most the bound
 * (XMS_EVENTS_MAX / XMS_ALERTS_MAX) and goes on working: a new event after
 * it is listed with the next id.  Never a crash, a leak or undefined
 * behaviour (ASan, UBSan). */
#include <json-c/json.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/api/xms_alerts.h"
#include "target/api/xms_engine.h"
#include "target/api/xms_events.h"
#include "target/api/xms_hw_store.h"
#include "target/api/xms_log_store.h"
#include "target/api/xms_perf_history.h"
#include "target/lu/happenings.h"

#define MAX_RECORDS 8192

struct rec {
	const char *val;
	size_t len;
};
static struct rec recs[MAX_RECORDS];
static size_t nrecs;
static int store_fails;

static size_t nputs;
static uint64_t last_put; /* the id in the key of the last record put */

static int mem_put(const char *ns, const char *key, const void *val, size_t len, char *err, size_t errlen)
{
	(void)ns, (void)val, (void)len, (void)err, (void)errlen;
	/* what a load re-stores is not kept (the input is read-only): only counted */
	nputs++;
	last_put = strtoull(key, NULL, 10);
	return 0;
}

static int mem_del(const char *ns, const char *key, char *err, size_t errlen)
{
	(void)ns, (void)key, (void)err, (void)errlen;
	return 0;
}

static int mem_each(const char *ns, xms_log_each_fn *fn, void *arg, char *err, size_t errlen)
{
	char key[24];

	(void)ns;
	for (size_t i = 0; i < nrecs; i++) {
		int rc;

		xms_log_key(key, i + 1);
		rc = fn(key, recs[i].val, recs[i].len, arg);
		if (rc)
			return rc;
	}
	if (store_fails) {
		snprintf(err, errlen, "%s: a damaged record (the store's own check)", ns);
		return -1;
	}
	return 0;
}

static const struct xms_log_store_ops mem_ops = { mem_put, mem_del, mem_each };

static void split(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;

	nrecs = 0;
	while (p <= end && nrecs < MAX_RECORDS) {
		const uint8_t *sep = NULL;

		if (nrecs + 1 < MAX_RECORDS)
			for (const uint8_t *q = p; q + 1 < end; q++)
				if (q[0] == '\n' && q[1] == 0x1e) {
					sep = q;
					break;
				}
		recs[nrecs].val = (const char *)p;
		recs[nrecs].len = (size_t)((sep ? sep : end) - p);
		nrecs++;
		if (!sep)
			break;
		p = sep + 2;
	}
}

/* the id a record states (field, an integer), 0 when it does not parse */
static uint64_t stated_id(const struct rec *r, const char *field)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o = tok ? json_tokener_parse_ex(tok, r->val, (int)r->len) : NULL, *v;
	uint64_t id = 0;

	if (o && json_object_object_get_ex(o, field, &v) && json_object_is_type(v, json_type_int))
		id = (uint64_t)json_object_get_int64(v);
	json_object_put(o);
	json_tokener_free(tok);
	return id;
}

static void one_line(const char *err)
{
	if (!*err || strchr(err, '\n'))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[320];
	bool events;
	int rc;

	if (size < 1)
		return 0;
	events = data[0] & 1;
	store_fails = (data[0] & 2) != 0;
	split(data + 1, size - 1);
	xms_log_store_set(&mem_ops);
	happenings_reset();
	xms_events_reset();
	xms_alerts_reset();
	err[0] = '\0';
	nputs = 0;
	last_put = 0;
	if (events) {
		rc = xms_events_load(err, sizeof(err));
		if (rc < 0) {
			one_line(err);
			if (!store_fails && !strstr(err, "event record "))
				abort();
		}
		/* refused: nothing loaded, the next event is 1; accepted: it
		 * follows the last record's id (the loader checks they increase) */
		uint64_t want = rc < 0 || !nrecs ? 1 : stated_id(&recs[nrecs - 1], "id") + 1;
		xms_event(XMS_SEV_INFO, "audit", "XMS", "fuzz", "LL0101", "after the load");
		if (nputs != 1 || last_put != want)
			abort();
	} else if (data[0] & 8) {
		/* the records' readings back into the history; a reading after
		 * it (no cluster, volume or portal: every loaded object gives
		 * its slot up); loading and sampling store nothing */
		xms_lock();
		rc = xms_perf_history_load(err, sizeof(err));
		if (rc < 0) {
			one_line(err);
			if (!store_fails && !strstr(err, "performance record "))
				abort();
		}
		xms_perf_history_sample(1796420000000LL);
		if (nputs)
			abort();
		xms_perf_history_reset();
		xms_unlock();
	} else if (data[0] & 4) {
		/* no cluster is set up: an accepted record names none there
		 * and is dropped (deleted, nothing failed) */
		xms_lock();
		rc = xms_hw_store_load(err, sizeof(err));
		if (rc < 0) {
			one_line(err);
			if (!store_fails && !strstr(err, "hardware record "))
				abort();
		}
		if (nputs)
			abort(); /* loading puts nothing */
		xms_unlock();
	} else {
		xms_lock();
		rc = xms_alerts_load(err, sizeof(err));
		if (rc < 0) {
			one_line(err);
			if (!store_fails && !strstr(err, "alert record "))
				abort();
			if (nputs)
				abort(); /* refused: nothing re-stored */
		}
		/* a new alert after it: outstanding, stored under an index past
		 * every loaded one (a name no record can hold: a control byte) */
		uint64_t after = rc < 0 || !nrecs ? 0 : stated_id(&recs[nrecs - 1], "index");
		struct xms_alert_obj obj = { 0, "Cluster", "fuzz\x01", 1, "0123456789abcdef0123456789abcdef" };
		nputs = 0;
		xms_alert_raise(XMS_ALERT_SOFT_THRESHOLD, &obj, "after the load");
		if (!xms_alert_outstanding(XMS_ALERT_SOFT_THRESHOLD, 0, "fuzz\x01") || nputs != 1 || last_put <= after)
			abort();
		xms_unlock();
	}
	xms_log_store_set(NULL);
	xms_events_reset();
	xms_alerts_reset();
	happenings_reset();
	return 0;
}
