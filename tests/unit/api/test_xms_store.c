/* test_xms_store.c — target/api/xms_store.c: the XMS model kept through a
 * store (--state-dir): saved whole and loaded back equal, nothing stored
 * loads nothing, a store's failure and a damaged document are refused with
 * the reason, and without a store nothing is asked of anyone. */
#include <json-c/json.h>
#include <setjmp.h>
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

static const struct xms_store_ops mem = { mem_load, mem_save };

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

static int teardown(void **state)
{
	(void)state;
	xms_store_set(NULL);
	free(stored);
	stored = NULL;
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(nothing_stored, setup, teardown),
		cmocka_unit_test_setup_teardown(damaged, setup, teardown),
		cmocka_unit_test_setup_teardown(store_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(no_store, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
