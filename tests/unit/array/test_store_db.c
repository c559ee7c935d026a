/* test_store_db.c — handlers/array/store_db.c: an array's metadata rows
 * written in a transaction read back in key order; a chunk of zeros has no
 * row; deleting a volume deletes its map; a rolled-back transaction leaves
 * nothing; a row changed behind its checksum (each table) or holding an
 * impossible value is an error naming it; the stamp is checked at open;
 * shared map chunks and the rows naming them; runs rows (slots naming
 * shared chunks, a group per row) and the move of a state's older chunks
 * rows naming shared chunks into them at an open for writing. */
#include "array_test_db.h"
#include "array_test_util.h"

#include <sqlite3.h>

#include "handlers/array/store_db.h"
#include "lunlab/crc32c.h"
#include "state/state_crc.h"

static char path[256];
static const struct state_stamp st[] = { { "array", "t" }, { "profile", "x2" } };

static int setup(void **state)
{
	(void)state;
	snprintf(path, sizeof(path), "/tmp/lunlab-store-db.%d.db", (int)getpid());
	unlink(path);
	return 0;
}

static int teardown(void **state)
{
	char p[300];

	(void)state;
	unlink(path);
	snprintf(p, sizeof(p), "%s-wal", path);
	unlink(p);
	snprintf(p, sizeof(p), "%s-shm", path);
	unlink(p);
	return 0;
}

struct seen {
	int vols, chunks, blocks;
	uint64_t last_vid, last_idx;
	uint32_t last_id, ids0;
	char key[STORE_KEY_MAX];
};

static int on_vol(void *arg, const struct store_vol_rec *r)
{
	struct seen *s = arg;
	s->vols++;
	s->last_vid = r->vid;
	snprintf(s->key, sizeof(s->key), "%s", r->key);
	return 0;
}

static int on_chunk(void *arg, uint64_t vid, uint64_t idx, const uint32_t ids[STORE_CHUNK])
{
	struct seen *s = arg;
	s->chunks++;
	s->last_idx = idx;
	s->ids0 = ids[0];
	(void)vid;
	return 0;
}

static int on_block(void *arg, const struct store_blk_rec *r)
{
	struct seen *s = arg;
	s->blocks++;
	s->last_id = r->id;
	return 0;
}

static struct store_db *fresh(void)
{
	char err[512];
	struct store_db *db = store_db_open(path, true, st, 2, err, sizeof(err));

	if (!db)
		fail_msg("%s", err);
	return db;
}

static void write_some(struct store_db *db)
{
	char err[512];
	uint32_t ids[STORE_CHUNK] = { 0 };
	struct store_vol_rec v = { .vid = 2, .key = "lu:abc", .size = 1 << 20, .lba_size = 512, .flags = STORE_VOL_WCE_OFF };
	struct store_blk_rec b = { .id = 9, .fp = 0xfedcba9876543210ull, .refs = 3, .csize = STORE_CSIZE_PENDING, .dcrc = 77 };
	struct store_summary sum = { .epoch = 4, .unique_blocks = 1, .pending_blocks = 1, .mapped_blocks = 3, .refs_total = 3 };

	ids[0] = 9;
	ids[255] = 9;
	assert_int_equal(store_db_begin(db, err, sizeof(err)), 0);
	assert_int_equal(store_db_put_volume(db, &v, err, sizeof(err)), 0);
	assert_int_equal(store_db_put_chunk(db, 2, 0, ids, err, sizeof(err)), 0);
	assert_int_equal(store_db_put_chunk(db, 2, 7, ids, err, sizeof(err)), 0);
	assert_int_equal(store_db_put_block(db, &b, err, sizeof(err)), 0);
	assert_int_equal(store_db_put_summary(db, &sum, err, sizeof(err)), 0);
	assert_int_equal(store_db_commit(db, err, sizeof(err)), 0);
}

static void test_rows(void **state)
{
	char err[512];
	struct store_db *db = fresh();
	struct seen s = { 0 };
	struct store_summary sum;

	(void)state;
	assert_true(store_db_is_new(db));
	write_some(db);
	store_db_close(db);
	db = store_db_open(path, false, st, 2, err, sizeof(err));
	assert_non_null(db);
	assert_false(store_db_is_new(db));
	assert_int_equal(store_db_each_volume(db, on_vol, &s, err, sizeof(err)), 0);
	assert_int_equal(store_db_each_chunk(db, on_chunk, &s, err, sizeof(err)), 0);
	assert_int_equal(store_db_each_block(db, on_block, &s, err, sizeof(err)), 0);
	assert_int_equal(s.vols, 1);
	assert_string_equal(s.key, "lu:abc");
	assert_int_equal(s.chunks, 2);
	assert_int_equal(s.last_idx, 7);
	assert_int_equal(s.ids0, 9);
	assert_int_equal(s.blocks, 1);
	assert_int_equal(s.last_id, 9);
	assert_int_equal(store_db_summary(db, &sum, err, sizeof(err)), 1);
	assert_int_equal(sum.epoch, 4);
	assert_int_equal(store_db_integrity(db, err, sizeof(err)), 0);
	/* zeros delete a chunk; chunks past a shrunk end go; a volume takes its map */
	uint32_t zero[STORE_CHUNK] = { 0 };
	assert_int_equal(store_db_begin(db, err, sizeof(err)), 0);
	assert_int_equal(store_db_put_chunk(db, 2, 0, zero, err, sizeof(err)), 0);
	assert_int_equal(store_db_commit(db, err, sizeof(err)), 0);
	memset(&s, 0, sizeof(s));
	assert_int_equal(store_db_each_chunk(db, on_chunk, &s, err, sizeof(err)), 0);
	assert_int_equal(s.chunks, 1);
	assert_int_equal(store_db_begin(db, err, sizeof(err)), 0);
	assert_int_equal(store_db_del_chunks_from(db, 2, 5, err, sizeof(err)), 0);
	assert_int_equal(store_db_commit(db, err, sizeof(err)), 0);
	memset(&s, 0, sizeof(s));
	assert_int_equal(store_db_each_chunk(db, on_chunk, &s, err, sizeof(err)), 0);
	assert_int_equal(s.chunks, 0);
	/* a rolled-back transaction leaves nothing */
	assert_int_equal(store_db_begin(db, err, sizeof(err)), 0);
	assert_int_equal(store_db_del_volume(db, 2, err, sizeof(err)), 0);
	store_db_rollback(db);
	memset(&s, 0, sizeof(s));
	assert_int_equal(store_db_each_volume(db, on_vol, &s, err, sizeof(err)), 0);
	assert_int_equal(s.vols, 1);
	store_db_close(db);
}

/* each table: a value changed behind its row's checksum is named */
static void test_damaged_rows(void **state)
{
	static const struct {
		const char *sql, *want;
		int (*walk)(struct store_db *, char *, size_t);
	} cases[] = {
		{ "UPDATE volumes SET size = size + 512", "volume 2's record fails its checksum", NULL },
		{ "UPDATE chunks SET ids = X'0A000000' || substr(ids, 5) WHERE idx = 7", "map chunk 7 of volume 2 fails its checksum", NULL },
		{ "UPDATE chunks SET ids = substr(ids, 1, 100) WHERE idx = 7", "map chunk 7 of volume 2 has 100 bytes", NULL },
		{ "UPDATE blocks SET refs = 4", "block 9's record fails its checksum", NULL },
		{ "UPDATE blocks SET csize = 70000", "block 9's record fails its checksum", NULL },
		{ "UPDATE summary SET unique_blocks = 2", "the summary fails its checksum", NULL },
	};
	char err[512];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct store_db *db = fresh();
		struct seen s = { 0 };
		struct store_summary sum;

		write_some(db);
		store_db_close(db);
		db_exec(path, cases[i].sql);
		db = store_db_open(path, false, st, 2, err, sizeof(err));
		assert_non_null(db);
		int rc = store_db_each_volume(db, on_vol, &s, err, sizeof(err));
		if (!rc)
			rc = store_db_each_chunk(db, on_chunk, &s, err, sizeof(err));
		if (!rc)
			rc = store_db_each_block(db, on_block, &s, err, sizeof(err));
		if (!rc)
			rc = store_db_summary(db, &sum, err, sizeof(err)) < 0 ? -1 : 0;
		assert_int_equal(rc, -1);
		if (!strstr(err, cases[i].want))
			fail_msg("case %zu: '%s' lacks '%s'", i, err, cases[i].want);
		store_db_close(db);
		teardown(NULL);
	}
}

static void test_stamp_refusal(void **state)
{
	char err[512];
	struct store_db *db = fresh();
	const struct state_stamp other[] = { { "array", "t" }, { "profile", "x1" } };

	(void)state;
	store_db_close(db);
	assert_null(store_db_open(path, false, other, 2, err, sizeof(err)));
	assert_non_null(strstr(err, "written for profile x2, this one has profile x1"));
}

/* Shared chunks: a row of `shared` and chunk rows naming its cid read back
 * as references (each_chunk_any), not as ids; a plain walk refuses them; a
 * reference or a shared row changed behind its checksum is named. */
struct refs_seen {
	int inline_rows, ref_rows, shared_rows;
	uint64_t cid_sum;
	uint32_t shared_id0;
};

static int on_inline(void *arg, uint64_t vid, uint64_t idx, const uint32_t ids[STORE_CHUNK])
{
	(void)vid;
	(void)idx;
	(void)ids;
	((struct refs_seen *)arg)->inline_rows++;
	return 0;
}

static int on_ref(void *arg, uint64_t vid, uint64_t idx, uint64_t cid)
{
	struct refs_seen *s = arg;
	(void)vid;
	(void)idx;
	s->ref_rows++;
	s->cid_sum += cid;
	return 0;
}

static int on_shared(void *arg, uint64_t cid, const uint32_t ids[STORE_CHUNK])
{
	struct refs_seen *s = arg;
	(void)cid;
	s->shared_rows++;
	s->shared_id0 = ids[0];
	return 0;
}

static void test_shared_rows(void **state)
{
	char err[512];
	uint32_t ids[STORE_CHUNK] = { 0 };
	struct refs_seen s = { 0 };
	struct store_db *db = fresh();

	(void)state;
	ids[0] = 77;
	ids[255] = 78;
	assert_int_equal(store_db_begin(db, err, sizeof(err)), 0);
	assert_int_equal(store_db_put_shared(db, 5, ids, err, sizeof(err)), 0);
	assert_int_equal(store_db_put_shared(db, 6, ids, err, sizeof(err)), 0);
	assert_int_equal(store_db_put_chunk_ref(db, 1, 0, 5, err, sizeof(err)), 0);
	assert_int_equal(store_db_put_chunk_ref(db, 2, 3, 5, err, sizeof(err)), 0);
	assert_int_equal(store_db_put_chunk(db, 2, 4, ids, err, sizeof(err)), 0);
	assert_int_equal(store_db_del_shared(db, 6, err, sizeof(err)), 0);
	assert_int_equal(store_db_commit(db, err, sizeof(err)), 0);
	assert_int_equal(store_db_each_chunk_any(db, on_inline, on_ref, &s, err, sizeof(err)), 0);
	assert_int_equal(s.inline_rows, 1);
	assert_int_equal(s.ref_rows, 2);
	assert_int_equal(s.cid_sum, 10);
	assert_int_equal(store_db_each_shared(db, on_shared, &s, err, sizeof(err)), 0);
	assert_int_equal(s.shared_rows, 1);
	assert_int_equal(s.shared_id0, 77);
	/* a walk that knows no references finds an impossible row */
	assert_int_equal(store_db_each_chunk(db, on_inline, &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "has 8 bytes"));
	store_db_close(db);

	static const char *const damage[][2] = {
		{ "UPDATE chunks SET ids = X'0600000000000000' WHERE vid = 1", "map chunk 0 of volume 1 fails its checksum" },
		{ "UPDATE shared SET ids = X'4E000000' || substr(ids, 5)", "shared map chunk 5 fails its checksum" },
	};
	for (size_t i = 0; i < 2; i++) {
		db_exec(path, damage[i][0]);
		db = store_db_open(path, false, st, 2, err, sizeof(err));
		assert_non_null(db);
		int rc = store_db_each_chunk_any(db, on_inline, on_ref, &s, err, sizeof(err));
		if (!rc)
			rc = store_db_each_shared(db, on_shared, &s, err, sizeof(err));
		assert_int_equal(rc, -1);
		if (!strstr(err, damage[i][1]))
			fail_msg("'%s' lacks '%s'", err, damage[i][1]);
		store_db_close(db);
		if (i == 0) { /* undo it, so the second case is alone */
			db = store_db_open(path, false, st, 2, err, sizeof(err));
			assert_int_equal(store_db_begin(db, err, sizeof(err)), 0);
			assert_int_equal(store_db_put_chunk_ref(db, 1, 0, 5, err, sizeof(err)), 0);
			assert_int_equal(store_db_commit(db, err, sizeof(err)), 0);
			store_db_close(db);
		}
	}
}

/* ---- runs rows ---- */

struct runs_seen {
	int rows;
	uint64_t vid[8], grp[8];
	unsigned n[8];
	struct store_run r[8][4];
};

static int on_runs(void *arg, uint64_t vid, uint64_t grp, const struct store_run *runs, unsigned n)
{
	struct runs_seen *s = arg;

	assert_true(s->rows < 8);
	s->vid[s->rows] = vid;
	s->grp[s->rows] = grp;
	s->n[s->rows] = n;
	memcpy(s->r[s->rows], runs, (n < 4 ? n : 4) * sizeof(*runs));
	s->rows++;
	return 0;
}

static void assert_run(const struct store_run *r, unsigned off, unsigned count, int32_t step, uint64_t cid)
{
	if (r->off != off || r->count != count || r->step != step || r->cid != cid)
		fail_msg("run {%u, %u, %d, %llu}, expected {%u, %u, %d, %llu}", r->off, r->count, r->step,
			 (unsigned long long)r->cid, off, count, step, (unsigned long long)cid);
}

/* Slots coming in order grow runs whose cids step by a constant: one cid
 * repeated (step 0), consecutive ones (step 1), a gap in the slots or a
 * change of step starts a run. */
static void test_run_add(void **state)
{
	struct store_run r[STORE_GROUP];
	unsigned n = 0;

	(void)state;
	for (unsigned i = 0; i < 10; i++)
		store_run_add(r, &n, i, 5);
	for (unsigned i = 10; i < 15; i++)
		store_run_add(r, &n, i, 100 + i - 10);
	store_run_add(r, &n, 20, 104);
	store_run_add(r, &n, 21, 90);
	store_run_add(r, &n, 22, 76);
	store_run_add(r, &n, 23, 77);
	assert_int_equal(n, 4);
	assert_run(&r[0], 0, 10, 0, 5);
	assert_run(&r[1], 10, 5, 1, 100);
	assert_run(&r[2], 20, 3, -14, 104);
	assert_run(&r[3], 23, 1, 0, 77);
}

static void write_runs(struct store_db *db, uint64_t vid, uint64_t grp, const struct store_run *r, unsigned n)
{
	char err[512];

	assert_int_equal(store_db_begin(db, err, sizeof(err)), 0);
	assert_int_equal(store_db_put_runs(db, vid, grp, r, n, err, sizeof(err)), 0);
	assert_int_equal(store_db_commit(db, err, sizeof(err)), 0);
}

/* Runs rows read back in (vid, grp) order with their runs exact; no runs
 * deletes the row; a shrink deletes the groups from the first one wholly
 * past the new end; a volume's deletion its rows; a row changed behind its
 * checksum, or a run outside its group under a good checksum, is named. */
static void test_runs_rows(void **state)
{
	char err[512];
	struct store_db *db = fresh();
	const struct store_run a[] = { { 0, 10, 0, 5 }, { 10, 246, 1, 100 } }, b[] = { { 3, 2, -1, 9 } };
	struct runs_seen s = { 0 };

	(void)state;
	write_runs(db, 4, 1, b, 1);
	write_runs(db, 3, 0, a, 2);
	write_runs(db, 3, 2, b, 1);
	write_runs(db, 3, 5, b, 1);
	assert_int_equal(store_db_each_runs(db, on_runs, &s, err, sizeof(err)), 0);
	assert_int_equal(s.rows, 4);
	assert_int_equal(s.vid[0], 3);
	assert_int_equal(s.grp[0], 0);
	assert_int_equal(s.n[0], 2);
	assert_run(&s.r[0][0], 0, 10, 0, 5);
	assert_run(&s.r[0][1], 10, 246, 1, 100);
	assert_int_equal(s.grp[1], 2);
	assert_int_equal(s.grp[2], 5);
	assert_int_equal(s.vid[3], 4);
	assert_run(&s.r[3][0], 3, 2, -1, 9);

	write_runs(db, 3, 5, NULL, 0);
	assert_int_equal(store_db_begin(db, err, sizeof(err)), 0);
	/* slot 257 on: group 1 holds the new end, groups 2.. go */
	assert_int_equal(store_db_del_chunks_from(db, 3, 257, err, sizeof(err)), 0);
	assert_int_equal(store_db_del_volume(db, 4, err, sizeof(err)), 0);
	assert_int_equal(store_db_commit(db, err, sizeof(err)), 0);
	memset(&s, 0, sizeof(s));
	assert_int_equal(store_db_each_runs(db, on_runs, &s, err, sizeof(err)), 0);
	assert_int_equal(s.rows, 1);
	assert_int_equal(s.grp[0], 0);
	store_db_close(db);

	/* damage: a changed byte; a run past its group's end under a good checksum */
	uint8_t blob[16] = { 250, 0, 10, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0 };
	uint64_t v[3] = { 3, 0, sizeof(blob) };
	uint32_t crc = ll_crc32c(state_crc_u64s(0, v, 3), blob, sizeof(blob));
	char bad[256];
	snprintf(bad, sizeof(bad),
		 "UPDATE runs SET runs = X'FA000A00000000000700000000000000', crc = %u WHERE vid = 3 AND grp = 0", crc);
	const char *const damage[][2] = {
		{ "UPDATE runs SET runs = X'01' || substr(runs, 2) WHERE vid = 3",
		  "map runs of volume 3, slots from 0, fail their checksum" },
		{ bad, "map runs of volume 3, slots from 0: a run out of order or out of its group" },
	};
	for (size_t i = 0; i < 2; i++) {
		db_exec(path, damage[i][0]);
		db = store_db_open(path, false, st, 2, err, sizeof(err));
		assert_non_null(db);
		assert_int_equal(store_db_each_runs(db, on_runs, &s, err, sizeof(err)), -1);
		if (!strstr(err, damage[i][1]))
			fail_msg("'%s' lacks '%s'", err, damage[i][1]);
		store_db_close(db);
	}
}

/* A state whose stamp does not say map_rows=runs (written before the runs
 * table): an open without create reads its chunks rows naming shared
 * chunks where they are; an open for writing moves them into runs rows
 * (the inline row stays) and stamps it; a damaged one refuses the open and
 * leaves the state as it was. */
static void make_old(int damaged)
{
	char err[512];
	uint32_t ids[STORE_CHUNK] = { 0 };
	struct store_db *db = fresh();
	sqlite3 *raw;

	ids[3] = 12;
	assert_int_equal(store_db_begin(db, err, sizeof(err)), 0);
	for (uint64_t i = 0; i < 10; i++)
		assert_int_equal(store_db_put_chunk_ref(db, 1, i, 7, err, sizeof(err)), 0);
	assert_int_equal(store_db_put_chunk(db, 1, 12, ids, err, sizeof(err)), 0);
	for (uint64_t i = 0; i < 3; i++)
		assert_int_equal(store_db_put_chunk_ref(db, 1, 300 + i, 20 + i, err, sizeof(err)), 0);
	assert_int_equal(store_db_commit(db, err, sizeof(err)), 0);
	store_db_close(db);
	assert_int_equal(state_db_open(path, false, &raw, err, sizeof(err)), 0);
	assert_int_equal(state_db_exec(raw, "DELETE FROM stamp WHERE key = 'map_rows'", err, sizeof(err)), 0);
	if (damaged)
		assert_int_equal(state_db_exec(raw, "UPDATE chunks SET crc = crc + 1 WHERE idx = 301", err, sizeof(err)), 0);
	/* the stamp's checksum over what is left, as an older build wrote it */
	assert_int_equal(state_db_stamp_write(raw, "array", st, 2, err, sizeof(err)), 0);
	state_db_close(raw);
}

static void test_old_rows_move(void **state)
{
	char err[512];
	struct refs_seen r = { 0 };
	struct runs_seen s = { 0 };
	struct store_db *db;

	(void)state;
	make_old(0);
	db = store_db_open(path, false, st, 2, err, sizeof(err));
	assert_non_null(db);
	assert_int_equal(store_db_each_chunk_any(db, on_inline, on_ref, &r, err, sizeof(err)), 0);
	assert_int_equal(r.ref_rows, 13);
	assert_int_equal(r.inline_rows, 1);
	assert_int_equal(store_db_each_runs(db, on_runs, &s, err, sizeof(err)), 0);
	assert_int_equal(s.rows, 0);
	store_db_close(db);
	assert_int_equal(db_count(path, "SELECT count(*) FROM stamp WHERE key = 'map_rows'"), 0);

	db = store_db_open(path, true, st, 2, err, sizeof(err));
	if (!db)
		fail_msg("%s", err);
	memset(&r, 0, sizeof(r));
	assert_int_equal(store_db_each_chunk_any(db, on_inline, on_ref, &r, err, sizeof(err)), 0);
	assert_int_equal(r.ref_rows, 0);
	assert_int_equal(r.inline_rows, 1);
	assert_int_equal(store_db_each_runs(db, on_runs, &s, err, sizeof(err)), 0);
	assert_int_equal(s.rows, 2);
	assert_int_equal(s.vid[0], 1);
	assert_int_equal(s.grp[0], 0);
	assert_int_equal(s.n[0], 1);
	assert_run(&s.r[0][0], 0, 10, 0, 7);
	assert_int_equal(s.grp[1], 1);
	assert_int_equal(s.n[1], 1);
	assert_run(&s.r[1][0], 44, 3, 1, 20);
	store_db_close(db);
	assert_int_equal(db_count(path, "SELECT count(*) FROM stamp WHERE key = 'map_rows' AND value = 'runs'"), 1);
	/* stamped: the next open does not look again, and nothing changes */
	db = store_db_open(path, true, st, 2, err, sizeof(err));
	assert_non_null(db);
	store_db_close(db);
	assert_int_equal(db_count(path, "SELECT count(*) FROM runs"), 2);

	teardown(NULL);
	make_old(1);
	assert_null(store_db_open(path, true, st, 2, err, sizeof(err)));
	assert_non_null(strstr(err, "map chunk 301 of volume 1 fails its checksum"));
	assert_int_equal(db_count(path, "SELECT count(*) FROM chunks WHERE length(ids) = 8"), 13);
	assert_int_equal(db_count(path, "SELECT count(*) FROM runs"), 0);
	assert_int_equal(db_count(path, "SELECT count(*) FROM stamp WHERE key = 'map_rows'"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stamp_refusal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shared_rows, setup, teardown),
		cmocka_unit_test(test_run_add),
		cmocka_unit_test_setup_teardown(test_runs_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_old_rows_move, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
