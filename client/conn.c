/* conn.c - sessions over libiscsi's async API.
 *
 * Everything goes through iscsi_*_async / iscsi_scsi_command_async and one poll(2) loop so a
 * single thread can keep 100 sessions busy: the bench must not be the bottleneck it measures. */
#include "client/conn.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double now_s(void)
{
	return (double)now_ns() / 1e9;
}

int conn_poll_many(struct bench_conn *conns, unsigned n, int timeout_ms, char *err, size_t errlen)
{
	struct pollfd stackfds[128];
	struct pollfd *pfd = n <= 128 ? stackfds : calloc(n, sizeof(*pfd));
	if (!pfd) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (unsigned i = 0; i < n; i++) {
		pfd[i].fd = iscsi_get_fd(conns[i].iscsi);
		pfd[i].events = (short)iscsi_which_events(conns[i].iscsi);
		pfd[i].revents = 0;
	}
	int rc = poll(pfd, n, timeout_ms);
	int ret = 0;
	if (rc < 0) {
		ret = 0;   /* EINTR: caller loops */
	} else {
		for (unsigned i = 0; i < n; i++) {
			/* Service with revents 0 too: libiscsi uses it for timeouts/reconnect bookkeeping
			 * only when asked; skip idle fds to keep 100-session loops cheap. */
			if (!pfd[i].revents)
				continue;
			if (iscsi_service(conns[i].iscsi, pfd[i].revents) < 0) {
				snprintf(err, errlen, "session %u (%s): %s", i, conns[i].target,
					 iscsi_get_error(conns[i].iscsi));
				ret = -1;
				break;
			}
		}
	}
	if (pfd != stackfds)
		free(pfd);
	return ret;
}

struct wait_state {
	bool done;
	int status;
	struct scsi_task *task;
};

static void connect_cb(struct iscsi_context *iscsi, int status, void *command_data, void *priv)
{
	struct wait_state *w = priv;
	w->done = true;
	w->status = status;
}

static void cmd_cb(struct iscsi_context *iscsi, int status, void *command_data, void *priv)
{
	struct wait_state *w = priv;
	w->done = true;
	w->status = status;
	w->task = command_data;
}

void conn_task_status(struct scsi_task *task, int cb_status, struct cmd_status *st)
{
	memset(st, 0, sizeof(*st));
	if (!task || cb_status == SCSI_STATUS_ERROR || cb_status == SCSI_STATUS_CANCELLED) {
		st->status = -1;
		return;
	}
	st->status = task->status;
	if (task->status == SCSI_STATUS_CHECK_CONDITION) {
		st->key = (uint8_t)task->sense.key;
		st->asc = (uint8_t)(task->sense.ascq >> 8);
		st->ascq = (uint8_t)(task->sense.ascq & 0xff);
	}
	st->got = task->datain.size > 0 ? (size_t)task->datain.size : 0;
}

int conn_cmd(struct bench_conn *c, const uint8_t *cdb, int cdblen, int dir,
	     const void *out, size_t outlen, void *in, size_t inlen, struct cmd_status *st)
{
	int xfer = dir == 1 ? SCSI_XFER_READ : dir == 2 ? SCSI_XFER_WRITE : SCSI_XFER_NONE;
	int exp = dir == 1 ? (int)inlen : dir == 2 ? (int)outlen : 0;
	struct scsi_task *task = scsi_create_task(cdblen, (unsigned char *)cdb, xfer, exp);
	char err[256];
	memset(st, 0, sizeof(*st));
	if (!task) {
		st->status = -1;
		return -1;
	}
	struct iscsi_data data = { .size = outlen, .data = (unsigned char *)out };
	struct wait_state w = { 0 };
	if (iscsi_scsi_command_async(c->iscsi, c->lun, task, cmd_cb, dir == 2 ? &data : NULL, &w)) {
		scsi_free_scsi_task(task);
		st->status = -1;
		return -1;
	}
	while (!w.done) {
		if (conn_poll_many(c, 1, 1000, err, sizeof(err)) < 0) {
			st->status = -1;
			/* the task is owned by libiscsi until its callback: do not free it here */
			return -1;
		}
	}
	conn_task_status(task, w.status, st);
	if (dir == 1 && in && st->got) {
		size_t n = st->got < inlen ? st->got : inlen;
		memcpy(in, task->datain.data, n);
		st->got = n;
	}
	scsi_free_scsi_task(task);
	return 0;
}

static int read_capacity(struct bench_conn *c, char *err, size_t errlen)
{
	uint8_t cdb[16] = { 0x9e, 0x10 };
	uint8_t buf[32];
	struct cmd_status st;
	cdb[13] = sizeof(buf);
	if (conn_cmd(c, cdb, 16, 1, NULL, 0, buf, sizeof(buf), &st) || st.status != 0 || st.got < 16) {
		/* fall back to READ CAPACITY(10) for small targets that lack the 16-byte form */
		uint8_t cdb10[10] = { 0x25 };
		if (conn_cmd(c, cdb10, 10, 1, NULL, 0, buf, 8, &st) || st.status != 0 || st.got < 8) {
			snprintf(err, errlen, "%s: READ CAPACITY failed (status %d, sense %02x/%02x/%02x)",
				 c->target, st.status, st.key, st.asc, st.ascq);
			return -1;
		}
		c->num_blocks = (uint64_t)(((uint32_t)buf[0] << 24) | ((uint32_t)buf[1] << 16) |
					   ((uint32_t)buf[2] << 8) | buf[3]) + 1;
		c->block_size = ((uint32_t)buf[4] << 24) | ((uint32_t)buf[5] << 16) | ((uint32_t)buf[6] << 8) | buf[7];
		return c->block_size ? 0 : -1;
	}
	uint64_t last = 0;
	for (int i = 0; i < 8; i++)
		last = (last << 8) | buf[i];
	c->num_blocks = last + 1;
	c->block_size = ((uint32_t)buf[8] << 24) | ((uint32_t)buf[9] << 16) | ((uint32_t)buf[10] << 8) | buf[11];
	c->lbpme = (buf[14] & 0x80) != 0;
	if (c->block_size == 0 || c->block_size > (1u << 20)) {
		snprintf(err, errlen, "%s: READ CAPACITY block length %u is not usable", c->target, c->block_size);
		return -1;
	}
	return 0;
}

int conn_open_many(const char *url, const char *initiator_prefix, unsigned n,
		   struct bench_conn *conns, char *err, size_t errlen)
{
	struct wait_state *w = calloc(n, sizeof(*w));
	if (!w) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memset(conns, 0, sizeof(*conns) * n);
	unsigned opened = 0;
	int ret = -1;
	for (unsigned i = 0; i < n; i++) {
		char iname[300];
		if (n == 1)
			snprintf(iname, sizeof(iname), "%s", initiator_prefix);
		else
			snprintf(iname, sizeof(iname), "%s-%u", initiator_prefix, i);
		struct iscsi_context *iscsi = iscsi_create_context(iname);
		if (!iscsi) {
			snprintf(err, errlen, "cannot create iSCSI context");
			goto out;
		}
		struct iscsi_url *u = iscsi_parse_full_url(iscsi, url);
		if (!u) {
			snprintf(err, errlen, "bad URL '%s': %s", url, iscsi_get_error(iscsi));
			iscsi_destroy_context(iscsi);
			goto out;
		}
		conns[i].iscsi = iscsi;
		opened = i + 1;
		conns[i].lun = u->lun;
		snprintf(conns[i].target, sizeof(conns[i].target), "%s", u->target);
		snprintf(conns[i].portal, sizeof(conns[i].portal), "%s", u->portal);
		iscsi_set_session_type(iscsi, ISCSI_SESSION_NORMAL);
		iscsi_set_header_digest(iscsi, ISCSI_HEADER_DIGEST_NONE);
		iscsi_set_targetname(iscsi, u->target);
		/* CHAP exactly as libiscsi's own tools do: user%pass from the URL (or the
		 * LIBISCSI_CHAP_* environment, which iscsi_parse_full_url reads), mutual when the
		 * target credentials are given. */
		if (u->user[0])
			iscsi_set_initiator_username_pwd(iscsi, u->user, u->passwd);
		if (u->target_user[0])
			iscsi_set_target_username_pwd(iscsi, u->target_user, u->target_passwd);
		int lun = u->lun;
		char portal[256];
		snprintf(portal, sizeof(portal), "%s", u->portal);
		iscsi_destroy_url(u);
		if (iscsi_full_connect_async(iscsi, portal, lun, connect_cb, &w[i])) {
			snprintf(err, errlen, "%s: connect: %s", portal, iscsi_get_error(iscsi));
			goto out;
		}
	}
	double deadline = now_s() + 30;
	for (;;) {
		unsigned done = 0;
		for (unsigned i = 0; i < n; i++) {
			if (w[i].done && w[i].status) {
				snprintf(err, errlen, "login to %s at %s failed: %s", conns[i].target,
					 conns[i].portal, iscsi_get_error(conns[i].iscsi));
				goto out;
			}
			done += w[i].done;
		}
		if (done == n)
			break;
		if (now_s() > deadline) {
			snprintf(err, errlen, "login to %s at %s timed out", conns[0].target, conns[0].portal);
			goto out;
		}
		if (conn_poll_many(conns, n, 200, err, errlen) < 0)
			goto out;
	}
	for (unsigned i = 0; i < n; i++)
		if (read_capacity(&conns[i], err, errlen))
			goto out;
	ret = 0;
out:
	if (ret) {
		for (unsigned i = 0; i < opened; i++)
			conn_close(&conns[i]);
	}
	free(w);
	return ret;
}

int conn_open(const char *url, const char *initiator, struct bench_conn *c, char *err, size_t errlen)
{
	return conn_open_many(url, initiator, 1, c, err, errlen);
}

void conn_close(struct bench_conn *c)
{
	if (!c->iscsi)
		return;
	/* Logout is best effort: the target drops the session on close anyway. */
	if (iscsi_is_logged_in(c->iscsi))
		iscsi_logout_sync(c->iscsi);
	iscsi_destroy_context(c->iscsi);
	c->iscsi = NULL;
}
