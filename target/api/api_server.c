/* api_server.c — the HTTPS server (api_server.h) on libmicrohttpd.
 *
 * One request's life: the first call of the access handler sees the headers
 * only: the method is checked, a Content-Length above API_BODY_MAX is
 * refused (413) and the route is found; unless the route is public the
 * credentials are checked now, so an unauthenticated client cannot make the
 * server read a body.  Later calls hand over the body in pieces, which are
 * kept up to API_BODY_MAX (a chunked body that grows beyond is answered 413
 * once complete).  The last call runs the route's handler and queues its
 * response.  Nothing in a request is logged but the method, the path, the
 * user and the status: bodies and query strings may carry CHAP secrets. */
#include "target/api/api_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "target/api/api_auth.h"
#include "target/api/api_json.h"
#include "target/api/api_listen.h"
#include "target/api/api_nice.h"
#include "target/api/api_router.h"
#include "target/api/api_session.h"
#include "target/api/api_tls.h"
#include "target/iscsi/login_throttle.h"

#define API_HEADER_MEMORY (64u << 10) /* per connection: request line, headers, query */
#define API_REALM "XMS"

struct req_state {
	enum api_method method;
	char *body;
	size_t len, cap;
	bool too_large;
	bool answered;          /* a response was queued on the first call */
	char user[AUTH_API_NAME_MAX + 1];
	bool authenticated;
	char session[API_SESSION_TOKEN_LEN + 1]; /* the cookie that authenticated it, or "" */
	uint64_t throttled_ms;  /* refused unchecked: the client's address must wait this long */
	char *path;             /* the URL with runs of '/' made one (XMS takes "types//volumes") */
	struct api_param params[API_MAX_PARAMS];
	size_t nparams;
	bool too_many_params;
};

static struct {
	struct MHD_Daemon *daemon;
	struct api_tls tls;
	const struct auth_config *auth;
	void (*log)(const char *fmt, ...);
	void (*log_start)(const char *fmt, ...);
	unsigned port;
} srv;

__attribute__((format(printf, 1, 2))) static void logf_(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (srv.log)
		srv.log("%s", line);
	else
		fprintf(stderr, "%s\n", line);
}

static void mhd_logger(void *cls, const char *fmt, va_list ap)
{
	char line[512];
	size_t n;

	(void)cls;
	/* fmt is libmicrohttpd's own (MHD_OPTION_EXTERNAL_LOGGER hands us its
	 * format and arguments), never a string from a client */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	vsnprintf(line, sizeof(line), fmt, ap);
#pragma GCC diagnostic pop
	n = strlen(line);
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		line[--n] = '\0';
	logf_("api: %s", line);
}

/* ---- the listening address ---- */

static int open_listener(const char *where, bool *v6, char *host, size_t hostlen, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	unsigned port;
	int fd, one = 1;
	const char *why = api_listen_split(where, host, hostlen, &port);

	memset(&ss, 0, sizeof(ss));
	if (why) {
		snprintf(err, errlen, "--api %s: %s", where, why);
		return -1;
	}
	if (inet_pton(AF_INET, host, &((struct sockaddr_in *)&ss)->sin_addr) == 1) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		sl = sizeof(*a);
		*v6 = false;
	} else if (inet_pton(AF_INET6, host, &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		sl = sizeof(*a);
		*v6 = true;
	} else {
		snprintf(err, errlen, "--api %s: not a numeric IPv4 or IPv6 address", where);
		return -1;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		snprintf(err, errlen, "--api %s: socket: %s", where, strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (*v6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, sl) < 0 || listen(fd, 64) < 0) {
		snprintf(err, errlen, "--api %s: %s", where, strerror(errno));
		close(fd);
		return -1;
	}
	sl = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
		srv.port = ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
							 : ((struct sockaddr_in6 *)&ss)->sin6_port);
	return fd;
}

/* ---- requests ---- */

static enum api_method method_of(const char *m)
{
	if (strcmp(m, "GET") == 0)
		return API_GET;
	if (strcmp(m, "POST") == 0)
		return API_POST;
	if (strcmp(m, "PUT") == 0)
		return API_PUT;
	if (strcmp(m, "DELETE") == 0)
		return API_DELETE;
	if (strcmp(m, "HEAD") == 0)
		return API_HEAD;
	return 0;
}

static enum MHD_Result queue(struct MHD_Connection *mc, struct api_response *rsp, bool auth_fail)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(rsp->body_len, rsp->body ? rsp->body : (void *)"",
					    rsp->body ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
	if (!r) {
		free(rsp->body);
		free(rsp->extra_header_name);
		free(rsp->extra_header_value);
		return MHD_NO;
	}
	rsp->body = NULL; /* MHD owns it now */
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				rsp->content_type ? rsp->content_type : "application/json");
	if (rsp->location)
		MHD_add_response_header(r, MHD_HTTP_HEADER_LOCATION, rsp->location);
	if (rsp->extra_header_name && rsp->extra_header_value)
		MHD_add_response_header(r, rsp->extra_header_name, rsp->extra_header_value);
	free(rsp->extra_header_name);
	free(rsp->extra_header_value);
	if (auth_fail)
		ret = MHD_queue_basic_auth_fail_response(mc, API_REALM, r);
	else
		ret = MHD_queue_response(mc, rsp->status, r);
	MHD_destroy_response(r);
	return ret;
}

static const char *peer_of(struct MHD_Connection *mc, char *buf, size_t len)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;

	snprintf(buf, len, "?");
	if (sa && sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, buf, (socklen_t)len);
	else if (sa && sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, buf, (socklen_t)len);
	return buf;
}

/* the local address of the connection (a wildcard listener answers on
 * several); "" when unknown */
static const char *local_of(struct MHD_Connection *mc, char *buf, size_t len)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CONNECTION_FD);
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	buf[0] = '\0';
	if (!ci || getsockname(ci->connect_fd, (struct sockaddr *)&ss, &sl) < 0)
		return buf;
	if (ss.ss_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)&ss)->sin_addr, buf, (socklen_t)len);
	else if (ss.ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)&ss)->sin6_addr, buf, (socklen_t)len);
	return buf;
}

/* "ADDR:PORT" ("[V6]:PORT") of the client: the port tells one connection from another */
static const char *peer_port_of(struct MHD_Connection *mc, char *buf, size_t len)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;
	char a[INET6_ADDRSTRLEN];

	snprintf(buf, len, "?");
	if (sa && sa->sa_family == AF_INET && inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, a, sizeof(a)))
		snprintf(buf, len, "%s:%u", a, ntohs(((const struct sockaddr_in *)sa)->sin_port));
	else if (sa && sa->sa_family == AF_INET6 &&
		 inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, a, sizeof(a)))
		snprintf(buf, len, "[%s]:%u", a, ntohs(((const struct sockaddr_in6 *)sa)->sin6_port));
	return buf;
}

/* One per TCP connection (MHD's socket context): whether a request came on it.  A
 * connection that ends without one failed its TLS handshake (a plain-HTTP client, one
 * that does not trust the certificate) or was a bare probe; GnuTLS's line, which MHD
 * logs from the connection's thread, names no peer, so this line does. */
struct conn_state {
	bool requested;
};

static void on_connection(void *cls, struct MHD_Connection *mc, void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	struct conn_state *cs = *socket_context;
	char peer[80];

	(void)cls;
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		*socket_context = calloc(1, sizeof(struct conn_state));
		return;
	}
	if (cs && !cs->requested)
		logf_("api: %s closed before any HTTPS request (a plain-HTTP client, or a client that does not "
		      "trust the certificate, fails the TLS handshake)", peer_port_of(mc, peer, sizeof(peer)));
	free(cs);
	*socket_context = NULL;
}

static void mark_requested(struct MHD_Connection *mc)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(mc, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	if (ci && ci->socket_context)
		((struct conn_state *)ci->socket_context)->requested = true;
}

static enum MHD_Result answer_now(struct MHD_Connection *mc, struct req_state *st, const char *method,
				  const char *url, unsigned status, const char *message, bool auth_fail)
{
	struct api_response rsp;
	char peer[64];

	memset(&rsp, 0, sizeof(rsp));
	api_error(&rsp, status, message);
	st->answered = true;
	logf_("api: %s %s %s user=%s -> %u", peer_of(mc, peer, sizeof(peer)), method, url,
	      st->user[0] ? st->user : "-", status);
	return queue(mc, &rsp, auth_fail);
}

/* 429 at once: the address is inside its wait after failed logins; the
 * secret was not looked at.  Retry-After says when (RFC 6585 4). */
static enum MHD_Result answer_throttled(struct MHD_Connection *mc, struct req_state *st, const char *method,
					const char *url)
{
	struct api_response rsp;
	char peer[64], after[24];
	unsigned long long s = (st->throttled_ms + 999) / 1000;

	memset(&rsp, 0, sizeof(rsp));
	api_errorf(&rsp, 429, "too_many_failed_logins: retry in %llu s", s);
	snprintf(after, sizeof(after), "%llu", s);
	rsp.extra_header_name = strdup("Retry-After");
	rsp.extra_header_value = strdup(after);
	st->answered = true;
	logf_("api: %s %s %s user=%s -> 429 (failed logins: refused unchecked for %llu s)",
	      peer_of(mc, peer, sizeof(peer)), method, url, st->user[0] ? st->user : "-", s);
	return queue(mc, &rsp, false);
}

static uint64_t now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec;
}

static void keep_user(struct req_state *st, const char *user)
{
	/* the name goes into the log: keep what is printable and short */
	size_t i = 0;

	for (; user[i] && i < AUTH_API_NAME_MAX; i++)
		st->user[i] = (unsigned char)user[i] > ' ' && (unsigned char)user[i] < 0x7f ? user[i] : '?';
	st->user[i] = '\0';
}

/* the users requests are checked against now (SIGHUP may replace them:
 * target/auth_reload.c; an old set stays valid until the server stops) */
static const struct auth_config *auth_now(void)
{
	return __atomic_load_n(&srv.auth, __ATOMIC_ACQUIRE);
}

/* true when the session still belongs to a user of the auth file (a user
 * removed by a re-read ends every session of theirs at its next use) */
static bool session_valid(struct req_state *st, const char *cookie)
{
	char user[API_SESSION_USER_MAX + 1];

	if (!api_session_check(cookie, now_s(), user, sizeof(user)))
		return false;
	const struct auth_config *a = auth_now();

	for (int i = 0; a && i < a->napi_users; i++) {
		if (strcmp(a->api_users[i].name, user) == 0) {
			keep_user(st, user);
			snprintf(st->session, sizeof(st->session), "%s", cookie);
			return true;
		}
	}
	api_session_close_user(user); /* the user is gone from the auth file */
	return false;
}

/* A session cookie, else HTTP Basic, else (the login command only) user= and
 * password= in the query, as the Prometheus exporter sends them.  A
 * password is checked only when the client's address may try one
 * (login_throttle.h); a wrong one is counted and logged with the user and
 * the address. */
static bool authenticate(struct MHD_Connection *mc, struct req_state *st, bool login)
{
	const char *cookie = MHD_lookup_connection_value(mc, MHD_COOKIE_KIND, API_SESSION_COOKIE);
	char *pass = NULL;
	char *user;
	const char *u = NULL, *p = NULL;
	char peer[64], host[LOGIN_THROTTLE_HOST_MAX];
	uint64_t now;
	bool ok = false;

	if (cookie && session_valid(st, cookie)) {
		st->authenticated = true;
		return true;
	}
	user = MHD_basic_auth_get_username_password(mc, &pass);
	if (user) {
		u = user;
		p = pass ? pass : "";
	} else if (login) {
		u = MHD_lookup_connection_value(mc, MHD_GET_ARGUMENT_KIND, "user");
		p = MHD_lookup_connection_value(mc, MHD_GET_ARGUMENT_KIND, "password");
		if (!p)
			u = NULL;
	}
	if (u) {
		keep_user(st, u);
		login_throttle_host(peer_of(mc, peer, sizeof(peer)), host, sizeof(host));
		now = login_throttle_now_ms();
		st->throttled_ms = login_throttle_check(LOGIN_THROTTLE_API, host, now);
		if (!st->throttled_ms) {
			ok = api_auth_check(auth_now(), u, p);
			if (ok) {
				login_throttle_ok(host);
			} else {
				unsigned row = 0;
				uint64_t wait = login_throttle_fail(LOGIN_THROTTLE_API, host, now, &row);
				login_throttle_notify(LOGIN_THROTTLE_API, host, st->user, row, wait);
				logf_("api: failed login: user=%s from %s (%u in a row%s%llu s)", st->user, host, row,
				      row >= LOGIN_THROTTLE_LOCK_FAILS ? "; locked out for " : "; next try in ",
				      (unsigned long long)((wait + 999) / 1000));
			}
		}
	}
	if (pass) {
		volatile char *q = pass;
		while (*q)
			*q++ = 0;
	}
	MHD_free(user);
	MHD_free(pass);
	st->authenticated = ok;
	return ok;
}

/* url with every run of '/' made one; NULL without memory */
static char *collapse_slashes(const char *url)
{
	char *p = malloc(strlen(url) + 1), *o = p;

	if (!p)
		return NULL;
	for (const char *i = url; *i; i++)
		if (*i != '/' || o == p || o[-1] != '/')
			*o++ = *i;
	*o = '\0';
	return p;
}

static enum MHD_Result collect_param(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	struct req_state *st = cls;

	(void)kind;
	if (!key)
		return MHD_YES;
	if (st->nparams == API_MAX_PARAMS) {
		st->too_many_params = true;
		return MHD_NO;
	}
	st->params[st->nparams].key = key;
	st->params[st->nparams].value = value ? value : "";
	st->nparams++;
	return MHD_YES;
}

static bool append_body(struct req_state *st, const char *data, size_t n)
{
	if (st->too_large || st->len + n > API_BODY_MAX) {
		st->too_large = true;
		return true;
	}
	if (st->len + n + 1 > st->cap) {
		size_t cap = st->cap ? st->cap : 4096;
		char *b;
		while (cap < st->len + n + 1)
			cap *= 2;
		b = realloc(st->body, cap);
		if (!b)
			return false;
		st->body = b;
		st->cap = cap;
	}
	memcpy(st->body + st->len, data, n);
	st->len += n;
	st->body[st->len] = '\0';
	return true;
}

static enum MHD_Result first_call(struct MHD_Connection *mc, struct req_state *st, const char *url,
				  const char *method)
{
	const char *cl = MHD_lookup_connection_value(mc, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	const struct api_route *r;
	const char *rest;
	bool known;

	st->method = method_of(method);
	if (!st->method)
		return answer_now(mc, st, method, url, 405, "method_not_allowed", false);
	st->path = collapse_slashes(url);
	if (!st->path)
		return MHD_NO;
	url = st->path;
	r = api_route_find(st->method, url, &rest, &known);
	if (!r || !(r->flags & API_ROUTE_PUBLIC)) {
		if (!authenticate(mc, st, strcmp(url, API_SESSION_LOGIN_PATH) == 0)) {
			if (st->throttled_ms)
				return answer_throttled(mc, st, method, url);
			return answer_now(mc, st, method, url, 401, "Unauthorized", true);
		}
	}
	if (cl) {
		char *end;
		unsigned long long v = strtoull(cl, &end, 10);
		if (*cl < '0' || *cl > '9' || *end || v > API_BODY_MAX)
			return answer_now(mc, st, method, url, 413, "request_entity_too_large", false);
	}
	return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *mc, const char *url, const char *method,
				  const char *version, const char *upload_data, size_t *upload_size, void **con_cls)
{
	struct req_state *st = *con_cls;
	struct api_request req;
	struct api_response rsp;
	char peer[64], local[64];

	(void)cls;
	(void)version;
	if (st && st->path)
		url = st->path;
	if (!st) {
		st = calloc(1, sizeof(*st));
		if (!st)
			return MHD_NO;
		*con_cls = st;
		mark_requested(mc);
		return first_call(mc, st, url, method);
	}
	if (st->answered) { /* refused on the first call: drain what still comes */
		*upload_size = 0;
		return MHD_YES;
	}
	if (*upload_size) {
		if (!append_body(st, upload_data, *upload_size))
			return MHD_NO;
		*upload_size = 0;
		return MHD_YES;
	}
	if (st->too_large)
		return answer_now(mc, st, method, url, 413, "request_entity_too_large", false);
	MHD_get_connection_values(mc, MHD_GET_ARGUMENT_KIND, collect_param, st);
	if (st->too_many_params)
		return answer_now(mc, st, method, url, 400, "Command Syntax Error: more than 64 query parameters",
				  false);
	memset(&req, 0, sizeof(req));
	memset(&rsp, 0, sizeof(rsp));
	req.method = st->method;
	req.path = url;
	req.params = st->params;
	req.nparams = st->nparams;
	req.body = st->body ? st->body : "";
	req.body_len = st->len;
	req.user = st->authenticated ? st->user : NULL;
	req.session = st->session[0] ? st->session : NULL;
	req.host = MHD_lookup_connection_value(mc, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
	if (!req.host)
		req.host = "";
	req.local_addr = local_of(mc, local, sizeof(local));
	req.tls = true;
	api_dispatch(&req, &rsp);
	if (!rsp.status)
		api_error(&rsp, 500, "internal error: the handler gave no answer");
	logf_("api: %s %s %s user=%s -> %u", peer_of(mc, peer, sizeof(peer)), method, url,
	      st->user[0] ? st->user : "-", rsp.status);
	return queue(mc, &rsp, false);
}

static void on_completed(void *cls, struct MHD_Connection *mc, void **con_cls, enum MHD_RequestTerminationCode toe)
{
	struct req_state *st = *con_cls;

	(void)cls;
	(void)mc;
	(void)toe;
	if (!st)
		return;
	free(st->body);
	free(st->path);
	free(st);
	*con_cls = NULL;
}

static struct MHD_Daemon *start_daemon(unsigned flags, int fd)
{
	return MHD_start_daemon(flags, 0, NULL, NULL, on_request, NULL,
				MHD_OPTION_EXTERNAL_LOGGER, mhd_logger, NULL, /* first: MHD's rule */
				MHD_OPTION_LISTEN_SOCKET, fd,
				MHD_OPTION_HTTPS_MEM_KEY, srv.tls.key_pem,
				MHD_OPTION_HTTPS_MEM_CERT, srv.tls.cert_pem,
				MHD_OPTION_HTTPS_PRIORITIES, "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2",
				MHD_OPTION_CONNECTION_LIMIT, (unsigned)API_MAX_CONNECTIONS,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)API_TIMEOUT_S,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)API_HEADER_MEMORY,
				MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
				MHD_OPTION_NOTIFY_CONNECTION, on_connection, NULL,
				MHD_OPTION_END);
}

struct launch {
	unsigned flags;
	int fd;
	struct MHD_Daemon *daemon;
	char err[160];
	int rc;
};

/* MHD's listening thread is created by the thread that starts the daemon
 * and each connection's thread by the listening one, each inheriting its
 * creator's nice: started from a thread at the API's nice (api_nice.h),
 * every thread of the server runs there, the TLS handshakes included,
 * without a system call per connection. */
static void *launch_main(void *arg)
{
	struct launch *l = arg;

	l->rc = api_nice_self(l->err, sizeof(l->err));
	l->daemon = start_daemon(l->flags, l->fd);
	return NULL;
}

static struct MHD_Daemon *start_niced(unsigned flags, int fd)
{
	struct launch l = { .flags = flags, .fd = fd };
	pthread_t th;

	if (!api_nice_steps())
		return start_daemon(flags, fd);
	if (pthread_create(&th, NULL, launch_main, &l) != 0) {
		logf_("api: no thread to start the server at nice %d from: its threads run at the I/O threads' "
		      "priority", api_nice_value());
		return start_daemon(flags, fd);
	}
	pthread_join(th, NULL);
	if (l.rc < 0)
		logf_("api: %s: its threads run at the I/O threads' priority", l.err);
	else
		logf_("api: its threads run at nice %d, the I/O threads at %d (--api-nice %u)", api_nice_value(),
		      api_nice_base(), api_nice_steps());
	return l.daemon;
}

int api_server_start(const struct api_server_cfg *cfg, char *err, size_t errlen)
{
	char host[256];
	bool v6 = false;
	int fd;
	unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL |
			 MHD_USE_TLS | MHD_USE_ERROR_LOG;

	if (srv.daemon) {
		snprintf(err, errlen, "the API server is running already");
		return -1;
	}
	if (!cfg->auth || cfg->auth->napi_users == 0) {
		snprintf(err, errlen, "--api needs an API user: add an 'api USER SECRET' line to the --auth-file "
			 "(docs/api.md)");
		return -1;
	}
	srv.auth = cfg->auth;
	srv.log = cfg->log;
	srv.log_start = cfg->log_start;
	fd = open_listener(cfg->listen, &v6, host, sizeof(host), err, errlen);
	if (fd < 0)
		return -1;
	if (api_tls_load(&srv.tls, cfg->cert_path, cfg->key_path, host, err, errlen) < 0) {
		close(fd);
		return -1;
	}
	if (v6)
		flags |= MHD_USE_IPv6;
	srv.daemon = start_niced(flags, fd);
	if (!srv.daemon) {
		snprintf(err, errlen, "--api %s: the HTTPS server (libmicrohttpd) would not start", cfg->listen);
		close(fd);
		api_tls_free(&srv.tls);
		return -1;
	}
	if (srv.log_start)
		srv.log_start("api: https://%s%s%s:%u/api/json/v2/types (%s certificate %s, %s)", v6 ? "[" : "", host,
			      v6 ? "]" : "", srv.port, srv.tls.generated ? "self-signed" : "given", srv.tls.subject,
			      srv.tls.fingerprint);
	else
		logf_("api: https://%s%s%s:%u/api/json/v2/types (%s certificate %s, %s)", v6 ? "[" : "", host,
		      v6 ? "]" : "", srv.port, srv.tls.generated ? "self-signed" : "given", srv.tls.subject,
		      srv.tls.fingerprint);
	return 0;
}

int api_server_user_count(void)
{
	const struct auth_config *a = auth_now();

	return a ? a->napi_users : 0;
}

void api_server_set_auth(const struct auth_config *auth)
{
	__atomic_store_n(&srv.auth, auth, __ATOMIC_RELEASE);
}

unsigned api_server_port(void)
{
	return srv.daemon ? srv.port : 0;
}

void api_server_stop(void)
{
	if (!srv.daemon)
		return;
	MHD_stop_daemon(srv.daemon); /* closes the listening socket too */
	srv.daemon = NULL;
	api_tls_free(&srv.tls);
	api_session_clear();
	srv.auth = NULL;
	srv.port = 0;
}
