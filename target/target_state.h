/* target_state.h — lunlab-target's own part of --state-dir (the handler
 * keeps the arrays; docs/persistence.md): the directory's lock and
 * DIR/target.db, where each LU's persistent reservations live while APTPL
 * is on (keyed by the LU's unit serial, so a LUN keeps its reservations
 * however the LUNs are numbered). */
#ifndef LUNLAB_TARGET_STATE_H
#define LUNLAB_TARGET_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "target/api/xms_store.h"

struct pr_state;
struct state_kv;

/* Lock dir (created if missing) and open its target.db, stamped with the
 * target's IQN (a state written for another IQN is refused: the generated
 * unit serials, and with them the LUs' data, derive from it).  0, or -1
 * with a one-line reason. */
int target_state_open(const char *dir, const char *iqn, char *err, size_t errlen);
/* Close target.db and release the lock (nothing else to flush: every
 * record is durable when written). */
void target_state_close(void);
/* Was the open state directory's target.db there before this start (the
 * target ran on it already: its LUs owe a power on, target/lu/power_on.h)? */
bool target_state_reopened(void);

/* The LU with unit serial `serial` gets its reservations from the state
 * (restored, and saved from now on while APTPL is on).  0, or -1 with a
 * reason naming the LU. */
int target_state_attach_pr(struct pr_state *st, const char *serial, char *err, size_t errlen);

/* The management API's model (target/api/xms_store.h), one record of
 * target.db: load gives 1 (doc malloc'd), 0 none stored, -1 with a reason;
 * save is durable on return (0) or -1 with a reason. */
int target_state_load_api_model(char **doc, size_t *len, char *err, size_t errlen);
int target_state_save_api_model(const char *doc, size_t len, char *err, size_t errlen);
/* ... and as records (xms_store_ops.each and .write): namespace
 * "api-model"; write is one transaction, durable on return, and with all
 * drops the whole document above too. */
int target_state_api_model_each(int (*fn)(const char *key, const void *val, size_t len, void *arg), void *arg,
				char *err, size_t errlen);
int target_state_api_model_write(bool all, const struct xms_store_rec *recs, size_t n, char *err, size_t errlen);

/* The management API's events and alerts (target/api/xms_log_store.h):
 * records of namespace ns ("api-events", "api-alerts"), each put and
 * delete durable on return; 0, or -1 with a reason. */
int target_state_log_put(const char *ns, const char *key, const void *val, size_t len, char *err, size_t errlen);
int target_state_log_del(const char *ns, const char *key, char *err, size_t errlen);
int target_state_log_each(const char *ns, int (*fn)(const char *key, const void *val, size_t len, void *arg),
			  void *arg, char *err, size_t errlen);

/* --check-state: the lock, target.db's integrity and every record, and
 * (check_api not NULL) that the management API's stored model decodes.
 * 0 (with a summary in out), or -1 with the first problem. */
typedef int target_state_doc_check(const struct xms_store_ops *ops, char *out, size_t outlen, char *err,
				   size_t errlen);
int target_state_check(const char *dir, target_state_doc_check *check_api, char *out, size_t outlen, char *err,
		       size_t errlen);

#endif
