/* xms_alerts.c — see xms_alerts.h.  The alerts are a bounded table of
 * fixed-size records; alert-definitions are the fixed list of what lunlab
 * can raise.  The alert codes (LL1xxx) and the definitions' names are
 * lunlab's: XMS's own alert codes are not public. */
#include "target/api/xms_alerts.h"

#include <json-c/json.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lunlab/array_ctl.h"
#include "target/api/xms_common.h"
#include "target/api/xms_events.h"
#include "target/api/xms_inventory.h"
#include "target/api/xms_log_store.h"
#include "target/api/xms_scsi.h"
#include "target/lu/happenings.h"
#include "target/lu/lu_table.h"

struct alert {
	uint64_t index;
	enum xms_alert_kind kind;
	bool cleared;
	int64_t raise_ms, clear_ms;  /* ms since the epoch, as XMS's raise-time */
	uint64_t cluster;
	char class_name[24];
	char obj_name[XMS_NAME_MAX + 1];
	uint64_t obj_index;
	char obj_guid[XMS_GUID_LEN + 1];
	char description[256];
};

static const struct {
	const char *type, *code, *class_name, *threshold_type;
	enum xms_severity sev;
} defs[XMS_ALERT_KINDS] = {
	[XMS_ALERT_SOFT_THRESHOLD] = { "cluster_soft_threshold_reached", "LL1001", "Cluster", "percent", XMS_SEV_MINOR },
	[XMS_ALERT_OUT_OF_SPACE] = { "cluster_out_of_space", "LL1002", "Cluster", "none", XMS_SEV_CRITICAL },
	[XMS_ALERT_PORT_DOWN] = { "target_port_down", "LL1003", "Target", "none", XMS_SEV_MAJOR },
	[XMS_ALERT_SSD_FAILED] = { "ssd_failed", "LL1004", "SSD", "none", XMS_SEV_MAJOR },
	[XMS_ALERT_SC_FAILED] = { "storage_controller_failed", "LL1005", "StorageController", "none",
				  XMS_SEV_CRITICAL },
};

static struct alert alerts[XMS_ALERTS_MAX];
static size_t nalerts;
static uint64_t next_index = 1;
static uint64_t feed_cursor;

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static uint64_t cluster_or_first(uint64_t c)
{
	return c ? c : g_xms.clusters.n ? g_xms.clusters.v[0].index : 0;
}

static struct alert *find(enum xms_alert_kind kind, uint64_t cluster, const char *name)
{
	cluster = cluster_or_first(cluster);
	for (size_t i = 0; i < nalerts; i++)
		if (!alerts[i].cleared && alerts[i].kind == kind && alerts[i].cluster == cluster &&
		    strcmp(alerts[i].obj_name, name) == 0)
			return &alerts[i];
	return NULL;
}

bool xms_alert_outstanding(enum xms_alert_kind kind, uint64_t cluster, const char *name)
{
	return find(kind, cluster, name) != NULL;
}

/* ---- the store (xms_log_store.h): one record per alert, put when it is
 * raised or cleared, deleted when the bound pushes it out ---- */

static char *record_of(const struct alert *a)
{
	struct json_object *o = json_object_new_object();
	char *text;

	json_object_object_add(o, "index", json_object_new_int64((int64_t)a->index));
	json_object_object_add(o, "alert-type", json_object_new_string(defs[a->kind].type));
	json_object_object_add(o, "cleared", json_object_new_boolean(a->cleared));
	json_object_object_add(o, "raise-time", json_object_new_int64(a->raise_ms));
	json_object_object_add(o, "clear-time", json_object_new_int64(a->clear_ms));
	json_object_object_add(o, "cluster", json_object_new_int64((int64_t)a->cluster));
	json_object_object_add(o, "class-name", json_object_new_string(a->class_name));
	json_object_object_add(o, "assoc-obj-name", json_object_new_string(a->obj_name));
	json_object_object_add(o, "assoc-obj-index", json_object_new_int64((int64_t)a->obj_index));
	json_object_object_add(o, "assoc-obj-guid", json_object_new_string(a->obj_guid));
	json_object_object_add(o, "description", json_object_new_string(a->description));
	text = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return text;
}

static void save(const struct alert *a)
{
	char *rec;

	if (!xms_log_store_active())
		return;
	rec = record_of(a);
	if (rec)
		xms_log_put(XMS_LOG_NS_ALERTS, a->index, rec);
	else
		fprintf(stderr, "lunlab-target: --state-dir: alert %llu not saved: out of memory\n",
			(unsigned long long)a->index);
	free(rec);
}

static bool rec_str(struct json_object *o, const char *k, char *dst, size_t cap)
{
	struct json_object *v;
	const char *t;

	if (!json_object_object_get_ex(o, k, &v) || !json_object_is_type(v, json_type_string) ||
	    (size_t)json_object_get_string_len(v) >= cap)
		return false;
	t = json_object_get_string(v);
	for (size_t i = 0; t[i]; i++)
		if ((unsigned char)t[i] < ' ' || (unsigned char)t[i] >= 0x7f)
			return false;
	snprintf(dst, cap, "%s", t);
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
	uint64_t evicted[16]; /* records beyond the bound, deleted after the reading */
	size_t nevicted;
	bool more_evicted;
};

static int load_one(const char *key, const void *val, size_t len, void *arg)
{
	struct load_ctx *lc = arg;
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o = NULL, *v;
	struct alert a;
	int64_t index = 0, rt = 0, ct = 0, cl = 0, oi = 0;
	char type[64];
	const char *bad = NULL;
	int kind = XMS_ALERT_KINDS;

	memset(&a, 0, sizeof(a));
	if (tok && len <= (size_t)INT32_MAX)
		o = json_tokener_parse_ex(tok, val, (int)len);
	if (!o || !json_object_is_type(o, json_type_object) || json_tokener_get_parse_end(tok) != len)
		bad = "not a JSON object";
	else if (!rec_int(o, "index", 1, INT64_MAX, &index) || (uint64_t)index < next_index)
		bad = "index"; /* indexes increase with the keys */
	else if (!rec_str(o, "alert-type", type, sizeof(type)))
		bad = "alert-type";
	if (!bad) {
		for (kind = 0; kind < XMS_ALERT_KINDS && strcmp(defs[kind].type, type) != 0; kind++)
			;
		if (kind == XMS_ALERT_KINDS)
			bad = "alert-type";
	}
	if (bad)
		;
	else if (!json_object_object_get_ex(o, "cleared", &v) || !json_object_is_type(v, json_type_boolean))
		bad = "cleared";
	else if (!rec_int(o, "raise-time", 0, INT64_MAX, &rt))
		bad = "raise-time";
	else if (!rec_int(o, "clear-time", 0, INT64_MAX, &ct))
		bad = "clear-time";
	else if (!rec_int(o, "cluster", 0, INT64_MAX, &cl))
		bad = "cluster";
	else if (!rec_str(o, "class-name", a.class_name, sizeof(a.class_name)))
		bad = "class-name";
	else if (!rec_str(o, "assoc-obj-name", a.obj_name, sizeof(a.obj_name)))
		bad = "assoc-obj-name";
	else if (!rec_int(o, "assoc-obj-index", 0, INT64_MAX, &oi))
		bad = "assoc-obj-index";
	else if (!rec_str(o, "assoc-obj-guid", a.obj_guid, sizeof(a.obj_guid)))
		bad = "assoc-obj-guid";
	else if (!rec_str(o, "description", a.description, sizeof(a.description)))
		bad = "description";
	if (!bad)
		a.cleared = json_object_get_boolean(v);
	json_object_put(o);
	json_tokener_free(tok);
	if (bad) {
		snprintf(lc->err, lc->errlen, "alert record %s: %s", key, bad);
		return -1;
	}
	if (nalerts == XMS_ALERTS_MAX) { /* more than the bound: the oldest goes */
		if (lc->nevicted < sizeof(lc->evicted) / sizeof(lc->evicted[0]))
			lc->evicted[lc->nevicted++] = alerts[0].index;
		else
			lc->more_evicted = true;
		memmove(&alerts[0], &alerts[1], (nalerts - 1) * sizeof(alerts[0]));
		nalerts--;
	}
	a.index = (uint64_t)index;
	a.kind = (enum xms_alert_kind)kind;
	a.raise_ms = rt;
	a.clear_ms = ct;
	a.cluster = (uint64_t)cl;
	a.obj_index = (uint64_t)oi;
	alerts[nalerts++] = a;
	next_index = a.index + 1;
	return 0;
}

/* an alert whose condition a restart ended, with an event saying so */
static void clear_by_restart(struct alert *a)
{
	a->cleared = true;
	a->clear_ms = now_ms();
	save(a);
	xms_event(XMS_SEV_INFO, "activity", a->class_name, a->obj_name, "LL0003",
		  "%s-%llu cleared by the restart (%s %s starts %s)", defs[a->kind].type, (unsigned long long)a->index,
		  a->class_name, a->obj_name, a->kind == XMS_ALERT_PORT_DOWN ? "up" : "healthy");
}

int xms_alerts_load(char *err, size_t errlen)
{
	struct load_ctx lc = { .err = err, .errlen = errlen };
	int rc;

	nalerts = 0;
	next_index = 1;
	err[0] = '\0';
	rc = xms_log_each(XMS_LOG_NS_ALERTS, load_one, &lc, err, errlen);
	if (rc != 0) {
		nalerts = 0;
		next_index = 1;
		if (!err[0])
			snprintf(err, errlen, "the stored alerts could not be read");
		return -1;
	}
	/* (a store is outside input: never written beyond the bound, but
	 * trimmed to it if it is; a larger excess is left for --check-state) */
	for (size_t i = 0; i < lc.nevicted; i++)
		xms_log_del(XMS_LOG_NS_ALERTS, lc.evicted[i]);
	if (lc.more_evicted)
		fprintf(stderr, "lunlab-target: --state-dir: more than %d alerts stored: the oldest are ignored\n",
			XMS_ALERTS_MAX);
	/* portal states are not kept across a restart (every portal starts
	 * up): their alerts are over.  Hardware faults are kept
	 * (xms_hw_store.h): xms_alerts_hw_sync clears only the alerts of
	 * components the restart found healthy.  Capacity alerts stay until
	 * the next read finds their cluster back under its line. */
	for (size_t i = 0; i < nalerts; i++)
		if (!alerts[i].cleared && alerts[i].kind == XMS_ALERT_PORT_DOWN)
			clear_by_restart(&alerts[i]);
	return 0;
}

void xms_alerts_hw_sync(void)
{
	for (size_t i = 0; i < nalerts; i++) {
		struct alert *a = &alerts[i];
		enum xms_inv_component k = a->kind == XMS_ALERT_SSD_FAILED ? XMS_INV_SSD : XMS_INV_SC;
		unsigned n;

		if (a->cleared || (a->kind != XMS_ALERT_SSD_FAILED && a->kind != XMS_ALERT_SC_FAILED))
			continue;
		n = xms_inv_find(a->cluster, k, a->obj_name);
		if (!n || !xms_inv_is_failed(a->cluster, k, n))
			clear_by_restart(a);
	}
}

/* room for one more: the oldest cleared alert goes, else the oldest */
static struct alert *slot(void)
{
	size_t victim = 0;

	if (nalerts < XMS_ALERTS_MAX)
		return &alerts[nalerts++];
	for (size_t i = 0; i < nalerts; i++)
		if (alerts[i].cleared) {
			victim = i;
			break;
		}
	xms_log_del(XMS_LOG_NS_ALERTS, alerts[victim].index);
	memmove(&alerts[victim], &alerts[victim + 1], (nalerts - victim - 1) * sizeof(alerts[0]));
	return &alerts[nalerts - 1];
}

void xms_alert_raise(enum xms_alert_kind kind, const struct xms_alert_obj *obj, const char *fmt, ...)
{
	struct alert *a;
	va_list ap;

	if ((unsigned)kind >= XMS_ALERT_KINDS || find(kind, obj->cluster, obj->name))
		return;
	a = slot();
	memset(a, 0, sizeof(*a));
	a->index = next_index++;
	a->kind = kind;
	a->raise_ms = now_ms();
	a->cluster = cluster_or_first(obj->cluster);
	snprintf(a->class_name, sizeof(a->class_name), "%s", obj->class_name);
	snprintf(a->obj_name, sizeof(a->obj_name), "%s", obj->name);
	a->obj_index = obj->index;
	snprintf(a->obj_guid, sizeof(a->obj_guid), "%s", obj->guid ? obj->guid : "");
	va_start(ap, fmt);
	vsnprintf(a->description, sizeof(a->description), fmt, ap);
	va_end(ap);
	save(a);
}

bool xms_alert_clear(enum xms_alert_kind kind, uint64_t cluster, const char *name)
{
	struct alert *a = find(kind, cluster, name);

	if (!a)
		return false;
	a->cleared = true;
	a->clear_ms = now_ms();
	save(a);
	return true;
}

void xms_alerts_reset(void)
{
	nalerts = 0;
	next_index = 1;
	feed_cursor = 0;
}

/* ---- the feed of the SCSI side (happenings.h) ---- */

/* the volume an LU realises; NULL for a --lun LU or one gone since */
static const struct xms_volume *volume_of_lu(uint64_t lu_id)
{
	for (size_t i = 0; i < g_xms.volumes.n; i++)
		if (g_xms.volumes.v[i].lu && g_xms.volumes.v[i].lu->id == lu_id)
			return &g_xms.volumes.v[i];
	return NULL;
}

static void capacity_happening(const struct happening *h, enum xms_alert_kind kind)
{
	const struct xms_volume *v = volume_of_lu(h->subject);
	struct xms_cluster *c = v ? xms_cluster_get(&g_xms, v->cluster) : NULL;
	char more[48] = "";

	if (h->repeats)
		snprintf(more, sizeof(more), " (and %llu more within %d s)", (unsigned long long)h->repeats,
			 HAPPENINGS_REPEAT_MS / 1000);
	xms_event_at(h->sec, h->usec, defs[kind].sev, "activity", v ? "Volume" : "Target", v ? v->name : "",
		     kind == XMS_ALERT_SOFT_THRESHOLD ? "LL0201" : "LL0202", "%s%s%s%s", h->text, more,
		     c ? " in cluster " : "", c ? c->name : "");
	if (c) {
		struct xms_alert_obj o = { c->index, "Cluster", c->name, c->index, c->guid };
		xms_alert_raise(kind, &o, "Cluster %s: %s", c->name,
				kind == XMS_ALERT_SOFT_THRESHOLD ? "thin provisioning soft threshold reached"
								 : "out of space: writes that need space are refused");
	}
}

static void port_happening(const struct happening *h)
{
	char tname[32];
	bool down = h->kind == HAPPEN_PORTAL_DOWN;
	uint64_t cl = cluster_or_first(0);

	xms_inv_target_name((int)h->subject, tname, sizeof(tname));
	xms_event_at(h->sec, h->usec, down ? XMS_SEV_MAJOR : XMS_SEV_INFO, "hardware", "Target", tname,
		     down ? "LL0301" : "LL0302", "%s", h->text);
	if (down) {
		struct xms_alert_obj o = { cl, "Target", tname, h->subject + 1, NULL };
		xms_alert_raise(XMS_ALERT_PORT_DOWN, &o, "Target %s is down (%s)", tname, h->text);
	} else {
		xms_alert_clear(XMS_ALERT_PORT_DOWN, cl, tname);
	}
}

/* a capacity alert whose cluster is back under its line is cleared */
static void clear_capacity_alerts(void)
{
	for (size_t i = 0; i < nalerts; i++) {
		struct alert *a = &alerts[i];
		struct lunlab_array_figures f;
		struct xms_cluster *c;

		if (a->cleared || (a->kind != XMS_ALERT_SOFT_THRESHOLD && a->kind != XMS_ALERT_OUT_OF_SPACE))
			continue;
		c = xms_cluster_get(&g_xms, a->cluster);
		if (!c)
			continue;
		/* < 0 when no LU of the array is open (its last volume gone): the
		 * figures are then the probe's capacity and no use, as the
		 * clusters resource shows them */
		xms_scsi_cluster_figures(c, &f);
		/* soft threshold: over when use is 1% of the capacity below it,
		 * where the array re-arms it (docs/accounting.md); out of space:
		 * a refused write allocates nothing, so "below capacity" holds at
		 * once: over when use is back under the soft threshold (90% of
		 * the capacity without one) */
		uint64_t line = a->kind == XMS_ALERT_SOFT_THRESHOLD ? f.soft_threshold_bytes
				: f.soft_threshold_bytes ? f.soft_threshold_bytes : f.capacity_bytes / 10 * 9;
		/* (a soft threshold alert on an array without one: a fault
		 * rule's sense; nothing holds it) */
		if (!line || f.used_bytes + (a->kind == XMS_ALERT_SOFT_THRESHOLD ? f.capacity_bytes / 100 : 0) < line) {
			a->cleared = true;
			a->clear_ms = now_ms();
			save(a);
			xms_event(XMS_SEV_INFO, "activity", "Cluster", c->name, "LL0203", "Cluster %s: %s cleared",
				  c->name, defs[a->kind].type);
		}
	}
}

void xms_feed_sync(void)
{
	struct happening batch[32];
	size_t n;
	uint64_t missed;

	do {
		n = happenings_read(&feed_cursor, batch, sizeof(batch) / sizeof(batch[0]), &missed);
		if (missed)
			xms_event(XMS_SEV_MINOR, "activity", "XMS", "xms", "LL0299",
				  "%llu happenings of the target were lost before the management server read them",
				  (unsigned long long)missed);
		for (size_t i = 0; i < n; i++) {
			const struct happening *h = &batch[i];
			switch (h->kind) {
			case HAPPEN_SOFT_THRESHOLD:
				capacity_happening(h, XMS_ALERT_SOFT_THRESHOLD);
				break;
			case HAPPEN_OUT_OF_SPACE:
				capacity_happening(h, XMS_ALERT_OUT_OF_SPACE);
				break;
			case HAPPEN_PORTAL_DOWN:
			case HAPPEN_PORTAL_UP:
				port_happening(h);
				break;
			case HAPPEN_FAULT_FIRED:
				xms_event_at(h->sec, h->usec, XMS_SEV_MINOR, "activity", "Target", "", "LL0401", "%s",
					     h->text);
				break;
			case HAPPEN_ALUA: {
				const struct xms_volume *v = volume_of_lu(h->subject);
				xms_event_at(h->sec, h->usec, XMS_SEV_INFO, "activity", v ? "Volume" : "Target",
					     v ? v->name : "", "LL0501", "ALUA: %s", h->text);
				break;
			}
			case HAPPEN_KINDS:
				break;
			}
		}
	} while (n == sizeof(batch) / sizeof(batch[0]));
	clear_capacity_alerts();
}

/* ---- the resources ---- */

static void alert_guid(char out[XMS_GUID_LEN + 1], uint64_t index)
{
	snprintf(out, XMS_GUID_LEN + 1, "%08x%024llx", 0xa1e27u, (unsigned long long)index);
}

static void list_alerts(struct xms_ctx *x, struct json_object *arr)
{
	(void)x;
	xms_feed_sync();
	for (size_t i = 0; i < nalerts; i++) {
		const struct alert *a = &alerts[i];
		const struct xms_cluster *c = xms_cluster_get(&g_xms, a->cluster);
		struct json_object *o = json_object_new_object();
		char guid[XMS_GUID_LEN + 1], name[64];

		alert_guid(guid, a->index);
		snprintf(name, sizeof(name), "%s-%llu", defs[a->kind].type, (unsigned long long)a->index);
		json_object_object_add(o, "name", json_object_new_string(name));
		json_object_object_add(o, "index", json_object_new_int64((int64_t)a->index));
		json_object_object_add(o, "guid", json_object_new_string(guid));
		json_object_object_add(o, "alert-code", json_object_new_string(defs[a->kind].code));
		json_object_object_add(o, "alert-type", json_object_new_string(defs[a->kind].type));
		json_object_object_add(o, "class-name", json_object_new_string(a->class_name));
		json_object_object_add(o, "assoc-obj-id", xms_oid(a->obj_guid, a->obj_name, a->obj_index));
		json_object_object_add(o, "assoc-obj-index", json_object_new_int64((int64_t)a->obj_index));
		json_object_object_add(o, "assoc-obj-name", json_object_new_string(a->obj_name));
		json_object_object_add(o, "description", json_object_new_string(a->description));
		json_object_object_add(o, "severity", json_object_new_string(xms_severity_name(defs[a->kind].sev)));
		json_object_object_add(o, "alert-state", json_object_new_string(a->cleared ? "cleared" : "outstanding"));
		/* ms since the epoch (XtremIO.Utils divides it by 1000) */
		json_object_object_add(o, "raise-time", json_object_new_int64(a->raise_ms));
		json_object_object_add(o, "clear-time", json_object_new_int64(a->clear_ms));
		json_object_object_add(o, "threshold", json_object_new_string(""));
		if (c) {
			json_object_object_add(o, "sys-id", xms_cluster_oid(c));
			json_object_object_add(o, "sys-name", json_object_new_string(c->name));
		}
		json_object_object_add(o, "xms-id", xms_oid(xms_ids_xms_guid(), "xms", 1));
		json_object_array_add(arr, o);
	}
}

static void list_defs(struct xms_ctx *x, struct json_object *arr)
{
	(void)x;
	for (int k = 0; k < XMS_ALERT_KINDS; k++) {
		struct json_object *o = json_object_new_object();
		char guid[XMS_GUID_LEN + 1];

		snprintf(guid, sizeof(guid), "%08x%024x", 0xa1e2du, k + 1);
		json_object_object_add(o, "name", json_object_new_string(defs[k].type));
		json_object_object_add(o, "index", json_object_new_int(k + 1));
		json_object_object_add(o, "guid", json_object_new_string(guid));
		json_object_object_add(o, "alert-code", json_object_new_string(defs[k].code));
		json_object_object_add(o, "alert-type", json_object_new_string(defs[k].type));
		json_object_object_add(o, "class-name", json_object_new_string(defs[k].class_name));
		json_object_object_add(o, "severity", json_object_new_string(xms_severity_name(defs[k].sev)));
		json_object_object_add(o, "activity-mode", json_object_new_string("enabled"));
		json_object_object_add(o, "clearance-mode", json_object_new_string("auto_clear"));
		json_object_object_add(o, "send-to-call-home", json_object_new_string("no"));
		json_object_object_add(o, "threshold-type", json_object_new_string(defs[k].threshold_type));
		json_object_object_add(o, "threshold-value", json_object_new_string("0"));
		json_object_object_add(o, "user-modified", json_object_new_string("false"));
		json_object_object_add(o, "xms-id", xms_oid(xms_ids_xms_guid(), "xms", 1));
		json_object_array_add(arr, o);
	}
}

const struct xms_type xms_type_alerts = { .name = "alerts", .list = list_alerts };
const struct xms_type xms_type_alert_defs = { .name = "alert-definitions", .list = list_defs };
