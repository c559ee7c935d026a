/* test_xms_store.c — target/api/xms_store.c: the XMS model kept through a
 * store (--state-dir): saved whole and loaded back equal, nothing stored
 * loads nothing, a store's failure and a damaged document are refused with
 * the reason, and without a store nothing is asked of anyone.  With a store
 * of records: a save writes exactly the records of what changed, a model
 * stored whole still loads and is rewritten as records, a failed write
 * makes the next save rewrite all, damaged records are refused by name. */
#include <json-c/json.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "target/api/xms_store.h"

/* the store: one document in memory, and what to fail */
static char *stored;
static size_t stored_len;
static int saves, loads;
static const char *fail_save, *fail_load;

static int mem_load(char **doc, size_t *len, char *err, size_t errlen)
{
	loads++;
	if (fail_load) {
		snprintf(err, errlen, "%s", fail_load);
		return -1;
	}
	if (!stored)
		return 0;
	*doc = malloc(stored_len);
	memcpy(*doc, stored, stored_len);
	*len = stored_len;
	return 1;
}

static int mem_save(const char *doc, size_t len, char *err, size_t errlen)
{
	saves++;
	if (fail_save) {
		snprintf(err, errlen, "%s", fail_save);
		return -1;
	}
	free(stored);
	stored = malloc(len);
	memcpy(stored, doc, len);
	stored_len = len;
	return 0;
}

static const struct xms_store_ops mem = { mem_load, mem_save, NULL, NULL };

/* the store of records: key -> value in memory, what the last write did */
#define MAXREC 64
static struct {
	char key[64];
	char *val;
	size_t len;
} recs[MAXREC];
static size_t nrecs;
static int writes, last_puts, last_dels;
static bool last_all;
static const char *fail_write;

static void recs_clear(void)
{
	for (size_t i = 0; i < nrecs; i++)
		free(recs[i].val);
	nrecs = 0;
}

static int rec_find(const char *key)
{
	for (size_t i = 0; i < nrecs; i++)
		if (strcmp(recs[i].key, key) == 0)
			return (int)i;
	return -1;
}

static void rec_put(const char *key, const char *val, size_t len)
{
	int i = rec_find(key);

	if (i < 0) {
		assert_true(nrecs < MAXREC);
		i = (int)nrecs++;
		snprintf(recs[i].key, sizeof(recs[i].key), "%s", key);
	} else {
		free(recs[i].val);
	}
	recs[i].val = malloc(len + 1);
	memcpy(recs[i].val, val, len);
	recs[i].len = len;
}

static void rec_del(const char *key)
{
	int i = rec_find(key);

	if (i < 0)
		return;
	free(recs[i].val);
	recs[i] = recs[--nrecs];
}

static int mem_each(int (*fn)(const char *key, const void *val, size_t len, void *arg), void *arg, char *err,
		    size_t errlen)
{
	bool done[MAXREC] = { false };

	(void)err;
	(void)errlen;
	/* in key order, as the store gives them */
	for (size_t n = 0; n < nrecs; n++) {
		int best = -1, rc;

		for (size_t i = 0; i < nrecs; i++)
			if (!done[i] && (best < 0 || strcmp(recs[i].key, recs[best].key) < 0))
				best = (int)i;
		done[best] = true;
		if ((rc = fn(recs[best].key, recs[best].val, recs[best].len, arg)) != 0)
			return rc;
	}
	return 0;
}

static int mem_write(bool all, const struct xms_store_rec *r, size_t n, char *err, size_t errlen)
{
	writes++;
	if (fail_write) {
		snprintf(err, errlen, "%s", fail_write);
		return -1;
	}
	last_all = all;
	last_puts = last_dels = 0;
	if (all) {
		recs_clear();
		free(stored);
		stored = NULL;
	}
	for (size_t i = 0; i < n; i++) {
		if (r[i].val) {
			rec_put(r[i].key, r[i].val, r[i].len);
			last_puts++;
		} else {
			rec_del(r[i].key);
			last_dels++;
		}
	}
	return 0;
}

static const struct xms_store_ops mem_recs = { mem_load, mem_save, mem_each, mem_write };

static void put_text(const char *text)
{
	free(stored);
	stored = strdup(text);
	stored_len = strlen(text);
}

static int setup(void **state)
{
	(void)state;
	free(stored);
	stored = NULL;
	stored_len = 0;
	saves = loads = 0;
	fail_save = fail_load = NULL;
	xms_store_set(&mem);
	return 0;
}

static int setup_recs(void **state)
{
	setup(state);
	recs_clear();
	writes = last_puts = last_dels = 0;
	last_all = false;
	fail_write = NULL;
	xms_store_set(&mem_recs);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	xms_store_set(NULL);
	free(stored);
	stored = NULL;
	recs_clear();
	return 0;
}

static void small_model(struct xms_model *m)
{
	struct xms_cluster *c;
	struct xms_volume *v;
	struct xms_lunmap *l;
	struct xms_ig *g;

	memset(m, 0, sizeof(*m));
	c = xms_cluster_add(m);
	snprintf(c->name, sizeof(c->name), "xbrick1");
	snprintf(c->keys, sizeof(c->keys), "model=x2");
	c->lb_size = 512;
	for (int i = 0; i < 2; i++) {
		v = xms_volume_add(m);
		snprintf(v->name, sizeof(v->name), "vol%d", i);
		v->cluster = 1;
		v->size = 64ull << 20;
		v->lb_size = 512;
	}
	xms_volume_del(m, 1); /* index 1 is gone for good: the next volume is 3 */
	g = xms_ig_add(m);
	snprintf(g->name, sizeof(g->name), "host1");
	g->cluster = 1;
	l = xms_lunmap_add(m);
	l->vol = 2;
	l->ig = 1;
	l->lun = 5;
	l->cluster = 1;
}

static void round_trip(void **state)
{
	struct xms_model a, b;
	char err[256] = "";

	(void)state;
	small_model(&a);
	assert_int_equal(xms_store_save(&a, err, sizeof(err)), 0);
	assert_int_equal(saves, 1);
	assert_non_null(stored);
	assert_int_equal(xms_store_load(&b, err, sizeof(err)), 1);
	assert_int_equal(b.volumes.n, 1);
	assert_string_equal(b.volumes.v[0].name, "vol1");
	assert_int_equal(b.volumes.v[0].index, 2);
	assert_string_equal(b.volumes.v[0].guid, a.volumes.v[0].guid);
	assert_int_equal(b.volumes.v[0].size, 64ull << 20);
	assert_int_equal(b.volumes.next, 3);
	assert_int_equal(b.lunmaps.n, 1);
	assert_int_equal(b.lunmaps.v[0].lun, 5);
	assert_int_equal(b.lunmaps.v[0].vol, 2);
	assert_string_equal(b.clusters.v[0].keys, "model=x2");
	assert_string_equal(b.igs.v[0].name, "host1");
	/* and stored again it is the same document */
	size_t first_len = stored_len;
	char *first = malloc(first_len); /* the store's bytes carry no NUL */
	assert_non_null(first);
	memcpy(first, stored, first_len);
	assert_int_equal(xms_store_save(&b, err, sizeof(err)), 0);
	assert_int_equal(first_len, stored_len);
	assert_memory_equal(first, stored, stored_len);
	free(first);
	xms_model_free(&a);
	xms_model_free(&b);
}

static void nothing_stored(void **state)
{
	struct xms_model m;
	char err[256] = "";

	(void)state;
	assert_int_equal(xms_store_load(&m, err, sizeof(err)), 0);
	assert_int_equal(loads, 1);
	assert_int_equal(m.clusters.n + m.volumes.n, 0);
	assert_string_equal(err, "");
}

static void damaged(void **state)
{
	struct xms_model m;
	char err[256];

	(void)state;
	put_text("{\"format\": 1, \"clusters\": ");
	assert_int_equal(xms_store_load(&m, err, sizeof(err)), -1);
	assert_true(strncmp(err, "the stored model is not JSON: ", 30) == 0);
	assert_int_equal(m.volumes.n, 0);

	put_text("{\"format\": 2}");
	assert_int_equal(xms_store_load(&m, err, sizeof(err)), -1);
	assert_string_equal(err, "the stored model: format: want 1");
	assert_int_equal(m.clusters.n, 0);

	put_text("[1, 2]");
	assert_int_equal(xms_store_load(&m, err, sizeof(err)), -1);
	assert_string_equal(err, "the stored model: (document): want a JSON object");

	/* a whole model and then more: the rest is not ignored */
	struct xms_model a;
	char text[4096];
	small_model(&a);
	assert_int_equal(xms_store_save(&a, err, sizeof(err)), 0);
	xms_model_free(&a);
	assert_true(stored_len + 4 < sizeof(text));
	memcpy(text, stored, stored_len);
	strcpy(text + stored_len, " {}");
	put_text(text);
	assert_int_equal(xms_store_load(&m, err, sizeof(err)), -1);
	assert_true(strncmp(err, "the stored model is not JSON: bytes after the document", 54) == 0);
	assert_int_equal(m.volumes.n, 0);
}

static void store_fails(void **state)
{
	struct xms_model a, b;
	char err[256];

	(void)state;
	small_model(&a);
	fail_save = "target.db: disk I/O error";
	assert_int_equal(xms_store_save(&a, err, sizeof(err)), -1);
	assert_string_equal(err, "target.db: disk I/O error");
	assert_null(stored);
	fail_load = "target.db: record api/xms-model: checksum mismatch";
	assert_int_equal(xms_store_load(&b, err, sizeof(err)), -1);
	assert_string_equal(err, "target.db: record api/xms-model: checksum mismatch");
	assert_int_equal(b.volumes.n, 0);
	xms_model_free(&a);
}

static void no_store(void **state)
{
	struct xms_model a, b;
	char err[64] = "";

	(void)state;
	xms_store_set(NULL);
	assert_false(xms_store_active());
	small_model(&a);
	assert_int_equal(xms_store_save(&a, err, sizeof(err)), 0);
	assert_int_equal(xms_store_load(&b, err, sizeof(err)), 0);
	assert_int_equal(saves + loads, 0);
	xms_model_free(&a);
}

static bool has_rec(const char *key)
{
	return rec_find(key) >= 0;
}

/* a save writes the records of what changed, and only those */
static void records_only_what_changed(void **state)
{
	struct xms_model a, b;
	struct xms_volume *v;
	char err[256] = "";

	(void)state;
	small_model(&a);
	assert_int_equal(xms_store_save(&a, err, sizeof(err)), 0);
	/* the first save writes everything: head, cluster 1, volume 2, ig 1, map 1 */
	assert_int_equal(writes, 1);
	assert_true(last_all);
	assert_int_equal(last_puts, 5);
	assert_int_equal((int)nrecs, 5);
	assert_true(has_rec("head"));
	assert_true(has_rec("volumes/00000000000000000002"));
	assert_true(has_rec("clusters/00000000000000000001"));
	assert_null(stored); /* never the whole document */

	/* nothing changed: nothing written */
	assert_int_equal(xms_store_save(&a, err, sizeof(err)), 0);
	assert_int_equal(writes, 1);

	/* a new volume: its record, and the head (its next-index moved) */
	v = xms_volume_add(&a);
	snprintf(v->name, sizeof(v->name), "vol3");
	v->cluster = 1;
	v->size = 1ull << 20;
	v->lb_size = 4096;
	assert_int_equal(v->index, 3);
	assert_int_equal(xms_store_save(&a, err, sizeof(err)), 0);
	assert_int_equal(writes, 2);
	assert_false(last_all);
	assert_int_equal(last_puts, 2);
	assert_int_equal(last_dels, 0);
	assert_true(has_rec("volumes/00000000000000000003"));

	/* a rename, marked as every changer marks (xms_dirty.h): that volume's record only */
	snprintf(a.volumes.v[0].name, sizeof(a.volumes.v[0].name), "renamed");
	xms_model_changed(&a, XMS_KIND_VOLUME, a.volumes.v[0].index);
	assert_int_equal(xms_store_save(&a, err, sizeof(err)), 0);
	assert_int_equal(writes, 3);
	assert_int_equal(last_puts, 1);
	assert_int_equal(last_dels, 0);

	/* a deletion: that record goes, nothing else is written */
	xms_volume_del(&a, 3);
	assert_int_equal(xms_store_save(&a, err, sizeof(err)), 0);
	assert_int_equal(writes, 4);
	assert_int_equal(last_puts, 0);
	assert_int_equal(last_dels, 1);
	assert_false(has_rec("volumes/00000000000000000003"));

	/* and the records load back as the model */
	assert_int_equal(xms_store_load(&b, err, sizeof(err)), 1);
	assert_int_equal(loads, 0); /* the whole document was not asked for */
	assert_int_equal(b.volumes.n, 1);
	assert_string_equal(b.volumes.v[0].name, "renamed");
	assert_int_equal(b.volumes.v[0].index, 2);
	assert_int_equal(b.volumes.next, 4);
	assert_int_equal(b.lunmaps.n, 1);
	assert_int_equal(b.lunmaps.v[0].lun, 5);
	assert_string_equal(b.igs.v[0].name, "host1");
	/* loaded from its records the store is in step: a save with nothing
	 * marked writes nothing, a change writes its record */
	assert_int_equal(xms_store_save(&b, err, sizeof(err)), 0);
	assert_int_equal(writes, 4);
	b.lunmaps.v[0].lun = 6;
	xms_model_changed(&b, XMS_KIND_LUNMAP, b.lunmaps.v[0].index);
	assert_int_equal(xms_store_save(&b, err, sizeof(err)), 0);
	assert_int_equal(writes, 5);
	assert_false(last_all);
	assert_int_equal(last_puts, 1);
	assert_int_equal(last_dels, 0);
	xms_model_free(&a);
	xms_model_free(&b);
}

/* a model stored whole (older versions) loads, and its first save rewrites
 * it as records and drops the whole document in the same write */
static void whole_document_migrates(void **state)
{
	struct xms_model a, b;
	char err[256] = "";

	(void)state;
	xms_store_set(&mem);
	small_model(&a);
	assert_int_equal(xms_store_save(&a, err, sizeof(err)), 0);
	assert_non_null(stored);
	xms_store_set(&mem_recs);
	assert_int_equal(xms_store_load(&b, err, sizeof(err)), 1);
	assert_int_equal(loads, 1);
	assert_int_equal(b.volumes.n, 1);
	assert_string_equal(b.volumes.v[0].name, "vol1");
	assert_int_equal(b.volumes.next, 3);
	assert_int_equal(xms_store_save(&b, err, sizeof(err)), 0);
	assert_true(last_all);
	assert_null(stored);
	assert_int_equal((int)nrecs, 5);
	xms_model_free(&a);
	xms_model_free(&b);
}

/* a failed write: the reason, and the next save writes everything again */
static void record_write_fails(void **state)
{
	struct xms_model a;
	char err[256] = "";

	(void)state;
	small_model(&a);
	assert_int_equal(xms_store_save(&a, err, sizeof(err)), 0);
	snprintf(a.volumes.v[0].name, sizeof(a.volumes.v[0].name), "other");
	xms_model_changed(&a, XMS_KIND_VOLUME, a.volumes.v[0].index);
	fail_write = "target.db: disk I/O error";
	assert_int_equal(xms_store_save(&a, err, sizeof(err)), -1);
	assert_string_equal(err, "target.db: disk I/O error");
	fail_write = NULL;
	assert_int_equal(xms_store_save(&a, err, sizeof(err)), 0);
	assert_true(last_all);
	assert_int_equal(last_puts, 5);
	xms_model_free(&a);
}

/* LUNLAB_XMS_STORE_CHECK=1: a change no one marked fails the save naming
 * its record; a marked one passes, and so do the deletes' own marks */
static void check_finds_unmarked(void **state)
{
	struct xms_model a;
	struct xms_snapset *s;
	struct xms_cg *g;
	char err[256] = "";

	(void)state;
	setenv("LUNLAB_XMS_STORE_CHECK", "1", 1);
	xms_store_set(&mem_recs); /* the variable is read here */
	small_model(&a);
	assert_int_equal(xms_store_save(&a, err, sizeof(err)), 0);
	/* a volume in a group and a snapshot set: deleting it changes both */
	g = xms_cg_add(&a);
	snprintf(g->name, sizeof(g->name), "cg1");
	g->cluster = 1;
	assert_true(xms_idlist_add(&g->vols, 2));
	s = xms_snapset_add(&a);
	snprintf(s->name, sizeof(s->name), "set1");
	s->cluster = 1;
	assert_true(xms_idlist_add(&s->vols, 2));
	a.volumes.v[0].snapset = s->index;
	xms_model_changed(&a, XMS_KIND_VOLUME, 2);
	assert_int_equal(xms_store_save(&a, err, sizeof(err)), 0);
	assert_int_equal(last_puts, 4); /* volume 2, the group, the set, head */
	xms_lunmap_del(&a, 1);
	xms_volume_del(&a, 2);
	assert_int_equal(xms_store_save(&a, err, sizeof(err)), 0);
	assert_int_equal(last_dels, 2);
	assert_int_equal(last_puts, 2); /* the group and the set without it */
	assert_int_equal(xms_store_save(&a, err, sizeof(err)), 0);
	/* the set's delete clears its snapshots' snapset */
	struct xms_volume *v = xms_volume_add(&a);
	snprintf(v->name, sizeof(v->name), "snap");
	v->cluster = 1;
	v->size = 1ull << 20;
	v->lb_size = 512;
	v->snapset = 1;
	assert_int_equal(xms_store_save(&a, err, sizeof(err)), 0);
	xms_snapset_del(&a, 1);
	assert_int_equal(xms_store_save(&a, err, sizeof(err)), 0);
	assert_int_equal(last_dels, 1);
	assert_int_equal(last_puts, 1);
	/* unmarked: caught, named */
	snprintf(a.igs.v[0].name, sizeof(a.igs.v[0].name), "sneaky");
	assert_int_equal(xms_store_save(&a, err, sizeof(err)), -1);
	assert_string_equal(err, "store check: record initiator-groups/00000000000000000001 differs from the model "
				 "(a change no one marked)");
	/* the failed check makes the next save write everything: in step again */
	assert_int_equal(xms_store_save(&a, err, sizeof(err)), 0);
	assert_true(last_all);
	unsetenv("LUNLAB_XMS_STORE_CHECK");
	xms_model_free(&a);
}

static void damaged_records(void **state)
{
	struct xms_model a, m;
	char err[256] = "";

	(void)state;
	small_model(&a);
	assert_int_equal(xms_store_save(&a, err, sizeof(err)), 0);
	xms_model_free(&a);

	rec_put("volumes/2", "{}", 2);
	assert_int_equal(xms_store_load(&m, err, sizeof(err)), -1);
	assert_string_equal(err, "the stored model's record volumes/2: want the key TYPE/INDEX (20 digits)");
	rec_del("volumes/2");

	rec_put("volumes/00000000000000000002", "{\"index\": 2,", 12);
	assert_int_equal(xms_store_load(&m, err, sizeof(err)), -1);
	assert_true(strncmp(err, "the stored model's record volumes/00000000000000000002 is not JSON: ", 68) == 0);

	rec_put("volumes/00000000000000000002", "{\"index\": 2}", 12);
	assert_int_equal(xms_store_load(&m, err, sizeof(err)), -1);
	assert_true(strncmp(err, "the stored model: volumes[0].", 29) == 0);

	rec_put("gizmos/00000000000000000001", "{}", 2);
	assert_int_equal(xms_store_load(&m, err, sizeof(err)), -1);
	assert_string_equal(err, "the stored model: records of gizmos, a type its head does not have");

	rec_del("head");
	assert_int_equal(xms_store_load(&m, err, sizeof(err)), -1);
	assert_string_equal(err, "the stored model: object records without their head record");
	assert_int_equal(m.volumes.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(nothing_stored, setup, teardown),
		cmocka_unit_test_setup_teardown(damaged, setup, teardown),
		cmocka_unit_test_setup_teardown(store_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(no_store, setup, teardown),
		cmocka_unit_test_setup_teardown(records_only_what_changed, setup_recs, teardown),
		cmocka_unit_test_setup_teardown(whole_document_migrates, setup_recs, teardown),
		cmocka_unit_test_setup_teardown(record_write_fails, setup_recs, teardown),
		cmocka_unit_test_setup_teardown(damaged_records, setup_recs, teardown),
		cmocka_unit_test_setup_teardown(check_finds_unmarked, setup_recs, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
