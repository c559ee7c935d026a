/* state_kv.h — small durable records of lunlab-target's own state (the
 * target side of a state directory: DIR/target.db): a value per (namespace,
 * key), each with its CRC32C, written in its own transaction that is on disk
 * when the call returns.  For state that changes rarely and must never be
 * lost once acknowledged: persistent reservations with APTPL (namespace
 * "pr", key = the LU's unit serial), and whatever else the target keeps.
 * Not thread safe: callers serialise (one mutex around the store). */
#ifndef LUNLAB_STATE_KV_H
#define LUNLAB_STATE_KV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "state/state_db.h"

struct state_kv;

/* Open path (create: make it with its stamp when missing).  The stamp's
 * entries are checked against st (see state_db_stamp_check), written when
 * the database is new.  NULL with a one-line reason. */
struct state_kv *state_kv_open(const char *path, bool create, const struct state_stamp *st, size_t nst,
			       char *err, size_t errlen);
void state_kv_close(struct state_kv *kv);

/* Durable on return: 0, or -1 with a reason. */
int state_kv_put(struct state_kv *kv, const char *ns, const char *key, const void *val, size_t len, char *err,
		 size_t errlen);
int state_kv_del(struct state_kv *kv, const char *ns, const char *key, char *err, size_t errlen);
/* Every record of ns deleted (inside a transaction, like put and del). */
int state_kv_del_ns(struct state_kv *kv, const char *ns, char *err, size_t errlen);

/* Several puts and deletes as one transaction (all or none on disk, durable
 * at commit): begin, then put/del/del_ns, then commit, or rollback after a
 * failure.  Between begin and commit the calls above are not durable on
 * their own.  0, or -1 with a reason. */
int state_kv_begin(struct state_kv *kv, char *err, size_t errlen);
int state_kv_commit(struct state_kv *kv, char *err, size_t errlen);
void state_kv_rollback(struct state_kv *kv);

/* *val (malloc'd, free it) and *len: 1 found, 0 none, -1 error (a damaged
 * record is an error naming namespace and key, never a wrong value). */
int state_kv_get(struct state_kv *kv, const char *ns, const char *key, void **val, size_t *len, char *err,
		 size_t errlen);

/* Every record of ns in key order: fn returns 0 to go on, else stops and
 * that value is returned.  -1 (with a reason) on a damaged record. */
int state_kv_each(struct state_kv *kv, const char *ns,
		  int (*fn)(const char *key, const void *val, size_t len, void *arg), void *arg, char *err,
		  size_t errlen);

/* --check-state: every record's checksum and SQLite's integrity check.
 * 0, or -1 with the first problem. */
int state_kv_check(struct state_kv *kv, size_t *records, char *err, size_t errlen);

#endif
