/* conn_poll.c - the loop every subcommand runs: one poll(2) over all sessions' sockets that
 * sleeps until a socket is ready or the earliest timer is due (a login attempt, a retry's
 * backoff, a command's --timeout), then drives each link's state machine (conn_link.h).
 *
 * It never spins: a link without a session has no socket in the poll set (libiscsi's own
 * reconnect kept polling a dead socket, which reports POLLHUP at once, forever), and a hang-up
 * or error on a socket ends that session at once rather than being polled again. */
#include "client/conn_link.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

/* Run what is due on one link.  A transition can make the next state's work due at once
 * (a lost session is retried at once), hence the few rounds. */
static void link_step(struct bench_conn *c, uint64_t now)
{
	struct conn_link *l = c->link;
	for (int round = 0; l && round < 4; round++) {
		switch (l->state) {
		case LINK_UP:
			if (l->lost) {
				link_lost(c, now, l->cause);
				continue;
			}
			ops_check_timeouts(c, now);
			if (l->lost || l->state != LINK_UP)
				continue;
			ops_send_due(c, now);
			if (l->lost || l->state != LINK_UP)
				continue;
			return;
		case LINK_WAIT:
			if (now >= l->down_since_ns + l->timeout_ns) {
				link_give_up(c);
				continue;
			}
			if (now >= l->next_login_ns) {
				link_start_login(c, now);
				continue;
			}
			return;
		case LINK_LOGIN:
			if (l->login_done) {
				if (l->login_status == SCSI_STATUS_GOOD && iscsi_is_logged_in(c->iscsi))
					link_logged_in(c, now);
				else
					link_login_failed(c, now, l->login_err[0] ? l->login_err : iscsi_get_error(c->iscsi));
				continue;
			}
			if (now >= l->attempt_deadline_ns) {
				char why[120];
				snprintf(why, sizeof(why), "no answer to the login in %.1f s",
					 (double)(now - l->attempt_start_ns) / 1e9);
				link_login_failed(c, now, why);
				continue;
			}
			return;
		case LINK_FAILED:
			link_destroy_context(c);
			ops_fail_all(c);
			return;
		}
	}
}

static uint64_t link_next_due(const struct bench_conn *c, uint64_t now)
{
	const struct conn_link *l = c->link;
	if (!l)
		return UINT64_MAX;
	switch (l->state) {
	case LINK_UP:
		return l->lost ? now : ops_next_due(c, now);
	case LINK_WAIT: {
		uint64_t deadline = l->down_since_ns + l->timeout_ns;
		return l->next_login_ns < deadline ? l->next_login_ns : deadline;
	}
	case LINK_LOGIN:
		return l->login_done ? now : l->attempt_deadline_ns;
	case LINK_FAILED:
		return l->head || c->iscsi ? now : UINT64_MAX;
	}
	return UINT64_MAX;
}

int conn_poll_many(struct bench_conn *conns, unsigned n, int timeout_ms, char *err, size_t errlen)
{
	struct pollfd stackfds[128];
	struct pollfd *pfd = n <= 128 ? stackfds : calloc(n, sizeof(*pfd));
	if (!pfd) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	uint64_t now = now_ns();
	for (unsigned i = 0; i < n; i++)
		link_step(&conns[i], now);

	uint64_t wake = now + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000u;
	for (unsigned i = 0; i < n; i++) {
		struct bench_conn *c = &conns[i];
		uint64_t due = link_next_due(c, now);
		if (due < wake)
			wake = due;
		bool live = c->link && c->iscsi && (c->link->state == LINK_UP || c->link->state == LINK_LOGIN);
		pfd[i].fd = live ? iscsi_get_fd(c->iscsi) : -1;        /* poll ignores fd -1 */
		pfd[i].events = live ? (short)iscsi_which_events(c->iscsi) : 0;
		pfd[i].revents = 0;
	}
	int wait_ms = wake <= now ? 0 : (int)((wake - now + 999999u) / 1000000u);
	int rc = poll(pfd, n, wait_ms);
	for (unsigned i = 0; rc > 0 && i < n; i++) {
		struct bench_conn *c = &conns[i];
		struct conn_link *l = c->link;
		if (!pfd[i].revents || pfd[i].fd < 0 || !c->iscsi)
			continue;
		/* libiscsi sets no error text when the peer closes the socket: a text that did not
		 * change during iscsi_service is an old one */
		char before[300];
		snprintf(before, sizeof(before), "%s", iscsi_get_error(c->iscsi));
		int s = iscsi_service(c->iscsi, pfd[i].revents);
		bool gone = s < 0 || (pfd[i].revents & (POLLHUP | POLLERR | POLLNVAL)) || (l->state == LINK_UP && l->lost);
		if (!gone || !c->iscsi)
			continue;
		const char *now_err = iscsi_get_error(c->iscsi);
		bool fresh = strcmp(before, now_err) != 0 && !strstr(now_err, "POLLHUP");
		if (l->state == LINK_UP && (!l->lost || !l->cause[0])) {
			l->lost = true;
			conn_copy_error(l->cause, sizeof(l->cause), fresh ? now_err : "the target closed the connection");
		} else if (l->state == LINK_LOGIN && !l->login_done) {
			l->login_done = true;
			l->login_status = SCSI_STATUS_ERROR;
			if (!l->login_err[0])
				conn_copy_error(l->login_err, sizeof(l->login_err),
						fresh ? now_err : "the target closed the connection during the login");
		}
	}
	now = now_ns();
	int ret = 0;
	for (unsigned i = 0; i < n; i++) {
		link_step(&conns[i], now);
		if (!ret && conns[i].link && conns[i].link->state == LINK_FAILED) {
			snprintf(err, errlen, "%s", conns[i].link->failed);
			ret = -1;
		}
	}
	conn_tty_update(conns, n, now);
	if (pfd != stackfds)
		free(pfd);
	return ret;
}
