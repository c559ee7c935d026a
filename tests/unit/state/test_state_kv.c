/* test_state_kv.c — state/state_kv.c: records survive a close (and a crash:
 * a child killed right after a put), a damaged record is an error naming it,
 * never a value, and --check-state's walk counts and verifies every record.
 * Several changes in one transaction are all there after a commit (and a
 * kill right after it) and none after a rollback or a kill before it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "state/state_kv.h"
#include "test_util.h"

static const struct state_stamp st[] = { { "iqn", "iqn.2026-11.org.lunlab:t" } };

static struct state_kv *open_kv(const char *d, bool create)
{
	char path[512], err[512];
	struct state_kv *kv;

	snprintf(path, sizeof(path), "%s/target.db", d);
	kv = state_kv_open(path, create, st, 1, err, sizeof(err));
	if (!kv)
		fprintf(stderr, "%s\n", err);
	return kv;
}

static int collect(const char *key, const void *val, size_t len, void *arg)
{
	char *out = arg;

	strcat(out, key);
	strcat(out, "=");
	strncat(out, val, len);
	strcat(out, ";");
	return 0;
}

static void test_put_get_each_del(void **state)
{
	(void)state;
	char *d = make_scratch(), err[512], all[256] = "";
	struct state_kv *kv = open_kv(d, true);
	void *v;
	size_t n;

	assert_non_null(kv);
	assert_int_equal(state_kv_put(kv, "pr", "lu-b", "two", 3, err, sizeof(err)), 0);
	assert_int_equal(state_kv_put(kv, "pr", "lu-a", "one", 3, err, sizeof(err)), 0);
	assert_int_equal(state_kv_put(kv, "other", "lu-a", "x", 1, err, sizeof(err)), 0);
	assert_int_equal(state_kv_put(kv, "pr", "lu-b", "TWO!", 4, err, sizeof(err)), 0); /* replaced */
	state_kv_close(kv);
	kv = open_kv(d, false);
	assert_non_null(kv);
	assert_int_equal(state_kv_get(kv, "pr", "lu-b", &v, &n, err, sizeof(err)), 1);
	assert_int_equal(n, 4);
	assert_memory_equal(v, "TWO!", 4);
	free(v);
	assert_int_equal(state_kv_get(kv, "pr", "nope", &v, &n, err, sizeof(err)), 0);
	assert_null(v);
	assert_int_equal(state_kv_each(kv, "pr", collect, all, err, sizeof(err)), 0);
	assert_string_equal(all, "lu-a=one;lu-b=TWO!;");
	assert_int_equal(state_kv_del(kv, "pr", "lu-a", err, sizeof(err)), 0);
	all[0] = '\0';
	assert_int_equal(state_kv_each(kv, "pr", collect, all, err, sizeof(err)), 0);
	assert_string_equal(all, "lu-b=TWO!;");
	state_kv_close(kv);
	rm_scratch(d);
}

static void test_wrong_stamp_refused(void **state)
{
	(void)state;
	char *d = make_scratch(), path[512], err[512];
	struct state_kv *kv = open_kv(d, true);
	const struct state_stamp other[] = { { "iqn", "iqn.2026-11.org.lunlab:other" } };

	state_kv_close(kv);
	snprintf(path, sizeof(path), "%s/target.db", d);
	assert_null(state_kv_open(path, false, other, 1, err, sizeof(err)));
	assert_non_null(strstr(err, "written for iqn iqn.2026-11.org.lunlab:t, this one has iqn "
				    "iqn.2026-11.org.lunlab:other"));
	rm_scratch(d);
}

static void test_survives_kill(void **state)
{
	(void)state;
	char *d = make_scratch(), err[512];
	struct state_kv *kv = open_kv(d, true);
	int ws;
	void *v;
	size_t n;

	state_kv_close(kv);
	pid_t p = fork();
	if (p == 0) {
		struct state_kv *k = open_kv(d, false);
		if (!k || state_kv_put(k, "pr", "lu", "kept", 4, err, sizeof(err)) != 0)
			_exit(1);
		kill(getpid(), SIGKILL); /* no close, no checkpoint */
		_exit(2);
	}
	assert_int_equal(waitpid(p, &ws, 0), p);
	assert_true(WIFSIGNALED(ws));
	kv = open_kv(d, false);
	assert_non_null(kv);
	assert_int_equal(state_kv_get(kv, "pr", "lu", &v, &n, err, sizeof(err)), 1);
	assert_memory_equal(v, "kept", 4);
	free(v);
	state_kv_close(kv);
	rm_scratch(d);
}

static void test_transaction(void **state)
{
	(void)state;
	char *d = make_scratch(), err[512], all[256] = "";
	struct state_kv *kv = open_kv(d, true);
	int ws;

	assert_non_null(kv);
	assert_int_equal(state_kv_put(kv, "m", "a", "1", 1, err, sizeof(err)), 0);
	assert_int_equal(state_kv_put(kv, "m", "b", "2", 1, err, sizeof(err)), 0);
	assert_int_equal(state_kv_put(kv, "o", "a", "x", 1, err, sizeof(err)), 0);
	/* rolled back: nothing of it */
	assert_int_equal(state_kv_begin(kv, err, sizeof(err)), 0);
	assert_int_equal(state_kv_del_ns(kv, "m", err, sizeof(err)), 0);
	assert_int_equal(state_kv_put(kv, "m", "c", "3", 1, err, sizeof(err)), 0);
	state_kv_rollback(kv);
	assert_int_equal(state_kv_each(kv, "m", collect, all, err, sizeof(err)), 0);
	assert_string_equal(all, "a=1;b=2;");
	state_kv_close(kv);
	/* a child commits one transaction and is killed in the next one */
	pid_t p = fork();
	if (p == 0) {
		struct state_kv *k = open_kv(d, false);
		if (!k || state_kv_begin(k, err, sizeof(err)) || state_kv_del_ns(k, "m", err, sizeof(err)) ||
		    state_kv_put(k, "m", "c", "3", 1, err, sizeof(err)) || state_kv_commit(k, err, sizeof(err)) ||
		    state_kv_begin(k, err, sizeof(err)) || state_kv_put(k, "m", "d", "4", 1, err, sizeof(err)) ||
		    state_kv_del(k, "o", "a", err, sizeof(err)))
			_exit(1);
		kill(getpid(), SIGKILL); /* the second one never committed */
		_exit(2);
	}
	assert_int_equal(waitpid(p, &ws, 0), p);
	assert_true(WIFSIGNALED(ws));
	kv = open_kv(d, false);
	assert_non_null(kv);
	all[0] = '\0';
	assert_int_equal(state_kv_each(kv, "m", collect, all, err, sizeof(err)), 0);
	assert_string_equal(all, "c=3;");
	all[0] = '\0';
	assert_int_equal(state_kv_each(kv, "o", collect, all, err, sizeof(err)), 0);
	assert_string_equal(all, "a=x;");
	state_kv_close(kv);
	rm_scratch(d);
}

static void test_damaged_record(void **state)
{
	(void)state;
	char *d = make_scratch(), path[512], err[512];
	struct state_kv *kv = open_kv(d, true);
	sqlite3 *db;
	void *v;
	size_t n;

	assert_int_equal(state_kv_put(kv, "pr", "lu", "registered", 10, err, sizeof(err)), 0);
	assert_int_equal(state_kv_check(kv, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 1);
	state_kv_close(kv);
	/* one byte of the value changes under the record's checksum */
	snprintf(path, sizeof(path), "%s/target.db", d);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "UPDATE kv SET value = X'72656769737465726564' || X'' WHERE 0;"
					  "UPDATE kv SET value = CAST('regisTered' AS BLOB)", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	kv = open_kv(d, false);
	assert_non_null(kv);
	assert_int_equal(state_kv_get(kv, "pr", "lu", &v, &n, err, sizeof(err)), -1);
	assert_null(v);
	assert_non_null(strstr(err, "record pr/lu fails its checksum (the file is damaged)"));
	assert_int_equal(state_kv_check(kv, &n, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "record pr/lu fails its checksum"));
	state_kv_close(kv);
	rm_scratch(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_get_each_del),
		cmocka_unit_test(test_wrong_stamp_refused),
		cmocka_unit_test(test_survives_kill),
		cmocka_unit_test(test_transaction),
		cmocka_unit_test(test_damaged_record),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
