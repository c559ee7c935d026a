/* array_test_db.h — for the array unit tests that look into a state
 * database behind the store's back (what rows a layout change left). */
#ifndef ARRAY_TEST_DB_H
#define ARRAY_TEST_DB_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sqlite3.h>
#include <cmocka.h>

/* The first column of the first row of sql (a count, a max) in the database at
 * path, or -1 when there is no row. */
static inline int db_count(const char *path, const char *sql)
{
	sqlite3 *raw;
	sqlite3_stmt *q;
	int n = -1;

	assert_int_equal(sqlite3_open(path, &raw), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(raw, sql, -1, &q, NULL), SQLITE_OK);
	if (sqlite3_step(q) == SQLITE_ROW)
		n = sqlite3_column_int(q, 0);
	sqlite3_finalize(q);
	sqlite3_close(raw);
	return n;
}

/* Run sql on the database at path (a damage the store must then find). */
static inline void db_exec(const char *path, const char *sql)
{
	sqlite3 *raw;

	assert_int_equal(sqlite3_open(path, &raw), SQLITE_OK);
	assert_int_equal(sqlite3_exec(raw, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(raw);
}

#endif
