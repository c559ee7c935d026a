/* xms_inventory.c — see xms_inventory.h.  Each cluster is one X-Brick
 * ("X1": XMS numbers bricks within a cluster): two storage controllers
 * with two XEnvs and two local disks each, two BBUs, one DAE with two
 * controllers (LCCs) and two power supplies, and the profile's SSDs.
 * Identities are hashes of the cluster's name (stable across restarts);
 * indexes are per type across clusters, clusters in their order.
 *
 * lunlab has no hardware to measure: the SSDs' space and I/O figures are
 * the cluster's own (the array's accounting, the volumes' LU counters:
 * /metrics) spread evenly over the working SSDs, as XDP stripes every
 * write over all of them; an XEnv's cpu-usage is the target process's CPU
 * spread over the XEnvs; power and temperatures are nominal figures
 * (docs/api.md says which), since there is nothing to read them from. */
#include "target/api/xms_inventory.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lunlab/array_ctl.h"
#include "target/api/xms_alerts.h"
#include "target/api/xms_common.h"
#include "target/api/xms_events.h"
#include "target/api/xms_hw_store.h"
#include "target/api/xms_perf.h"
#include "target/api/xms_resources.h"
#include "target/api/xms_scsi.h"
#include "target/api/xms_tags.h"
#include "target/iscsi/portal.h"
#include "target/iscsi/target.h"
#include "target/lu/lu_table.h"
#include "target/lu/proc_figures.h"

/* ---- failed components ---- */

static struct {
	uint64_t cluster;
	enum xms_inv_component kind;
	unsigned n;
} failed[XMS_INV_FAILED_MAX];
static size_t nfailed;
static int64_t started;          /* the controllers "started" with the target */

bool xms_inv_is_failed(uint64_t cluster, enum xms_inv_component kind, unsigned n)
{
	for (size_t i = 0; i < nfailed; i++)
		if (failed[i].cluster == cluster && failed[i].kind == kind && failed[i].n == n)
			return true;
	return false;
}

void xms_inv_reset(void)
{
	nfailed = 0;
}

/* ---- identities ---- */

static uint64_t fnv(const char *s, uint64_t h)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	}
	return h;
}

static uint64_t hash_of(const struct xms_cluster *c, const char *what, unsigned n, uint64_t seed)
{
	char key[160];

	snprintf(key, sizeof(key), "%s/%s/%u", c->name, what, n);
	return fnv(key, seed);
}

static void guid_of(const struct xms_cluster *c, const char *what, unsigned n, char out[XMS_GUID_LEN + 1])
{
	snprintf(out, XMS_GUID_LEN + 1, "%016" PRIx64 "%016" PRIx64, hash_of(c, what, n, 14695981039346656037ull),
		 hash_of(c, what, n, 0x6c756e6c6162ull));
}

/* PREFIX and 10 characters of [0-9A-Z] */
static void serial_of(const struct xms_cluster *c, const char *what, unsigned n, const char *prefix, char *out,
		      size_t cap)
{
	static const char digits[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	uint64_t h = hash_of(c, what, n, 0x5e7a1ull);
	char s[11];

	for (int i = 0; i < 10; i++, h /= 36)
		s[i] = digits[h % 36];
	s[10] = '\0';
	snprintf(out, cap, "%s%s", prefix, s);
}

/* ---- the layout of one cluster's brick ---- */

struct brick {
	const struct xms_cluster *c;
	size_t pos;                  /* the cluster's place in the list (0..) */
	unsigned ssds;               /* the profile's */
	uint64_t ssd_base;           /* SSD indexes of earlier clusters */
	struct lunlab_array_figures f;
	char profile_up[32];
};

/* exact: the array's figures once its accounting is settled (what a
 * listing shows); else as they are (the performance sampler wants only the
 * SSD count and must not wait behind the I/O's compression accounting) */
static size_t bricks_of_w(struct brick **out, bool exact);

static size_t bricks_of(struct brick **out)
{
	return bricks_of_w(out, true);
}

static size_t bricks_of_w(struct brick **out, bool exact)
{
	struct brick *b = calloc(g_xms.clusters.n ? g_xms.clusters.n : 1, sizeof(*b));
	uint64_t base = 0;

	*out = b;
	if (!b)
		return 0;
	for (size_t i = 0; i < g_xms.clusters.n; i++) {
		b[i].c = &g_xms.clusters.v[i];
		b[i].pos = i;
		const struct lunlab_array_ctl *ctl = xms_scsi_ctl();
		if (exact || !ctl || ctl->array_figures(b[i].c->name, false, &b[i].f) < 0 || !b[i].f.profile[0])
			xms_scsi_cluster_figures(b[i].c, &b[i].f);
		b[i].ssds = b[i].f.ssds;
		b[i].ssd_base = base;
		base += b[i].ssds;
		for (size_t k = 0; b[i].f.profile[k] && k + 1 < sizeof(b[i].profile_up); k++)
			b[i].profile_up[k] = b[i].f.profile[k] >= 'a' && b[i].f.profile[k] <= 'z'
						     ? (char)(b[i].f.profile[k] - 32) : b[i].f.profile[k];
	}
	return g_xms.clusters.n;
}

static struct json_object *oid_of(const struct brick *b, const char *what, unsigned n, const char *name,
				  uint64_t index)
{
	char guid[XMS_GUID_LEN + 1];

	guid_of(b->c, what, n, guid);
	return xms_oid(guid, name, index);
}

static uint64_t brick_index(const struct brick *b) { return b->pos + 1; }
static uint64_t sc_index(const struct brick *b, unsigned sc) { return b->pos * XMS_INV_SCS + sc; }

static void sc_name(unsigned sc, char *out, size_t cap) { snprintf(out, cap, "X1-SC%u", sc); }

static struct json_object *brick_oid(const struct brick *b) { return oid_of(b, "brick", 1, "X1", brick_index(b)); }
static struct json_object *dae_oid(const struct brick *b) { return oid_of(b, "dae", 1, "X1-DAE", brick_index(b)); }
static struct json_object *sc_oid(const struct brick *b, unsigned sc)
{
	char name[16];

	sc_name(sc, name, sizeof(name));
	return oid_of(b, "sc", sc, name, sc_index(b, sc));
}

static void ssd_name(const struct brick *b, unsigned n, char *out, size_t cap)
{
	/* a SAS WWN: NAA 5, an OUI-like prefix and 36 bits of the identity */
	snprintf(out, cap, "wwn-0x5000c5%010" PRIx64, hash_of(b->c, "ssd-wwn", n, 7) & (uint64_t)0xffffffffffu);
}

/* ---- tags on components (the records are the model's: xms_model.h) ---- */

/* the tag kind of a component kind; -1: one lunlab does not let be tagged */
static int tag_kind_of(const char *what)
{
	return strcmp(what, "brick") == 0 ? XMS_TAG_BRICK
	       : strcmp(what, "sc") == 0  ? XMS_TAG_SC
	       : strcmp(what, "ssd") == 0 ? XMS_TAG_SSD
	       : strcmp(what, "bbu") == 0 ? XMS_TAG_BBU
					  : -1;
}

static struct xms_inv_tagged *tagged_of(uint64_t cluster, int kind, unsigned n)
{
	for (size_t i = 0; kind >= 0 && i < g_xms.inv_tagged.n; i++) {
		struct xms_inv_tagged *t = &g_xms.inv_tagged.v[i];
		if (t->cluster == cluster && t->kind == kind && t->n == n)
			return t;
	}
	return NULL;
}

/* Component n of kind k in brick b: its name, index and guid into out
 * (cluster and n too); false: b has no such component. */
static bool inv_ref_of(const struct brick *b, enum xms_tag_kind k, unsigned n, struct xms_inv_ref *out)
{
	const char *what = k == XMS_TAG_BRICK ? "brick" : k == XMS_TAG_SC ? "sc" : k == XMS_TAG_SSD ? "ssd" : "bbu";
	unsigned count = k == XMS_TAG_BRICK ? 1 : k == XMS_TAG_SC ? XMS_INV_SCS : k == XMS_TAG_SSD ? b->ssds : XMS_INV_BBUS;

	if (n < 1 || n > count)
		return false;
	out->cluster = b->c->index;
	out->kind = k;
	out->n = n;
	switch (k) {
	case XMS_TAG_BRICK:
		snprintf(out->name, sizeof(out->name), "X1");
		out->index = brick_index(b);
		break;
	case XMS_TAG_SC:
		sc_name(n, out->name, sizeof(out->name));
		out->index = sc_index(b, n);
		break;
	case XMS_TAG_SSD:
		ssd_name(b, n, out->name, sizeof(out->name));
		out->index = b->ssd_base + n;
		break;
	default:
		snprintf(out->name, sizeof(out->name), "X1-BBU%u", n);
		out->index = b->pos * XMS_INV_BBUS + n;
		break;
	}
	guid_of(b->c, what, n, out->guid);
	return true;
}

bool xms_inv_lookup(enum xms_tag_kind k, uint64_t cluster, const char *name, uint64_t index, struct xms_inv_ref *out)
{
	struct brick *bs;
	size_t nb = bricks_of(&bs);
	bool found = false;

	/* the targets: one per portal, every cluster's (xms_ports.c) */
	for (int t = 0; k == XMS_TAG_TARGET && !found && t < g_target.nportals; t++) {
		out->cluster = 0;
		out->kind = k;
		out->n = (unsigned)t + 1;
		out->index = (uint64_t)t + 1;
		xms_inv_target_name(t, out->name, sizeof(out->name));
		xms_target_guid(out->guid, t);
		found = name ? strcmp(out->name, name) == 0 : out->index == index;
	}
	for (size_t i = 0; !found && k != XMS_TAG_TARGET && xms_tag_kind_inventory(k) && i < nb; i++) {
		const struct brick *b = &bs[i];
		for (unsigned n = 1; !found && inv_ref_of(b, k, n, out); n++)
			found = name ? (!cluster || cluster == b->c->index) && strcmp(out->name, name) == 0
				     : out->index == index;
	}
	free(bs);
	return found;
}

struct xms_attrs *xms_inv_tags_of(const struct xms_inv_ref *r, bool make)
{
	struct xms_inv_tagged *t = tagged_of(r->cluster, (int)r->kind, r->n);

	if (!t && make && (t = xms_inv_tagged_add(&g_xms))) {
		t->cluster = r->cluster;
		t->kind = (uint8_t)r->kind;
		t->n = r->n;
		snprintf(t->name, sizeof(t->name), "%s", r->name);
		snprintf(t->obj_guid, sizeof(t->obj_guid), "%s", r->guid);
		t->obj_index = r->index;
	}
	return t ? &t->attrs : NULL;
}

void xms_inv_target_tags(int target, struct json_object *o)
{
	struct xms_inv_tagged *t = tagged_of(0, XMS_TAG_TARGET, (unsigned)target + 1);

	if (t)
		xms_tag_list_show(&t->attrs, o);
	else
		json_object_object_add(o, "tag-list", json_object_new_array());
}

/* the properties every component has; name, index, guid, its identity */
static struct json_object *component(const struct brick *b, const char *what, unsigned n, const char *name,
				     uint64_t index, const char *id_key)
{
	struct json_object *o = json_object_new_object();
	char guid[XMS_GUID_LEN + 1];
	struct xms_inv_tagged *t = tagged_of(b->c->index, tag_kind_of(what), n);

	guid_of(b->c, what, n, guid);
	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "index", json_object_new_int64((int64_t)index));
	json_object_object_add(o, "guid", json_object_new_string(guid));
	if (id_key)
		json_object_object_add(o, id_key, xms_oid(guid, name, index));
	json_object_object_add(o, "sys-id", xms_cluster_oid(b->c));
	json_object_object_add(o, "brick-id", brick_oid(b));
	if (t) {
		/* the record follows the object's index and guid as shown (they
		 * derive from the clusters' order and names) */
		if (t->obj_index != index || strcmp(t->obj_guid, guid) != 0) {
			t->obj_index = index;
			snprintf(t->obj_guid, sizeof(t->obj_guid), "%s", guid);
			xms_model_changed(&g_xms, XMS_KIND_INV_TAGGED, t->index);
		}
		xms_tag_list_show(&t->attrs, o);
	} else {
		json_object_object_add(o, "tag-list", json_object_new_array());
	}
	return o;
}

/* serial-number, part-number, model-name, firmware: lunlab's own (no
 * vendor's part numbers are claimed) */
static void fru(struct json_object *o, const struct brick *b, const char *what, unsigned n, const char *kind,
		bool failed_now)
{
	char serial[32], part[48], model[64];

	serial_of(b->c, what, n, "LL", serial, sizeof(serial));
	snprintf(part, sizeof(part), "LL-%s-%s", b->profile_up[0] ? b->profile_up : "BRICK", kind);
	snprintf(model, sizeof(model), "lunlab %s %s", b->profile_up[0] ? b->profile_up : "brick", kind);
	json_object_object_add(o, "serial-number", json_object_new_string(serial));
	json_object_object_add(o, "part-number", json_object_new_string(part));
	json_object_object_add(o, "model-name", json_object_new_string(model));
	json_object_object_add(o, "fw-version", json_object_new_string(LUNLAB_VERSION_STRING));
	json_object_object_add(o, "hw-revision", json_object_new_string("A01"));
	json_object_object_add(o, "fw-version-error", json_object_new_string("no_error"));
	json_object_object_add(o, "enabled-state", json_object_new_string(failed_now ? "disabled" : "enabled"));
	json_object_object_add(o, "fru-lifecycle-state", json_object_new_string(failed_now ? "failed" : "healthy"));
	json_object_object_add(o, "fru-replace-failure-reason", json_object_new_string(""));
	json_object_object_add(o, "identify-led", json_object_new_string("off"));
	json_object_object_add(o, "status-led", json_object_new_string(failed_now ? "on" : "off"));
	json_object_object_add(o, "obj-severity", json_object_new_string(failed_now ? "major" : "information"));
}

/* ---- the types ---- */

static void list_bricks(struct xms_ctx *x, struct json_object *arr)
{
	struct brick *bs;
	size_t n = bricks_of(&bs);

	(void)x;
	for (size_t i = 0; i < n; i++) {
		const struct brick *b = &bs[i];
		struct json_object *o = component(b, "brick", 1, "X1", brick_index(b), NULL);
		struct json_object *nodes = json_object_new_array(), *ups = json_object_new_array();
		struct json_object *slots = json_object_new_array(), *jbods = json_object_new_array();
		char guid[XMS_GUID_LEN + 1];
		bool any_failed = false;

		guid_of(b->c, "brick", 1, guid);
		json_object_object_add(o, "brick-guid", json_object_new_string(guid));
		json_object_object_add(o, "index-in-system", json_object_new_int(1));
		json_object_object_add(o, "num-of-nodes", json_object_new_int(XMS_INV_SCS));
		json_object_object_add(o, "num-of-ssds", json_object_new_int64(b->ssds));
		for (unsigned sc = 1; sc <= XMS_INV_SCS; sc++) {
			json_object_array_add(nodes, sc_oid(b, sc));
			any_failed |= xms_inv_is_failed(b->c->index, XMS_INV_SC, sc);
		}
		for (unsigned k = 1; k <= XMS_INV_BBUS; k++) {
			char nm[16];
			snprintf(nm, sizeof(nm), "X1-BBU%u", k);
			json_object_array_add(ups, oid_of(b, "bbu", k, nm, b->pos * XMS_INV_BBUS + k));
		}
		/* XtremIO.Utils reads each slot's object id at [3] */
		for (unsigned k = 1; k <= b->ssds; k++) {
			struct json_object *slot = json_object_new_array();
			char nm[40];
			bool f = xms_inv_is_failed(b->c->index, XMS_INV_SSD, k);

			any_failed |= f;
			ssd_name(b, k, nm, sizeof(nm));
			json_object_array_add(slot, json_object_new_int((int)k - 1));
			json_object_array_add(slot, json_object_new_string(f ? "failed" : "ok"));
			json_object_array_add(slot, json_object_new_string(nm + 6));
			json_object_array_add(slot, oid_of(b, "ssd", k, nm, b->ssd_base + k));
			json_object_array_add(slots, slot);
		}
		json_object_array_add(jbods, dae_oid(b));
		json_object_object_add(o, "node-list", nodes);
		json_object_object_add(o, "ups-list", ups);
		json_object_object_add(o, "jbod-list", jbods);
		json_object_object_add(o, "ssd-slot-array", slots);
		json_object_object_add(o, "rg-id", oid_of(b, "dpg", 1, "X1-DPG", brick_index(b)));
		json_object_object_add(o, "brick-state", json_object_new_string("in_sys"));
		json_object_object_add(o, "obj-severity", json_object_new_string(any_failed ? "major" : "information"));
		json_object_array_add(arr, o);
	}
	free(bs);
}

static void list_scs(struct xms_ctx *x, struct json_object *arr)
{
	struct brick *bs;
	size_t n = bricks_of(&bs);

	(void)x;
	if (!started)
		started = (int64_t)time(NULL);
	for (size_t i = 0; i < n; i++) {
		const struct brick *b = &bs[i];
		for (unsigned sc = 1; sc <= XMS_INV_SCS; sc++) {
			bool f = xms_inv_is_failed(b->c->index, XMS_INV_SC, sc);
			const char *health = f ? "failed" : "healthy";
			struct json_object *o, *disks = json_object_new_array(), *ups = json_object_new_array();
			char name[16], guid[XMS_GUID_LEN + 1];

			sc_name(sc, name, sizeof(name));
			o = component(b, "sc", sc, name, sc_index(b, sc), "node-id");
			fru(o, b, "sc", sc, "storage controller", f);
			guid_of(b->c, "sc", sc, guid);
			json_object_object_add(o, "node-guid", json_object_new_string(guid));
			json_object_object_add(o, "index-in-brick", json_object_new_int((int)sc));
			json_object_object_add(o, "sw-version", json_object_new_string(XMS_SYS_SW_VERSION));
			json_object_object_add(o, "bios-fw-version", json_object_new_string(LUNLAB_VERSION_STRING));
			json_object_object_add(o, "node-health-state", json_object_new_string(health));
			json_object_object_add(o, "current-health-state", json_object_new_string(health));
			json_object_object_add(o, "backend-storage-controller-state", json_object_new_string(health));
			json_object_object_add(o, "node-state", json_object_new_string(f ? "failed" : "active"));
			json_object_object_add(o, "node-stop-reason", json_object_new_string(f ? "lunlab_fault" : "none"));
			json_object_object_add(o, "node-stop-type", json_object_new_string(f ? "failed" : "none"));
			json_object_object_add(o, "iscsi-daemon-state", json_object_new_string(f ? "down" : "up"));
			json_object_object_add(o, "journal-state", json_object_new_string(f ? "down" : "ready"));
			json_object_object_add(o, "sc-start-timestamp", json_object_new_int64(started));
			for (unsigned d = 1; d <= XMS_INV_LOCAL_DISKS_PER_SC; d++) {
				char dn[40];
				unsigned k = (sc - 1) * XMS_INV_LOCAL_DISKS_PER_SC + d;
				snprintf(dn, sizeof(dn), "X1-SC%u-LocalDisk%u", sc, d);
				json_object_array_add(disks, oid_of(b, "ld", k, dn,
								    b->pos * XMS_INV_SCS * XMS_INV_LOCAL_DISKS_PER_SC + k));
			}
			json_object_object_add(o, "local-disk-list", disks);
			char bn[16];
			snprintf(bn, sizeof(bn), "X1-BBU%u", sc);
			json_object_array_add(ups, oid_of(b, "bbu", sc, bn, b->pos * XMS_INV_BBUS + sc));
			json_object_object_add(o, "monitored-ups-list", ups);
			json_object_object_add(o, "node-psu-list", json_object_new_array());
			json_object_object_add(o, "rg-id", oid_of(b, "dpg", 1, "X1-DPG", brick_index(b)));
			json_object_array_add(arr, o);
		}
	}
	free(bs);
}

/* the target process's CPU, percent of one core over the last interval
 * of at least XMS_PERF_MIN_INTERVAL_MS (the model lock serialises lists) */
static double process_cpu_percent(void)
{
	static double last_cpu, last_wall, pct;
	struct timespec ts;
	double wall, cpu = proc_cpu_seconds();

	clock_gettime(CLOCK_MONOTONIC, &ts);
	wall = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	if (!last_wall || wall - last_wall >= XMS_PERF_MIN_INTERVAL_MS / 1000.0) {
		pct = last_wall ? 100.0 * (cpu - last_cpu) / (wall - last_wall) : 0;
		last_cpu = cpu;
		last_wall = wall;
	}
	return pct;
}

static void list_xenvs(struct xms_ctx *x, struct json_object *arr)
{
	struct brick *bs;
	size_t n = bricks_of(&bs);
	double share = process_cpu_percent() / (double)(XMS_INV_SCS * XMS_INV_XENVS_PER_SC);

	(void)x;
	for (size_t i = 0; i < n; i++) {
		const struct brick *b = &bs[i];
		for (unsigned sc = 1; sc <= XMS_INV_SCS; sc++) {
			bool f = xms_inv_is_failed(b->c->index, XMS_INV_SC, sc);
			for (unsigned e = 1; e <= XMS_INV_XENVS_PER_SC; e++) {
				unsigned k = (sc - 1) * XMS_INV_XENVS_PER_SC + e;
				char name[24];
				struct json_object *o;

				snprintf(name, sizeof(name), "X1-SC%u-E%u", sc, e);
				o = component(b, "xenv", k, name, b->pos * XMS_INV_SCS * XMS_INV_XENVS_PER_SC + k, "xenv-id");
				json_object_object_add(o, "node-id", sc_oid(b, sc));
				json_object_object_add(o, "xenv-state", json_object_new_string(f ? "down" : "up"));
				json_object_object_add(o, "cpu-usage",
						       json_object_new_double(f ? 0 : (double)(int64_t)(share * 10 + 0.5) / 10));
				json_object_object_add(o, "num-of-mdls", json_object_new_int(f ? 0 : 1));
				json_object_object_add(o, "obj-severity", json_object_new_string(f ? "major" : "information"));
				json_object_array_add(arr, o);
			}
		}
	}
	free(bs);
}

static void list_local_disks(struct xms_ctx *x, struct json_object *arr)
{
	struct brick *bs;
	size_t n = bricks_of(&bs);

	(void)x;
	for (size_t i = 0; i < n; i++) {
		const struct brick *b = &bs[i];
		for (unsigned sc = 1; sc <= XMS_INV_SCS; sc++) {
			for (unsigned d = 1; d <= XMS_INV_LOCAL_DISKS_PER_SC; d++) {
				unsigned k = (sc - 1) * XMS_INV_LOCAL_DISKS_PER_SC + d;
				char name[32], uid[128], serial[32];
				struct json_object *o;

				snprintf(name, sizeof(name), "X1-SC%u-LocalDisk%u", sc, d);
				o = component(b, "ld", k, name, b->pos * XMS_INV_SCS * XMS_INV_LOCAL_DISKS_PER_SC + k,
					      "local-disk-id");
				fru(o, b, "ld", k, "local disk", false);
				serial_of(b->c, "ld", k, "LL", serial, sizeof(serial));
				/* NAME_[WWN]_VENDOR_[SERIAL]: XtremIO.Utils splits it at '_' */
				snprintf(uid, sizeof(uid), "%s_[5000c5%010" PRIx64 "]_LUNLAB_[%s]", name,
					 hash_of(b->c, "ld-wwn", k, 7) & (uint64_t)0xffffffffffu, serial);
				json_object_object_add(o, "local-disk-uid", json_object_new_string(uid));
				json_object_object_add(o, "node-id", sc_oid(b, sc));
				json_object_object_add(o, "slot-num", json_object_new_int((int)d - 1));
				json_object_object_add(o, "local-disk-type", json_object_new_string("ssd"));
				json_object_object_add(o, "local-disk-expected-type", json_object_new_string("ssd"));
				json_object_object_add(o, "local-disk-purpose", json_object_new_string(d == 1 ? "boot" : "journal"));
				json_object_object_add(o, "disk-failure", json_object_new_string("none"));
				json_object_object_add(o, "num-bad-sectors", json_object_new_int(0));
				json_object_object_add(o, "encryption-status", json_object_new_string("unsupported"));
				json_object_array_add(arr, o);
			}
		}
	}
	free(bs);
}

/* Nominal power figures (nothing to measure): a BBU carries half of a
 * brick's nominal draw. */
#define BBU_POWER_W 244
#define BBU_LOAD_PCT 21
#define NOMINAL_TEMP_C 23

static void list_bbus(struct xms_ctx *x, struct json_object *arr)
{
	struct brick *bs;
	size_t n = bricks_of(&bs);

	(void)x;
	for (size_t i = 0; i < n; i++) {
		const struct brick *b = &bs[i];
		for (unsigned k = 1; k <= XMS_INV_BBUS; k++) {
			char name[16];
			struct json_object *o, *mon = json_object_new_array();

			snprintf(name, sizeof(name), "X1-BBU%u", k);
			o = component(b, "bbu", k, name, b->pos * XMS_INV_BBUS + k, "ups-id");
			fru(o, b, "bbu", k, "BBU", false);
			json_object_object_add(o, "index-in-brick", json_object_new_int((int)k));
			json_object_object_add(o, "power-feed", json_object_new_string(k == 1 ? "PWR-A" : "PWR-B"));
			json_object_object_add(o, "power", json_object_new_int(BBU_POWER_W));
			json_object_object_add(o, "real-power", json_object_new_int(BBU_POWER_W));
			json_object_object_add(o, "avg-daily-temp", json_object_new_int(NOMINAL_TEMP_C));
			/* Telegraf decodes these with `json:",string"` as booleans */
			json_object_object_add(o, "ups-need-battery-replacement", json_object_new_string("false"));
			json_object_object_add(o, "is-low-battery-no-input", json_object_new_string("false"));
			json_object_object_add(o, "is-low-battery-has-input", json_object_new_string("false"));
			json_object_object_add(o, "is-low-battery-runtime", json_object_new_string("false"));
			json_object_object_add(o, "is-bypass-active", json_object_new_string("false"));
			json_object_object_add(o, "is-ups-overload", json_object_new_string("false"));
			json_object_object_add(o, "ups-battery-charge-in-percent", json_object_new_int(100));
			json_object_object_add(o, "ups-load-in-percent", json_object_new_int(BBU_LOAD_PCT));
			json_object_object_add(o, "ups-status", json_object_new_string("on_line"));
			json_object_object_add(o, "ups-conn-state", json_object_new_string("connected"));
			json_object_object_add(o, "ups-alarm", json_object_new_string("none"));
			json_object_array_add(mon, sc_oid(b, k));
			json_object_object_add(o, "monitoring-nodes-obj-id-list", mon);
			json_object_array_add(arr, o);
		}
	}
	free(bs);
}

static void list_dae_lccs(struct xms_ctx *x, struct json_object *arr)
{
	struct brick *bs;
	size_t n = bricks_of(&bs);

	(void)x;
	for (size_t i = 0; i < n; i++) {
		const struct brick *b = &bs[i];
		for (unsigned k = 1; k <= XMS_INV_DAE_LCCS; k++) {
			char name[24], id[2] = { (char)('A' + k - 1), 0 };
			struct json_object *o;

			snprintf(name, sizeof(name), "X1-DAE-LCC-%s", id);
			o = component(b, "lcc", k, name, b->pos * XMS_INV_DAE_LCCS + k, "jbod-controller-id");
			fru(o, b, "lcc", k, "DAE controller", false);
			json_object_object_add(o, "jbod-id", dae_oid(b));
			json_object_object_add(o, "identification", json_object_new_string(id));
			json_object_object_add(o, "location", json_object_new_string(k == 1 ? "top" : "bottom"));
			json_object_object_add(o, "lcc-health-level", json_object_new_string("healthy"));
			json_object_object_add(o, "jbod-controller-connectivity-state", json_object_new_string("connected"));
			json_object_object_add(o, "sas-connectivity-state", json_object_new_string("healthy"));
			json_object_object_add(o, "failure-reason", json_object_new_string("none"));
			json_object_array_add(arr, o);
		}
	}
	free(bs);
}

static void list_dae_psus(struct xms_ctx *x, struct json_object *arr)
{
	struct brick *bs;
	size_t n = bricks_of(&bs);

	(void)x;
	for (size_t i = 0; i < n; i++) {
		const struct brick *b = &bs[i];
		for (unsigned k = 1; k <= XMS_INV_DAE_PSUS; k++) {
			char name[24];
			struct json_object *o;

			snprintf(name, sizeof(name), "X1-DAE-PSU%u", k);
			o = component(b, "dpsu", k, name, b->pos * XMS_INV_DAE_PSUS + k, "jbod-psu-id");
			fru(o, b, "dpsu", k, "DAE PSU", false);
			json_object_object_add(o, "jbod-id", dae_oid(b));
			json_object_object_add(o, "power-feed", json_object_new_string(k == 1 ? "PWR-A" : "PWR-B"));
			json_object_object_add(o, "location", json_object_new_string(k == 1 ? "left" : "right"));
			json_object_object_add(o, "identification", json_object_new_string(k == 1 ? "L" : "R"));
			json_object_object_add(o, "input", json_object_new_string("on"));
			json_object_object_add(o, "power-failure", json_object_new_string("no"));
			json_object_array_add(arr, o);
		}
	}
	free(bs);
}

size_t xms_inv_units(struct xms_inv_unit **out)
{
	struct brick *bs;
	size_t n = bricks_of_w(&bs, false), total = 0, k = 0;
	struct xms_inv_unit *u;

	*out = NULL;
	for (size_t i = 0; i < n; i++)
		total += XMS_INV_SCS * XMS_INV_XENVS_PER_SC + bs[i].ssds;
	u = total ? calloc(total, sizeof(*u)) : NULL;
	for (size_t i = 0; u && i < n; i++) {
		const struct brick *b = &bs[i];
		unsigned working = 0;

		for (unsigned d = 1; d <= b->ssds; d++)
			working += !xms_inv_is_failed(b->c->index, XMS_INV_SSD, d);
		for (unsigned sc = 1; sc <= XMS_INV_SCS; sc++)
			for (unsigned e = 1; e <= XMS_INV_XENVS_PER_SC; e++, k++) {
				unsigned x = (sc - 1) * XMS_INV_XENVS_PER_SC + e;

				u[k].cluster = b->c->index;
				u[k].index = b->pos * XMS_INV_SCS * XMS_INV_XENVS_PER_SC + x;
				guid_of(b->c, "xenv", x, u[k].guid);
				snprintf(u[k].name, sizeof(u[k].name), "X1-SC%u-E%u", sc, e);
				u[k].failed = xms_inv_is_failed(b->c->index, XMS_INV_SC, sc);
			}
		for (unsigned d = 1; d <= b->ssds; d++, k++) {
			u[k].ssd = true;
			u[k].cluster = b->c->index;
			u[k].index = b->ssd_base + d;
			guid_of(b->c, "ssd", d, u[k].guid);
			ssd_name(b, d, u[k].name, sizeof(u[k].name));
			u[k].failed = xms_inv_is_failed(b->c->index, XMS_INV_SSD, d);
			u[k].working = working;
		}
	}
	free(bs);
	*out = u;
	return u ? total : 0;
}

/* the SSDs' I/O rates: one reading per cluster (xms_perf.h), each SSD
 * showing its even share */
struct ssd_perf {
	uint64_t cluster;
	struct xms_perf_sample smp;
};
static struct ssd_perf *perfs;
static size_t nperfs;

static struct xms_perf_sample *ssd_sample(uint64_t cluster)
{
	struct ssd_perf *p;

	for (size_t i = 0; i < nperfs; i++)
		if (perfs[i].cluster == cluster)
			return &perfs[i].smp;
	p = realloc(perfs, (nperfs + 1) * sizeof(*perfs));
	if (!p)
		return NULL;
	perfs = p;
	memset(&perfs[nperfs], 0, sizeof(perfs[0]));
	perfs[nperfs].cluster = cluster;
	return &perfs[nperfs++].smp;
}

static uint64_t prop_u64(struct json_object *o, const char *k)
{
	struct json_object *v;

	return json_object_object_get_ex(o, k, &v) ? strtoull(json_object_get_string(v), NULL, 10) : 0;
}

/* endurance: 3 drive writes per day for 5 years, a common enterprise SSD
 * rating (lunlab's assumption; no profile says) */
#define SSD_ENDURANCE_DRIVE_WRITES (3ull * 365 * 5)

static void list_ssds(struct xms_ctx *x, struct json_object *arr)
{
	static const char *const rates[] = { "rd-iops", "wr-iops", "iops", "rd-bw", "wr-bw", "bw" };
	struct brick *bs;
	size_t n = bricks_of(&bs);
	uint64_t now_ms = xms_perf_now_ms();

	(void)x;
	for (size_t i = 0; i < n; i++) {
		const struct brick *b = &bs[i];
		struct xms_perf_counters pc = { 0 };
		struct xms_perf_sample *smp = ssd_sample(b->c->index);
		struct json_object *perf = json_object_new_object();
		unsigned working = 0;
		/* raw size: the profiles' usable capacity is 3/4 of raw
		 * (x1.yaml: 7.5 of 10 TB; x2.yaml: 7.2 TB raw x 0.75) */
		uint64_t ssd_bytes = b->ssds ? b->f.capacity_bytes / 3 * 4 / b->ssds : 0;
		uint64_t useful = b->ssds ? b->f.capacity_bytes / b->ssds : 0;

		for (unsigned k = 1; k <= b->ssds; k++)
			working += !xms_inv_is_failed(b->c->index, XMS_INV_SSD, k);
		for (size_t v = 0; v < g_xms.volumes.n; v++)
			if (g_xms.volumes.v[v].cluster == b->c->index && g_xms.volumes.v[v].lu)
				xms_perf_add(&pc, g_xms.volumes.v[v].lu->stats);
		if (smp)
			xms_perf_show(smp, &pc, now_ms, perf);
		for (unsigned k = 1; k <= b->ssds; k++) {
			bool f = xms_inv_is_failed(b->c->index, XMS_INV_SSD, k);
			char name[40];
			struct json_object *o;
			uint64_t written = working ? pc.wr_bytes / working : 0;
			uint64_t endurance = ssd_bytes * SSD_ENDURANCE_DRIVE_WRITES;
			int left = endurance ? (int)(100 - (written >= endurance ? 100 : written * 100 / endurance)) : 100;

			ssd_name(b, k, name, sizeof(name));
			o = component(b, "ssd", k, name, b->ssd_base + k, "ssd-id");
			fru(o, b, "ssd", k, "SSD", f);
			json_object_object_add(o, "ssd-uid", json_object_new_string(name + 6));
			json_object_object_add(o, "slot-num", json_object_new_int((int)k - 1));
			json_object_object_add(o, "rg-id", oid_of(b, "dpg", 1, "X1-DPG", brick_index(b)));
			/* KiB; Telegraf decodes ssd-size and ssd-space-in-use with `json:",string"` */
			json_object_object_add(o, "ssd-size", xms_kb(ssd_bytes));
			json_object_object_add(o, "ssd-size-in-kb", json_object_new_int64((int64_t)(ssd_bytes / 1024)));
			json_object_object_add(o, "useful-ssd-space", xms_kb(useful));
			json_object_object_add(o, "ssd-space-in-use", xms_kb(f || !working ? 0 : b->f.used_bytes / working));
			json_object_object_add(o, "percent-endurance-remaining", json_object_new_int(left));
			json_object_object_add(o, "percent-endurance-remaining-level",
					       json_object_new_string(left > 10 ? "healthy" : "minor"));
			json_object_object_add(o, "num-bad-sectors", json_object_new_int(0));
			json_object_object_add(o, "diagnostic-health-state", json_object_new_string(f ? "failed" : "healthy"));
			json_object_object_add(o, "health-state", json_object_new_string(f ? "failed" : "healthy"));
			json_object_object_add(o, "ssd-failure-reason", json_object_new_string(f ? "lunlab_fault" : "none"));
			json_object_object_add(o, "ssd-rg-state", json_object_new_string(f ? "failed" : "in_rg"));
			json_object_object_add(o, "ssd-link1-health-state", json_object_new_string(f ? "failed" : "healthy"));
			json_object_object_add(o, "ssd-link2-health-state", json_object_new_string(f ? "failed" : "healthy"));
			json_object_object_add(o, "swap-led", json_object_new_string("off"));
			json_object_object_add(o, "encryption-status", json_object_new_string("unsupported"));
			json_object_object_add(o, "last-io-error-type", json_object_new_string("none"));
			for (size_t r = 0; r < sizeof(rates) / sizeof(rates[0]); r++)
				json_object_object_add(o, rates[r],
						       xms_num_string(f || !working ? 0 : prop_u64(perf, rates[r]) / working));
			json_object_array_add(arr, o);
		}
		json_object_put(perf);
	}
	free(bs);
}

/* ---- targets: which controller, and failing ---- */

int xms_inv_target_sc(int target)
{
	return target % XMS_INV_SCS + 1;
}

void xms_inv_target_name(int target, char *out, size_t cap)
{
	snprintf(out, cap, "X1-SC%d-iscsi%d", xms_inv_target_sc(target), target / XMS_INV_SCS + 1);
}

void xms_inv_target_ids(const struct xms_cluster *c, int target, struct json_object *o)
{
	struct brick *bs;
	size_t n = bricks_of(&bs);

	for (size_t i = 0; i < n; i++)
		if (bs[i].c == c) {
			json_object_object_add(o, "brick-id", brick_oid(&bs[i]));
			json_object_object_add(o, "node-id", sc_oid(&bs[i], (unsigned)xms_inv_target_sc(target)));
		}
	free(bs);
}

unsigned xms_inv_find(uint64_t cluster, enum xms_inv_component kind, const char *name)
{
	const struct xms_cluster *c = xms_cluster_get(&g_xms, cluster);
	struct brick *bs;
	size_t n = bricks_of(&bs);
	unsigned found = 0, count = 0;
	char *end;
	unsigned long num = strtoul(name, &end, 10);

	for (size_t i = 0; c && i < n; i++)
		if (bs[i].c == c)
			count = kind == XMS_INV_SSD ? bs[i].ssds : XMS_INV_SCS;
	if (*name >= '1' && *name <= '9' && !*end && num <= count)
		found = (unsigned)num;
	for (unsigned k = 1; !found && c && k <= count; k++) {
		char nm[40];
		for (size_t i = 0; i < n; i++)
			if (bs[i].c == c) {
				if (kind == XMS_INV_SSD)
					ssd_name(&bs[i], k, nm, sizeof(nm));
				else
					sc_name(k, nm, sizeof(nm));
			}
		if (strcmp(nm, name) == 0)
			found = k;
	}
	free(bs);
	return found;
}

/* a failed controller's ports go dark; they come back when no failed
 * controller of that number (in any cluster: the portals serve them all)
 * holds them */
static void sc_ports(unsigned sc, bool down)
{
	char err[160];

	for (int t = 0; t < g_target.nportals; t++) {
		if ((unsigned)xms_inv_target_sc(t) != sc)
			continue;
		if (!down)
			for (size_t i = 0; i < nfailed; i++)
				if (failed[i].kind == XMS_INV_SC && failed[i].n == sc)
					goto next;
		if (portal_set_down(t, down, err, sizeof(err)) < 0)
			target_log("API: storage controller X1-SC%u: %s", sc, err);
next:;
	}
}

/* component n of cluster: its name, inventory index and guid; false when
 * the cluster has no such component */
static bool find_component(const struct xms_cluster *c, enum xms_inv_component kind, unsigned n, char name[40],
		      uint64_t *index, char guid[XMS_GUID_LEN + 1])
{
	struct brick *bs;
	size_t nb = bricks_of(&bs);

	*index = 0;
	for (size_t i = 0; c && i < nb; i++) {
		if (bs[i].c != c)
			continue;
		if (kind == XMS_INV_SSD && n >= 1 && n <= bs[i].ssds) {
			ssd_name(&bs[i], n, name, 40);
			*index = bs[i].ssd_base + n;
			guid_of(c, "ssd", n, guid);
		} else if (kind == XMS_INV_SC && n >= 1 && n <= XMS_INV_SCS) {
			sc_name(n, name, 40);
			*index = sc_index(&bs[i], n);
			guid_of(c, "sc", n, guid);
		}
	}
	free(bs);
	return *index != 0;
}

/* n of cluster into the failed set (no room: -1 with the reason) */
static int mark_failed(uint64_t cluster, enum xms_inv_component kind, unsigned n, char *err, size_t errlen)
{
	if (nfailed == XMS_INV_FAILED_MAX) {
		snprintf(err, errlen, "%d components are failed already", XMS_INV_FAILED_MAX);
		return -1;
	}
	failed[nfailed].cluster = cluster;
	failed[nfailed].kind = kind;
	failed[nfailed].n = n;
	nfailed++;
	return 0;
}

static void raise_failed(const struct xms_cluster *c, enum xms_inv_component kind, const char *name, uint64_t index,
			 const char *guid)
{
	struct xms_alert_obj o = { c->index, kind == XMS_INV_SSD ? "SSD" : "StorageController", name, index, guid };

	xms_alert_raise(kind == XMS_INV_SSD ? XMS_ALERT_SSD_FAILED : XMS_ALERT_SC_FAILED, &o, "%s %s of cluster %s failed",
			kind == XMS_INV_SSD ? "SSD" : "Storage controller", name, c->name);
}

int xms_inv_set_failed(uint64_t cluster, enum xms_inv_component kind, unsigned n, bool want_failed, char *err,
		       size_t errlen)
{
	struct xms_cluster *c = xms_cluster_get(&g_xms, cluster);
	char name[40] = "", guid[XMS_GUID_LEN + 1];
	uint64_t index;
	bool was = xms_inv_is_failed(cluster, kind, n);

	if (!find_component(c, kind, n, name, &index, guid)) {
		snprintf(err, errlen, "no %s %u in cluster %s", kind == XMS_INV_SSD ? "SSD" : "storage controller", n,
			 c ? c->name : "?");
		return -1;
	}
	if (was == want_failed)
		return 0;
	if (want_failed) {
		if (mark_failed(cluster, kind, n, err, errlen) < 0)
			return -1;
	} else {
		for (size_t i = 0; i < nfailed; i++)
			if (failed[i].cluster == cluster && failed[i].kind == kind && failed[i].n == n) {
				failed[i] = failed[--nfailed];
				break;
			}
	}
	/* --state-dir: kept until it is restored (xms_hw_store.h) */
	xms_hw_store_put(c->name, cluster, kind, n, want_failed);
	const char *cls = kind == XMS_INV_SSD ? "SSD" : "StorageController";
	enum xms_alert_kind ak = kind == XMS_INV_SSD ? XMS_ALERT_SSD_FAILED : XMS_ALERT_SC_FAILED;
	if (want_failed) {
		raise_failed(c, kind, name, index, guid);
		xms_event(kind == XMS_INV_SSD ? XMS_SEV_MAJOR : XMS_SEV_CRITICAL, "hardware", cls, name,
			  kind == XMS_INV_SSD ? "LL0601" : "LL0611", "%s %s of cluster %s failed (a lunlab hardware fault)",
			  kind == XMS_INV_SSD ? "SSD" : "Storage controller", name, c->name);
	} else {
		xms_alert_clear(ak, cluster, name);
		xms_event(XMS_SEV_INFO, "hardware", cls, name, kind == XMS_INV_SSD ? "LL0602" : "LL0612",
			  "%s %s of cluster %s restored", kind == XMS_INV_SSD ? "SSD" : "Storage controller", name,
			  c->name);
	}
	if (kind == XMS_INV_SC)
		sc_ports(n, want_failed);
	return 0;
}

int xms_inv_restore_failed(uint64_t cluster, enum xms_inv_component kind, unsigned n, char *err, size_t errlen)
{
	struct xms_cluster *c = xms_cluster_get(&g_xms, cluster);
	char name[40] = "", guid[XMS_GUID_LEN + 1];
	uint64_t index;

	if (!find_component(c, kind, n, name, &index, guid)) {
		snprintf(err, errlen, "no %s %u in cluster %s", kind == XMS_INV_SSD ? "SSD" : "storage controller", n,
			 c ? c->name : "?");
		return -1;
	}
	if (xms_inv_is_failed(cluster, kind, n))
		return 0;
	if (mark_failed(cluster, kind, n, err, errlen) < 0)
		return -1;
	/* its alert came back outstanding with the stored alerts (the same
	 * index and raise-time); raised anew only if the bound had pushed it
	 * out.  No event: the failure is not new. */
	raise_failed(c, kind, name, index, guid);
	if (kind == XMS_INV_SC)
		sc_ports(n, true);
	return 0;
}

struct json_object *xms_inv_failed_json(void)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < nfailed; i++) {
		const struct xms_cluster *c = xms_cluster_get(&g_xms, failed[i].cluster);
		struct json_object *o = json_object_new_object();
		char name[40];
		struct brick *bs;
		size_t nb = bricks_of(&bs);

		name[0] = '\0';
		for (size_t k = 0; k < nb; k++)
			if (bs[k].c == c) {
				if (failed[i].kind == XMS_INV_SSD)
					ssd_name(&bs[k], failed[i].n, name, sizeof(name));
				else
					sc_name(failed[i].n, name, sizeof(name));
			}
		free(bs);
		json_object_object_add(o, "cluster", json_object_new_string(c ? c->name : ""));
		json_object_object_add(o, "component",
				       json_object_new_string(failed[i].kind == XMS_INV_SSD ? "ssd" : "storage-controller"));
		json_object_object_add(o, "name", json_object_new_string(name));
		json_object_object_add(o, "number", json_object_new_int((int)failed[i].n));
		json_object_array_add(a, o);
	}
	return a;
}

const struct xms_type xms_type_bricks = { .name = "bricks", .list = list_bricks };
const struct xms_type xms_type_scs = { .name = "storage-controllers", .list = list_scs };
const struct xms_type xms_type_xenvs = { .name = "xenvs", .list = list_xenvs };
const struct xms_type xms_type_local_disks = { .name = "local-disks", .list = list_local_disks };
const struct xms_type xms_type_bbus = { .name = "bbus", .list = list_bbus };
const struct xms_type xms_type_dae_lccs = { .name = "dae-controllers", .list = list_dae_lccs };
const struct xms_type xms_type_dae_psus = { .name = "dae-psus", .list = list_dae_psus };
const struct xms_type xms_type_ssds = { .name = "ssds", .list = list_ssds };
