/* api_router.h — the HTTP API's routing table: which function answers which
 * method and path.  The table is extended by whoever serves a part of the
 * API (the XMS resources of target/api/xms_*.c, the fault and ALUA
 * endpoints, /metrics, the dashboard's static files): each registers its
 * routes once, before api_server_start(), with api_routes_add().  A request
 * is authenticated by the server (HTTP Basic, api_auth.h) before any handler
 * runs, unless the route says API_ROUTE_PUBLIC.
 *
 * A handler runs on one of the server's own threads (never an iSCSI I/O
 * thread), may block (it may create or destroy LUs), and fills an
 * api_response: status, body (malloc'd, freed by the server) and content
 * type.  Errors go through api_error() (api_json.h) so every error body has
 * the XMS shape {"message": ..., "error_code": N}. */
#ifndef LUNLAB_API_ROUTER_H
#define LUNLAB_API_ROUTER_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;

enum api_method {
	API_GET = 1u << 0,
	API_POST = 1u << 1,
	API_PUT = 1u << 2,
	API_DELETE = 1u << 3,
	API_HEAD = 1u << 4, /* answered as GET without the body */
};

/* One query parameter as the client sent it (URL-decoded by the HTTP
 * library; a parameter without '=' has the value ""). */
struct api_param {
	const char *key;
	const char *value;
};

#define API_MAX_PARAMS 64      /* more parameters than this: 400 */

struct api_request {
	enum api_method method;
	const char *path;           /* the URL path, without the query */
	const char *rest;           /* path after the route's prefix ("" for an exact route) */
	const struct api_param *params;
	size_t nparams;
	const char *body;           /* request body, NUL-terminated; "" when none */
	size_t body_len;
	const char *user;           /* the authenticated API user; NULL on a public route */
	const char *session;        /* the v3 session token it came with (api_session.h); NULL: Basic */
	const char *host;           /* the Host header ("" when absent), for hrefs */
	const char *local_addr;     /* the server's address this connection reached ("" unknown): XMS's xms-ip */
	bool tls;                   /* https (always, today) */
	void *route_cls;            /* the route's cls */
};

struct api_response {
	unsigned status;            /* HTTP status */
	char *body;                 /* malloc'd; NULL: empty */
	size_t body_len;
	const char *content_type;   /* static string; NULL: application/json */
	const char *location;       /* static or NULL: a Location header */
	char *extra_header_name;    /* malloc'd pair or NULL (e.g. Content-Disposition) */
	char *extra_header_value;
};

typedef void (*api_handler_fn)(const struct api_request *req, struct api_response *rsp);

enum api_route_flags {
	API_ROUTE_PREFIX = 1u << 0, /* path matches itself and everything below "path/" */
	API_ROUTE_PUBLIC = 1u << 1, /* no authentication (static files a browser loads) */
	API_ROUTE_NOCASE = 1u << 2, /* the path compares without case (XMS takes .../types/Initiators:
	                             * MTSXtremIO's New-XIOInitiator sends it so) */
};

struct api_route {
	unsigned methods;           /* enum api_method bits this route answers */
	const char *path;           /* "/api/json/v2/types/volumes", "/metrics", ... */
	unsigned flags;             /* enum api_route_flags */
	api_handler_fn handler;
	void *cls;                  /* passed as request->route_cls */
};

#define API_MAX_ROUTES 256

/* Adds n routes (the array must outlive the server).  A later route with the
 * same path and an overlapping method is refused: -1 with a reason in err. */
int api_routes_add(const struct api_route *routes, size_t n, char *err, size_t errlen);
/* Forgets every route (shutdown, tests). */
void api_routes_clear(void);

/* The route for method + path (the most specific: exact before the longest
 * prefix).  NULL and *path_known = true when the path exists for other
 * methods only (405), *path_known = false when nothing serves it (404).
 * *rest gets the part of path below a prefix route. */
const struct api_route *api_route_find(enum api_method method, const char *path, const char **rest,
				       bool *path_known);

/* What the router does with a request after authentication: find the
 * route, call it, or answer 404/405 with an XMS-shaped error. */
void api_dispatch(struct api_request *req, struct api_response *rsp);

/* Value of the first query parameter named key; NULL when absent. */
const char *api_param(const struct api_request *req, const char *key);

#endif
