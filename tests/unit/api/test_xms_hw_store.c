/* test_xms_hw_store.c — the failed components kept on --state-dir
 * (xms_hw_store.h) against an in-memory log store: a failure is one record
 * (its key and JSON exactly), a restore deletes that key, nothing is
 * written without a store; loading refuses a bad record with one line
 * naming it and the field, and drops (deletes) a record naming a cluster
 * that is not there. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "target/api/xms_common.h"
#include "target/api/xms_hw_store.h"
#include "target/api/xms_log_store.h"

static char put_ns[32], put_key[24], put_val[256], del_key[24];
static int nputs, ndels;
static const char *recs[4];
static size_t nrecs;

static int mem_put(const char *ns, const char *key, const void *val, size_t len, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	snprintf(put_ns, sizeof(put_ns), "%s", ns);
	snprintf(put_key, sizeof(put_key), "%s", key);
	snprintf(put_val, sizeof(put_val), "%.*s", (int)len, (const char *)val);
	nputs++;
	return 0;
}

static int mem_del(const char *ns, const char *key, char *err, size_t errlen)
{
	(void)ns, (void)err, (void)errlen;
	snprintf(del_key, sizeof(del_key), "%s", key);
	ndels++;
	return 0;
}

static int mem_each(const char *ns, xms_log_each_fn *fn, void *arg, char *err, size_t errlen)
{
	char key[24];

	(void)err, (void)errlen;
	if (strcmp(ns, XMS_LOG_NS_HARDWARE) != 0)
		return 0;
	for (size_t i = 0; i < nrecs; i++) {
		int rc;
		xms_log_key(key, i + 1);
		rc = fn(key, recs[i], strlen(recs[i]), arg);
		if (rc)
			return rc;
	}
	return 0;
}

static const struct xms_log_store_ops ops = { mem_put, mem_del, mem_each };

static int setup(void **state)
{
	(void)state;
	nputs = ndels = 0;
	nrecs = 0;
	put_key[0] = del_key[0] = '\0';
	xms_log_store_set(&ops);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	xms_log_store_set(NULL);
	return 0;
}

static void test_put_and_restore(void **state)
{
	(void)state;
	xms_hw_store_put("xbrick1", 1, XMS_INV_SSD, 3, true);
	assert_int_equal(nputs, 1);
	assert_string_equal(put_ns, "api-hardware");
	assert_string_equal(put_key, "00000000004294967299"); /* 1 << 32 | ssd << 24 | 3 */
	assert_string_equal(put_val, "{\"cluster\":\"xbrick1\",\"component\":\"ssd\",\"number\":3}");
	xms_hw_store_put("xbrick1", 1, XMS_INV_SSD, 3, false);
	assert_int_equal(ndels, 1);
	assert_string_equal(del_key, "00000000004294967299");
	xms_hw_store_put("x2a", 2, XMS_INV_SC, 2, true);
	assert_string_equal(put_key, "00000000008606711810"); /* 2 << 32 | sc << 24 | 2 */
	assert_string_equal(put_val, "{\"cluster\":\"x2a\",\"component\":\"storage-controller\",\"number\":2}");
	/* no store: nothing */
	xms_log_store_set(NULL);
	xms_hw_store_put("xbrick1", 1, XMS_INV_SSD, 4, true);
	assert_int_equal(nputs, 2);
}

static void load_refused(const char *rec, const char *want)
{
	char err[320];

	recs[0] = "{\"cluster\":\"xbrick1\",\"component\":\"ssd\",\"number\":1}";
	recs[1] = rec;
	nrecs = 2;
	xms_lock();
	assert_int_equal(xms_hw_store_load(err, sizeof(err)), -1);
	xms_unlock();
	assert_string_equal(err, want);
	assert_int_equal(nputs, 0);
}

static void test_load_refuses(void **state)
{
	(void)state;
	load_refused("{\"cluster\":\"xbrick1\",\"component\":\"ssd\",\"number\":0}",
		     "hardware record 00000000000000000002: number");
	load_refused("{\"cluster\":\"xbrick1\",\"component\":\"ssd\",\"number\":16777216}",
		     "hardware record 00000000000000000002: number");
	load_refused("{\"cluster\":\"xbrick1\",\"component\":\"bbu\",\"number\":1}",
		     "hardware record 00000000000000000002: component");
	load_refused("{\"cluster\":\"\",\"component\":\"ssd\",\"number\":1}", "hardware record 00000000000000000002: cluster");
	load_refused("{\"cluster\":\"x\\u0001\",\"component\":\"ssd\",\"number\":1}",
		     "hardware record 00000000000000000002: cluster");
	load_refused("{\"cluster\":\"xbrick1\"} trailing", "hardware record 00000000000000000002: not a JSON object");
	load_refused("[1]", "hardware record 00000000000000000002: not a JSON object");
}

static void test_load_drops_unknown(void **state)
{
	char err[320];

	(void)state;
	/* no cluster is set up here: the record names none there and is deleted */
	recs[0] = "{\"cluster\":\"gone\",\"component\":\"storage-controller\",\"number\":2}";
	nrecs = 1;
	xms_lock();
	assert_int_equal(xms_hw_store_load(err, sizeof(err)), 0);
	xms_unlock();
	assert_int_equal(ndels, 1);
	assert_string_equal(del_key, "00000000000000000001");
	assert_int_equal(nputs, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_put_and_restore, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_refuses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_drops_unknown, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
