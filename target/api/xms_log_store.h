/* xms_log_store.h — where the event log and the alerts are kept across
 * restarts (--state-dir; docs/api.md "events").  Unlike the model, which is
 * stored whole after each change, these are kept record by record: one
 * record per event or alert (the key its id, zero-padded so key order is id
 * order), put when it is made or changes and deleted when the bound pushes
 * it out, so each change costs one small transaction, not a rewrite of the
 * whole log.
 *
 * Where the records live is the caller's (lunlab-target: namespaces of
 * DIR/target.db, each put durable on return); NULL ops: nowhere (memory
 * only).  Set before the API starts; the ops serialise themselves. */
#ifndef LUNLAB_XMS_LOG_STORE_H
#define LUNLAB_XMS_LOG_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XMS_LOG_NS_EVENTS "api-events"
#define XMS_LOG_NS_ALERTS "api-alerts"

typedef int xms_log_each_fn(const char *key, const void *val, size_t len, void *arg);

struct xms_log_store_ops {
	/* durable on return: 0, or -1 with a reason */
	int (*put)(const char *ns, const char *key, const void *val, size_t len, char *err, size_t errlen);
	int (*del)(const char *ns, const char *key, char *err, size_t errlen);
	/* every record of ns in key order; fn returns non-zero to stop (that
	 * value is returned); -1 with a reason on a damaged record */
	int (*each)(const char *ns, xms_log_each_fn *fn, void *arg, char *err, size_t errlen);
};

void xms_log_store_set(const struct xms_log_store_ops *ops);
bool xms_log_store_active(void);

/* The record key of id: 20 digits. */
void xms_log_key(char out[24], uint64_t id);

/* Put / delete one record; a failure is logged on stderr (one line naming
 * the record) and the in-memory log goes on: the log is an account of what
 * happened, never a reason to refuse what is happening. */
void xms_log_put(const char *ns, uint64_t id, const char *json);
void xms_log_del(const char *ns, uint64_t id);

/* Every record of ns in key order (the store's each); 0 without a store. */
int xms_log_each(const char *ns, xms_log_each_fn *fn, void *arg, char *err, size_t errlen);

#endif
