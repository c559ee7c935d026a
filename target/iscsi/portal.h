/* portal.h — the target's network portals (--listen): what each listens on,
 * the address it advertises, the portal group it belongs to, and whether it
 * is up.  A portal set down at run time closes its listening socket (new
 * connections are refused) and every connection that came in through it;
 * set up again it listens anew.  g_target.portals[] (target.h) holds the
 * fixed part; the up/down state lives here. */
#ifndef LUNLAB_ISCSI_PORTAL_H
#define LUNLAB_ISCSI_PORTAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* --listen ADDR[:PORT][,advertise=HOST[:PORT]][,tpg=N] */
struct portal_spec {
	char listen[264];          /* ADDR[:PORT] as listener_open() takes it */
	char adv_host[64];         /* advertise=: "" none; no brackets */
	unsigned adv_port;         /* 0: the port it listens on */
	bool adv_v6;
	unsigned tpgt;             /* tpg=: 0 = the target's --portal-group */
};

/* Splits the options off a --listen value; the address part is only
 * copied (cli.c checks it).  false with one line in err naming the key. */
bool portal_spec_parse(const char *text, struct portal_spec *out, char *err, size_t errlen);

/* Opens every portal (g_target.portals[], nportals); -1 after a message on
 * stderr naming the --listen value (nothing stays open then). */
int portals_open(const struct portal_spec *specs, int n);
/* The main loop's epoll set: every open listener is added with data.u64 =
 * PORTAL_EV_BASE + index, also after a portal comes back up. */
#define PORTAL_EV_BASE 0x504f525400000000ull
void portals_attach(int epfd);
/* An event for PORTAL_EV_BASE + idx: accept what is pending. */
void portals_accept(int idx);
void portals_close_all(void);

/* Run-time control (any thread).  down: stop listening, close the
 * portal's connections; up: listen again.  0, or -1 with err (no such
 * portal; the address cannot be bound again). */
int portal_set_down(int idx, bool down, char *err, size_t errlen);
bool portal_is_down(int idx);
/* The index of the portal named "HOST:PORT" (its bound or advertised
 * address, as SendTargets shows it), or by its number from 1 ("1" is the
 * first --listen, as XMS iscsi-portals counts); -1. */
int portal_find(const char *name);
/* Connections (sessions and logins) open on portal idx now; the transport
 * counts them as they come and go. */
unsigned portal_connections(int idx);
void portal_conn_change(int idx, int delta);

#endif
