/* portal.c — --listen portals: options, listeners, up/down at run time
 * (portal.h).  One mutex covers the listening sockets: the main loop
 * accepts under it and the API thread closes or reopens under it, so an
 * accept never sees a socket being closed. */
#include "target/iscsi/portal.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "target/iscsi/io_thread.h"
#include "target/iscsi/listener.h"
#include "target/iscsi/target.h"
#include "target/lu/happenings.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int lfds[TARGET_MAX_PORTALS] = { -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1 };
static atomic_bool down[TARGET_MAX_PORTALS];
/* times each portal was set down (under lock): a connection carries the count
 * it was accepted under, so a down closes only the connections before it */
static unsigned downs[TARGET_MAX_PORTALS];
static atomic_uint conns[TARGET_MAX_PORTALS];
static int epfd = -1;

static void name_of(char *out, size_t cap, const char *host, bool v6, unsigned port)
{
	snprintf(out, cap, "%s%s%s:%u", v6 ? "[" : "", host, v6 ? "]" : "", port);
}

int portals_open(const struct portal_spec *specs, int n)
{
	if (n > TARGET_MAX_PORTALS)
		n = TARGET_MAX_PORTALS;
	for (int i = 0; i < n; i++) {
		struct target_portal *p = &g_target.portals[i];
		int fd = listener_open(specs[i].listen);

		if (fd >= 0 && !listener_portal(fd, p)) {
			fprintf(stderr, "lunlab-target: --listen %s: not an IPv4/IPv6 address\n", specs[i].listen);
			close(fd);
			fd = -1;
		}
		if (fd < 0) {
			portals_close_all();
			return -1;
		}
		lfds[i] = fd;
		atomic_store(&down[i], false);
		p->tpgt = (uint16_t)specs[i].tpgt;
		name_of(p->name, sizeof(p->name), p->host, p->v6, p->port);
		if (specs[i].adv_host[0]) {
			snprintf(p->adv_host, sizeof(p->adv_host), "%s", specs[i].adv_host);
			p->adv_port = specs[i].adv_port ? specs[i].adv_port : p->port;
			p->adv_v6 = specs[i].adv_v6;
			name_of(p->adv_name, sizeof(p->adv_name), p->adv_host, p->adv_v6, p->adv_port);
		}
		g_target.nportals = i + 1;
	}
	return 0;
}

void portals_attach(int ep)
{
	pthread_mutex_lock(&lock);
	epfd = ep;
	for (int i = 0; i < g_target.nportals; i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.u64 = PORTAL_EV_BASE + (uint64_t)i };
		if (lfds[i] >= 0)
			epoll_ctl(epfd, EPOLL_CTL_ADD, lfds[i], &ev);
	}
	pthread_mutex_unlock(&lock);
}

void portals_accept(int idx)
{
	if (idx < 0 || idx >= TARGET_MAX_PORTALS)
		return;
	pthread_mutex_lock(&lock);
	if (lfds[idx] >= 0)
		listener_accept_portal(lfds[idx], idx, downs[idx]);
	pthread_mutex_unlock(&lock);
}

void portals_close_all(void)
{
	pthread_mutex_lock(&lock);
	for (int i = 0; i < TARGET_MAX_PORTALS; i++) {
		if (lfds[i] >= 0)
			close(lfds[i]);
		lfds[i] = -1;
	}
	epfd = -1;
	pthread_mutex_unlock(&lock);
}

bool portal_is_down(int idx)
{
	return idx >= 0 && idx < TARGET_MAX_PORTALS && atomic_load(&down[idx]);
}

int portal_set_down(int idx, bool want_down, char *err, size_t errlen)
{
	struct target_portal *p;
	char why[128];

	if (idx < 0 || idx >= g_target.nportals) {
		snprintf(err, errlen, "no portal %d (there are %d)", idx, g_target.nportals);
		return -1;
	}
	p = &g_target.portals[idx];
	pthread_mutex_lock(&lock);
	if (want_down == atomic_load(&down[idx])) {
		pthread_mutex_unlock(&lock);
		return 0;
	}
	if (want_down) {
		if (lfds[idx] >= 0) {
			if (epfd >= 0)
				epoll_ctl(epfd, EPOLL_CTL_DEL, lfds[idx], NULL);
			close(lfds[idx]);
			lfds[idx] = -1;
		}
		atomic_store(&down[idx], true);
		unsigned gen = ++downs[idx];
		pthread_mutex_unlock(&lock);
		snprintf(why, sizeof(why), "portal %s set down", p->name);
		target_log("portal %d (%s) down: refusing connections, closing its sessions", idx, p->name);
		happening_post(HAPPEN_PORTAL_DOWN, (uint64_t)idx, "portal %d (%s) down: connections refused, its sessions closed",
			       idx + 1, p->name);
		io_threads_close_portal(idx, gen, why);
		return 0;
	}
	/* up: the very address it had (a port 0 listener got its port then) */
	int fd = listener_open(p->name);
	if (fd < 0) {
		pthread_mutex_unlock(&lock);
		snprintf(err, errlen, "portal %s cannot listen again: %s", p->name, strerror(errno));
		return -1;
	}
	lfds[idx] = fd;
	if (epfd >= 0) {
		struct epoll_event ev = { .events = EPOLLIN, .data.u64 = PORTAL_EV_BASE + (uint64_t)idx };
		epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
	}
	atomic_store(&down[idx], false);
	pthread_mutex_unlock(&lock);
	target_log("portal %d (%s) up", idx, p->name);
	happening_post(HAPPEN_PORTAL_UP, (uint64_t)idx, "portal %d (%s) up", idx + 1, p->name);
	return 0;
}

int portal_find(const char *name)
{
	char *end;
	unsigned long i;

	if (name[0] >= '0' && name[0] <= '9' && !strchr(name, ':') && !strchr(name, '.')) {
		/* 1-based, as XMS numbers its iscsi-portals (index 1 is the first --listen) */
		i = strtoul(name, &end, 10);
		return *end || i < 1 || i > (unsigned long)g_target.nportals ? -1 : (int)i - 1;
	}
	for (int k = 0; k < g_target.nportals; k++)
		if (strcmp(g_target.portals[k].name, name) == 0 ||
		    (g_target.portals[k].adv_name[0] && strcmp(g_target.portals[k].adv_name, name) == 0))
			return k;
	return -1;
}

void portal_conn_change(int idx, int delta)
{
	if (idx >= 0 && idx < TARGET_MAX_PORTALS)
		atomic_fetch_add(&conns[idx], (unsigned)delta);
}

unsigned portal_connections(int idx)
{
	return idx >= 0 && idx < TARGET_MAX_PORTALS ? atomic_load(&conns[idx]) : 0;
}
