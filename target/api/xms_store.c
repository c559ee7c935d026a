/* xms_store.c — see xms_store.h. */
#include "target/api/xms_store.h"

#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/api/xms_scsi.h"

static const struct xms_store_ops *store;

void xms_store_set(const struct xms_store_ops *ops)
{
	store = ops;
}

bool xms_store_active(void)
{
	return store != NULL;
}

/* text (len bytes, outside input although its record's checksum held) into
 * the empty model m: 0, or -1 with err */
static int parse_doc(const char *text, size_t len, struct xms_model *m, char *err, size_t errlen)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *doc;
	char why[320];
	int rc;

	doc = tok && len <= (size_t)INT32_MAX ? json_tokener_parse_ex(tok, text, (int)len) : NULL;
	if (!doc || json_tokener_get_error(tok) != json_tokener_success) {
		snprintf(err, errlen, "the stored model is not JSON: %s",
			 tok ? json_tokener_error_desc(json_tokener_get_error(tok)) : "out of memory");
		json_object_put(doc);
		json_tokener_free(tok);
		return -1;
	}
	if (json_tokener_get_parse_end(tok) != len) {
		snprintf(err, errlen, "the stored model is not JSON: bytes after the document (at %zu of %zu)",
			 json_tokener_get_parse_end(tok), len);
		json_object_put(doc);
		json_tokener_free(tok);
		return -1;
	}
	json_tokener_free(tok);
	rc = xms_model_from_json(m, doc, why, sizeof(why));
	json_object_put(doc);
	if (rc < 0) {
		snprintf(err, errlen, "the stored model: %s", why);
		return -1;
	}
	return 0;
}

int xms_store_load(struct xms_model *m, char *err, size_t errlen)
{
	char *text = NULL, why[320];
	size_t len = 0;
	int rc;

	memset(m, 0, sizeof(*m));
	if (!store)
		return 0;
	rc = store->load(&text, &len, why, sizeof(why));
	if (rc <= 0) {
		if (rc < 0)
			snprintf(err, errlen, "%s", why);
		return rc;
	}
	rc = parse_doc(text, len, m, err, errlen);
	free(text);
	return rc < 0 ? -1 : 1;
}

int xms_store_check_doc(const char *doc, size_t len, char *out, size_t outlen, char *err, size_t errlen)
{
	struct xms_model m;

	if (parse_doc(doc, len, &m, err, errlen) < 0)
		return -1;
	snprintf(out, outlen, "the API's model: %zu cluster(s), %zu volume(s), %zu LUN map(s), %zu initiator(s)",
		 m.clusters.n, m.volumes.n, m.lunmaps.n, m.initiators.n);
	xms_model_free(&m);
	return 0;
}

int xms_store_save(const struct xms_model *m, char *err, size_t errlen)
{
	struct json_object *doc;
	const char *text;
	size_t len;
	int rc;

	if (!store)
		return 0;
	if (xms_scsi_sync_all(m, err, errlen) < 0)
		return -1;
	doc = xms_model_to_json(m);
	text = doc ? json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN) : NULL;
	if (!text) {
		snprintf(err, errlen, "out of memory");
		json_object_put(doc);
		return -1;
	}
	len = strlen(text);
	rc = store->save(text, len, err, errlen);
	json_object_put(doc);
	return rc < 0 ? -1 : 0;
}
