/* target_state.c — lunlab-target's side of a state directory
 * (target_state.h). */
#include "target/target_state.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "state/state_dir.h"
#include "state/state_kv.h"
#include "target/lu/pr.h"

#define NS_PR "pr"
#define NS_API "api"
#define KEY_XMS_MODEL "xms-model" /* the model stored whole (before records) */
#define NS_API_MODEL "api-model"  /* the model as one record per object */

/* one store for every LU: PR OUTs of different LUs run on different I/O
 * threads, and the store is not thread safe */
static pthread_mutex_t kv_mu = PTHREAD_MUTEX_INITIALIZER;
static struct state_kv *kv;
static int lock_fd = -1;
static bool reopened; /* target.db was there before this start */

static int db_path(const char *dir, char *out, size_t len)
{
	return snprintf(out, len, "%s/target.db", dir) < (int)len ? 0 : -1;
}

int target_state_open(const char *dir, const char *iqn, char *err, size_t errlen)
{
	char path[STATE_PATH_MAX];
	const struct state_stamp st[] = { { "iqn", iqn } };

	if (db_path(dir, path, sizeof(path)) < 0) {
		snprintf(err, errlen, "%s: path too long", dir);
		return -1;
	}
	if (state_dir_lock(dir, true, &lock_fd, err, errlen) < 0)
		return -1;
	/* under the lock: no other target can be making it meanwhile */
	reopened = access(path, F_OK) == 0;
	kv = state_kv_open(path, true, st, 1, err, errlen);
	if (!kv) {
		state_dir_unlock(lock_fd);
		lock_fd = -1;
		return -1;
	}
	return 0;
}

void target_state_close(void)
{
	pthread_mutex_lock(&kv_mu);
	state_kv_close(kv);
	kv = NULL;
	pthread_mutex_unlock(&kv_mu);
	state_dir_unlock(lock_fd);
	lock_fd = -1;
}

bool target_state_reopened(void)
{
	return kv != NULL && reopened;
}

/* pr_persist_fn: ctx is the LU's serial */
static int save_pr(void *ctx, const uint8_t *blob, size_t len)
{
	char err[512];
	int rc;

	pthread_mutex_lock(&kv_mu);
	if (!kv)
		rc = -1;
	else if (len)
		rc = state_kv_put(kv, NS_PR, ctx, blob, len, err, sizeof(err));
	else
		rc = state_kv_del(kv, NS_PR, ctx, err, sizeof(err));
	pthread_mutex_unlock(&kv_mu);
	if (rc)
		fprintf(stderr, "lunlab-target: saving reservations of LU %s: %s\n", (const char *)ctx, err);
	return rc;
}

int target_state_attach_pr(struct pr_state *st, const char *serial, char *err, size_t errlen)
{
	char why[512];
	void *blob = NULL;
	size_t len = 0;
	char *key;
	int rc;

	if (!kv)
		return 0;
	key = strdup(serial);
	if (!key) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	pthread_mutex_lock(&kv_mu);
	rc = state_kv_get(kv, NS_PR, key, &blob, &len, why, sizeof(why));
	pthread_mutex_unlock(&kv_mu);
	if (rc < 0) {
		snprintf(err, errlen, "LU %s: %s", serial, why);
		free(key);
		return -1;
	}
	rc = pr_state_set_persist(st, save_pr, key, free, blob, len, why, sizeof(why));
	free(blob);
	if (rc < 0) {
		snprintf(err, errlen, "LU %s: %s", serial, why);
		return -1;
	}
	return 0;
}

int target_state_load_api_model(char **doc, size_t *len, char *err, size_t errlen)
{
	void *blob = NULL;
	int rc;

	pthread_mutex_lock(&kv_mu);
	rc = kv ? state_kv_get(kv, NS_API, KEY_XMS_MODEL, &blob, len, err, errlen) : 0;
	pthread_mutex_unlock(&kv_mu);
	*doc = blob;
	return rc;
}

int target_state_save_api_model(const char *doc, size_t len, char *err, size_t errlen)
{
	int rc;

	pthread_mutex_lock(&kv_mu);
	if (kv) {
		rc = state_kv_put(kv, NS_API, KEY_XMS_MODEL, doc, len, err, errlen);
	} else {
		snprintf(err, errlen, "no state directory is open");
		rc = -1;
	}
	pthread_mutex_unlock(&kv_mu);
	return rc;
}

/* the kv the calls below use: the target's, or --check-state's */
static struct state_kv *check_kv;

static int model_each(struct state_kv *k, int (*fn)(const char *key, const void *val, size_t len, void *arg),
		      void *arg, char *err, size_t errlen)
{
	return k ? state_kv_each(k, NS_API_MODEL, fn, arg, err, errlen) : 0;
}

int target_state_api_model_each(int (*fn)(const char *key, const void *val, size_t len, void *arg), void *arg,
				char *err, size_t errlen)
{
	int rc;

	pthread_mutex_lock(&kv_mu);
	rc = model_each(kv, fn, arg, err, errlen);
	pthread_mutex_unlock(&kv_mu);
	return rc;
}

int target_state_api_model_write(bool all, const struct xms_store_rec *recs, size_t n, char *err, size_t errlen)
{
	int rc = -1;

	pthread_mutex_lock(&kv_mu);
	if (!kv) {
		snprintf(err, errlen, "no state directory is open");
		goto out;
	}
	if (state_kv_begin(kv, err, errlen) < 0)
		goto out;
	/* all: the model stored whole by an older version goes in the same
	 * transaction as its records come */
	if (all && (state_kv_del_ns(kv, NS_API_MODEL, err, errlen) < 0 ||
		    state_kv_del(kv, NS_API, KEY_XMS_MODEL, err, errlen) < 0))
		goto fail;
	for (size_t i = 0; i < n; i++) {
		int r = recs[i].val ? state_kv_put(kv, NS_API_MODEL, recs[i].key, recs[i].val, recs[i].len, err, errlen)
				    : state_kv_del(kv, NS_API_MODEL, recs[i].key, err, errlen);
		if (r < 0)
			goto fail;
	}
	if (state_kv_commit(kv, err, errlen) < 0)
		goto fail;
	rc = 0;
	goto out;
fail:
	state_kv_rollback(kv);
out:
	pthread_mutex_unlock(&kv_mu);
	return rc;
}

/* --check-state's store (xms_store_check): check_kv, read only */
static int check_load(char **doc, size_t *len, char *err, size_t errlen)
{
	void *blob = NULL;
	int rc = state_kv_get(check_kv, NS_API, KEY_XMS_MODEL, &blob, len, err, errlen);

	*doc = blob;
	return rc;
}

static int check_save(const char *doc, size_t len, char *err, size_t errlen)
{
	(void)doc;
	(void)len;
	snprintf(err, errlen, "--check-state writes nothing");
	return -1;
}

static int check_each(int (*fn)(const char *key, const void *val, size_t len, void *arg), void *arg, char *err,
		      size_t errlen)
{
	return model_each(check_kv, fn, arg, err, errlen);
}

static int check_write(bool all, const struct xms_store_rec *recs, size_t n, char *err, size_t errlen)
{
	(void)all;
	(void)recs;
	(void)n;
	snprintf(err, errlen, "--check-state writes nothing");
	return -1;
}

int target_state_log_put(const char *ns, const char *key, const void *val, size_t len, char *err, size_t errlen)
{
	int rc = -1;

	pthread_mutex_lock(&kv_mu);
	if (kv)
		rc = state_kv_put(kv, ns, key, val, len, err, errlen);
	else
		snprintf(err, errlen, "no state directory is open");
	pthread_mutex_unlock(&kv_mu);
	return rc;
}

int target_state_log_del(const char *ns, const char *key, char *err, size_t errlen)
{
	int rc = -1;

	pthread_mutex_lock(&kv_mu);
	if (kv)
		rc = state_kv_del(kv, ns, key, err, errlen);
	else
		snprintf(err, errlen, "no state directory is open");
	pthread_mutex_unlock(&kv_mu);
	return rc;
}

int target_state_log_each(const char *ns, int (*fn)(const char *key, const void *val, size_t len, void *arg),
			  void *arg, char *err, size_t errlen)
{
	int rc = 0;

	/* at start only (one thread): the records are read under the lock */
	pthread_mutex_lock(&kv_mu);
	if (kv)
		rc = state_kv_each(kv, ns, fn, arg, err, errlen);
	pthread_mutex_unlock(&kv_mu);
	return rc;
}

int target_state_check(const char *dir, target_state_doc_check *check_api, char *out, size_t outlen, char *err,
		       size_t errlen)
{
	char path[STATE_PATH_MAX], why[512];
	struct state_kv *k;
	size_t n;
	int fd, rc;

	if (db_path(dir, path, sizeof(path)) < 0) {
		snprintf(err, errlen, "%s: path too long", dir);
		return -1;
	}
	if (state_dir_lock(dir, false, &fd, err, errlen) < 0)
		return -1;
	/* any IQN: the check is about consistency, not about this target */
	k = state_kv_open(path, false, NULL, 0, why, sizeof(why));
	if (!k) {
		if (strstr(why, ": missing")) { /* a state of arrays only (tcmu-runner) */
			snprintf(out, outlen, "target.db: none");
			state_dir_unlock(fd);
			return 0;
		}
		snprintf(err, errlen, "%s", why);
		state_dir_unlock(fd);
		return -1;
	}
	rc = state_kv_check(k, &n, err, errlen);
	if (rc == 0)
		snprintf(out, outlen, "target.db: %zu record(s) ok", n);
	if (rc == 0 && check_api) {
		/* the management API's model: its records decode into a whole model */
		static const struct xms_store_ops ops = { check_load, check_save, check_each, check_write };
		char sum[256];

		check_kv = k;
		if (check_api(&ops, sum, sizeof(sum), why, sizeof(why)) < 0) {
			snprintf(err, errlen, "target.db: the management API's model: %s", why);
			rc = -1;
		} else {
			size_t used = strlen(out);
			snprintf(out + used, outlen - used, "; %s", sum);
		}
		check_kv = NULL;
	}
	state_kv_close(k);
	state_dir_unlock(fd);
	return rc;
}
