/* xms_log_store.c — see xms_log_store.h. */
#include "target/api/xms_log_store.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const struct xms_log_store_ops *ops;

void xms_log_store_set(const struct xms_log_store_ops *o)
{
	ops = o;
}

bool xms_log_store_active(void)
{
	return ops != NULL;
}

void xms_log_key(char out[24], uint64_t id)
{
	snprintf(out, 24, "%020" PRIu64, id);
}

void xms_log_put(const char *ns, uint64_t id, const char *json)
{
	char key[24], err[320];

	if (!ops)
		return;
	xms_log_key(key, id);
	if (ops->put(ns, key, json, strlen(json), err, sizeof(err)) < 0)
		fprintf(stderr, "lunlab-target: --state-dir: saving %s/%s: %s\n", ns, key, err);
}

void xms_log_del(const char *ns, uint64_t id)
{
	char key[24], err[320];

	if (!ops)
		return;
	xms_log_key(key, id);
	if (ops->del(ns, key, err, sizeof(err)) < 0)
		fprintf(stderr, "lunlab-target: --state-dir: deleting %s/%s: %s\n", ns, key, err);
}

int xms_log_each(const char *ns, xms_log_each_fn *fn, void *arg, char *err, size_t errlen)
{
	return ops ? ops->each(ns, fn, arg, err, errlen) : 0;
}
