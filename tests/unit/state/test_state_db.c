/* test_state_db.c — state/state_db.c: a database is created with its stamp
 * and reopened; another format, kind or stamp entry is refused with a reason
 * that names it; a damaged stamp or a file that is no database is named as
 * damaged; nothing crashes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <unistd.h>
#include <cmocka.h>

#include "state/state_db.h"
#include "test_util.h"

static const struct state_stamp x2[] = { { "profile", "x2" }, { "dedup_block", "16384" } };

static char *make_db(sqlite3 **db, char *path, size_t len)
{
	char *d = make_scratch(), err[512];

	snprintf(path, len, "%s/t.db", d);
	assert_int_equal(state_db_open(path, true, db, err, sizeof(err)), 0);
	assert_int_equal(state_db_exec(*db, "BEGIN; CREATE TABLE t(x)", err, sizeof(err)), 0);
	assert_int_equal(state_db_stamp_write(*db, "array", x2, 2, err, sizeof(err)), 0);
	assert_int_equal(state_db_exec(*db, "COMMIT", err, sizeof(err)), 0);
	return d;
}

static void test_create_reopen(void **state)
{
	(void)state;
	sqlite3 *db;
	char path[512], err[512], v[64];
	char *d = make_db(&db, path, sizeof(path));

	state_db_close(db);
	assert_int_equal(state_db_open(path, false, &db, err, sizeof(err)), 0);
	assert_int_equal(state_db_stamp_check(db, "array", x2, 2, err, sizeof(err)), 0);
	assert_int_equal(state_db_stamp_get(db, "format", v, sizeof(v)), 0);
	assert_string_equal(v, "1");
	assert_int_equal(state_db_stamp_get(db, "written_by", v, sizeof(v)), 0);
	assert_non_null(strstr(v, "lunlab "));
	assert_int_equal(state_db_stamp_get(db, "nosuch", v, sizeof(v)), 0);
	assert_string_equal(v, "");
	state_db_close(db);
	rm_scratch(d);
}

static void test_missing(void **state)
{
	(void)state;
	sqlite3 *db;
	char err[512];

	assert_int_equal(state_db_open("/nonexistent/dir/t.db", false, &db, err, sizeof(err)), -1);
	assert_null(db);
	assert_string_equal(err, "/nonexistent/dir/t.db: missing");
}

static void test_refusals(void **state)
{
	(void)state;
	sqlite3 *db;
	char path[512], err[512];
	char *d = make_db(&db, path, sizeof(path));
	const struct state_stamp x1[] = { { "profile", "x1" }, { "dedup_block", "16384" } };

	assert_int_equal(state_db_stamp_check(db, "target", x2, 2, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "holds array state, not target state"));
	assert_int_equal(state_db_stamp_check(db, "array", x1, 2, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "written for profile x2, this one has profile x1"));
	/* another format, as a later lunlab would write it (stamp kept consistent) */
	assert_int_equal(state_db_stamp_write(db, "array", (struct state_stamp[]){ { "format", "2" } }, 1, err,
					      sizeof(err)), 0);
	assert_int_equal(state_db_stamp_check(db, "array", x2, 2, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "in state format 2; this lunlab"));
	assert_non_null(strstr(err, "reads format 1 only"));
	state_db_close(db);
	rm_scratch(d);
}

static void test_damaged_stamp(void **state)
{
	(void)state;
	sqlite3 *db;
	char path[512], err[512];
	char *d = make_db(&db, path, sizeof(path));

	/* a value changed behind the stamp's back */
	assert_int_equal(state_db_exec(db, "UPDATE stamp SET value='x1' WHERE key='profile'", err, sizeof(err)), 0);
	assert_int_equal(state_db_stamp_check(db, "array", x2, 2, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "the stamp fails its checksum (the file is damaged)"));
	assert_int_equal(state_db_exec(db, "DROP TABLE stamp", err, sizeof(err)), 0);
	assert_int_equal(state_db_stamp_check(db, "array", x2, 2, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no such table")); /* not a lunlab database at all */
	state_db_close(db);
	rm_scratch(d);
}

static void test_not_a_database(void **state)
{
	(void)state;
	sqlite3 *db;
	char *d = make_scratch(), path[512], err[512];
	int fd;

	snprintf(path, sizeof(path), "%s/t.db", d);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	for (int i = 0; i < 64; i++)
		assert_int_equal(write(fd, "garbage garbage garbage garbage garbage garbage garbage garbage ", 64), 64);
	close(fd);
	assert_int_equal(state_db_open(path, false, &db, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "the file is damaged"));
	assert_non_null(strstr(err, path));
	rm_scratch(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_reopen),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_damaged_stamp),
		cmocka_unit_test(test_not_a_database),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
