/* api_listen.h — the --api value: "ADDR:PORT", "[IPV6]:PORT" or "PORT"
 * (then 127.0.0.1: the API listens on loopback unless told otherwise).
 * Numeric addresses only, as --listen takes them.  No dependency beyond
 * libc, so the option parser checks the value before anything starts. */
#ifndef LUNLAB_API_LISTEN_H
#define LUNLAB_API_LISTEN_H

#include <stddef.h>

#define API_DEFAULT_ADDR "127.0.0.1"

/* host (without brackets) and port of listen; NULL when fine, else why not */
const char *api_listen_split(const char *listen, char *host, size_t hostlen, unsigned *port);
/* the same, also checking that host is a numeric IPv4/IPv6 address */
const char *api_listen_check(const char *listen);

#endif
