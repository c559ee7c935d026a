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

/* What the store holds, as far as a save needs to know: head's text (the
 * next indexes change with every add, so it is compared, not marked), and
 * whether the records are known to match the model but for its marks
 * (xms_dirty.h).  Not known at start (a model stored whole, or nothing)
 * and after a failed write: the next save rewrites every record. */
static char *head_text;
static size_t head_len;
static bool in_step;
/* LUNLAB_XMS_STORE_CHECK=1 (tests): after each save every stored record
 * is compared with the whole model, so a change no one marked is an error
 * naming its record, not a loss found after a restart */
static bool check_each_save;

static void forget(void)
{
	free(head_text);
	head_text = NULL;
	head_len = 0;
	in_step = false;
}

void xms_store_set(const struct xms_store_ops *ops)
{
	const char *chk = getenv("LUNLAB_XMS_STORE_CHECK");

	store = ops;
	check_each_save = chk && strcmp(chk, "1") == 0;
	forget();
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
	const char *slash;
	struct json_object *o, *a;

	if (!key) { /* a store's bug; said rather than followed */
		snprintf(g->err, g->errlen, "the stored model: a record without a key");
		return 1;
	}
	slash = strchr(key, '/');
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

/* what ops hold into the empty model m: 1 loaded (*as_records: from its
 * records, not a whole document), 0 nothing, -1 with err */
static int load_from(const struct xms_store_ops *ops, struct xms_model *m, bool *as_records, char *err,
		     size_t errlen)
{
	char *text = NULL, why[320];
	size_t len = 0;
	int rc;

	memset(m, 0, sizeof(*m));
	*as_records = false;
	if (by_records(ops)) {
		struct json_object *doc;

		rc = gather_doc(ops, &doc, err, errlen);
		if (rc < 0)
			return -1;
		if (rc > 0) {
			*as_records = true;
			return decode(doc, m, err, errlen) < 0 ? -1 : 1;
		}
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

/* ---- a save: the records to write ---- */

#define KEY_MAX 96 /* a type (up to 64) "/" 20 digits */

/* one record's key and text (its own copy; NULL: delete the key) */
struct rec {
	char key[KEY_MAX];
	char *text;
	size_t len;
};

struct batch {
	struct rec *v;
	size_t n, cap;
};

static void batch_free(struct batch *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->v[i].text);
	free(b->v);
	*b = (struct batch){ 0 };
}

/* key with o's text (o taken; NULL deletes key): 0, or -1 out of memory */
static int batch_add(struct batch *b, const char *key, struct json_object *o)
{
	struct rec *r;
	const char *text = NULL;
	size_t len = 0;

	if (b->n == b->cap) {
		size_t nc = b->cap ? 2 * b->cap : 16;
		struct rec *nv = realloc(b->v, nc * sizeof(*nv));

		if (!nv)
			goto fail;
		b->v = nv;
		b->cap = nc;
	}
	r = &b->v[b->n];
	snprintf(r->key, KEY_MAX, "%s", key);
	r->text = NULL;
	r->len = 0;
	if (o) {
		text = json_object_to_json_string_length(o, JSON_C_TO_STRING_PLAIN, &len);
		r->text = text ? malloc(len + 1) : NULL;
		if (!r->text)
			goto fail;
		memcpy(r->text, text, len + 1);
		r->len = len;
	}
	b->n++;
	json_object_put(o);
	return 0;
fail:
	json_object_put(o);
	return -1;
}

static void key_of(char *key, enum xms_kind k, uint64_t index)
{
	snprintf(key, KEY_MAX, "%s/%020" PRIu64, xms_kind_name(k), index);
}

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct rec *)a)->key, ((const struct rec *)b)->key);
}

/* every record of m (head and each object), sorted by key: 0, or -1 */
static int all_records(const struct xms_model *m, struct batch *b)
{
	struct json_object *doc = xms_model_to_json(m);
	char key[KEY_MAX];
	int rc = -1;

	if (!doc)
		return -1;
	for (int k = 0; k < XMS_KINDS; k++) {
		struct json_object *t, *objs;

		if (!json_object_object_get_ex(doc, xms_kind_name((enum xms_kind)k), &t) ||
		    !json_object_object_get_ex(t, "objects", &objs))
			goto out;
		for (size_t i = 0; i < json_object_array_length(objs); i++) {
			struct json_object *o = json_object_array_get_idx(objs, i), *ix;

			if (!json_object_object_get_ex(o, "index", &ix))
				goto out;
			key_of(key, (enum xms_kind)k, (uint64_t)json_object_get_uint64(ix));
			if (batch_add(b, key, json_object_get(o)) < 0)
				goto out;
		}
		/* head holds the type's next index, not its objects */
		json_object_object_add(t, "objects", json_object_new_array());
	}
	if (batch_add(b, HEAD_KEY, json_object_get(doc)) < 0)
		goto out;
	qsort(b->v, b->n, sizeof(*b->v), by_key);
	rc = 0;
out:
	json_object_put(doc);
	return rc;
}

/* the records of what m marks (xms_dirty.h), and head when its text
 * changed: the objects marked and still there are written, the gone ones
 * deleted.  Nothing else of the model is read.  0, or -1 out of memory. */
static int marked_records(struct xms_model *m, struct batch *b)
{
	struct json_object *h = xms_model_head_json(m);
	const char *text;
	size_t len;
	char key[KEY_MAX];

	for (int k = 0; k < XMS_KINDS; k++) {
		size_t n;
		const uint64_t *ix = xms_dirty_of(m, (enum xms_kind)k, &n);

		for (size_t i = 0; i < n; i++) {
			key_of(key, (enum xms_kind)k, ix[i]);
			if (batch_add(b, key, xms_model_object_json(m, (enum xms_kind)k, ix[i])) < 0) {
				json_object_put(h);
				return -1;
			}
		}
	}
	text = h ? json_object_to_json_string_length(h, JSON_C_TO_STRING_PLAIN, &len) : NULL;
	if (!text) {
		json_object_put(h);
		return -1;
	}
	if ((!head_text || len != head_len || memcmp(text, head_text, len) != 0))
		return batch_add(b, HEAD_KEY, h);
	json_object_put(h);
	return 0;
}

/* ---- LUNLAB_XMS_STORE_CHECK: the store against the whole model ---- */

struct cmp {
	const struct batch *want; /* sorted by key */
	size_t at;
	char *err;
	size_t errlen;
};

static int cmp_one(const char *key, const void *val, size_t len, void *arg)
{
	struct cmp *c = arg;
	const struct rec *w = c->at < c->want->n ? &c->want->v[c->at] : NULL;
	int order = w ? strcmp(key, w->key) : -1;

	if (order < 0) {
		snprintf(c->err, c->errlen, "store check: record %.96s is stored but the model has no such object",
			 key);
		return 1;
	}
	if (order > 0) {
		snprintf(c->err, c->errlen, "store check: record %.96s is not stored (a change no one marked)",
			 w->key);
		return 1;
	}
	if (len != w->len || memcmp(val, w->text, len) != 0) {
		snprintf(c->err, c->errlen, "store check: record %.96s differs from the model (a change no one marked)",
			 key);
		return 1;
	}
	c->at++;
	return 0;
}

static int check_store(const struct xms_model *m, char *err, size_t errlen)
{
	struct batch want = { 0 };
	struct cmp c = { &want, 0, err, errlen };
	char why[320];
	int rc;

	if (all_records(m, &want) < 0) {
		batch_free(&want);
		snprintf(err, errlen, "store check: out of memory");
		return -1;
	}
	rc = store->each(cmp_one, &c, why, sizeof(why));
	if (rc < 0)
		snprintf(err, errlen, "store check: %s", why);
	else if (rc == 0 && c.at < want.n) {
		snprintf(err, errlen, "store check: record %.96s is not stored (a change no one marked)",
			 want.v[c.at].key);
		rc = 1;
	}
	batch_free(&want);
	return rc == 0 ? 0 : -1;
}

/* stores m as records: the marked ones, or every one when the store's
 * records are not known to be in step */
static int save_records(struct xms_model *m, char *err, size_t errlen)
{
	struct batch b = { 0 };
	struct xms_store_rec *recs = NULL;
	bool all = !in_step || xms_dirty_all(m);
	int rc = -1;

	if ((all ? all_records(m, &b) : marked_records(m, &b)) < 0 ||
	    !(recs = malloc((b.n ? b.n : 1) * sizeof(*recs)))) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < b.n; i++)
		recs[i] = (struct xms_store_rec){ b.v[i].key, b.v[i].text, b.v[i].len };
	if ((b.n > 0 || all) && store->write(all, recs, b.n, err, errlen) < 0) {
		/* nothing was written, yet the next save rewrites everything
		 * rather than trust this module's idea of what is stored */
		forget();
		goto out;
	}
	for (size_t i = 0; i < b.n; i++) {
		if (strcmp(b.v[i].key, HEAD_KEY) == 0) { /* the text moves over: no copy */
			free(head_text);
			head_text = b.v[i].text;
			head_len = b.v[i].len;
			b.v[i].text = NULL;
		}
	}
	xms_dirty_clear(m);
	in_step = true;
	rc = 0;
	if (check_each_save && check_store(m, err, errlen) < 0) {
		forget();
		rc = -1;
	}
out:
	free(recs);
	batch_free(&b);
	return rc;
}

int xms_store_load(struct xms_model *m, char *err, size_t errlen)
{
	bool as_records;
	int rc;

	memset(m, 0, sizeof(*m));
	forget();
	if (!store)
		return 0;
	rc = load_from(store, m, &as_records, err, errlen);
	/* loaded from its records, the store is in step with the model: the
	 * first save writes what the start changed (xms_dirty.h); a model
	 * stored whole, or none, is rewritten as records by the first save */
	in_step = rc > 0 && as_records;
	if (in_step) { /* head as stored: what the first save compares with */
		struct json_object *h = xms_model_head_json(m);
		const char *text = h ? json_object_to_json_string_length(h, JSON_C_TO_STRING_PLAIN, &head_len) : NULL;

		head_text = text ? strdup(text) : NULL;
		json_object_put(h);
	}
	return rc;
}

int xms_store_check(const struct xms_store_ops *ops, char *out, size_t outlen, char *err, size_t errlen)
{
	struct xms_model m;
	bool as_records;
	int rc = load_from(ops, &m, &as_records, err, errlen);

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

int xms_store_save(struct xms_model *m, char *err, size_t errlen)
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
	if (rc < 0)
		return -1;
	xms_dirty_clear(m); /* stored whole: every change is in */
	return 0;
}
