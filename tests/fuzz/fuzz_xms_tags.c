/* fuzz_xms_tags.c — the `tags` resource (target/api/xms_tags.c) and the
 * tag-list of bodies through the XMS routes: the input is a run of requests
 * separated by "\n\x1e", each one selector byte (its method and path: tags,
 * tags/INDEX, tags?name=, initiator-groups, consistency-groups, the
 * folders' views of the tags, ...) and a
 * body, against a model holding a cluster, volumes, an initiator group, an
 * initiator, a consistency group, a snapshot set and two tags.
 * Invariants: every answer is 2xx, or an XMS error {"message": one line,
 * "error_code": its status}; a refusal changes nothing in the model; after
 * every request the model's tags and tag references are consistent
 * (xms_tags_check, what a reload checks); never a crash. */
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/api/api_router.h"
#include "target/api/xms_engine.h"
#include "target/api/xms_events.h"
#include "target/api/xms_folders.h"
#include "target/api/xms_model.h"
#include "target/api/xms_resources.h"
#include "target/api/xms_tags.h"

#define MAX_REQUESTS 16

static void fill(void)
{
	struct xms_cluster *c;
	struct xms_volume *v;
	struct xms_tag *t;

	xms_model_free(&g_xms);
	c = xms_cluster_add(&g_xms);
	snprintf(c->name, sizeof(c->name), "xbrick1");
	c->lb_size = 512;
	for (int i = 0; i < 2; i++) {
		v = xms_volume_add(&g_xms);
		snprintf(v->name, sizeof(v->name), "v%d", i + 1);
		v->cluster = 1;
		v->size = 1 << 20;
		v->lb_size = 512;
	}
	snprintf(xms_ig_add(&g_xms)->name, XMS_NAME_MAX, "ig1");
	g_xms.igs.v[0].cluster = 1;
	struct xms_initiator *n = xms_initiator_add(&g_xms);
	snprintf(n->name, sizeof(n->name), "i1");
	snprintf(n->port_address, sizeof(n->port_address), "iqn.2026-12.org.x:i1");
	n->ig = 1;
	n->cluster = 1;
	struct xms_cg *g = xms_cg_add(&g_xms);
	snprintf(g->name, sizeof(g->name), "cg1");
	g->cluster = 1;
	struct xms_snapset *s = xms_snapset_add(&g_xms);
	snprintf(s->name, sizeof(s->name), "s1");
	s->cluster = 1;
	t = xms_tag_add(&g_xms);
	snprintf(t->caption, sizeof(t->caption), "Volume");
	t = xms_tag_add(&g_xms);
	snprintf(t->caption, sizeof(t->caption), "gold");
	t->parent = 1;
	g_xms.volumes.v[0].attrs.tags[0] = 2;
	g_xms.volumes.v[0].attrs.ntags = 1;
}

static const struct {
	enum api_method method;
	const char *path, *name;
} reqs[] = {
	{ API_POST, "/api/json/v2/types/tags", NULL },
	{ API_PUT, "/api/json/v2/types/tags/2", NULL },
	{ API_PUT, "/api/json/v2/types/tags", "/Volume/gold" },
	{ API_DELETE, "/api/json/v2/types/tags/2", NULL },
	{ API_DELETE, "/api/json/v2/types/tags", "/Volume/gold" },
	{ API_PUT, "/api/json/v2/types/tags/1", NULL },
	{ API_DELETE, "/api/json/v3/types/tags/3", NULL },
	{ API_PUT, "/api/json/v2/types/tags/3", NULL },
	{ API_POST, "/api/json/v2/types/initiator-groups", NULL },
	{ API_PUT, "/api/json/v2/types/initiator-groups", "ig1" },
	{ API_POST, "/api/json/v2/types/consistency-groups", NULL },
	{ API_GET, "/api/json/v2/types/tags", NULL },
	{ API_GET, "/api/json/v2/types/tags", "/Volume/gold" },
	{ API_GET, "/api/json/v3/types/consistency-groups", "cg1" },
	{ API_GET, "/api/json/v2/types/snapshot-sets", "s1" },
	{ API_GET, "/api/json/v2/types/initiators", "i1" },
	/* folders, views of the tags (xms_folders.c) */
	{ API_POST, "/api/json/types/volume-folders", NULL },
	{ API_PUT, "/api/json/v2/types/volume-folders/2", NULL },
	{ API_DELETE, "/api/json/v2/types/volume-folders/2", NULL },
	{ API_POST, "/api/json/v2/types/ig-folders", NULL },
	{ API_GET, "/api/json/v2/types/volume-folders", "/" },
	{ API_GET, "/api/json/v3/types/ig-folders", NULL },
	/* a fourth tag (one of the inventory's kinds, made by a POST first) */
	{ API_PUT, "/api/json/v2/types/tags/4", NULL },
	{ API_DELETE, "/api/json/v2/types/tags/4", NULL },
};

static char *model_text(void)
{
	struct json_object *doc = xms_model_to_json(&g_xms);
	char *s = strdup(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN));

	json_object_put(doc);
	return s;
}

/* an XMS error: {"message": one line, "error_code": status} */
static void check_error(const struct api_response *rsp)
{
	struct json_object *o = rsp->body ? json_tokener_parse(rsp->body) : NULL, *m, *c;

	if (!o || !json_object_object_get_ex(o, "message", &m) || !json_object_is_type(m, json_type_string) ||
	    !*json_object_get_string(m) || strchr(json_object_get_string(m), '\n') ||
	    !json_object_object_get_ex(o, "error_code", &c) || json_object_get_int(c) != (int)rsp->status)
		abort();
	json_object_put(o);
}

static void one(uint8_t sel, const char *body, size_t len)
{
	const size_t nreqs = sizeof(reqs) / sizeof(reqs[0]);
	unsigned i = sel % nreqs;
	struct api_param p = { "name", reqs[i].name };
	struct api_request req = { .method = reqs[i].method, .path = reqs[i].path, .params = reqs[i].name ? &p : NULL,
				   .nparams = reqs[i].name ? 1 : 0, .body = body, .body_len = len, .host = "h",
				   .user = "u", .local_addr = "" };
	struct api_response rsp = { 0 };
	char *before = model_text(), *after, err[320];

	api_dispatch(&req, &rsp);
	after = model_text();
	if (rsp.status < 200 || (rsp.status >= 300 && rsp.status < 400) || rsp.status >= 500)
		abort();
	if (rsp.status >= 400) {
		check_error(&rsp);
		if (strcmp(before, after) != 0) /* a refusal changes nothing */
			abort();
	}
	if (xms_tags_check(&g_xms, err, sizeof(err)) != 0)
		abort();
	free(before);
	free(after);
	free(rsp.body);
	free(rsp.extra_header_name);
	free(rsp.extra_header_value);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool registered;
	static const struct xms_type *const types[] = { &xms_type_tags, &xms_type_igs, &xms_type_cgs,
							 &xms_type_snapsets, &xms_type_initiators,
							 &xms_type_volume_folders, &xms_type_ig_folders };
	const uint8_t *p = data, *end = data + size;
	char body[4096];

	if (!registered) {
		char err[200];
		if (xms_routes_register(types, sizeof(types) / sizeof(types[0]), err, sizeof(err)) < 0)
			abort();
		registered = true;
	}
	fill();
	xms_events_reset();
	for (int n = 0; n < MAX_REQUESTS && p < end; n++) {
		const uint8_t *q = p + 1, *sep = end;
		size_t len;

		for (const uint8_t *r = q; r + 1 < end; r++)
			if (r[0] == '\n' && r[1] == 0x1e) {
				sep = r;
				break;
			}
		len = (size_t)(sep - q);
		if (len >= sizeof(body))
			len = sizeof(body) - 1;
		memcpy(body, q, len);
		body[len] = '\0';
		one(p[0], body, len);
		p = sep + 2;
	}
	xms_model_free(&g_xms);
	return 0;
}
