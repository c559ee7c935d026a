/* conn.c - opening and closing sessions, synchronous commands, the process-wide policy and
 * the first fatal error.  The machinery behind them: conn_login.c (sessions), conn_ops.c
 * (commands), conn_poll.c (the loop), conn_policy.c (decisions). */
#include "client/conn_link.h"

#include <ctype.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"

/* conn_close waits at most this long for the answer to its logout. */
#define LOGOUT_WAIT_NS (1000ull * 1000000ull)

static struct conn_policy g_policy = { .timeout_s = 30 };
static char g_fatal[900];

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

void conn_set_policy(const struct conn_policy *p)
{
	g_policy = *p;
}

const struct conn_policy *conn_get_policy(void)
{
	return &g_policy;
}

void conn_note_fatal(const char *msg)
{
	if (!g_fatal[0])
		snprintf(g_fatal, sizeof(g_fatal), "%s", msg);
}

const char *conn_fatal_error(void)
{
	return g_fatal[0] ? g_fatal : NULL;
}

void conn_copy_error(char *dst, size_t len, const char *src)
{
	if (!len)
		return;
	/* libiscsi's "Failed to connect to iSCSI socket. iscsi_service: socket error Connection
	 * refused(111) while connecting.": what the socket said is the news */
	const char *sock = src ? strstr(src, "socket error ") : NULL;
	if (sock)
		snprintf(dst, len, "connection failed: %s", sock + strlen("socket error "));
	else
		snprintf(dst, len, "%s", src && src[0] ? src : "unknown error");
	size_t n = strlen(dst);
	for (size_t i = 0; i < n; i++)
		if (dst[i] == '\n' || dst[i] == '\r')
			dst[i] = ' ';
	while (n && (isspace((unsigned char)dst[n - 1]) || dst[n - 1] == '.'))
		dst[--n] = 0;
}

bool conn_failed(const struct bench_conn *c)
{
	return c->link && c->link->state == LINK_FAILED;
}

const char *conn_error(const struct bench_conn *c)
{
	return c->link && c->link->state == LINK_FAILED ? c->link->failed : "";
}

void conn_task_status(struct scsi_task *task, int cb_status, struct cmd_status *st)
{
	memset(st, 0, sizeof(*st));
	if (!task || cb_status == SCSI_STATUS_ERROR || cb_status == SCSI_STATUS_CANCELLED ||
	    cb_status == SCSI_STATUS_TIMEOUT) {
		st->status = -1;
		return;
	}
	st->status = cb_status;
	if (cb_status == SCSI_STATUS_CHECK_CONDITION) {
		st->key = (uint8_t)task->sense.key;
		st->asc = (uint8_t)(task->sense.ascq >> 8);
		st->ascq = (uint8_t)(task->sense.ascq & 0xff);
	}
	st->got = task->datain.size > 0 ? (size_t)task->datain.size : 0;
}

void conn_describe_answer(const struct bench_conn *c, int status, const struct scsi_task *task,
			  char *out, size_t outlen)
{
	(void)c;
	if (status == SCSI_STATUS_ERROR || status == SCSI_STATUS_CANCELLED || status == SCSI_STATUS_TIMEOUT || !task) {
		snprintf(out, outlen, "the session failed");
		return;
	}
	conn_describe_status(status, (uint8_t)task->sense.key, (uint8_t)(task->sense.ascq >> 8),
			     (uint8_t)(task->sense.ascq & 0xff), out, outlen);
}

struct cmd_wait {
	bool done;
	struct cmd_status *st;
	void *in;
	size_t inlen;
};

static void cmd_cb(struct bench_conn *c, int status, struct scsi_task *task, void *priv)
{
	struct cmd_wait *w = priv;
	(void)c;
	w->done = true;
	conn_task_status(task, status, w->st);
	if (w->in && w->st->got) {
		size_t n = w->st->got < w->inlen ? w->st->got : w->inlen;
		memcpy(w->in, task->datain.data, n);
		w->st->got = n;
	}
	scsi_free_scsi_task(task);
}

int conn_cmd(struct bench_conn *c, const uint8_t *cdb, int cdblen, int dir,
	     const void *out, size_t outlen, void *in, size_t inlen, struct cmd_status *st)
{
	int xfer = dir == 1 ? SCSI_XFER_READ : dir == 2 ? SCSI_XFER_WRITE : SCSI_XFER_NONE;
	int exp = dir == 1 ? (int)inlen : dir == 2 ? (int)outlen : 0;
	memset(st, 0, sizeof(*st));
	st->status = -1;
	struct scsi_task *task = scsi_create_task(cdblen, (unsigned char *)cdb, xfer, exp);
	if (!task)
		return -1;
	/* the data-out iovec lives in the task's own memory: the task may be sent again */
	if (dir == 2 && outlen && scsi_task_add_data_out_buffer(task, (int)outlen, (unsigned char *)out)) {
		scsi_free_scsi_task(task);
		return -1;
	}
	struct cmd_wait w = { .st = st, .in = dir == 1 ? in : NULL, .inlen = inlen };
	if (conn_submit(c, task, cmd_cb, &w))
		return -1;
	char err[16];
	while (!w.done)
		conn_poll_many(c, 1, 1000, err, sizeof(err));   /* a failed session completes w too */
	return st->status < 0 ? -1 : 0;
}

static int read_capacity(struct bench_conn *c, char *err, size_t errlen)
{
	uint8_t cdb[16] = { SCSI_OP_SERVICE_ACTION_IN_16, SCSI_SA_READ_CAPACITY_16 };
	uint8_t buf[32];
	struct cmd_status st;
	cdb[13] = sizeof(buf);
	if (conn_cmd(c, cdb, 16, 1, NULL, 0, buf, sizeof(buf), &st) == 0 && st.status == 0 && st.got >= 16) {
		uint64_t last = ((uint64_t)get_be32(buf) << 32) | get_be32(buf + 4);
		c->num_blocks = last + 1;
		c->block_size = get_be32(buf + 8);
		c->lbpme = (buf[14] & 0x80) != 0;
	} else if (conn_failed(c)) {
		snprintf(err, errlen, "%s", conn_error(c));
		return -1;
	} else {
		/* fall back to READ CAPACITY(10) for small targets that lack the 16-byte form */
		uint8_t cdb10[10] = { SCSI_OP_READ_CAPACITY_10 };
		if (conn_cmd(c, cdb10, 10, 1, NULL, 0, buf, 8, &st) || st.status != 0 || st.got < 8) {
			char what[160];
			if (conn_failed(c)) {
				snprintf(err, errlen, "%s", conn_error(c));
				return -1;
			}
			conn_describe_status(st.status, st.key, st.asc, st.ascq, what, sizeof(what));
			/* LOGICAL UNIT NOT SUPPORTED: the URL names a LUN the target does not have */
			snprintf(err, errlen, "%s: READ CAPACITY failed: %s%s", c->url, what,
				 st.status == SCSI_STAT_CHECK_CONDITION && st.key == SCSI_SK_ILLEGAL_REQUEST &&
					 scsi_asc_pair(st.asc, st.ascq) == SCSI_ASC_LU_NOT_SUPPORTED
					 ? "; the target has no such LUN (iscsi-ls -s lists its LUNs)"
					 : "");
			return -1;
		}
		c->num_blocks = (uint64_t)get_be32(buf) + 1;
		c->block_size = get_be32(buf + 4);
	}
	if (c->block_size == 0 || c->block_size > (1u << 20)) {
		snprintf(err, errlen, "%s: READ CAPACITY block length %u is not usable", c->url, c->block_size);
		return -1;
	}
	return 0;
}

/* Check the URL once with libiscsi's parser, so a typo is a usage error and not a login
 * retried for --timeout. */
int conn_check_url(const char *url, char *err, size_t errlen)
{
	struct iscsi_context *ctx = iscsi_create_context("iqn.2026-11.org.lunlab:url-check");
	if (!ctx) {
		snprintf(err, errlen, "cannot create an iSCSI context (out of memory)");
		return -1;
	}
	struct iscsi_url *u = iscsi_parse_full_url(ctx, url);
	int ret = 0;
	if (!u) {
		char e[300], shown[512];
		conn_copy_error(e, sizeof(e), iscsi_get_error(ctx));
		conn_url_redact(url, shown, sizeof(shown));
		snprintf(err, errlen, "bad URL '%s': %s", shown, e);
		ret = -1;
	} else {
		iscsi_destroy_url(u);
	}
	iscsi_destroy_context(ctx);
	return ret;
}

static uint32_t random_isid(void)
{
	uint32_t v = 0;
	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != (ssize_t)sizeof(v))
		v = (uint32_t)now_ns() ^ ((uint32_t)getpid() << 8);
	return v & 0xffffff;
}

/* libiscsi sends Data-Out payloads with writev(), which raises SIGPIPE on a connection the
 * target has closed (its send() calls use MSG_NOSIGNAL): a write in flight when the target
 * dies must be a lost session, not the end of the process (exit 141). */
static void ignore_sigpipe(void)
{
	struct sigaction sa;
	if (sigaction(SIGPIPE, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL) {
		sa.sa_handler = SIG_IGN;
		sigemptyset(&sa.sa_mask);
		sa.sa_flags = 0;
		sigaction(SIGPIPE, &sa, NULL);
	}
}

int conn_open_many(const char *url, const char *initiator_prefix, unsigned n,
		   struct bench_conn *conns, char *err, size_t errlen)
{
	memset(conns, 0, sizeof(*conns) * n);
	ignore_sigpipe();
	if (conn_check_url(url, err, errlen))
		return -1;
	if (strlen(url) >= sizeof(((struct conn_link *)0)->url_full)) {
		snprintf(err, errlen, "URL longer than %zu characters", sizeof(((struct conn_link *)0)->url_full) - 1);
		return -1;
	}
	uint64_t now = now_ns();
	double timeout_s = g_policy.timeout_s > 0 ? g_policy.timeout_s : 30;
	for (unsigned i = 0; i < n; i++) {
		struct bench_conn *c = &conns[i];
		struct conn_link *l = calloc(1, sizeof(*l));
		if (!l) {
			snprintf(err, errlen, "out of memory for %u sessions", n);
			goto fail;
		}
		c->link = l;
		conn_url_redact(url, c->url, sizeof(c->url));
		snprintf(l->url_full, sizeof(l->url_full), "%s", url);
		if (n == 1)
			snprintf(l->initiator, sizeof(l->initiator), "%s", initiator_prefix);
		else
			snprintf(l->initiator, sizeof(l->initiator), "%s-%u", initiator_prefix, i);
		l->isid = random_isid();
		l->timeout_ns = (uint64_t)(timeout_s * 1e9);
		l->state = LINK_WAIT;
		l->down_since_ns = now;
		l->next_login_ns = now;
	}
	for (;;) {
		unsigned up = 0;
		for (unsigned i = 0; i < n; i++)
			up += conns[i].link->state == LINK_UP;
		if (up == n)
			break;
		if (conn_poll_many(conns, n, 200, err, errlen) < 0)
			goto fail;
	}
	for (unsigned i = 0; i < n; i++)
		if (read_capacity(&conns[i], err, errlen))
			goto fail;
	return 0;
fail:
	for (unsigned i = 0; i < n; i++)
		conn_close(&conns[i]);
	return -1;
}

int conn_open(const char *url, const char *initiator, struct bench_conn *c, char *err, size_t errlen)
{
	return conn_open_many(url, initiator, 1, c, err, errlen);
}

static void logout_cb(struct iscsi_context *iscsi, int status, void *command_data, void *priv)
{
	(void)iscsi;
	(void)status;
	(void)command_data;
	*(bool *)priv = true;
}

/* Best effort and bounded: the target ends the session on close anyway. */
static void logout_bounded(struct bench_conn *c)
{
	bool done = false;
	if (iscsi_logout_async(c->iscsi, logout_cb, &done))
		return;
	uint64_t deadline = now_ns() + LOGOUT_WAIT_NS;
	while (!done) {
		uint64_t now = now_ns();
		if (now >= deadline)
			return;
		struct pollfd p = { .fd = iscsi_get_fd(c->iscsi), .events = (short)iscsi_which_events(c->iscsi) };
		int rc = poll(&p, 1, (int)((deadline - now + 999999u) / 1000000u));
		if (rc < 0 || p.fd < 0)
			return;
		if (rc > 0 && (iscsi_service(c->iscsi, p.revents) < 0 || (p.revents & (POLLHUP | POLLERR | POLLNVAL))))
			return;
	}
}

void conn_close(struct bench_conn *c)
{
	struct conn_link *l = c->link;
	if (!l)
		return;
	l->closing = true;                   /* from here no callback reaches the caller */
	if (l->state == LINK_UP && c->iscsi && iscsi_is_logged_in(c->iscsi))
		logout_bounded(c);
	link_destroy_context(c);
	ops_discard_all(c);
	aborts_free_all(l);
	free(l);
	c->link = NULL;
}
