/* store_db.h — the metadata of one array's state directory
 * (DIR/arrays/NAME/meta.db, SQLite; docs/persistence.md): what a restart
 * needs besides the payload slots (payload_file.h).
 *
 *   stamp    format, "array", the array's name, profile and parameters
 *   volumes  vid -> key ("lu:SERIAL" for a --lun's own volume, "vol:NAME"
 *            for a named one), size, logical block size, flags, info
 *   chunks   (vid, idx) -> 256 block ids (1 KiB): map entries
 *            idx*256 .. idx*256+255 of the volume; a chunk of zeros has no row;
 *            or -> the 8-byte id of a shared chunk (a map chunk several
 *            volume slots point at: volume_map.c)
 *   shared   cid -> 256 block ids: the shared chunks
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
 * NULL with a one-line reason naming the file and what differs. */
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
/* chunk idx of vid is shared chunk cid */
int store_db_put_chunk_ref(struct store_db *db, uint64_t vid, uint64_t idx, uint64_t cid, char *err, size_t errlen);
int store_db_put_shared(struct store_db *db, uint64_t cid, const uint32_t ids[STORE_CHUNK], char *err, size_t errlen);
int store_db_del_shared(struct store_db *db, uint64_t cid, char *err, size_t errlen);
/* chunks of vid from index idx on (a volume shrank) */
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
