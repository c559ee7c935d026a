/* xms_store.c — see xms_store.h. */
#include "target/api/xms_store.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/api/xms_scsi.h"

static const struct xms_store_ops *store;

/* what the records hold since the last save that committed, sorted by key:
 * a save writes only what differs from it.  Not valid (kept_valid false)
 * at start and after a failed write: the next save rewrites every record.
 * A save's own list has the same shape, its text borrowed from json-c (the
 * document's buffers) until the merge copies the changed ones: an unchanged
 * record costs no copy (the 1,000th POST would otherwise copy 1,000). */
#define KEY_MAX 96 /* a type (up to 64) "/" 20 digits */
struct kept {
	char key[KEY_MAX];
	char *text;
	size_t len;
};
static struct kept *kept;
static size_t nkept;
static bool kept_valid;

static void kept_free(struct kept *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(k[i].text);
	free(k);
}

static void kept_drop(void)
{
	kept_free(kept, nkept);
	kept = NULL;
	nkept = 0;
	kept_valid = false;
}

void xms_store_set(const struct xms_store_ops *ops)
{
	store = ops;
	kept_drop();
}

static bool by_records(const struct xms_store_ops *ops)
{
	return ops && ops->each && ops->write;
}

bool xms_store_active(void)
{
	return store != NULL;
}

/* text (len bytes, outside input although its record's checksum held) as
 * JSON, what naming the record for the error: the object, or NULL with err */
static struct json_object *parse_json(const char *text, size_t len, const char *what, char *err, size_t errlen)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *doc;

	doc = tok && len <= (size_t)INT32_MAX ? json_tokener_parse_ex(tok, text, (int)len) : NULL;
	if (!doc || json_tokener_get_error(tok) != json_tokener_success) {
		snprintf(err, errlen, "%s is not JSON: %s", what,
			 tok ? json_tokener_error_desc(json_tokener_get_error(tok)) : "out of memory");
		json_object_put(doc);
		json_tokener_free(tok);
		return NULL;
	}
	if (json_tokener_get_parse_end(tok) != len) {
		snprintf(err, errlen, "%s is not JSON: bytes after the document (at %zu of %zu)", what,
			 json_tokener_get_parse_end(tok), len);
		json_object_put(doc);
		json_tokener_free(tok);
		return NULL;
	}
	json_tokener_free(tok);
	return doc;
}

/* doc (taken) into the empty model m: 0, or -1 with err */
static int decode(struct json_object *doc, struct xms_model *m, char *err, size_t errlen)
{
	char why[320];
	int rc = xms_model_from_json(m, doc, why, sizeof(why));

	json_object_put(doc);
	if (rc < 0) {
		snprintf(err, errlen, "the stored model: %s", why);
		return -1;
	}
	return 0;
}

static int parse_doc(const char *text, size_t len, struct xms_model *m, char *err, size_t errlen)
{
	struct json_object *doc = parse_json(text, len, "the stored model", err, errlen);

	return doc ? decode(doc, m, err, errlen) : -1;
}

/* ---- the model as records ---- */

#define HEAD_KEY "head"

/* the records read back: head, and the objects per type in key order (so
 * in index order: the keys' indexes have 20 digits) */
struct gather {
	struct json_object *head;
	struct json_object *parts; /* type -> array of objects */
	char *err;
	size_t errlen;
};

static int gather_one(const char *key, const void *val, size_t len, void *arg)
{
	struct gather *g = arg;
	char what[160], type[64];
	const char *slash = strchr(key, '/');
	struct json_object *o, *a;

	snprintf(what, sizeof(what), "the stored model's record %.100s", key);
	if (strcmp(key, HEAD_KEY) == 0) {
		g->head = parse_json(val, len, what, g->err, g->errlen);
		return g->head ? 0 : 1;
	}
	if (!slash || slash == key || (size_t)(slash - key) >= sizeof(type) || strlen(slash + 1) != 20 ||
	    strspn(slash + 1, "0123456789") != 20) {
		snprintf(g->err, g->errlen, "%s: want the key TYPE/INDEX (20 digits)", what);
		return 1;
	}
	o = parse_json(val, len, what, g->err, g->errlen);
	if (!o)
		return 1;
	memcpy(type, key, (size_t)(slash - key));
	type[slash - key] = '\0';
	if (!json_object_object_get_ex(g->parts, type, &a)) {
		a = json_object_new_array();
		json_object_object_add(g->parts, type, a);
	}
	json_object_array_add(a, o);
	return 0;
}

/* the records of ops into one document (what xms_model_to_json writes):
 * 1 with *doc, 0 no head record (nothing stored as records), -1 with err */
static int gather_doc(const struct xms_store_ops *ops, struct json_object **doc, char *err, size_t errlen)
{
	struct gather g = { NULL, json_object_new_object(), err, errlen };
	char why[320];
	int rc;

	*doc = NULL;
	rc = ops->each(gather_one, &g, why, sizeof(why));
	if (rc < 0) /* the store's own failure */
		snprintf(err, errlen, "%s", why);
	if (rc != 0) /* > 0: gather_one stopped with err */
		goto fail;
	if (!g.head) {
		if (json_object_object_length(g.parts) > 0) {
			snprintf(err, errlen, "the stored model: object records without their head record");
			goto fail;
		}
		json_object_put(g.parts);
		return 0;
	}
	if (!json_object_is_type(g.head, json_type_object)) {
		snprintf(err, errlen, "the stored model's record head: want a JSON object");
		goto fail;
	}
	json_object_object_foreach(g.parts, type, arr)
	{
		struct json_object *t, *objs;

		if (!json_object_object_get_ex(g.head, type, &t) || !json_object_is_type(t, json_type_object)) {
			snprintf(err, errlen, "the stored model: records of %.64s, a type its head does not have", type);
			goto fail;
		}
		if (json_object_object_get_ex(t, "objects", &objs) && json_object_is_type(objs, json_type_array) &&
		    json_object_array_length(objs) > 0) {
			snprintf(err, errlen, "the stored model: %.64s has objects in its head and in records", type);
			goto fail;
		}
		json_object_object_add(t, "objects", json_object_get(arr));
	}
	json_object_put(g.parts);
	*doc = g.head;
	return 1;
fail:
	json_object_put(g.head);
	json_object_put(g.parts);
	return -1;
}

/* what ops hold into the empty model m: 1 loaded, 0 nothing, -1 with err */
static int load_from(const struct xms_store_ops *ops, struct xms_model *m, char *err, size_t errlen)
{
	char *text = NULL, why[320];
	size_t len = 0;
	int rc;

	memset(m, 0, sizeof(*m));
	if (by_records(ops)) {
		struct json_object *doc;

		rc = gather_doc(ops, &doc, err, errlen);
		if (rc < 0)
			return -1;
		if (rc > 0)
			return decode(doc, m, err, errlen) < 0 ? -1 : 1;
		/* nothing as records: a model stored whole by an older version? */
	}
	rc = ops->load(&text, &len, why, sizeof(why));
	if (rc <= 0) {
		if (rc < 0)
			snprintf(err, errlen, "%s", why);
		return rc;
	}
	rc = parse_doc(text, len, m, err, errlen);
	free(text);
	return rc < 0 ? -1 : 1;
}

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct kept *)a)->key, ((const struct kept *)b)->key);
}

/* v[n] = key, text (borrowed); -1 out of memory */
static int now_add(struct kept **v, size_t *n, size_t *cap, const char *key, const char *text, size_t len)
{
	if (*n == *cap) {
		size_t nc = *cap ? 2 * *cap : 64;
		struct kept *nv = realloc(*v, nc * sizeof(**v));

		if (!nv)
			return -1;
		*v = nv;
		*cap = nc;
	}
	snprintf((*v)[*n].key, KEY_MAX, "%s", key);
	(*v)[*n].text = (char *)text;
	(*v)[*n].len = len;
	(*n)++;
	return 0;
}

#define MAX_TYPES 16

/* doc (xms_model_to_json's) as records, sorted by key, their text borrowed
 * from doc: its objects, each its own record, then the rest as "head".
 * The objects' arrays are taken out of doc for the head's text and held in
 * held[] (json_object_put them after the texts' last use).  0, or -1 (out
 * of memory, or more types than MAX_TYPES). */
static int split_doc(struct json_object *doc, struct kept **out, size_t *nout, struct json_object **held,
		     size_t *nheld)
{
	struct kept *v = NULL;
	size_t n = 0, cap = 0, len;
	const char *text;

	*nheld = 0;
	json_object_object_foreach(doc, type, t)
	{
		struct json_object *objs;

		if (!json_object_is_type(t, json_type_object) || !json_object_object_get_ex(t, "objects", &objs) ||
		    !json_object_is_type(objs, json_type_array))
			continue;
		if (*nheld == MAX_TYPES || strlen(type) > 64)
			goto fail;
		for (size_t i = 0; i < json_object_array_length(objs); i++) {
			struct json_object *o = json_object_array_get_idx(objs, i), *ix;
			char key[KEY_MAX];

			text = json_object_to_json_string_length(o, JSON_C_TO_STRING_PLAIN, &len);
			if (!json_object_object_get_ex(o, "index", &ix) || !text)
				goto fail;
			snprintf(key, sizeof(key), "%s/%020" PRIu64, type, (uint64_t)json_object_get_uint64(ix));
			if (now_add(&v, &n, &cap, key, text, len) < 0)
				goto fail;
		}
		held[(*nheld)++] = json_object_get(objs);
		json_object_object_add(t, "objects", json_object_new_array());
	}
	text = json_object_to_json_string_length(doc, JSON_C_TO_STRING_PLAIN, &len);
	if (!text || now_add(&v, &n, &cap, HEAD_KEY, text, len) < 0)
		goto fail;
	/* sorted already but for the order of the types and head: a cheap sort */
	qsort(v, n, sizeof(*v), by_key);
	*out = v;
	*nout = n;
	return 0;
fail:
	free(v);
	return -1;
}

/* stores m as records, writing only those that differ from kept */
static int save_records(const struct xms_model *m, char *err, size_t errlen)
{
	struct json_object *doc = xms_model_to_json(m), *held[MAX_TYPES];
	struct xms_store_rec *recs = NULL;
	struct kept *now = NULL, *next = NULL;
	size_t nnow = 0, nheld = 0, nrecs = 0, nnext = 0, i = 0, j = 0;
	bool all = !kept_valid;
	int rc = -1;

	if (!doc || split_doc(doc, &now, &nnow, held, &nheld) < 0) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	recs = malloc((nnow + (all ? 0 : nkept) + 1) * sizeof(*recs));
	next = calloc(nnow + 1, sizeof(*next));
	if (!recs || !next) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	/* both sorted by key: one walk finds what is new, changed, gone
	 * (everything is new when all); next is what will be kept: the old
	 * text moved over when unchanged, a copy of the new one otherwise */
	while (i < nnow || (!all && j < nkept)) {
		int c = i == nnow ? 1 : (all || j == nkept) ? -1 : strcmp(now[i].key, kept[j].key);

		if (c > 0) {
			recs[nrecs++] = (struct xms_store_rec){ kept[j].key, NULL, 0 };
			j++;
			continue;
		}
		struct kept *k = &next[nnext++];

		memcpy(k->key, now[i].key, KEY_MAX);
		k->len = now[i].len;
		if (c == 0 && now[i].len == kept[j].len && memcmp(now[i].text, kept[j].text, now[i].len) == 0) {
			k->text = kept[j].text;
			kept[j].text = NULL;
		} else {
			k->text = malloc(now[i].len + 1);
			if (!k->text) {
				snprintf(err, errlen, "out of memory");
				goto out;
			}
			memcpy(k->text, now[i].text, now[i].len + 1);
			recs[nrecs++] = (struct xms_store_rec){ k->key, k->text, k->len };
		}
		i++;
		if (c == 0)
			j++;
	}
	/* a failed write wrote nothing, yet the next save rewrites everything
	 * rather than trust this module's idea of what is stored */
	if ((nrecs > 0 || all) && store->write(all, recs, nrecs, err, errlen) < 0)
		goto out;
	rc = 0;
	kept_free(kept, nkept);
	kept = next;
	nkept = nnext;
	kept_valid = true;
	next = NULL;
	nnext = 0;
out:
	if (rc < 0)
		kept_drop(); /* some of its texts may have moved to next */
	kept_free(next, nnext);
	free(now);
	free(recs);
	for (size_t h = 0; h < nheld; h++)
		json_object_put(held[h]);
	json_object_put(doc);
	return rc;
}

int xms_store_load(struct xms_model *m, char *err, size_t errlen)
{
	memset(m, 0, sizeof(*m));
	/* whatever is stored, the first save rewrites it as records */
	kept_drop();
	if (!store)
		return 0;
	return load_from(store, m, err, errlen);
}

int xms_store_check(const struct xms_store_ops *ops, char *out, size_t outlen, char *err, size_t errlen)
{
	struct xms_model m;
	int rc = load_from(ops, &m, err, errlen);

	if (rc < 0)
		return -1;
	if (rc == 0) {
		snprintf(out, outlen, "the API's model: none stored");
		return 0;
	}
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
	if (by_records(store))
		return save_records(m, err, errlen);
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
