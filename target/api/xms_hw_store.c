/* xms_hw_store.c — see xms_hw_store.h. */
#include "target/api/xms_hw_store.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/api/xms_common.h"
#include "target/api/xms_log_store.h"

static uint64_t id_of(uint64_t cluster, enum xms_inv_component kind, unsigned n)
{
	return cluster << 32 | (uint64_t)kind << 24 | (n & 0xffffffu);
}

void xms_hw_store_put(const char *cluster_name, uint64_t cluster, enum xms_inv_component kind, unsigned n,
		      bool failed)
{
	struct json_object *o;

	if (!xms_log_store_active())
		return;
	if (!failed) {
		xms_log_del(XMS_LOG_NS_HARDWARE, id_of(cluster, kind, n));
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "cluster", json_object_new_string(cluster_name));
	json_object_object_add(o, "component", json_object_new_string(kind == XMS_INV_SSD ? "ssd" : "storage-controller"));
	json_object_object_add(o, "number", json_object_new_int64(n));
	xms_log_put(XMS_LOG_NS_HARDWARE, id_of(cluster, kind, n), json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
}

/* the records, read first: failing a component saves its alert, which
 * the store's reader (holding the store) must not wait for */
struct hw_rec {
	char key[24];
	char cluster[XMS_NAME_MAX + 1];
	enum xms_inv_component kind;
	unsigned n;
};

struct load_ctx {
	struct hw_rec rec[XMS_INV_FAILED_MAX];
	size_t n;
	char *err;
	size_t errlen;
};

static int load_one(const char *key, const void *val, size_t len, void *arg)
{
	struct load_ctx *lc = arg;
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o = NULL, *v;
	struct hw_rec r;
	const char *bad = NULL;

	memset(&r, 0, sizeof(r));
	snprintf(r.key, sizeof(r.key), "%.20s", key);
	if (tok && len <= 4096)
		o = json_tokener_parse_ex(tok, val, (int)len);
	if (!o || !json_object_is_type(o, json_type_object) || json_tokener_get_parse_end(tok) != len)
		bad = "not a JSON object";
	else if (!json_object_object_get_ex(o, "cluster", &v) || !json_object_is_type(v, json_type_string) ||
		 json_object_get_string_len(v) < 1 || json_object_get_string_len(v) > XMS_NAME_MAX)
		bad = "cluster";
	else if (!json_object_object_get_ex(o, "component", &v) || !json_object_is_type(v, json_type_string) ||
		 (strcmp(json_object_get_string(v), "ssd") != 0 &&
		  strcmp(json_object_get_string(v), "storage-controller") != 0))
		bad = "component";
	else
		r.kind = json_object_get_string(v)[0] == 's' && json_object_get_string(v)[1] == 's' ? XMS_INV_SSD
												      : XMS_INV_SC;
	if (!bad && (!json_object_object_get_ex(o, "number", &v) || !json_object_is_type(v, json_type_int) ||
		     json_object_get_int64(v) < 1 || json_object_get_int64(v) > 0xffffff))
		bad = "number";
	if (!bad) {
		r.n = (unsigned)json_object_get_int64(v);
		json_object_object_get_ex(o, "cluster", &v);
		snprintf(r.cluster, sizeof(r.cluster), "%s", json_object_get_string(v));
		/* printed in a line if it is dropped: no control bytes */
		for (size_t i = 0; r.cluster[i]; i++)
			if ((unsigned char)r.cluster[i] < ' ' || (unsigned char)r.cluster[i] == 0x7f)
				bad = "cluster";
	}
	json_object_put(o);
	json_tokener_free(tok);
	if (bad) {
		snprintf(lc->err, lc->errlen, "hardware record %.20s: %s", key, bad);
		return -1;
	}
	if (lc->n == XMS_INV_FAILED_MAX) {
		snprintf(lc->err, lc->errlen, "hardware record %.20s: more than %d failed components stored", key,
			 XMS_INV_FAILED_MAX);
		return -1;
	}
	lc->rec[lc->n++] = r;
	return 0;
}

int xms_hw_store_load(char *err, size_t errlen)
{
	static struct load_ctx lc; /* 256 records: not on the stack */
	char why[160];

	memset(&lc, 0, sizeof(lc));
	lc.err = err;
	lc.errlen = errlen;
	err[0] = '\0';
	if (xms_log_each(XMS_LOG_NS_HARDWARE, load_one, &lc, err, errlen) != 0) {
		if (!err[0])
			snprintf(err, errlen, "the stored hardware faults could not be read");
		return -1;
	}
	for (size_t i = 0; i < lc.n; i++) {
		const struct hw_rec *r = &lc.rec[i];
		struct xms_cluster *c = xms_cluster_by_name(&g_xms, r->cluster);

		if (!c || xms_inv_restore_failed(c->index, r->kind, r->n, why, sizeof(why)) < 0) {
			fprintf(stderr, "lunlab-target: --state-dir: failed %s %u of cluster %s: %s: dropped\n",
				r->kind == XMS_INV_SSD ? "SSD" : "storage controller", r->n, r->cluster,
				c ? why : "no such cluster");
			xms_log_del(XMS_LOG_NS_HARDWARE, strtoull(r->key, NULL, 10));
		}
	}
	return 0;
}
