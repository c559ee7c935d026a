/* conn_login.c - a link's sessions: logging in (the first time and after a loss), losing a
 * session, giving up.  Every login builds a fresh libiscsi context from the URL with the
 * link's own ISID, so a login after a loss reinstates the old session at the target (RFC 7143
 * 6.3.5: the target then ends the old session's tasks) instead of leaving it behind. */
#include "client/conn_link.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

/* One attempt may wait this long for an answer (a target that accepts the TCP connection but
 * never answers the login, e.g. a stopped process), so a hung attempt leaves room for others. */
#define ATTEMPT_MAX_NS (10ull * 1000000000ull)

static void login_cb(struct iscsi_context *iscsi, int status, void *command_data, void *priv);

/* The TCP connection is up (or failed): log in.  libiscsi's iscsi_full_connect_async is not
 * used: its connect task leaks when a context is destroyed in the middle of a login (a target
 * that accepts and never answers), and it sends TEST UNIT READYs that would swallow the unit
 * attentions this layer counts. */
static void connect_cb(struct iscsi_context *iscsi, int status, void *command_data, void *priv)
{
	struct bench_conn *c = priv;
	(void)command_data;
	if (!c->link || c->iscsi != iscsi)
		return;
	if (status == SCSI_STATUS_GOOD && iscsi_login_async(iscsi, login_cb, c) == 0)
		return;
	c->link->login_done = true;
	c->link->login_status = SCSI_STATUS_ERROR;
	conn_copy_error(c->link->login_err, sizeof(c->link->login_err), iscsi_get_error(iscsi));
}

static void login_cb(struct iscsi_context *iscsi, int status, void *command_data, void *priv)
{
	struct bench_conn *c = priv;
	(void)command_data;
	if (!c->link || c->iscsi != iscsi)
		return;
	/* a portal that redirects (login status 01/xx) names another address: go there */
	if (status == SCSI_STATUS_REDIRECT && iscsi_get_target_address(iscsi)[0]) {
		char to[256];
		snprintf(to, sizeof(to), "%s", iscsi_get_target_address(iscsi));
		iscsi_disconnect(iscsi);
		if (iscsi_connect_async(iscsi, to, connect_cb, c) == 0)
			return;
		status = SCSI_STATUS_ERROR;
	}
	c->link->login_done = true;
	c->link->login_status = status;
	if (status != SCSI_STATUS_GOOD)
		conn_copy_error(c->link->login_err, sizeof(c->link->login_err), iscsi_get_error(iscsi));
}

void link_destroy_context(struct bench_conn *c)
{
	struct conn_link *l = c->link;
	if (!c->iscsi)
		return;
	l->teardown = true;
	iscsi_destroy_context(c->iscsi);   /* cancels its PDUs: op_cb requeues, abort_cb frees */
	c->iscsi = NULL;
	l->teardown = false;
	ops_requeue_all(c);
	aborts_free_all(l);
}

void link_fail(struct bench_conn *c, const char *fmt, ...)
{
	struct conn_link *l = c->link;
	if (l->state == LINK_FAILED)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(l->failed, sizeof(l->failed), fmt, ap);
	va_end(ap);
	l->state = LINK_FAILED;
	conn_note_fatal(l->failed);
}

void link_give_up(struct bench_conn *c)
{
	struct conn_link *l = c->link;
	double t = (double)l->timeout_ns / 1e9;
	const char *last = l->last_err[0] ? l->last_err : "none finished";
	if (l->ever_up)
		link_fail(c, "%s: connection lost (%s) and no session again within --timeout %g s "
			  "(%u login attempt%s, the last: %s)", c->url, l->cause, t, l->attempts,
			  l->attempts == 1 ? "" : "s", last);
	else
		link_fail(c, "%s: no session within --timeout %g s (%u login attempt%s, the last: %s)",
			  c->url, t, l->attempts, l->attempts == 1 ? "" : "s", last);
}

void link_login_failed(struct bench_conn *c, uint64_t now, const char *why)
{
	struct conn_link *l = c->link;
	conn_copy_error(l->last_err, sizeof(l->last_err), why);   /* before the context goes */
	link_destroy_context(c);
	l->attempts++;
	if (conn_login_error_final(l->last_err)) {
		/* 02/02 Authorization failure: most often an allow-list that does not name
		 * the initiator name lunlab-bench logs in with; say which and how to change it */
		if (strstr(l->last_err, "(514)"))
			link_fail(c, "%s: login refused: %s (this session logs in as %s: the target's allow-list "
				     "must name it, or give a name it lists with --initiator IQN)",
				  c->url, l->last_err, l->initiator);
		else
			link_fail(c, "%s: login refused: %s", c->url, l->last_err);
		return;
	}
	uint64_t deadline = l->down_since_ns + l->timeout_ns;
	if (now >= deadline) {
		link_give_up(c);
		return;
	}
	uint64_t next = now + conn_login_backoff_ns(l->attempts);
	l->next_login_ns = next < deadline ? next : deadline;
	l->state = LINK_WAIT;
}

void link_start_login(struct bench_conn *c, uint64_t now)
{
	struct conn_link *l = c->link;
	struct iscsi_context *ctx = iscsi_create_context(l->initiator);
	if (!ctx) {
		link_fail(c, "%s: cannot create an iSCSI context (out of memory)", c->url);
		return;
	}
	struct iscsi_url *u = iscsi_parse_full_url(ctx, l->url_full);
	if (!u) {
		char e[300];
		conn_copy_error(e, sizeof(e), iscsi_get_error(ctx));
		iscsi_destroy_context(ctx);
		link_fail(c, "%s: bad URL: %s", c->url, e);
		return;
	}
	/* lunlab-bench reconnects itself (conn.h); the same ISID on every login of this link */
	iscsi_set_noautoreconnect(ctx, 1);
	iscsi_set_isid_random(ctx, l->isid, 0);
	iscsi_set_session_type(ctx, ISCSI_SESSION_NORMAL);
	iscsi_set_header_digest(ctx, ISCSI_HEADER_DIGEST_NONE);
	iscsi_set_targetname(ctx, u->target);
	/* CHAP exactly as libiscsi's own tools do: user%pass from the URL (or the
	 * LIBISCSI_CHAP_* environment, which iscsi_parse_full_url reads), mutual when the
	 * target credentials are given. */
	if (u->user[0])
		iscsi_set_initiator_username_pwd(ctx, u->user, u->passwd);
	if (u->target_user[0])
		iscsi_set_target_username_pwd(ctx, u->target_user, u->target_passwd);
	c->lun = u->lun;
	snprintf(c->target, sizeof(c->target), "%s", u->target);
	snprintf(c->portal, sizeof(c->portal), "%s", u->portal);
	iscsi_destroy_url(u);

	c->iscsi = ctx;
	l->login_err[0] = 0;
	l->login_done = false;
	l->login_status = 0;
	l->state = LINK_LOGIN;
	uint64_t deadline = l->down_since_ns + l->timeout_ns;
	l->attempt_start_ns = now;
	l->attempt_deadline_ns = now + ATTEMPT_MAX_NS < deadline ? now + ATTEMPT_MAX_NS : deadline;
	if (iscsi_connect_async(ctx, c->portal, connect_cb, c))
		link_login_failed(c, now, iscsi_get_error(ctx));
}

void link_logged_in(struct bench_conn *c, uint64_t now)
{
	struct conn_link *l = c->link;
	if (l->ever_up) {
		c->stats.reconnects++;
		double out = (double)(now - l->down_since_ns) / 1e9;
		c->stats.outage_s += out;
		if (out > c->stats.longest_outage_s)
			c->stats.longest_outage_s = out;
	}
	l->ever_up = true;
	l->state = LINK_UP;
	l->generation++;
	l->attempts = 0;
	l->lost = false;
	l->cause[0] = 0;
	l->last_err[0] = 0;
}

void link_lost(struct bench_conn *c, uint64_t now, const char *cause)
{
	struct conn_link *l = c->link;
	char why[sizeof(l->cause)];
	conn_copy_error(why, sizeof(why), cause && cause[0] ? cause : "the connection closed");
	link_destroy_context(c);
	snprintf(l->cause, sizeof(l->cause), "%s", why);
	l->lost = false;
	l->state = LINK_WAIT;
	l->down_since_ns = now;
	l->next_login_ns = now;          /* the first attempt at once: a dropped connection to a
	                                  * live target is back in one round trip */
	l->attempts = 0;
	l->last_err[0] = 0;
}
