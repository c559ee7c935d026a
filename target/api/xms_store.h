/* xms_store.h — the XMS model kept across restarts (--state-dir,
 * docs/persistence.md "The management API").  The model is stored whole,
 * as the JSON document xms_model_to_json writes, after every change the
 * API made (a POST, PUT or DELETE answered 2xx), and loaded at start.  The
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

struct xms_store_ops {
	/* the stored document (malloc'd; the caller frees it): 1 found, 0 none
	 * stored yet, -1 with a reason */
	int (*load)(char **doc, size_t *len, char *err, size_t errlen);
	/* durable on return: 0, or -1 with a reason */
	int (*save)(const char *doc, size_t len, char *err, size_t errlen);
};

/* Where the model is kept; NULL: nowhere (in memory).  Before the API starts. */
void xms_store_set(const struct xms_store_ops *ops);
bool xms_store_active(void);

/* Loads the stored model into m (empty): 1 loaded, 0 nothing stored, -1
 * with err naming the bad field (m is left empty). */
int xms_store_load(struct xms_model *m, char *err, size_t errlen);

/* --check-state: a stored document decodes into a model (every field and
 * reference checked): 0 with a one-line summary in out, or -1 with err. */
int xms_store_check_doc(const char *doc, size_t len, char *out, size_t outlen, char *err, size_t errlen);

/* Makes the arrays' changes durable, then stores m: 0, or -1 with err. */
int xms_store_save(const struct xms_model *m, char *err, size_t errlen);

#endif
