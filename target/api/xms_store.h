/* xms_store.h — the XMS model kept across restarts (--state-dir,
 * docs/persistence.md "The management API").  The model is the JSON
 * document xms_model_to_json writes, stored after every change the API made
 * (a POST, PUT or DELETE answered 2xx), and loaded at start.  With a store
 * of records (ops.write) it is kept as one record per object ("volumes/"
 * and the index, 20 digits) plus "head" (the document without its objects):
 * a change writes only the records of the objects it marked (xms_dirty.h),
 * in one transaction, so creating the n-th volume neither writes nor
 * serialises the n before it (docs/api.md).  A
 * model stored whole by older versions (ops.load) still loads; the first
 * save after it rewrites it as records and drops the whole document in the
 * same transaction.  The
 * arrays' own changes (a volume's blocks, a snapshot, a deletion) are made
 * durable first (array_sync through the array-control interface), so the
 * stored model never names a snapshot its array has not committed.
 *
 * Where the document lives is the caller's (lunlab-target: a record of
 * DIR/target.db); this module only decides when and what.  Callers hold
 * the model lock (xms_lock). */
#ifndef LUNLAB_XMS_STORE_H
#define LUNLAB_XMS_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include "target/api/xms_model.h"

/* one record to write: val NULL deletes key */
struct xms_store_rec {
	const char *key;
	const char *val;
	size_t len;
};

struct xms_store_ops {
	/* the stored document (malloc'd; the caller frees it): 1 found, 0 none
	 * stored yet, -1 with a reason */
	int (*load)(char **doc, size_t *len, char *err, size_t errlen);
	/* durable on return: 0, or -1 with a reason */
	int (*save)(const char *doc, size_t len, char *err, size_t errlen);
	/* optional, both or neither: the model as records.  each: every record
	 * in key order (fn returns 0 to go on); write: in one transaction,
	 * durable on return: when all, every record and the whole document
	 * are dropped first; then recs put or deleted.  0, or -1 with a reason
	 * (nothing written). */
	int (*each)(int (*fn)(const char *key, const void *val, size_t len, void *arg), void *arg, char *err,
		    size_t errlen);
	int (*write)(bool all, const struct xms_store_rec *recs, size_t n, char *err, size_t errlen);
};

/* Where the model is kept; NULL: nowhere (in memory).  Before the API starts. */
void xms_store_set(const struct xms_store_ops *ops);
bool xms_store_active(void);

/* Loads the stored model into m (empty): 1 loaded, 0 nothing stored, -1
 * with err naming the bad field (m is left empty). */
int xms_store_load(struct xms_model *m, char *err, size_t errlen);

/* --check-state: what ops hold decodes into a model (every field and
 * reference checked): 0 with a one-line summary in out (nothing stored is
 * fine), or -1 with err. */
int xms_store_check(const struct xms_store_ops *ops, char *out, size_t outlen, char *err, size_t errlen);

/* Makes the arrays' changes durable, then stores m: as records, those of
 * the objects m marks as changed (xms_dirty.h) and head when it changed,
 * so the cost follows the change, not the model's size; every record after
 * a load of a model stored whole or a failed write.  Clears m's marks: 0,
 * or -1 with err (the marks stay for the next save).
 *
 * LUNLAB_XMS_STORE_CHECK=1 in the environment (when the store is set;
 * tests): after each save, every stored record is compared with the whole
 * model, and a difference (a change no one marked) fails the save naming
 * the record.  It costs a whole serialisation per save. */
int xms_store_save(struct xms_model *m, char *err, size_t errlen);

#endif
