/* fuzz_xms_model.c — the XMS model's stored document (what --state-dir
 * keeps): xms_model_from_json() (target/api/xms_model.c) on any JSON.
 * Invariants: a refused document leaves the model empty with a one-line
 * reason; an accepted one has every index in order below its type's next
 * index, references that resolve, a name index that agrees with a scan of
 * its objects (duplicate names included), and writes back
 * (xms_model_to_json) a document that loads again to the same text. */
#include <json-c/json.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "target/api/xms_model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_tokener *tok = json_tokener_new_ex(32);
	struct json_object *doc, *out, *again;
	struct xms_model m, m2;
	char err[320];

	if (!tok)
		return 0;
	doc = json_tokener_parse_ex(tok, (const char *)data, (int)(size > 1 << 20 ? 1 << 20 : size));
	json_tokener_free(tok);
	if (!doc)
		return 0;
	err[0] = '\0';
	if (xms_model_from_json(&m, doc, err, sizeof(err)) < 0) {
		if (!*err || strchr(err, '\n') || m.volumes.n || m.clusters.n || m.lunmaps.n)
			abort();
		json_object_put(doc);
		return 0;
	}
	for (size_t i = 0; i < m.volumes.n; i++)
		if (m.volumes.v[i].index >= m.volumes.next || (i && m.volumes.v[i].index <= m.volumes.v[i - 1].index) ||
		    !xms_cluster_get(&m, m.volumes.v[i].cluster))
			abort();
	for (size_t i = 0; i < m.lunmaps.n; i++)
		if (!xms_volume_get(&m, m.lunmaps.v[i].vol) || !xms_ig_get(&m, m.lunmaps.v[i].ig))
			abort();
	if (xms_model_names_check(&m, err, sizeof(err)) != 0)
		abort();
	/* every object is found under its name in its cluster and in every cluster */
	for (size_t i = 0; i < m.volumes.n; i++) {
		struct xms_volume *v;
		m.scope = m.volumes.v[i].cluster;
		v = xms_volume_by_name(&m, m.volumes.v[i].name);
		m.scope = 0;
		if (!v || strcmp(v->name, m.volumes.v[i].name) || v->cluster != m.volumes.v[i].cluster ||
		    v->index > m.volumes.v[i].index || !xms_volume_by_name(&m, m.volumes.v[i].name))
			abort();
	}
	out = xms_model_to_json(&m);
	if (!out || xms_model_from_json(&m2, out, err, sizeof(err)) < 0)
		abort();
	again = xms_model_to_json(&m2);
	if (strcmp(json_object_to_json_string(out), json_object_to_json_string(again)) != 0)
		abort();
	json_object_put(again);
	json_object_put(out);
	xms_model_free(&m2);
	xms_model_free(&m);
	json_object_put(doc);
	return 0;
}
