/* tcmu_test_util.h — a minimal "transport" for the host tests: build an
 * lu_cmd, submit it, wait for done() and remember which thread ran it. */
#ifndef LUNLAB_TCMU_TEST_UTIL_H
#define LUNLAB_TCMU_TEST_UTIL_H

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "target/lu/lu_cmd.h"

struct tcmd {
	struct lu_cmd lu;
	pthread_mutex_t m;
	pthread_cond_t c;
	int done_calls;
	pthread_t done_thread;
	struct iovec iov[4];
	unsigned char buf[4096];
};

static inline void tcmd_done(struct lu_cmd *lu)
{
	struct tcmd *t = (struct tcmd *)lu; /* lu is the first member */

	pthread_mutex_lock(&t->m);
	t->done_calls++;
	t->done_thread = pthread_self();
	pthread_cond_broadcast(&t->c);
	pthread_mutex_unlock(&t->m);
}

/* cdb bytes, direction, data length split over niov iovecs */
static inline struct tcmd *tcmd_new(const uint8_t *cdb, size_t cdb_len, enum lu_dir dir, size_t len, int niov)
{
	struct tcmd *t = calloc(1, sizeof(*t));

	pthread_mutex_init(&t->m, NULL);
	pthread_cond_init(&t->c, NULL);
	memcpy(t->lu.cdb, cdb, cdb_len);
	t->lu.cdb_len = (uint8_t)cdb_len;
	t->lu.dir = dir;
	t->lu.xfer_len = len;
	t->lu.done = tcmd_done;
	if (len) {
		size_t per = len / (size_t)niov, off = 0;

		for (int i = 0; i < niov; i++) {
			size_t n = i == niov - 1 ? len - off : per;

			t->iov[i].iov_base = t->buf + off;
			t->iov[i].iov_len = n;
			off += n;
		}
		t->lu.iov = t->iov;
		t->lu.iov_cnt = (size_t)niov;
	}
	return t;
}

static inline void tcmd_wait(struct tcmd *t)
{
	pthread_mutex_lock(&t->m);
	while (!t->done_calls)
		pthread_cond_wait(&t->c, &t->m);
	pthread_mutex_unlock(&t->m);
}

/* done() calls so far (read under the lock: done runs on other threads) */
static inline int tcmd_calls(struct tcmd *t)
{
	pthread_mutex_lock(&t->m);
	int n = t->done_calls;

	pthread_mutex_unlock(&t->m);
	return n;
}

static inline void tcmd_free(struct tcmd *t)
{
	pthread_mutex_destroy(&t->m);
	pthread_cond_destroy(&t->c);
	free(t);
}

/* A fresh directory holding a symlink handler_hosttest.so -> the built
 * test handler (its build path is compiled in as HOSTTEST_SO). */
static inline char *tmp_handler_dir(void)
{
	char tmpl[] = "/tmp/lunlab-tcmu-test-XXXXXX";
	char *dir = mkdtemp(tmpl);
	char link[PATH_MAX];

	if (!dir)
		return NULL;
	snprintf(link, sizeof(link), "%s/handler_hosttest.so", dir);
	if (symlink(HOSTTEST_SO, link) != 0)
		return NULL;
	return strdup(dir);
}

static inline void rm_dir(const char *dir)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

/* Send stderr to a temporary file between capture_begin() and
 * capture_end(), which returns what was written (static buffer). */
struct capture {
	int fd, saved;
	char path[64];
};

static inline void capture_begin(struct capture *c)
{
	snprintf(c->path, sizeof(c->path), "/tmp/lunlab-capture-XXXXXX");
	c->fd = mkstemp(c->path);
	fflush(stderr);
	c->saved = dup(2);
	dup2(c->fd, 2);
}

static inline const char *capture_end(struct capture *c)
{
	static char out[4096];
	ssize_t n;

	fflush(stderr);
	dup2(c->saved, 2);
	close(c->saved);
	n = pread(c->fd, out, sizeof(out) - 1, 0);
	out[n > 0 ? n : 0] = 0;
	close(c->fd);
	unlink(c->path);
	return out;
}

#endif
