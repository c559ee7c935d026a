/* state_db.c — opening lunlab's SQLite databases and their stamps
 * (state_db.h). */
#include "state/state_db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "state/state_crc.h"

#ifndef LUNLAB_VERSION
#define LUNLAB_VERSION "unknown"
#endif

void state_db_error(sqlite3 *db, const char *what, char *err, size_t errlen)
{
	const char *file = db ? sqlite3_db_filename(db, "main") : NULL;
	int code = db ? sqlite3_errcode(db) : SQLITE_ERROR;
	const char *why = db ? sqlite3_errmsg(db) : "no database";

	if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
		snprintf(err, errlen, "%s: %s: the file is damaged (%s)", file && *file ? file : "(state)", what, why);
	else
		snprintf(err, errlen, "%s: %s: %s", file && *file ? file : "(state)", what, why);
}

int state_db_exec(sqlite3 *db, const char *sql, char *err, size_t errlen)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
		char what[96];

		snprintf(what, sizeof(what), "%.80s", sql);
		state_db_error(db, what, err, errlen);
		return -1;
	}
	return 0;
}

int state_db_open(const char *path, bool create, sqlite3 **dbp, char *err, size_t errlen)
{
	struct stat st;
	sqlite3 *db = NULL;
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0);

	*dbp = NULL;
	if (!create && stat(path, &st) < 0) {
		snprintf(err, errlen, "%s: missing", path);
		return -1;
	}
	if (sqlite3_open_v2(path, &db, flags, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: cannot open: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return -1;
	}
	/* exclusive: the state directory's lock already keeps other processes
	 * out, and the WAL then needs no shared-memory file.  FULL: every
	 * commit is fsync()ed before it returns, so "committed" means durable. */
	if (state_db_exec(db, "PRAGMA locking_mode=EXCLUSIVE", err, errlen) < 0 ||
	    state_db_exec(db, "PRAGMA journal_mode=WAL", err, errlen) < 0 ||
	    state_db_exec(db, "PRAGMA synchronous=FULL", err, errlen) < 0 ||
	    /* reading the schema finds a file that is no database at all */
	    state_db_exec(db, "SELECT count(*) FROM sqlite_schema", err, errlen) < 0) {
		sqlite3_close(db);
		return -1;
	}
	*dbp = db;
	return 0;
}

void state_db_close(sqlite3 *db)
{
	if (db)
		sqlite3_close(db);
}

/* checksum over the stamp entries in key order, as text: a damaged stamp is
 * told apart from one written for something else */
static uint32_t stamp_crc(sqlite3 *db, int *rc)
{
	sqlite3_stmt *s = NULL;
	uint32_t crc = 0;

	*rc = sqlite3_prepare_v2(db, "SELECT key, value FROM stamp WHERE key <> 'checksum' ORDER BY key", -1, &s,
				 NULL);
	if (*rc != SQLITE_OK)
		return 0;
	while ((*rc = sqlite3_step(s)) == SQLITE_ROW) {
		const unsigned char *k = sqlite3_column_text(s, 0), *v = sqlite3_column_text(s, 1);

		crc = ll_crc32c(crc, k ? k : (const unsigned char *)"", k ? strlen((const char *)k) + 1 : 1);
		crc = ll_crc32c(crc, v ? v : (const unsigned char *)"", v ? strlen((const char *)v) + 1 : 1);
	}
	if (*rc == SQLITE_DONE)
		*rc = SQLITE_OK;
	sqlite3_finalize(s);
	return crc;
}

static int put(sqlite3 *db, sqlite3_stmt *s, const char *k, const char *v)
{
	sqlite3_reset(s);
	sqlite3_bind_text(s, 1, k, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s, 2, v, -1, SQLITE_TRANSIENT);
	(void)db;
	return sqlite3_step(s) == SQLITE_DONE ? 0 : -1;
}

int state_db_stamp_write(sqlite3 *db, const char *kind, const struct state_stamp *st, size_t n, char *err,
			 size_t errlen)
{
	sqlite3_stmt *s = NULL;
	char fmt[16], crc[16];
	int rc;

	if (state_db_exec(db, "CREATE TABLE IF NOT EXISTS stamp(key TEXT PRIMARY KEY, value TEXT NOT NULL)", err,
			  errlen) < 0)
		return -1;
	if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO stamp(key, value) VALUES(?, ?)", -1, &s, NULL) !=
	    SQLITE_OK) {
		state_db_error(db, "writing the stamp", err, errlen);
		return -1;
	}
	snprintf(fmt, sizeof(fmt), "%d", STATE_FORMAT);
	rc = put(db, s, "format", fmt) | put(db, s, "kind", kind) | put(db, s, "written_by", "lunlab " LUNLAB_VERSION);
	for (size_t i = 0; i < n && !rc; i++)
		rc = put(db, s, st[i].key, st[i].value);
	if (!rc) {
		int r;
		uint32_t c = stamp_crc(db, &r);

		snprintf(crc, sizeof(crc), "%08x", c);
		rc = r != SQLITE_OK || put(db, s, "checksum", crc);
	}
	if (rc)
		state_db_error(db, "writing the stamp", err, errlen);
	sqlite3_finalize(s);
	return rc ? -1 : 0;
}

int state_db_stamp_get(sqlite3 *db, const char *key, char *out, size_t outlen)
{
	sqlite3_stmt *s = NULL;
	int rc = -1;

	out[0] = '\0';
	if (sqlite3_prepare_v2(db, "SELECT value FROM stamp WHERE key = ?", -1, &s, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
	int r = sqlite3_step(s);

	if (r == SQLITE_ROW) {
		const unsigned char *v = sqlite3_column_text(s, 0);

		snprintf(out, outlen, "%s", v ? (const char *)v : "");
		rc = 0;
	} else if (r == SQLITE_DONE) {
		rc = 0;
	}
	sqlite3_finalize(s);
	return rc;
}

int state_db_stamp_check(sqlite3 *db, const char *kind, const struct state_stamp *st, size_t n, char *err,
			 size_t errlen)
{
	const char *file = sqlite3_db_filename(db, "main");
	char have[256], by[256], crc[16];
	int r;

	if (state_db_stamp_get(db, "format", have, sizeof(have)) < 0) {
		state_db_error(db, "reading the stamp", err, errlen);
		return -1;
	}
	if (!have[0]) {
		snprintf(err, errlen, "%s: no stamp: not a lunlab state database", file);
		return -1;
	}
	uint32_t c = stamp_crc(db, &r);

	if (r != SQLITE_OK) {
		state_db_error(db, "reading the stamp", err, errlen);
		return -1;
	}
	snprintf(crc, sizeof(crc), "%08x", c);
	if (state_db_stamp_get(db, "checksum", by, sizeof(by)) < 0 || strcmp(by, crc) != 0) {
		snprintf(err, errlen, "%s: the stamp fails its checksum (the file is damaged)", file);
		return -1;
	}
	state_db_stamp_get(db, "written_by", by, sizeof(by));
	if (atoi(have) != STATE_FORMAT || strspn(have, "0123456789") != strlen(have)) {
		snprintf(err, errlen, "%s: written by %s in state format %s; this lunlab (%s) reads format %d only",
			 file, by[0] ? by : "another lunlab", have, LUNLAB_VERSION, STATE_FORMAT);
		return -1;
	}
	state_db_stamp_get(db, "kind", have, sizeof(have));
	if (strcmp(have, kind) != 0) {
		snprintf(err, errlen, "%s: holds %s state, not %s state", file, have[0] ? have : "unknown", kind);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (state_db_stamp_get(db, st[i].key, have, sizeof(have)) < 0) {
			state_db_error(db, "reading the stamp", err, errlen);
			return -1;
		}
		if (strcmp(have, st[i].value) != 0) {
			snprintf(err, errlen, "%s: written for %s %s, this one has %s %s", file, st[i].key,
				 have[0] ? have : "(none)", st[i].key, st[i].value);
			return -1;
		}
	}
	return 0;
}
