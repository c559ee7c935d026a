/* io_thread.c — the event loops.  Each thread owns an epoll set, the
 * connections on it, a completion stack fed by backend threads, and a buffer
 * cache.  One wake-up handles all ready sockets and all completions, then
 * flushes every connection that got output once (batching). */
#include "target/iscsi/io_thread.h"
#include "target/lu/lu_rcu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <unistd.h>

#include "target/iscsi/conn.h"
#include "target/iscsi/portal.h"
#include "target/iscsi/scsi_fault.h"
#include "target/iscsi/target.h"
#include "target/lu/lu_stats.h"

#define EVENTS_PER_WAIT 128

unsigned g_login_timeout_s = 15, g_stall_timeout_s = 30;

static struct io_thread *threads;
static int nthreads;
static atomic_uint rr_next;

void io_thread_watch(struct conn *c, bool want_out)
{
	/* paused: no EPOLLIN, but a peer that leaves must still be seen */
	struct epoll_event ev = { .events = (c->rx_paused ? EPOLLRDHUP : EPOLLIN) | (want_out ? EPOLLOUT : 0),
				  .data.ptr = c };

	if (c->fd < 0 || !c->thr)
		return;
	epoll_ctl(c->thr->epfd, EPOLL_CTL_MOD, c->fd, &ev);
	c->epollout = want_out;
}

/* Pushes a task on its thread's completion stack and wakes the loop if it
 * may be asleep.  Dekker pairing with thread_main: we push then read armed,
 * the loop sets armed then reads done_head (both seq_cst), so at least one
 * of the two sees the other and no completion is left waiting. */
static void push_completion(struct icmd *ic)
{
	struct io_thread *t = ic->conn->thr;
	struct icmd *old = atomic_load_explicit(&t->done_head, memory_order_relaxed);

	do {
		ic->done_next = old;
	} while (!atomic_compare_exchange_weak_explicit(&t->done_head, &old, ic,
							memory_order_seq_cst, memory_order_relaxed));
	if (atomic_load(&t->armed) && atomic_exchange(&t->armed, false)) {
		uint64_t one = 1;
		ssize_t w = write(t->evfd, &one, sizeof(one));
		(void)w;
	}
}

/* A task goes on the stack once however many events it has: the loop takes
 * them all with one exchange (data_ready and done may race on two threads,
 * and the stack has one link per task). */
static void post_event(struct icmd *ic, unsigned ev)
{
	unsigned old = atomic_fetch_or_explicit(&ic->async_ev, ev | ICMD_EV_QUEUED, memory_order_acq_rel);

	if (!(old & ICMD_EV_QUEUED))
		push_completion(ic);
}

void io_thread_cmd_done(struct lu_cmd *lc)
{
	post_event(lc->priv, ICMD_EV_DONE);
}

void io_thread_cmd_data_ready(struct lu_cmd *lc)
{
	post_event(lc->priv, ICMD_EV_READY);
}

void io_thread_cmd_data_progress(struct lu_cmd *lc, size_t bytes)
{
	struct icmd *ic = lc->priv;
	size_t old = atomic_load_explicit(&ic->progress, memory_order_relaxed);

	/* never backwards, whatever order two calls' stores land in */
	while (old < bytes && !atomic_compare_exchange_weak_explicit(&ic->progress, &old, bytes,
								     memory_order_release,
								     memory_order_relaxed))
		;
	post_event(ic, ICMD_EV_PROGRESS);
}

void io_thread_submit(struct io_thread *t, struct lu_backend *be, struct lu_cmd *lc)
{
	int i;

	if (!t || !be->ops->submit_deferred || !be->ops->kick) {
		be->ops->submit(be, lc);
		return;
	}
	be->ops->submit_deferred(be, lc);
	for (i = 0; i < t->nkick; i++)
		if (t->kick[i] == be)
			return;
	if (t->nkick < (int)(sizeof(t->kick) / sizeof(t->kick[0])))
		t->kick[t->nkick++] = be;
	else
		be->ops->kick(be); /* many LUs in one batch: no deferral for the rest */
}

static void kick_backends(struct io_thread *t)
{
	for (int i = 0; i < t->nkick; i++)
		t->kick[i]->ops->kick(t->kick[i]);
	t->nkick = 0;
}

static void addr_string(const struct sockaddr_storage *ss, char *out, size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *a = (const void *)ss;
		inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
		port = ntohs(a->sin_port);
		snprintf(out, len, "%s:%u", host, port);
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const void *)ss;
		inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
		port = ntohs(a->sin6_port);
		snprintf(out, len, "[%s]:%u", host, port);
	} else {
		snprintf(out, len, "?");
	}
}

static void adopt(struct io_thread *t, int fd, int portal, unsigned portal_gen)
{
	struct conn *c = conn_new(fd, t);
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct epoll_event ev = { .events = EPOLLIN };

	if (!c) {
		close(fd);
		return;
	}
	c->portal = portal;
	c->portal_gen = portal_gen;
	portal_conn_change(portal, 1);
	if (getpeername(fd, (struct sockaddr *)&ss, &sl) == 0)
		addr_string(&ss, c->peer, sizeof(c->peer));
	sl = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
		addr_string(&ss, c->local, sizeof(c->local));
	ev.data.ptr = c;
	if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		conn_close(c, "epoll_ctl failed");
		return;
	}
	c->list_next = t->conns;
	if (t->conns)
		t->conns->list_prev = c;
	t->conns = c;
}

static void take_new_conns(struct io_thread *t)
{
	struct new_conn fds[64];
	int n;

	do {
		pthread_mutex_lock(&t->new_lock);
		n = t->new_n < 64 ? t->new_n : 64;
		if (n) {
			memcpy(fds, t->new_fds, (size_t)n * sizeof(fds[0]));
			memmove(t->new_fds, t->new_fds + n, (size_t)(t->new_n - n) * sizeof(fds[0]));
			t->new_n -= n;
		}
		pthread_mutex_unlock(&t->new_lock);
		for (int i = 0; i < n; i++)
			adopt(t, fds[i].fd, fds[i].portal, fds[i].portal_gen);
	} while (n == 64);
}

static void post_request(const struct reinstate_req *tmpl)
{
	for (int i = 0; i < nthreads; i++) {
		struct io_thread *t = &threads[i];
		struct reinstate_req *r = malloc(sizeof(*r));
		uint64_t one = 1;
		ssize_t w;

		if (!r)
			continue;
		*r = *tmpl;
		pthread_mutex_lock(&t->new_lock);
		r->next = t->reinstate;
		t->reinstate = r;
		pthread_mutex_unlock(&t->new_lock);
		w = write(t->evfd, &one, sizeof(one));
		(void)w;
	}
}

void io_threads_reinstate(const char *initiator, const uint8_t isid[6], uint16_t tpgt, uint16_t keep_tsih)
{
	struct reinstate_req r;

	memset(&r, 0, sizeof(r));
	snprintf(r.initiator, sizeof(r.initiator), "%s", initiator);
	memcpy(r.isid, isid, 6);
	r.keep_tsih = keep_tsih;
	r.tpgt = tpgt;
	r.portal = -1;
	post_request(&r);
}

void io_threads_close_portal(int portal, unsigned portal_gen, const char *why)
{
	struct reinstate_req r;

	memset(&r, 0, sizeof(r));
	r.portal = portal;
	r.portal_gen = portal_gen;
	snprintf(r.why, sizeof(r.why), "%s", why);
	post_request(&r);
}

void io_threads_release_held(unsigned rule)
{
	struct reinstate_req r;

	memset(&r, 0, sizeof(r));
	r.portal = -1;
	r.release_rule = rule;
	post_request(&r);
}

static void take_reinstatements(struct io_thread *t)
{
	struct reinstate_req *r;

	pthread_mutex_lock(&t->new_lock);
	r = t->reinstate;
	t->reinstate = NULL;
	pthread_mutex_unlock(&t->new_lock);
	while (r) {
		struct reinstate_req *n = r->next;
		struct conn *c = t->conns, *nx;
		if (r->release_rule) {
			io_thread_release_rule(t, r->release_rule);
			free(r);
			r = n;
			continue;
		}
		for (; c; c = nx) {
			nx = c->list_next;
			if (r->portal >= 0) {
				/* a thread adopts new connections before it reads its requests:
				 * one that came in after the portal was up again is not this
				 * down's (a login right after an up was closed by it) */
				if (c->portal == r->portal && c->portal_gen < r->portal_gen && !c->closed)
					conn_close(c, r->why);
				continue;
			}
			/* a session is (initiator port, target port): the same ISID
			 * through another portal group is another I_T nexus */
			if (c->state == CS_FFP && !c->discovery && c->tsih != r->keep_tsih &&
			    target_portal_tpgt(c->portal) == r->tpgt &&
			    memcmp(c->isid, r->isid, 6) == 0 && strcmp(c->initiator, r->initiator) == 0)
				conn_close(c, "session reinstated by a new login");
		}
		free(r);
		r = n;
	}
}

static void run_completions(struct io_thread *t)
{
	struct icmd *list = atomic_exchange_explicit(&t->done_head, NULL, memory_order_acquire);
	struct icmd *rev = NULL;

	while (list) { /* the stack is newest first: restore completion order */
		struct icmd *n = list->done_next;
		list->done_next = rev;
		rev = list;
		list = n;
	}
	while (rev) {
		struct icmd *n = rev->done_next;
		/* after this exchange a backend may push the task again */
		unsigned ev = atomic_exchange_explicit(&rev->async_ev, 0, memory_order_acq_rel);

		/* progress and data_ready always precede done: early Data-In first */
		if (ev & ICMD_EV_PROGRESS)
			scsi_cmd_data_progress(rev);
		if (ev & ICMD_EV_READY)
			scsi_cmd_data_ready(rev);
		if (ev & ICMD_EV_DONE)
			scsi_cmd_completed(rev);
		rev = n;
	}
}

/* Receivers paused for the data budget that may go on: unpause only when
 * the waiting command now fits, then read what is already buffered. */
static void run_resumes(struct io_thread *t)
{
	while (t->resume) {
		struct conn *c = t->resume;
		t->resume = c->resume_next;
		c->resume_queued = false;
		if (!c->closed && c->rx_paused &&
		    (!c->data_bytes || c->data_bytes + get_be32(c->bhs + 20) <= CONN_MAX_DATA_BYTES)) {
			c->rx_paused = false;
			io_thread_watch(c, c->epollout);
			conn_on_readable(c);
		}
		conn_put(c);
	}
}

static void flush_dirty(struct io_thread *t)
{
	while (t->dirty) {
		struct conn *c = t->dirty;
		t->dirty = c->dirty_next;
		c->dirty = false;
		if (!c->closed)
			conn_flush(c);
		conn_put(c);
	}
}

/* Mid-PDU: some of a PDU arrived and the rest has not. */
static bool mid_pdu(const struct conn *c)
{
	return c->stage != RX_BHS || c->rx_got > 0 || c->rx_end > c->rx_start;
}

/* Once a second: close connections that never finish their login, or that
 * stopped in the middle of a PDU.  Without this a peer that connects and
 * says nothing (or half a header) holds a socket and its buffers forever:
 * TCP keepalive only finds peers that are gone, not silent ones.  An idle
 * session between PDUs is fine and stays. */
static void sweep_timeouts(struct io_thread *t)
{
	struct timespec now;
	struct conn *c, *nx;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec - t->last_sweep.tv_sec < 1 ||
	    (now.tv_sec - t->last_sweep.tv_sec == 1 && now.tv_nsec < t->last_sweep.tv_nsec))
		return;
	t->last_sweep = now;
	for (c = t->conns; c; c = nx) {
		char why[80];

		nx = c->list_next;
		if (c->closed)
			continue;
		if (c->state == CS_LOGIN && g_login_timeout_s &&
		    ++c->login_ticks > g_login_timeout_s) {
			snprintf(why, sizeof(why), "login not completed within %u s", g_login_timeout_s);
			target_log("connection from %s: %s", c->peer, why);
			conn_close(c, why);
			continue;
		}
		if (c->rx_progress || !mid_pdu(c) || c->rx_paused) { /* paused: our doing */
			c->rx_progress = false;
			c->stall_ticks = 0;
		} else if (g_stall_timeout_s && ++c->stall_ticks > g_stall_timeout_s) {
			snprintf(why, sizeof(why), "no byte for %u s in the middle of a PDU",
				 g_stall_timeout_s);
			target_log("connection from %s (initiator %s): %s", c->peer,
				   c->initiator[0] ? c->initiator : "?", why);
			conn_close(c, why);
		}
	}
}

static void *thread_main(void *arg)
{
	struct io_thread *t = arg;
	struct epoll_event ev[EVENTS_PER_WAIT];

	lu_rcu_register(); /* this thread reads the LU table (lu_rcu.h) */
	while (!atomic_load(&t->stop)) {
		int timeout = 1000, n, due;

		due = io_thread_run_delayed(t); /* fault rules' late commands */
		if (due >= 0 && due < timeout)
			timeout = due;
		if (t->nkick)
			kick_backends(t);
		/* no LU table pointer is held from one iteration to the next */
		lu_rcu_quiescent();
		atomic_store(&t->armed, true);
		if (atomic_load(&t->done_head))
			timeout = 0; /* completions arrived while we were busy */
		lu_rcu_offline();
		n = epoll_wait(t->epfd, ev, EVENTS_PER_WAIT, timeout);
		lu_rcu_online();
		atomic_store(&t->armed, false);
		if (n < 0 && errno != EINTR)
			break;
		if (n < 0)
			n = 0;
		/* hold every connection of this batch: one may close another's
		 * last reference while we still hold its event */
		for (int i = 0; i < n; i++)
			if (ev[i].data.ptr)
				((struct conn *)ev[i].data.ptr)->refs++;
		for (int i = 0; i < n; i++) {
			struct conn *c = ev[i].data.ptr;
			if (!c) {
				uint64_t v;
				ssize_t r = read(t->evfd, &v, sizeof(v));
				(void)r;
				take_new_conns(t);
				take_reinstatements(t);
				run_completions(t);
				continue;
			}
			if (c->closed)
				continue;
			if (c->rx_paused && (ev[i].events & (EPOLLHUP | EPOLLERR | EPOLLRDHUP)))
				conn_close(c, "connection lost while reading was paused");
			else if (ev[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
				conn_on_readable(c);
			if (!c->closed && (ev[i].events & EPOLLOUT))
				conn_flush(c);
		}
		run_completions(t); /* those that came in meanwhile, without a wake-up */
		run_resumes(t);
		kick_backends(t);
		flush_dirty(t);
		for (int i = 0; i < n; i++)
			if (ev[i].data.ptr)
				conn_put(ev[i].data.ptr);
		sweep_timeouts(t);
		flush_dirty(t); /* conn_close in the sweep may leave puts behind */
	}
	/* shutdown: close every connection, then collect what backends return */
	kick_backends(t);
	while (t->conns)
		conn_close(t->conns, "target shutting down");
	run_completions(t);
	run_resumes(t);
	flush_dirty(t);
	io_thread_drop_delayed(t);
	conn_pools_drain();
	lu_rcu_unregister();
	return NULL;
}

static void timeout_from_env(const char *name, unsigned *out)
{
	const char *v = getenv(name);
	char *end;
	unsigned long x;

	if (!v || !*v)
		return;
	errno = 0;
	x = strtoul(v, &end, 10);
	if (errno || *end || x > 86400) {
		fprintf(stderr, "lunlab-target: %s=%s ignored (want seconds 0..86400)\n", name, v);
		return;
	}
	*out = (unsigned)x;
}

void io_thread_unwatch(struct conn *c)
{
	if (c->thr && c->fd >= 0)
		epoll_ctl(c->thr->epfd, EPOLL_CTL_DEL, c->fd, NULL);
}

void io_timeouts_from_env(void)
{
	timeout_from_env("LUNLAB_LOGIN_TIMEOUT", &g_login_timeout_s);
	timeout_from_env("LUNLAB_STALL_TIMEOUT", &g_stall_timeout_s);
}

int io_threads_start(int n)
{
	threads = calloc((size_t)n, sizeof(*threads));
	if (!threads)
		return -1;
	for (int i = 0; i < n; i++) {
		struct io_thread *t = &threads[i];
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };

		t->idx = i;
		t->stats_shard = (unsigned)i | (n <= LU_STATS_SHARDS ? LU_STATS_SOLE : 0u);
		clock_gettime(CLOCK_MONOTONIC, &t->last_sweep);
		t->epfd = epoll_create1(EPOLL_CLOEXEC);
		t->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (t->epfd < 0 || t->evfd < 0)
			return -1;
		pthread_mutex_init(&t->new_lock, NULL);
		atomic_init(&t->done_head, NULL);
		atomic_init(&t->armed, false);
		epoll_ctl(t->epfd, EPOLL_CTL_ADD, t->evfd, &ev);
		if (pthread_create(&t->tid, NULL, thread_main, t) != 0)
			return -1;
		nthreads = i + 1;
	}
	return 0;
}

void io_threads_assign(int fd, int portal, unsigned portal_gen)
{
	struct io_thread *t = &threads[atomic_fetch_add(&rr_next, 1) % (unsigned)nthreads];
	uint64_t one = 1;
	ssize_t w;

	pthread_mutex_lock(&t->new_lock);
	if (t->new_n == t->new_cap) {
		int cap = t->new_cap ? t->new_cap * 2 : 64;
		struct new_conn *nf = realloc(t->new_fds, (size_t)cap * sizeof(*nf));
		if (!nf) {
			pthread_mutex_unlock(&t->new_lock);
			close(fd);
			return;
		}
		t->new_fds = nf;
		t->new_cap = cap;
	}
	t->new_fds[t->new_n].fd = fd;
	t->new_fds[t->new_n].portal_gen = portal_gen;
	t->new_fds[t->new_n++].portal = portal;
	pthread_mutex_unlock(&t->new_lock);
	w = write(t->evfd, &one, sizeof(one));
	(void)w;
}

void io_threads_stop(void)
{
	for (int i = 0; i < nthreads; i++) {
		uint64_t one = 1;
		ssize_t w;
		atomic_store(&threads[i].stop, true);
		w = write(threads[i].evfd, &one, sizeof(one));
		(void)w;
	}
	for (int i = 0; i < nthreads; i++)
		pthread_join(threads[i].tid, NULL);
}

/* After tcmu_host_shutdown(): nothing can complete any more. */
void io_threads_free(void)
{
	for (int i = 0; i < nthreads; i++) {
		struct io_thread *t = &threads[i];
		run_completions(t);
		run_resumes(t);
		flush_dirty(t);
		for (int k = 0; k < t->new_n; k++)
			close(t->new_fds[k].fd);
		while (t->reinstate) {
			struct reinstate_req *r = t->reinstate;
			t->reinstate = r->next;
			free(r);
		}
		free(t->new_fds);
		bufcache_drain(&t->cache);
		conn_pools_drain(); /* what the loops above gave back on this thread */
		close(t->epfd);
		close(t->evfd);
	}
	free(threads);
	threads = NULL;
	nthreads = 0;
}
