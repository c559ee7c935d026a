/* state_kv.c — durable (namespace, key) -> value records (state_kv.h). */
#include "state/state_kv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state/state_crc.h"

struct state_kv {
	sqlite3 *db;
};

static uint32_t rec_crc(const char *ns, const char *key, const void *val, size_t len)
{
	uint32_t c = ll_crc32c(0, ns, strlen(ns) + 1);

	c = ll_crc32c(c, key, strlen(key) + 1);
	return ll_crc32c(c, val, len);
}

struct state_kv *state_kv_open(const char *path, bool create, const struct state_stamp *st, size_t nst,
			       char *err, size_t errlen)
{
	struct state_kv *kv = calloc(1, sizeof(*kv));
	char fmt[16];

	if (!kv) {
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	if (state_db_open(path, create, &kv->db, err, errlen) < 0)
		goto fail;
	if (state_db_stamp_get(kv->db, "format", fmt, sizeof(fmt)) < 0)
		fmt[0] = '\0'; /* no stamp table yet */
	if (!fmt[0] && create) {
		if (state_db_exec(kv->db, "BEGIN", err, errlen) < 0 ||
		    state_db_exec(kv->db,
				  "CREATE TABLE kv(ns TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL,"
				  " crc INTEGER NOT NULL, PRIMARY KEY(ns, key))",
				  err, errlen) < 0 ||
		    state_db_stamp_write(kv->db, "target", st, nst, err, errlen) < 0 ||
		    state_db_exec(kv->db, "COMMIT", err, errlen) < 0)
			goto fail;
	} else if (state_db_stamp_check(kv->db, "target", st, nst, err, errlen) < 0) {
		goto fail;
	}
	return kv;
fail:
	state_kv_close(kv);
	return NULL;
}

void state_kv_close(struct state_kv *kv)
{
	if (!kv)
		return;
	state_db_close(kv->db);
	free(kv);
}

int state_kv_put(struct state_kv *kv, const char *ns, const char *key, const void *val, size_t len, char *err,
		 size_t errlen)
{
	sqlite3_stmt *s = NULL;
	int rc = -1;

	if (sqlite3_prepare_v2(kv->db, "INSERT OR REPLACE INTO kv(ns, key, value, crc) VALUES(?, ?, ?, ?)", -1, &s,
			       NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(s, 1, ns, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, key, -1, SQLITE_STATIC);
	sqlite3_bind_blob(s, 3, len ? val : "", (int)len, SQLITE_STATIC);
	sqlite3_bind_int64(s, 4, rec_crc(ns, key, val, len));
	if (sqlite3_step(s) == SQLITE_DONE)
		rc = 0;
out:
	if (rc)
		state_db_error(kv->db, "writing a record", err, errlen);
	sqlite3_finalize(s);
	return rc;
}

int state_kv_del(struct state_kv *kv, const char *ns, const char *key, char *err, size_t errlen)
{
	sqlite3_stmt *s = NULL;
	int rc = -1;

	if (sqlite3_prepare_v2(kv->db, "DELETE FROM kv WHERE ns = ? AND key = ?", -1, &s, NULL) == SQLITE_OK) {
		sqlite3_bind_text(s, 1, ns, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 2, key, -1, SQLITE_STATIC);
		if (sqlite3_step(s) == SQLITE_DONE)
			rc = 0;
	}
	if (rc)
		state_db_error(kv->db, "deleting a record", err, errlen);
	sqlite3_finalize(s);
	return rc;
}

int state_kv_del_ns(struct state_kv *kv, const char *ns, char *err, size_t errlen)
{
	sqlite3_stmt *s = NULL;
	int rc = -1;

	if (sqlite3_prepare_v2(kv->db, "DELETE FROM kv WHERE ns = ?", -1, &s, NULL) == SQLITE_OK) {
		sqlite3_bind_text(s, 1, ns, -1, SQLITE_STATIC);
		if (sqlite3_step(s) == SQLITE_DONE)
			rc = 0;
	}
	if (rc)
		state_db_error(kv->db, "deleting records", err, errlen);
	sqlite3_finalize(s);
	return rc;
}

int state_kv_begin(struct state_kv *kv, char *err, size_t errlen)
{
	return state_db_exec(kv->db, "BEGIN IMMEDIATE", err, errlen);
}

int state_kv_commit(struct state_kv *kv, char *err, size_t errlen)
{
	return state_db_exec(kv->db, "COMMIT", err, errlen);
}

void state_kv_rollback(struct state_kv *kv)
{
	char err[256];

	/* after a failed statement or COMMIT; SQLite may have rolled back
	 * already, and then this one fails harmlessly */
	(void)state_db_exec(kv->db, "ROLLBACK", err, sizeof(err));
}

/* the row under s (columns key, value, crc) verified; ns for the message */
static int row(sqlite3_stmt *s, const char *ns, const char **key, const void **val, size_t *len, char *err,
	       size_t errlen, sqlite3 *db)
{
	*key = (const char *)sqlite3_column_text(s, 0);
	*val = sqlite3_column_blob(s, 1);
	*len = (size_t)sqlite3_column_bytes(s, 1);
	if (!*key || (!*val && *len) ||
	    (uint32_t)sqlite3_column_int64(s, 2) != rec_crc(ns, *key, *val ? *val : "", *len)) {
		snprintf(err, errlen, "%s: record %s/%s fails its checksum (the file is damaged)",
			 sqlite3_db_filename(db, "main"), ns, *key ? *key : "?");
		return -1;
	}
	return 0;
}

int state_kv_get(struct state_kv *kv, const char *ns, const char *key, void **val, size_t *len, char *err,
		 size_t errlen)
{
	sqlite3_stmt *s = NULL;
	int r, rc = -1;

	*val = NULL;
	*len = 0;
	if (sqlite3_prepare_v2(kv->db, "SELECT key, value, crc FROM kv WHERE ns = ? AND key = ?", -1, &s, NULL) !=
	    SQLITE_OK) {
		state_db_error(kv->db, "reading a record", err, errlen);
		return -1;
	}
	sqlite3_bind_text(s, 1, ns, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, key, -1, SQLITE_STATIC);
	r = sqlite3_step(s);
	if (r == SQLITE_ROW) {
		const char *k;
		const void *v;
		size_t n;

		if (row(s, ns, &k, &v, &n, err, errlen, kv->db) == 0) {
			*val = malloc(n ? n : 1);
			if (*val) {
				memcpy(*val, v, n);
				*len = n;
				rc = 1;
			} else {
				snprintf(err, errlen, "out of memory");
			}
		}
	} else if (r == SQLITE_DONE) {
		rc = 0;
	} else {
		state_db_error(kv->db, "reading a record", err, errlen);
	}
	sqlite3_finalize(s);
	return rc;
}

int state_kv_each(struct state_kv *kv, const char *ns,
		  int (*fn)(const char *key, const void *val, size_t len, void *arg), void *arg, char *err,
		  size_t errlen)
{
	sqlite3_stmt *s = NULL;
	int r, rc = 0;

	if (sqlite3_prepare_v2(kv->db, "SELECT key, value, crc FROM kv WHERE ns = ? ORDER BY key", -1, &s, NULL) !=
	    SQLITE_OK) {
		state_db_error(kv->db, "reading records", err, errlen);
		return -1;
	}
	sqlite3_bind_text(s, 1, ns, -1, SQLITE_STATIC);
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		const char *k;
		const void *v;
		size_t n;

		if (row(s, ns, &k, &v, &n, err, errlen, kv->db) < 0) {
			rc = -1;
			break;
		}
		if ((rc = fn(k, v, n, arg)) != 0)
			break;
	}
	if (r != SQLITE_ROW && r != SQLITE_DONE) {
		state_db_error(kv->db, "reading records", err, errlen);
		rc = -1;
	}
	sqlite3_finalize(s);
	return rc;
}

int state_kv_check(struct state_kv *kv, size_t *records, char *err, size_t errlen)
{
	sqlite3_stmt *s = NULL;
	int r, rc = 0;

	*records = 0;
	if (sqlite3_prepare_v2(kv->db, "PRAGMA integrity_check", -1, &s, NULL) != SQLITE_OK) {
		state_db_error(kv->db, "integrity check", err, errlen);
		return -1;
	}
	r = sqlite3_step(s);
	if (r != SQLITE_ROW || strcmp((const char *)sqlite3_column_text(s, 0), "ok") != 0) {
		if (r == SQLITE_ROW)
			snprintf(err, errlen, "%s: integrity check: %s", sqlite3_db_filename(kv->db, "main"),
				 (const char *)sqlite3_column_text(s, 0));
		else
			state_db_error(kv->db, "integrity check", err, errlen);
		sqlite3_finalize(s);
		return -1;
	}
	sqlite3_finalize(s);
	if (sqlite3_prepare_v2(kv->db, "SELECT key, value, crc, ns FROM kv ORDER BY ns, key", -1, &s, NULL) !=
	    SQLITE_OK) {
		state_db_error(kv->db, "reading records", err, errlen);
		return -1;
	}
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		const char *k, *ns = (const char *)sqlite3_column_text(s, 3);
		const void *v;
		size_t n;

		if (row(s, ns ? ns : "", &k, &v, &n, err, errlen, kv->db) < 0) {
			rc = -1;
			break;
		}
		(*records)++;
	}
	if (rc == 0 && r != SQLITE_DONE) {
		state_db_error(kv->db, "reading records", err, errlen);
		rc = -1;
	}
	sqlite3_finalize(s);
	return rc;
}
