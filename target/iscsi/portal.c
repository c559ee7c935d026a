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

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int lfds[TARGET_MAX_PORTALS] = { -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1 };
static atomic_bool down[TARGET_MAX_PORTALS];
static atomic_uint conns[TARGET_MAX_PORTALS];
static int epfd = -1;

/* HOST[:PORT] or [V6][:PORT]; host names allowed (SendTargets may carry them) */
static bool parse_adv(const char *v, struct portal_spec *o)
{
	const char *port = NULL, *hs = v, *he;
	unsigned long p;
	char *end;

	if (v[0] == '[') {
		he = strchr(v, ']');
		if (!he || he == v + 1)
			return false;
		hs = v + 1;
		if (he[1] == ':')
			port = he + 2;
		else if (he[1])
			return false;
		o->adv_v6 = true;
		for (const char *c = hs; c < he; c++)
			if (!strchr("0123456789abcdefABCDEF:.", *c))
				return false;
	} else {
		he = strchr(v, ':');
		if (he && strchr(he + 1, ':'))
			return false; /* IPv6 goes in brackets */
		port = he ? he + 1 : NULL;
		if (!he)
			he = v + strlen(v);
		if (he == v)
			return false;
		for (const char *c = hs; c < he; c++)
			if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-", *c))
				return false;
	}
	if ((size_t)(he - hs) >= sizeof(o->adv_host))
		return false;
	memcpy(o->adv_host, hs, (size_t)(he - hs));
	o->adv_host[he - hs] = '\0';
	if (port) {
		if (*port < '0' || *port > '9' || strlen(port) > 5)
			return false;
		errno = 0;
		p = strtoul(port, &end, 10);
		if (errno || *end || p == 0 || p > 65535)
			return false;
		o->adv_port = (unsigned)p;
	}
	return true;
}

bool portal_spec_parse(const char *text, struct portal_spec *o, char *err, size_t errlen)
{
	const char *comma = strchr(text, ',');
	size_t al = comma ? (size_t)(comma - text) : strlen(text);
	char opts[400], *save = NULL, *tok;
	bool seen_adv = false, seen_tpg = false;

	memset(o, 0, sizeof(*o));
	if (al >= sizeof(o->listen)) {
		snprintf(err, errlen, "address too long");
		return false;
	}
	memcpy(o->listen, text, al);
	o->listen[al] = '\0';
	if (!comma)
		return true;
	if (strlen(comma + 1) >= sizeof(opts)) {
		snprintf(err, errlen, "options too long");
		return false;
	}
	strcpy(opts, comma + 1);
	for (tok = strtok_r(opts, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		if (!eq) {
			snprintf(err, errlen, "'%.40s' is not key=value (advertise=HOST[:PORT], tpg=N)", tok);
			return false;
		}
		*eq = '\0';
		if (strcmp(tok, "advertise") == 0 && !seen_adv) {
			seen_adv = true;
			if (!parse_adv(eq + 1, o)) {
				snprintf(err, errlen, "advertise=%.64s: want HOST[:PORT] or [IPv6][:PORT] "
					 "(what SendTargets reports for this portal)", eq + 1);
				return false;
			}
		} else if (strcmp(tok, "tpg") == 0 && !seen_tpg) {
			char *end;
			unsigned long t;
			seen_tpg = true;
			errno = 0;
			t = strtoul(eq + 1, &end, 10);
			if (eq[1] < '0' || eq[1] > '9' || errno || *end || t < 1 || t > 65535) {
				snprintf(err, errlen, "tpg=%.16s: want a portal group tag 1..65535", eq + 1);
				return false;
			}
			o->tpgt = (unsigned)t;
		} else {
			snprintf(err, errlen, "%.32s: %s", tok,
				 (strcmp(tok, "advertise") == 0 || strcmp(tok, "tpg") == 0) ? "given twice"
				 : "unknown key (advertise=HOST[:PORT], tpg=N)");
			return false;
		}
	}
	return true;
}

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
		listener_accept_portal(lfds[idx], idx);
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
		pthread_mutex_unlock(&lock);
		snprintf(why, sizeof(why), "portal %s set down", p->name);
		target_log("portal %d (%s) down: refusing connections, closing its sessions", idx, p->name);
		io_threads_close_portal(idx, why);
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
	return 0;
}

int portal_find(const char *name)
{
	char *end;
	unsigned long i;

	if (name[0] >= '0' && name[0] <= '9' && !strchr(name, ':') && !strchr(name, '.')) {
		i = strtoul(name, &end, 10);
		return *end || i >= (unsigned long)g_target.nportals ? -1 : (int)i;
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
