/* listener.h — the listening socket and the accept hand-off to I/O threads. */
#ifndef LUNLAB_ISCSI_LISTENER_H
#define LUNLAB_ISCSI_LISTENER_H

#include <stdbool.h>

/* "host:port", "[v6]:port" or "host" (port 3260).  Returns the fd or -1 with
 * a message on stderr. */
int listener_open(const char *spec);
struct target_portal;
/* The address a listening socket is bound to, as a portal for SendTargets.
 * false when the socket has no inet address. */
bool listener_portal(int lfd, struct target_portal *p);
/* Accepts everything pending and hands it to the I/O threads. */
void listener_accept_all(int lfd);
/* The same for a socket of portal number `portal` (portal.h; -1: none),
 * which every connection it accepts remembers, with the portal's down-count
 * portal_gen (a later down closes it, an earlier one's late request not). */
void listener_accept_portal(int lfd, int portal, unsigned portal_gen);

#endif
