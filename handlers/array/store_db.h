/* store_db.h — the metadata of one array's state directory
 * (DIR/arrays/NAME/meta.db, SQLite; docs/persistence.md): what a restart
 * needs besides the payload slots (payload_file.h).
 *
 *   stamp    format, "array", the array's name, profile and parameters
 *   volumes  vid -> key ("lu:SERIAL" for a --lun's own volume, "vol:NAME"
 *            for a named one), size, logical block size, flags, info
 *   chunks   (vid, idx) -> 256 block ids (1 KiB): map entries
 *            idx*256 .. idx*256+255 of the volume, a chunk only its slot
 *            holds; a chunk of zeros has no row.  (States written before
 *            the runs table also hold here slots naming a shared chunk, an
 *            8-byte cid: read as they are, and moved to runs by the first
 *            open for writing.)
 *   runs     (vid, grp) -> the slots grp*256 .. grp*256+255 that name a
 *            shared chunk, as runs of consecutive slots whose cids step
 *            by a constant (16 bytes a run): thousands of clones of one
 *            template are a few rows each, not one per 4 MiB
 *            (docs/persistence.md)
 *   shared   cid -> 256 block ids: the shared chunks (a map chunk several
 *            volume slots point at, or once published: volume_map.c)
 *   blocks   id -> fingerprint, reference count, compressed size (or
 *            pending), CRC32C of its payload
 *   summary  the figures as of the last commit (for --check-state)
 *
 * Every row carries a CRC32C over its fields (state_crc.h), so a flipped
 * byte anywhere in a row is found when the row is read: a map entry is never
 * trusted to point at the wrong block.  Not thread safe: one committer. */
#ifndef LUNLAB_ARRAY_STORE_DB_H
#define LUNLAB_ARRAY_STORE_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "state/state_db.h"

#define STORE_CHUNK 256u                /* map entries per chunk row */
#define STORE_KEY_MAX 160               /* bytes of a volume key, with the NUL */
#define STORE_INFO_MAX 160
#define STORE_CSIZE_PENDING (-1)
#define STORE_GROUP 256u                /* map chunk slots per runs row (1 GiB at 16 KiB blocks) */
#define STORE_RUN_BYTES 16u             /* a run in a runs row: offset u16, count u16, step i32, cid u64 (LE) */

/* volume flags */
#define STORE_VOL_WCE_OFF 0x01u   /* caching mode page WCE = 0 (saved: MODE SELECT with SP=1) */
#define STORE_VOL_READONLY 0x02u  /* a read-only snapshot */
#define STORE_VOL_NAMED 0x04u     /* a named volume (volume=NAME, snapshots) */
#define STORE_VOL_SWP 0x08u       /* control mode page SWP = 1 (saved) */
#define STORE_VOL_HOLD 0x10u      /* an ODX hold's hidden volume (vol_hold.c): dropped when loaded */

struct store_vol_rec {
	uint64_t vid;
	char key[STORE_KEY_MAX];
	uint64_t size;
	uint32_t lba_size;
	uint32_t flags;
	char info[STORE_INFO_MAX];  /* e.g. the volume a snapshot was taken of */
};

struct store_blk_rec {
	uint32_t id;
	uint64_t fp;
	uint32_t refs;
	int32_t csize;              /* STORE_CSIZE_PENDING until accounted */
	uint32_t dcrc;              /* CRC32C of the payload */
};

/* Slots off .. off+count-1 of a runs row's group name shared chunks
 * cid, cid+step, cid+2*step ...: step 1 where a clone names the chunks of
 * one template in order, 0 where a repetitive template's chunks are all
 * one shared chunk. */
struct store_run {
	uint16_t off, count;
	int32_t step;
	uint64_t cid;
};

struct store_summary {
	uint64_t epoch;             /* commits so far */
	uint64_t unique_blocks;
	uint64_t pending_blocks;
	uint64_t physical_bytes;    /* accounted blocks */
	uint64_t compressed_bytes;
	uint64_t mapped_blocks;     /* map entries, all volumes */
	uint64_t refs_total;        /* sum of reference counts */
};

struct store_db;

/* Open (create: make it when missing) and check the stamp against st;
 * NULL with a one-line reason naming the file and what differs.  With
 * create, a state whose slots naming shared chunks are still chunks rows
 * (written before the runs table) has them moved to runs rows, in one
 * transaction; without (--check-state), nothing is written and the loader
 * reads them where they are. */
struct store_db *store_db_open(const char *path, bool create, const struct state_stamp *st, size_t nst,
			       char *err, size_t errlen);
void store_db_close(struct store_db *db);
/* Whether the database was created by this open (an empty state). */
bool store_db_is_new(const struct store_db *db);

/* ---- reading (at load, and --check-state) ----
 * Each calls fn per row in key order; fn returns 0 to go on (else that value
 * ends the walk and is returned).  -1 with a reason for a row that fails its
 * checksum or holds impossible values. */
int store_db_each_volume(struct store_db *db, int (*fn)(void *arg, const struct store_vol_rec *r), void *arg,
			 char *err, size_t errlen);
int store_db_each_chunk(struct store_db *db,
			int (*fn)(void *arg, uint64_t vid, uint64_t idx, const uint32_t ids[STORE_CHUNK]), void *arg,
			char *err, size_t errlen);
/* every row, inline ones to fn, references to a shared chunk to fn_ref */
int store_db_each_chunk_any(struct store_db *db,
			    int (*fn)(void *arg, uint64_t vid, uint64_t idx, const uint32_t ids[STORE_CHUNK]),
			    int (*fn_ref)(void *arg, uint64_t vid, uint64_t idx, uint64_t cid), void *arg, char *err,
			    size_t errlen);
/* every runs row, its runs checked (ascending, inside the group, cids from 1) */
int store_db_each_runs(struct store_db *db,
		       int (*fn)(void *arg, uint64_t vid, uint64_t grp, const struct store_run *runs, unsigned n),
		       void *arg, char *err, size_t errlen);
int store_db_each_shared(struct store_db *db, int (*fn)(void *arg, uint64_t cid, const uint32_t ids[STORE_CHUNK]),
			 void *arg, char *err, size_t errlen);
int store_db_each_block(struct store_db *db, int (*fn)(void *arg, const struct store_blk_rec *r), void *arg,
			char *err, size_t errlen);
/* 1 and *out, 0 none yet, -1 error */
int store_db_summary(struct store_db *db, struct store_summary *out, char *err, size_t errlen);
/* --check-state: SQLite's own integrity check of meta.db */
int store_db_integrity(struct store_db *db, char *err, size_t errlen);

/* ---- writing: one transaction per commit ---- */
int store_db_begin(struct store_db *db, char *err, size_t errlen);
int store_db_put_volume(struct store_db *db, const struct store_vol_rec *r, char *err, size_t errlen);
/* the volume and all its chunks */
int store_db_del_volume(struct store_db *db, uint64_t vid, char *err, size_t errlen);
/* a chunk of all zeros deletes the row */
int store_db_put_chunk(struct store_db *db, uint64_t vid, uint64_t idx, const uint32_t ids[STORE_CHUNK], char *err,
		       size_t errlen);
/* the chunks row of slot idx goes (it names a shared chunk now) */
int store_db_del_chunk(struct store_db *db, uint64_t vid, uint64_t idx, char *err, size_t errlen);
/* chunk idx of vid is shared chunk cid, as a chunks row: the layout before
 * the runs table, which no commit writes any more (tests make such states
 * with it, to prove they still open) */
int store_db_put_chunk_ref(struct store_db *db, uint64_t vid, uint64_t idx, uint64_t cid, char *err, size_t errlen);
/* Slot off of a group (after every slot before it) names cid: the last of
 * the n runs grows, or runs[n++] starts (runs: room for STORE_GROUP). */
void store_run_add(struct store_run *runs, unsigned *n, unsigned off, uint64_t cid);
/* the runs of slot group grp of vid (n <= STORE_GROUP); none deletes the row */
int store_db_put_runs(struct store_db *db, uint64_t vid, uint64_t grp, const struct store_run *runs, unsigned n,
		      char *err, size_t errlen);
int store_db_put_shared(struct store_db *db, uint64_t cid, const uint32_t ids[STORE_CHUNK], char *err, size_t errlen);
int store_db_del_shared(struct store_db *db, uint64_t cid, char *err, size_t errlen);
/* chunks of vid from index idx on (a volume shrank), and its runs rows
 * of the groups that start there or later (the caller rewrites the group
 * holding idx) */
int store_db_del_chunks_from(struct store_db *db, uint64_t vid, uint64_t idx, char *err, size_t errlen);
int store_db_put_block(struct store_db *db, const struct store_blk_rec *r, char *err, size_t errlen);
int store_db_del_block(struct store_db *db, uint32_t id, char *err, size_t errlen);
int store_db_put_summary(struct store_db *db, const struct store_summary *s, char *err, size_t errlen);
/* durable when it returns 0 (synchronous=FULL) */
int store_db_commit(struct store_db *db, char *err, size_t errlen);
void store_db_rollback(struct store_db *db);

/* the path of the database (messages) */
const char *store_db_path(const struct store_db *db);

#endif
