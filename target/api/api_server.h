/* api_server.h — lunlab-target's one HTTP server (--api ADDR:PORT): HTTPS
 * with libmicrohttpd + GnuTLS, HTTP Basic authentication against the auth
 * file's api users, bounded request bodies, and the routing table of
 * api_router.h.  It runs on its own threads (one per connection, at most
 * API_MAX_CONNECTIONS) and never on an iSCSI I/O thread; a handler that waits
 * (creating or deleting a LU) holds up only its own connection. */
#ifndef LUNLAB_API_SERVER_H
#define LUNLAB_API_SERVER_H

#include <stdbool.h>
#include <stddef.h>

struct auth_config;

/* 64: issue 21's 50 monitoring clients, each keeping its connection open,
 * plus room for the cloud drivers beside them (at 32 the 33rd was refused:
 * bench/api-pollers.sh); a thread each, idle ones closed after API_TIMEOUT_S */
#define API_MAX_CONNECTIONS 64
#define API_TIMEOUT_S 60          /* an idle or stalled connection is closed after this */

struct api_server_cfg {
	const char *listen;        /* "ADDR:PORT", "[V6]:PORT" or "PORT" (127.0.0.1); port 0: any */
	const char *cert_path;     /* PEM certificate, or NULL (self-signed) */
	const char *key_path;      /* PEM private key, or NULL */
	const struct auth_config *auth; /* api users; must outlive the server */
	/* one log line (no newline); NULL: stderr */
	void (*log)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
	/* the "api: https://..." line when it started, which a quiet log still shows
	 * (the port of --api HOST:0 is printed nowhere else); NULL: log */
	void (*log_start)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
	/* --api-nice: the API's threads run this many nice steps below the I/O
	 * threads (api_nice.h; api_start sets it); 0: at the same priority */
	unsigned nice_steps;
};

/* Binds, loads or generates the certificate, starts the threads.  0, or -1
 * with a one-line reason in err (the port taken, a bad certificate, no api
 * user).  Routes must be registered before. */
int api_server_start(const struct api_server_cfg *cfg, char *err, size_t errlen);
/* The auth file's API users (XMS's num-of-user-accounts); 0 when not running. */
int api_server_user_count(void);
/* The bound port (useful with port 0); 0 when not running. */
unsigned api_server_port(void);
/* The users the next request is checked against (SIGHUP re-read the auth
 * file: target/auth_reload.c); auth must stay valid until the server stops
 * and have at least one api user. */
void api_server_set_auth(const struct auth_config *auth);
/* Stops accepting, finishes or closes every connection, joins the threads. */
void api_server_stop(void);

#endif
