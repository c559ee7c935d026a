/* state_db.h — a SQLite database of a state directory (state_dir.h): how
 * lunlab opens one (write-ahead log, synchronous=FULL: a committed
 * transaction survives a crash of the process and of the machine; exclusive
 * locking: no shared-memory file, no other process), the stamp every
 * database carries (format version, what wrote it, for what), and errors in
 * words that name the file.  docs/persistence.md says why SQLite. */
#ifndef LUNLAB_STATE_DB_H
#define LUNLAB_STATE_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

/* The layout of every table this lunlab writes.  Another number in a state
 * directory is refused: lunlab never guesses at a layout it did not write. */
#define STATE_FORMAT 1

/* Open (or, with create, create) the database at path.  0, or -1 with
 * "PATH: why" in err and *db NULL. */
int state_db_open(const char *path, bool create, sqlite3 **db, char *err, size_t errlen);
void state_db_close(sqlite3 *db);

/* Run SQL without results.  0, or -1 with "PATH: what failed: why". */
int state_db_exec(sqlite3 *db, const char *sql, char *err, size_t errlen);

/* "PATH: what: sqlite's reason", naming corruption as such. */
void state_db_error(sqlite3 *db, const char *what, char *err, size_t errlen);

/* One stamp entry: what a database was written by and for. */
struct state_stamp {
	const char *key;
	const char *value;
};

/* A new database: create the stamp table and write format, kind and the
 * entries (in one transaction with whatever schema the caller created). */
int state_db_stamp_write(sqlite3 *db, const char *kind, const struct state_stamp *st, size_t n, char *err,
			 size_t errlen);

/* An existing database: the stamp must hold this format and kind, and every
 * entry given must equal the stored one.  -1 with the first difference in
 * words ("written by lunlab state format 2, this lunlab reads format 1";
 * "written for profile x1, this LU asks for x2"; a damaged stamp). */
int state_db_stamp_check(sqlite3 *db, const char *kind, const struct state_stamp *st, size_t n, char *err,
			 size_t errlen);

/* The stored value of a stamp entry into out ("" if none).  0 or -1. */
int state_db_stamp_get(sqlite3 *db, const char *key, char *out, size_t outlen);

#endif
