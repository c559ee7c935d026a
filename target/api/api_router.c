/* api_router.c — the routing table (api_router.h).  Routes are added before
 * the server starts and only read afterwards, so lookups take no lock. */
#include "target/api/api_router.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "target/api/api_json.h"

static const struct api_route *routes[API_MAX_ROUTES];
static size_t nroutes;

static bool same_path(const struct api_route *a, const struct api_route *b)
{
	return strcmp(a->path, b->path) == 0 && (a->flags & API_ROUTE_PREFIX) == (b->flags & API_ROUTE_PREFIX);
}

int api_routes_add(const struct api_route *r, size_t n, char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		if (!r[i].path || r[i].path[0] != '/' || !r[i].handler || !r[i].methods) {
			snprintf(err, errlen, "route %zu: needs a path starting with '/', methods and a handler", i);
			return -1;
		}
		for (size_t j = 0; j < nroutes; j++) {
			if (same_path(routes[j], &r[i]) && (routes[j]->methods & r[i].methods)) {
				snprintf(err, errlen, "route %s: already served for one of these methods", r[i].path);
				return -1;
			}
		}
		if (nroutes == API_MAX_ROUTES) {
			snprintf(err, errlen, "more than %d routes", API_MAX_ROUTES);
			return -1;
		}
		routes[nroutes++] = &r[i];
	}
	return 0;
}

void api_routes_clear(void)
{
	nroutes = 0;
}

/* path matches r: exactly, or (prefix route) below it at a '/' */
static bool matches(const struct api_route *r, const char *path, const char **rest)
{
	size_t n = strlen(r->path);
	bool nocase = r->flags & API_ROUTE_NOCASE;

	if (nocase ? strcasecmp(path, r->path) == 0 : strcmp(path, r->path) == 0) {
		*rest = "";
		return true;
	}
	if (!(r->flags & API_ROUTE_PREFIX) || (nocase ? strncasecmp(path, r->path, n) : strncmp(path, r->path, n)) != 0)
		return false;
	if (n && r->path[n - 1] == '/') { /* "/" or "/static/": everything below */
		*rest = path + n;
		return true;
	}
	if (path[n] != '/')
		return false;
	*rest = path + n + 1;
	return true;
}

const struct api_route *api_route_find(enum api_method method, const char *path, const char **rest,
				       bool *path_known)
{
	const struct api_route *best = NULL;
	size_t best_len = 0;
	bool best_exact = false;
	const char *best_rest = "";

	*path_known = false;
	if (method == API_HEAD)
		method = API_GET;
	for (size_t i = 0; i < nroutes; i++) {
		const char *r;
		size_t len = strlen(routes[i]->path);
		bool exact;

		if (!matches(routes[i], path, &r))
			continue;
		*path_known = true;
		if (!(routes[i]->methods & method))
			continue;
		exact = *r == '\0';
		/* an exact route beats a prefix; among prefixes the longest wins */
		if (!best || (exact && !best_exact) || (exact == best_exact && len > best_len)) {
			best = routes[i];
			best_len = len;
			best_exact = exact;
			best_rest = r;
		}
	}
	*rest = best_rest;
	return best;
}

const char *api_param(const struct api_request *req, const char *key)
{
	for (size_t i = 0; i < req->nparams; i++)
		if (strcmp(req->params[i].key, key) == 0)
			return req->params[i].value;
	return NULL;
}

void api_dispatch(struct api_request *req, struct api_response *rsp)
{
	bool known;
	const char *rest;
	const struct api_route *r = api_route_find(req->method, req->path, &rest, &known);

	if (!r) {
		if (known)
			api_error(rsp, 405, "method_not_allowed");
		else
			api_error(rsp, 404, "not_found");
		return;
	}
	req->rest = rest;
	req->route_cls = r->cls;
	r->handler(req, rsp);
}
