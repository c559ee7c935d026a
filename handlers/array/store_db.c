/* store_db.c — one array's metadata in SQLite (store_db.h). */
#include "handlers/array/store_db.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lunlab/errf.h"
#include "state/state_crc.h"

enum {
	S_PUT_VOL,
	S_DEL_VOL,
	S_DEL_VOL_CHUNKS,
	S_PUT_CHUNK,
	S_DEL_CHUNK,
	S_DEL_CHUNKS_FROM,
	S_PUT_BLOCK,
	S_DEL_BLOCK,
	S_PUT_SUMMARY,
	S_PUT_SHARED,
	S_DEL_SHARED,
	S_PUT_RUNS,
	S_DEL_RUNS,
	S_DEL_VOL_RUNS,
	S_DEL_RUNS_FROM,
	S_COUNT
};

static const char *const sql[S_COUNT] = {
	[S_PUT_VOL] = "INSERT OR REPLACE INTO volumes(vid, key, size, lba_size, flags, info, crc) "
		      "VALUES(?, ?, ?, ?, ?, ?, ?)",
	[S_DEL_VOL] = "DELETE FROM volumes WHERE vid = ?",
	[S_DEL_VOL_CHUNKS] = "DELETE FROM chunks WHERE vid = ?",
	[S_PUT_CHUNK] = "INSERT OR REPLACE INTO chunks(vid, idx, ids, crc) VALUES(?, ?, ?, ?)",
	[S_DEL_CHUNK] = "DELETE FROM chunks WHERE vid = ? AND idx = ?",
	[S_DEL_CHUNKS_FROM] = "DELETE FROM chunks WHERE vid = ? AND idx >= ?",
	[S_PUT_BLOCK] = "INSERT OR REPLACE INTO blocks(id, fp, refs, csize, dcrc, crc) VALUES(?, ?, ?, ?, ?, ?)",
	[S_DEL_BLOCK] = "DELETE FROM blocks WHERE id = ?",
	[S_PUT_SUMMARY] = "INSERT OR REPLACE INTO summary(k, epoch, unique_blocks, pending_blocks, physical_bytes, "
			  "compressed_bytes, mapped_blocks, refs_total, crc) VALUES(0, ?, ?, ?, ?, ?, ?, ?, ?)",
	[S_PUT_SHARED] = "INSERT OR REPLACE INTO shared(cid, ids, crc) VALUES(?, ?, ?)",
	[S_DEL_SHARED] = "DELETE FROM shared WHERE cid = ?",
	[S_PUT_RUNS] = "INSERT OR REPLACE INTO runs(vid, grp, runs, crc) VALUES(?, ?, ?, ?)",
	[S_DEL_RUNS] = "DELETE FROM runs WHERE vid = ? AND grp = ?",
	[S_DEL_VOL_RUNS] = "DELETE FROM runs WHERE vid = ?",
	[S_DEL_RUNS_FROM] = "DELETE FROM runs WHERE vid = ? AND grp >= ?",
};

/* Shared map chunks (a table states made before them lack: made when
 * missing, so they open as they are). */
static const char shared_schema[] =
	"CREATE TABLE IF NOT EXISTS shared(cid INTEGER PRIMARY KEY, ids BLOB NOT NULL, crc INTEGER NOT NULL);"
	/* slots naming shared chunks, as runs (made when missing, as shared) */
	"CREATE TABLE IF NOT EXISTS runs(vid INTEGER NOT NULL, grp INTEGER NOT NULL, runs BLOB NOT NULL,"
	" crc INTEGER NOT NULL, PRIMARY KEY(vid, grp)) WITHOUT ROWID;";

/* The stamp entry saying slots naming shared chunks are runs rows: a state
 * without it may hold them as chunks rows, moved at the first open for
 * writing (store_db_open). */
#define MAP_ROWS_KEY "map_rows"
#define MAP_ROWS_RUNS "runs"

static const char schema[] =
	"CREATE TABLE volumes(vid INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, size INTEGER NOT NULL,"
	" lba_size INTEGER NOT NULL, flags INTEGER NOT NULL, info TEXT NOT NULL, crc INTEGER NOT NULL);"
	"CREATE TABLE chunks(vid INTEGER NOT NULL, idx INTEGER NOT NULL, ids BLOB NOT NULL, crc INTEGER NOT NULL,"
	" PRIMARY KEY(vid, idx)) WITHOUT ROWID;"
	"CREATE TABLE blocks(id INTEGER PRIMARY KEY, fp INTEGER NOT NULL, refs INTEGER NOT NULL,"
	" csize INTEGER NOT NULL, dcrc INTEGER NOT NULL, crc INTEGER NOT NULL);"
	"CREATE TABLE summary(k INTEGER PRIMARY KEY CHECK (k = 0), epoch INTEGER NOT NULL,"
	" unique_blocks INTEGER NOT NULL, pending_blocks INTEGER NOT NULL, physical_bytes INTEGER NOT NULL,"
	" compressed_bytes INTEGER NOT NULL, mapped_blocks INTEGER NOT NULL, refs_total INTEGER NOT NULL,"
	" crc INTEGER NOT NULL);";

struct store_db {
	sqlite3 *db;
	sqlite3_stmt *st[S_COUNT];
	bool created;
};

const char *store_db_path(const struct store_db *db)
{
	return sqlite3_db_filename(db->db, "main");
}

bool store_db_is_new(const struct store_db *db)
{
	return db->created;
}

/* ---- row checksums: fields in a fixed order, little-endian ---- */

static uint32_t vol_crc(const struct store_vol_rec *r)
{
	uint64_t v[4] = { r->vid, r->size, r->lba_size, r->flags };
	uint32_t c = state_crc_u64s(0, v, 4);

	c = ll_crc32c(c, r->key, strlen(r->key) + 1);
	return ll_crc32c(c, r->info, strlen(r->info) + 1);
}

static uint32_t chunk_crc(uint64_t vid, uint64_t idx, const uint32_t *ids)
{
	uint64_t v[2] = { vid, idx };
	uint8_t le[STORE_CHUNK * 4];

	for (unsigned i = 0; i < STORE_CHUNK; i++)
		for (int k = 0; k < 4; k++)
			le[i * 4 + (unsigned)k] = (uint8_t)(ids[i] >> (8 * k));
	return ll_crc32c(state_crc_u64s(0, v, 2), le, sizeof(le));
}

static void ids_le(const uint32_t *ids, uint8_t le[STORE_CHUNK * 4])
{
	for (unsigned i = 0; i < STORE_CHUNK; i++)
		for (int k = 0; k < 4; k++)
			le[i * 4 + (unsigned)k] = (uint8_t)(ids[i] >> (8 * k));
}

static void le_ids(const uint8_t *b, uint32_t *ids)
{
	for (unsigned i = 0; i < STORE_CHUNK; i++)
		ids[i] = (uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 | (uint32_t)b[4 * i + 2] << 16 |
			 (uint32_t)b[4 * i + 3] << 24;
}

/* a chunk row naming a shared chunk: its ids blob is the 8-byte cid */
static uint32_t ref_crc(uint64_t vid, uint64_t idx, uint64_t cid)
{
	uint64_t v[4] = { vid, idx, cid, 0x5348 /* "SH": never equal to an inline row's */ };

	return state_crc_u64s(0, v, 4);
}

static uint32_t runs_crc(uint64_t vid, uint64_t grp, const uint8_t *blob, size_t len)
{
	uint64_t v[3] = { vid, grp, len };

	return ll_crc32c(state_crc_u64s(0, v, 3), blob, len);
}

static void runs_le(const struct store_run *r, unsigned n, uint8_t *b)
{
	for (unsigned i = 0; i < n; i++, b += STORE_RUN_BYTES) {
		b[0] = (uint8_t)r[i].off;
		b[1] = (uint8_t)(r[i].off >> 8);
		b[2] = (uint8_t)r[i].count;
		b[3] = (uint8_t)(r[i].count >> 8);
		for (int k = 0; k < 4; k++)
			b[4 + k] = (uint8_t)((uint32_t)r[i].step >> (8 * k));
		for (int k = 0; k < 8; k++)
			b[8 + k] = (uint8_t)(r[i].cid >> (8 * k));
	}
}

/* a runs row's blob into runs: false for one no writer makes (a run out of
 * the group, empty, overlapping the one before, a cid of 0 or past 2^63) */
static bool le_runs(const uint8_t *b, size_t len, struct store_run *r, unsigned *n)
{
	unsigned end = 0;

	if (!b || !len || len % STORE_RUN_BYTES || len / STORE_RUN_BYTES > STORE_GROUP)
		return false;
	*n = (unsigned)(len / STORE_RUN_BYTES);
	for (unsigned i = 0; i < *n; i++, b += STORE_RUN_BYTES) {
		r[i].off = (uint16_t)(b[0] | b[1] << 8);
		r[i].count = (uint16_t)(b[2] | b[3] << 8);
		uint32_t step = (uint32_t)b[4] | (uint32_t)b[5] << 8 | (uint32_t)b[6] << 16 | (uint32_t)b[7] << 24;

		r[i].step = (int32_t)step;
		r[i].cid = 0;
		for (int k = 0; k < 8; k++)
			r[i].cid |= (uint64_t)b[8 + k] << (8 * k);
		if (r[i].off < end || !r[i].count || r[i].count > STORE_GROUP - r[i].off || !r[i].cid ||
		    r[i].cid > (uint64_t)INT64_MAX / 2)
			return false;
		/* the last slot's cid: from 1 to 2^63 (|step| * 255 < 2^39) */
		int64_t last = (int64_t)r[i].cid + (int64_t)r[i].step * (r[i].count - 1);
		if (last < 1 || (uint64_t)last > (uint64_t)INT64_MAX / 2)
			return false;
		end = (unsigned)r[i].off + r[i].count;
	}
	return true;
}

static uint32_t shared_crc(uint64_t cid, const uint32_t *ids)
{
	uint8_t le[STORE_CHUNK * 4];

	ids_le(ids, le);
	return ll_crc32c(state_crc_u64s(0, &cid, 1), le, sizeof(le));
}

static uint32_t blk_crc(const struct store_blk_rec *r)
{
	uint64_t v[5] = { r->id, r->fp, r->refs, (uint64_t)(int64_t)r->csize, r->dcrc };

	return state_crc_u64s(0, v, 5);
}

static uint32_t summary_crc(const struct store_summary *s)
{
	uint64_t v[7] = { s->epoch,         s->unique_blocks, s->pending_blocks, s->physical_bytes,
			  s->compressed_bytes, s->mapped_blocks, s->refs_total };

	return state_crc_u64s(0, v, 7);
}

/* ---- open ---- */

static int migrate_refs(struct store_db *db, const struct state_stamp *st, size_t nst, char *err, size_t errlen);

struct store_db *store_db_open(const char *path, bool create, const struct state_stamp *st, size_t nst,
			       char *err, size_t errlen)
{
	struct store_db *db = calloc(1, sizeof(*db));
	struct state_stamp *st1 = NULL;
	char fmt[16];

	if (!db || !(st1 = calloc(nst + 1, sizeof(*st1)))) {
		ll_errf(err, errlen, "%s: out of memory", path);
		free(db);
		return NULL;
	}
	/* a new state's stamp says its shared slots are runs rows */
	if (nst)
		memcpy(st1, st, nst * sizeof(*st));
	st1[nst] = (struct state_stamp){ MAP_ROWS_KEY, MAP_ROWS_RUNS };
	if (state_db_open(path, create, &db->db, err, errlen) < 0)
		goto out;
	if (state_db_stamp_get(db->db, "format", fmt, sizeof(fmt)) < 0)
		fmt[0] = '\0'; /* no stamp table: a new file */
	if (!fmt[0] && create) {
		char e2[256];

		if (state_db_exec(db->db, "BEGIN", err, errlen) < 0 ||
		    state_db_exec(db->db, schema, err, errlen) < 0 ||
		    state_db_stamp_write(db->db, "array", st1, nst + 1, err, errlen) < 0 ||
		    state_db_exec(db->db, "COMMIT", err, errlen) < 0) {
			state_db_exec(db->db, "ROLLBACK", e2, sizeof(e2));
			goto out;
		}
		db->created = true;
	} else if (state_db_stamp_check(db->db, "array", st, nst, err, errlen) < 0) {
		goto out;
	}
	if (state_db_exec(db->db, shared_schema, err, errlen) < 0)
		goto out;
	for (int i = 0; i < S_COUNT; i++)
		if (sqlite3_prepare_v2(db->db, sql[i], -1, &db->st[i], NULL) != SQLITE_OK) {
			state_db_error(db->db, "preparing statements (is the schema damaged?)", err, errlen);
			goto out;
		}
	if (create && !db->created) {
		char rows[16];

		if (state_db_stamp_get(db->db, MAP_ROWS_KEY, rows, sizeof(rows)) < 0) {
			state_db_error(db->db, "reading the stamp", err, errlen);
			goto out;
		}
		if (strcmp(rows, MAP_ROWS_RUNS) != 0 && migrate_refs(db, st1, nst + 1, err, errlen) < 0)
			goto out;
	}
	free(st1);
	return db;
out:
	free(st1);
	store_db_close(db);
	return NULL;
}

void store_db_close(struct store_db *db)
{
	if (!db)
		return;
	for (int i = 0; i < S_COUNT; i++)
		sqlite3_finalize(db->st[i]);
	state_db_close(db->db);
	free(db);
}

/* ---- writing ---- */

static int run(struct store_db *db, sqlite3_stmt *s, const char *what, char *err, size_t errlen)
{
	int r = sqlite3_step(s);

	sqlite3_reset(s);
	if (r != SQLITE_DONE) {
		state_db_error(db->db, what, err, errlen);
		return -1;
	}
	return 0;
}

int store_db_begin(struct store_db *db, char *err, size_t errlen)
{
	return state_db_exec(db->db, "BEGIN", err, errlen);
}

int store_db_commit(struct store_db *db, char *err, size_t errlen)
{
	return state_db_exec(db->db, "COMMIT", err, errlen);
}

void store_db_rollback(struct store_db *db)
{
	char e[128];

	state_db_exec(db->db, "ROLLBACK", e, sizeof(e));
}

int store_db_put_volume(struct store_db *db, const struct store_vol_rec *r, char *err, size_t errlen)
{
	sqlite3_stmt *s = db->st[S_PUT_VOL];

	sqlite3_bind_int64(s, 1, (sqlite3_int64)r->vid);
	sqlite3_bind_text(s, 2, r->key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)r->size);
	sqlite3_bind_int64(s, 4, r->lba_size);
	sqlite3_bind_int64(s, 5, r->flags);
	sqlite3_bind_text(s, 6, r->info, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 7, vol_crc(r));
	return run(db, s, "writing a volume", err, errlen);
}

int store_db_del_volume(struct store_db *db, uint64_t vid, char *err, size_t errlen)
{
	sqlite3_bind_int64(db->st[S_DEL_VOL_RUNS], 1, (sqlite3_int64)vid);
	if (run(db, db->st[S_DEL_VOL_RUNS], "deleting a volume's map runs", err, errlen) < 0)
		return -1;
	sqlite3_bind_int64(db->st[S_DEL_VOL_CHUNKS], 1, (sqlite3_int64)vid);
	if (run(db, db->st[S_DEL_VOL_CHUNKS], "deleting a volume's map", err, errlen) < 0)
		return -1;
	sqlite3_bind_int64(db->st[S_DEL_VOL], 1, (sqlite3_int64)vid);
	return run(db, db->st[S_DEL_VOL], "deleting a volume", err, errlen);
}

int store_db_put_chunk(struct store_db *db, uint64_t vid, uint64_t idx, const uint32_t ids[STORE_CHUNK], char *err,
		       size_t errlen)
{
	bool zero = true;

	for (unsigned i = 0; i < STORE_CHUNK && zero; i++)
		zero = ids[i] == 0;
	if (zero) {
		sqlite3_stmt *s = db->st[S_DEL_CHUNK];

		sqlite3_bind_int64(s, 1, (sqlite3_int64)vid);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)idx);
		return run(db, s, "deleting a map chunk", err, errlen);
	}
	uint8_t le[STORE_CHUNK * 4];
	sqlite3_stmt *s = db->st[S_PUT_CHUNK];

	for (unsigned i = 0; i < STORE_CHUNK; i++)
		for (int k = 0; k < 4; k++)
			le[i * 4 + (unsigned)k] = (uint8_t)(ids[i] >> (8 * k));
	sqlite3_bind_int64(s, 1, (sqlite3_int64)vid);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)idx);
	sqlite3_bind_blob(s, 3, le, sizeof(le), SQLITE_STATIC);
	sqlite3_bind_int64(s, 4, chunk_crc(vid, idx, ids));
	return run(db, s, "writing a map chunk", err, errlen);
}

int store_db_put_chunk_ref(struct store_db *db, uint64_t vid, uint64_t idx, uint64_t cid, char *err, size_t errlen)
{
	uint8_t le[8];
	sqlite3_stmt *s = db->st[S_PUT_CHUNK];

	for (int k = 0; k < 8; k++)
		le[k] = (uint8_t)(cid >> (8 * k));
	sqlite3_bind_int64(s, 1, (sqlite3_int64)vid);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)idx);
	sqlite3_bind_blob(s, 3, le, sizeof(le), SQLITE_STATIC);
	sqlite3_bind_int64(s, 4, ref_crc(vid, idx, cid));
	return run(db, s, "writing a map chunk", err, errlen);
}

int store_db_put_shared(struct store_db *db, uint64_t cid, const uint32_t ids[STORE_CHUNK], char *err, size_t errlen)
{
	uint8_t le[STORE_CHUNK * 4];
	sqlite3_stmt *s = db->st[S_PUT_SHARED];

	ids_le(ids, le);
	sqlite3_bind_int64(s, 1, (sqlite3_int64)cid);
	sqlite3_bind_blob(s, 2, le, sizeof(le), SQLITE_STATIC);
	sqlite3_bind_int64(s, 3, shared_crc(cid, ids));
	return run(db, s, "writing a shared map chunk", err, errlen);
}

int store_db_del_shared(struct store_db *db, uint64_t cid, char *err, size_t errlen)
{
	sqlite3_bind_int64(db->st[S_DEL_SHARED], 1, (sqlite3_int64)cid);
	return run(db, db->st[S_DEL_SHARED], "deleting a shared map chunk", err, errlen);
}

int store_db_put_runs(struct store_db *db, uint64_t vid, uint64_t grp, const struct store_run *runs, unsigned n,
		      char *err, size_t errlen)
{
	uint8_t b[STORE_GROUP * STORE_RUN_BYTES];
	sqlite3_stmt *s;

	if (!n) {
		s = db->st[S_DEL_RUNS];
		sqlite3_bind_int64(s, 1, (sqlite3_int64)vid);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)grp);
		return run(db, s, "deleting a map runs row", err, errlen);
	}
	if (n > STORE_GROUP)
		return ll_errf(err, errlen, "%s: %u runs in one group of %u slots", store_db_path(db), n, STORE_GROUP);
	runs_le(runs, n, b);
	s = db->st[S_PUT_RUNS];
	sqlite3_bind_int64(s, 1, (sqlite3_int64)vid);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)grp);
	sqlite3_bind_blob(s, 3, b, (int)(n * STORE_RUN_BYTES), SQLITE_STATIC);
	sqlite3_bind_int64(s, 4, runs_crc(vid, grp, b, n * STORE_RUN_BYTES));
	return run(db, s, "writing a map runs row", err, errlen);
}

int store_db_del_chunk(struct store_db *db, uint64_t vid, uint64_t idx, char *err, size_t errlen)
{
	sqlite3_stmt *s = db->st[S_DEL_CHUNK];

	sqlite3_bind_int64(s, 1, (sqlite3_int64)vid);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)idx);
	return run(db, s, "deleting a map chunk", err, errlen);
}

/* The runs of one group as its slots come in ascending order. */
struct runs_acc {
	uint64_t vid, grp;
	struct store_run r[STORE_GROUP];
	unsigned n;
	bool any;
};

void store_run_add(struct store_run *runs, unsigned *n, unsigned off, uint64_t cid)
{
	struct store_run *l = *n ? &runs[*n - 1] : NULL;

	if (l && off == (unsigned)l->off + l->count) {
		int64_t d = (int64_t)(cid - l->cid);

		/* a run's second slot sets its step */
		if (l->count == 1 && d >= INT32_MIN && d <= INT32_MAX) {
			l->step = (int32_t)d;
			l->count++;
			return;
		}
		if (l->count > 1 && cid == l->cid + (uint64_t)((int64_t)l->step * l->count)) {
			l->count++;
			return;
		}
	}
	runs[(*n)++] = (struct store_run){ .off = (uint16_t)off, .count = 1, .step = 0, .cid = cid };
}

/* Slots naming a shared chunk written as chunks rows of an 8-byte cid (the
 * layout before the runs table) become runs rows, in one transaction with
 * the stamp that says so: a crash leaves either layout whole. */
static int migrate_refs(struct store_db *db, const struct state_stamp *st, size_t nst, char *err, size_t errlen)
{
	sqlite3_stmt *s = NULL;
	struct runs_acc *a = calloc(1, sizeof(*a));
	int r = SQLITE_DONE, rc = 0;

	if (!a)
		return ll_errf(err, errlen, "%s: out of memory", store_db_path(db));
	if (store_db_begin(db, err, errlen) < 0) {
		free(a);
		return -1;
	}
	if (sqlite3_prepare_v2(db->db, "SELECT vid, idx, ids, crc FROM chunks WHERE length(ids) = 8 ORDER BY vid, idx",
			       -1, &s, NULL) != SQLITE_OK) {
		state_db_error(db->db, "reading volume maps", err, errlen);
		rc = -1;
	}
	while (!rc && (r = sqlite3_step(s)) == SQLITE_ROW) {
		uint64_t vid = (uint64_t)sqlite3_column_int64(s, 0), idx = (uint64_t)sqlite3_column_int64(s, 1), cid = 0;
		const uint8_t *b = sqlite3_column_blob(s, 2);

		for (int k = 0; b && k < 8; k++)
			cid |= (uint64_t)b[k] << (8 * k);
		if (!b || sqlite3_column_bytes(s, 2) != 8 || (uint32_t)sqlite3_column_int64(s, 3) != ref_crc(vid, idx, cid) ||
		    !cid || cid > (uint64_t)INT64_MAX / 2 || idx > (uint64_t)INT64_MAX) {
			rc = ll_errf(err, errlen, "%s: map chunk %llu of volume %llu fails its checksum (the file is damaged)",
				  store_db_path(db), (unsigned long long)idx, (unsigned long long)vid);
			break;
		}
		if (a->any && (vid != a->vid || idx / STORE_GROUP != a->grp)) {
			rc = store_db_put_runs(db, a->vid, a->grp, a->r, a->n, err, errlen);
			a->n = 0;
		}
		a->any = true;
		a->vid = vid;
		a->grp = idx / STORE_GROUP;
		store_run_add(a->r, &a->n, (unsigned)(idx % STORE_GROUP), cid);
	}
	if (!rc && r != SQLITE_DONE) {
		state_db_error(db->db, "reading volume maps", err, errlen);
		rc = -1;
	}
	sqlite3_finalize(s);
	if (!rc && a->n)
		rc = store_db_put_runs(db, a->vid, a->grp, a->r, a->n, err, errlen);
	if (!rc)
		rc = state_db_exec(db->db, "DELETE FROM chunks WHERE length(ids) = 8", err, errlen);
	if (!rc)
		rc = state_db_stamp_write(db->db, "array", st, nst, err, errlen);
	if (!rc)
		rc = store_db_commit(db, err, errlen);
	if (rc)
		store_db_rollback(db);
	free(a);
	return rc ? -1 : 0;
}

int store_db_del_chunks_from(struct store_db *db, uint64_t vid, uint64_t idx, char *err, size_t errlen)
{
	sqlite3_stmt *s = db->st[S_DEL_CHUNKS_FROM];

	sqlite3_bind_int64(s, 1, (sqlite3_int64)vid);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)idx);
	if (run(db, s, "deleting map chunks", err, errlen) < 0)
		return -1;
	s = db->st[S_DEL_RUNS_FROM];
	sqlite3_bind_int64(s, 1, (sqlite3_int64)vid);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)((idx + STORE_GROUP - 1) / STORE_GROUP));
	return run(db, s, "deleting map runs", err, errlen);
}

int store_db_put_block(struct store_db *db, const struct store_blk_rec *r, char *err, size_t errlen)
{
	sqlite3_stmt *s = db->st[S_PUT_BLOCK];

	sqlite3_bind_int64(s, 1, r->id);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)r->fp);
	sqlite3_bind_int64(s, 3, r->refs);
	sqlite3_bind_int64(s, 4, r->csize);
	sqlite3_bind_int64(s, 5, r->dcrc);
	sqlite3_bind_int64(s, 6, blk_crc(r));
	return run(db, s, "writing a block record", err, errlen);
}

int store_db_del_block(struct store_db *db, uint32_t id, char *err, size_t errlen)
{
	sqlite3_bind_int64(db->st[S_DEL_BLOCK], 1, id);
	return run(db, db->st[S_DEL_BLOCK], "deleting a block record", err, errlen);
}

int store_db_put_summary(struct store_db *db, const struct store_summary *x, char *err, size_t errlen)
{
	sqlite3_stmt *s = db->st[S_PUT_SUMMARY];

	sqlite3_bind_int64(s, 1, (sqlite3_int64)x->epoch);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)x->unique_blocks);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)x->pending_blocks);
	sqlite3_bind_int64(s, 4, (sqlite3_int64)x->physical_bytes);
	sqlite3_bind_int64(s, 5, (sqlite3_int64)x->compressed_bytes);
	sqlite3_bind_int64(s, 6, (sqlite3_int64)x->mapped_blocks);
	sqlite3_bind_int64(s, 7, (sqlite3_int64)x->refs_total);
	sqlite3_bind_int64(s, 8, summary_crc(x));
	return run(db, s, "writing the summary", err, errlen);
}

/* ---- reading ---- */

/* a walk's statement: prepared, stepped by the caller, finalized here */
static int walk_end(struct store_db *db, sqlite3_stmt *s, int r, int rc, const char *what, char *err, size_t errlen)
{
	if (rc == 0 && r != SQLITE_DONE && r != SQLITE_ROW) {
		state_db_error(db->db, what, err, errlen);
		rc = -1;
	}
	sqlite3_finalize(s);
	return rc;
}

static bool text_col(sqlite3_stmt *s, int col, char *out, size_t len)
{
	const unsigned char *t = sqlite3_column_text(s, col);
	size_t n = (size_t)sqlite3_column_bytes(s, col);

	if (!t || n >= len || memchr(t, '\0', n))
		return false;
	memcpy(out, t, n);
	out[n] = '\0';
	return true;
}

int store_db_each_volume(struct store_db *db, int (*fn)(void *arg, const struct store_vol_rec *r), void *arg,
			 char *err, size_t errlen)
{
	sqlite3_stmt *s = NULL;
	int r, rc = 0;

	if (sqlite3_prepare_v2(db->db, "SELECT vid, key, size, lba_size, flags, info, crc FROM volumes ORDER BY vid",
			       -1, &s, NULL) != SQLITE_OK) {
		state_db_error(db->db, "reading volumes", err, errlen);
		return -1;
	}
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_vol_rec v;
		sqlite3_int64 vid = sqlite3_column_int64(s, 0);

		memset(&v, 0, sizeof(v));
		v.vid = (uint64_t)vid;
		v.size = (uint64_t)sqlite3_column_int64(s, 2);
		v.lba_size = (uint32_t)sqlite3_column_int64(s, 3);
		v.flags = (uint32_t)sqlite3_column_int64(s, 4);
		if (!text_col(s, 1, v.key, sizeof(v.key)) || !text_col(s, 5, v.info, sizeof(v.info)) ||
		    (uint32_t)sqlite3_column_int64(s, 6) != vol_crc(&v)) {
			rc = ll_errf(err, errlen, "%s: volume %lld's record fails its checksum (the file is damaged)",
				  store_db_path(db), (long long)vid);
			break;
		}
		if ((rc = fn(arg, &v)) != 0)
			break;
	}
	return walk_end(db, s, r, rc, "reading volumes", err, errlen);
}

int store_db_each_chunk_any(struct store_db *db,
			    int (*fn)(void *arg, uint64_t vid, uint64_t idx, const uint32_t ids[STORE_CHUNK]),
			    int (*fn_ref)(void *arg, uint64_t vid, uint64_t idx, uint64_t cid), void *arg, char *err,
			    size_t errlen)
{
	sqlite3_stmt *s = NULL;
	uint32_t ids[STORE_CHUNK];
	int r, rc = 0;

	if (sqlite3_prepare_v2(db->db, "SELECT vid, idx, ids, crc FROM chunks ORDER BY vid, idx", -1, &s, NULL) !=
	    SQLITE_OK) {
		state_db_error(db->db, "reading volume maps", err, errlen);
		return -1;
	}
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		uint64_t vid = (uint64_t)sqlite3_column_int64(s, 0), idx = (uint64_t)sqlite3_column_int64(s, 1);
		const uint8_t *b = sqlite3_column_blob(s, 2);
		int n = sqlite3_column_bytes(s, 2);

		if (b && n == 8 && fn_ref) {
			uint64_t cid = 0;

			for (int k = 0; k < 8; k++)
				cid |= (uint64_t)b[k] << (8 * k);
			if ((uint32_t)sqlite3_column_int64(s, 3) != ref_crc(vid, idx, cid)) {
				rc = ll_errf(err, errlen,
					  "%s: map chunk %llu of volume %llu fails its checksum (the file is damaged)",
					  store_db_path(db), (unsigned long long)idx, (unsigned long long)vid);
				break;
			}
			if ((rc = fn_ref(arg, vid, idx, cid)) != 0)
				break;
			continue;
		}
		if (!b || n != (int)(STORE_CHUNK * 4)) {
			rc = ll_errf(err, errlen, "%s: map chunk %llu of volume %llu has %d bytes, not %u (the file is damaged)",
				  store_db_path(db), (unsigned long long)idx, (unsigned long long)vid, n,
				  STORE_CHUNK * 4);
			break;
		}
		le_ids(b, ids);
		if ((uint32_t)sqlite3_column_int64(s, 3) != chunk_crc(vid, idx, ids)) {
			rc = ll_errf(err, errlen, "%s: map chunk %llu of volume %llu fails its checksum (the file is damaged)",
				  store_db_path(db), (unsigned long long)idx, (unsigned long long)vid);
			break;
		}
		if ((rc = fn(arg, vid, idx, ids)) != 0)
			break;
	}
	return walk_end(db, s, r, rc, "reading volume maps", err, errlen);
}

int store_db_each_chunk(struct store_db *db,
			int (*fn)(void *arg, uint64_t vid, uint64_t idx, const uint32_t ids[STORE_CHUNK]), void *arg,
			char *err, size_t errlen)
{
	return store_db_each_chunk_any(db, fn, NULL, arg, err, errlen);
}

int store_db_each_runs(struct store_db *db,
		       int (*fn)(void *arg, uint64_t vid, uint64_t grp, const struct store_run *runs, unsigned n),
		       void *arg, char *err, size_t errlen)
{
	sqlite3_stmt *s = NULL;
	struct store_run *runs = malloc(STORE_GROUP * sizeof(*runs));
	int r = SQLITE_DONE, rc = 0;

	if (!runs)
		return ll_errf(err, errlen, "%s: out of memory", store_db_path(db));
	if (sqlite3_prepare_v2(db->db, "SELECT vid, grp, runs, crc FROM runs ORDER BY vid, grp", -1, &s, NULL) !=
	    SQLITE_OK) {
		free(runs);
		state_db_error(db->db, "reading volume map runs", err, errlen);
		return -1;
	}
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		sqlite3_int64 vid = sqlite3_column_int64(s, 0), grp = sqlite3_column_int64(s, 1);
		const uint8_t *b = sqlite3_column_blob(s, 2);
		int len = sqlite3_column_bytes(s, 2);
		unsigned n = 0;

		if (vid < 1 || grp < 0 || grp > INT64_MAX / STORE_GROUP || len < 0 ||
		    (uint32_t)sqlite3_column_int64(s, 3) != runs_crc((uint64_t)vid, (uint64_t)grp, b, (size_t)len)) {
			rc = ll_errf(err, errlen, "%s: map runs of volume %lld, slots from %lld, fail their checksum (the file is damaged)",
				  store_db_path(db), (long long)vid, (long long)grp * STORE_GROUP);
			break;
		}
		if (!le_runs(b, (size_t)len, runs, &n)) {
			rc = ll_errf(err, errlen, "%s: map runs of volume %lld, slots from %lld: a run out of order or out of its group (the file is damaged)",
				  store_db_path(db), (long long)vid, (long long)grp * STORE_GROUP);
			break;
		}
		if ((rc = fn(arg, (uint64_t)vid, (uint64_t)grp, runs, n)) != 0)
			break;
	}
	free(runs);
	return walk_end(db, s, r, rc, "reading volume map runs", err, errlen);
}

int store_db_each_shared(struct store_db *db, int (*fn)(void *arg, uint64_t cid, const uint32_t ids[STORE_CHUNK]),
			 void *arg, char *err, size_t errlen)
{
	sqlite3_stmt *s = NULL;
	uint32_t ids[STORE_CHUNK];
	int r, rc = 0;

	if (sqlite3_prepare_v2(db->db, "SELECT cid, ids, crc FROM shared ORDER BY cid", -1, &s, NULL) != SQLITE_OK) {
		state_db_error(db->db, "reading shared map chunks", err, errlen);
		return -1;
	}
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		sqlite3_int64 cid = sqlite3_column_int64(s, 0);
		const uint8_t *b = sqlite3_column_blob(s, 1);

		if (cid < 1 || !b || sqlite3_column_bytes(s, 1) != (int)(STORE_CHUNK * 4)) {
			rc = ll_errf(err, errlen, "%s: shared map chunk %lld: id or size impossible (the file is damaged)",
				  store_db_path(db), (long long)cid);
			break;
		}
		le_ids(b, ids);
		if ((uint32_t)sqlite3_column_int64(s, 2) != shared_crc((uint64_t)cid, ids)) {
			rc = ll_errf(err, errlen, "%s: shared map chunk %lld fails its checksum (the file is damaged)",
				  store_db_path(db), (long long)cid);
			break;
		}
		if ((rc = fn(arg, (uint64_t)cid, ids)) != 0)
			break;
	}
	return walk_end(db, s, r, rc, "reading shared map chunks", err, errlen);
}

int store_db_each_block(struct store_db *db, int (*fn)(void *arg, const struct store_blk_rec *r), void *arg,
			char *err, size_t errlen)
{
	sqlite3_stmt *s = NULL;
	int r, rc = 0;

	if (sqlite3_prepare_v2(db->db, "SELECT id, fp, refs, csize, dcrc, crc FROM blocks ORDER BY id", -1, &s,
			       NULL) != SQLITE_OK) {
		state_db_error(db->db, "reading block records", err, errlen);
		return -1;
	}
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		sqlite3_int64 id = sqlite3_column_int64(s, 0), refs = sqlite3_column_int64(s, 2),
			      csize = sqlite3_column_int64(s, 3), dcrc = sqlite3_column_int64(s, 4);
		struct store_blk_rec b = {
			.id = (uint32_t)id,
			.fp = (uint64_t)sqlite3_column_int64(s, 1),
			.refs = (uint32_t)refs,
			.csize = (int32_t)csize,
			.dcrc = (uint32_t)dcrc,
		};

		if (id < 1 || id > UINT32_MAX || refs < 0 || refs > UINT32_MAX || csize < -1 || csize > 65535 ||
		    dcrc < 0 || dcrc > UINT32_MAX || (uint32_t)sqlite3_column_int64(s, 5) != blk_crc(&b)) {
			rc = ll_errf(err, errlen, "%s: block %lld's record fails its checksum (the file is damaged)",
				  store_db_path(db), (long long)id);
			break;
		}
		if ((rc = fn(arg, &b)) != 0)
			break;
	}
	return walk_end(db, s, r, rc, "reading block records", err, errlen);
}

int store_db_summary(struct store_db *db, struct store_summary *out, char *err, size_t errlen)
{
	sqlite3_stmt *s = NULL;
	int r, rc = 0;

	memset(out, 0, sizeof(*out));
	if (sqlite3_prepare_v2(db->db,
			       "SELECT epoch, unique_blocks, pending_blocks, physical_bytes, compressed_bytes, "
			       "mapped_blocks, refs_total, crc FROM summary WHERE k = 0",
			       -1, &s, NULL) != SQLITE_OK) {
		state_db_error(db->db, "reading the summary", err, errlen);
		return -1;
	}
	r = sqlite3_step(s);
	if (r == SQLITE_ROW) {
		out->epoch = (uint64_t)sqlite3_column_int64(s, 0);
		out->unique_blocks = (uint64_t)sqlite3_column_int64(s, 1);
		out->pending_blocks = (uint64_t)sqlite3_column_int64(s, 2);
		out->physical_bytes = (uint64_t)sqlite3_column_int64(s, 3);
		out->compressed_bytes = (uint64_t)sqlite3_column_int64(s, 4);
		out->mapped_blocks = (uint64_t)sqlite3_column_int64(s, 5);
		out->refs_total = (uint64_t)sqlite3_column_int64(s, 6);
		if ((uint32_t)sqlite3_column_int64(s, 7) != summary_crc(out))
			rc = ll_errf(err, errlen, "%s: the summary fails its checksum (the file is damaged)", store_db_path(db));
		else
			rc = 1;
	}
	return walk_end(db, s, r, rc, "reading the summary", err, errlen);
}

int store_db_integrity(struct store_db *db, char *err, size_t errlen)
{
	sqlite3_stmt *s = NULL;
	int r, rc = 0;

	if (sqlite3_prepare_v2(db->db, "PRAGMA integrity_check", -1, &s, NULL) != SQLITE_OK) {
		state_db_error(db->db, "integrity check", err, errlen);
		return -1;
	}
	r = sqlite3_step(s);
	if (r == SQLITE_ROW) {
		const unsigned char *t = sqlite3_column_text(s, 0);

		if (!t || strcmp((const char *)t, "ok") != 0)
			rc = ll_errf(err, errlen, "%s: SQLite integrity check: %s", store_db_path(db),
				  t ? (const char *)t : "(no answer)");
	} else {
		state_db_error(db->db, "integrity check", err, errlen);
		rc = -1;
	}
	sqlite3_finalize(s);
	return rc;
}
