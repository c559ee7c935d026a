/* xms_engine.h — what every XMS resource type shares: the paths
 * (/api/json/v2/types/TYPE[/INDEX] and /api/json/v3/types/TYPE[/INDEX], where v3
 * lists name each object's cluster (sys-name) too, and, where v1 is the same,
 * /api/json/types/TYPE[/INDEX]), GET of a list (name + href, or full=1
 * objects), of one object (?name= or /INDEX) with prop= and filter=, the
 * object lookup for PUT and DELETE, the "links" of a created object and the
 * object ids [guid, name, index].  A type only says how to list its objects
 * as JSON and how to create, change and delete one (xms_*.c). */
#ifndef LUNLAB_XMS_ENGINE_H
#define LUNLAB_XMS_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "target/api/api_query.h"
#include "target/api/api_router.h"

struct json_object;
struct json_text;

struct xms_ctx {
	const struct api_request *req;
	struct api_response *rsp;
	const struct xms_type *type;
	int version;                 /* 1: /api/json/types, 2: /api/json/v2/types, 3: /api/json/v3/types */
	char base[320];              /* "https://HOST/api/json/v3/types" */
	struct api_query q;          /* GET/DELETE query */
	struct json_object *body;    /* the request body (an object; empty when none) */
	const char *cluster;         /* cluster-name (query) or cluster-id (body); NULL: none */
	uint64_t target_index;       /* the object a PUT/DELETE names (0: none) */
	char target_name[130];       /* and its name, for the event the change leaves */
	/* While the engine looks for one object (GET by name or index, the
	 * object a PUT/DELETE names, a new object's name): a list may leave out
	 * every object that is not this index (when not 0) or this name (when
	 * not NULL), since the engine drops them anyway.  A hint only: a list
	 * that ignores it is still right, just slower (volumes honour it, so one
	 * Cinder call does not build all 10,000 volumes' JSON). */
	uint64_t want_index;
	const char *want_name;
	/* list_text writes list entries, not whole objects: {"href", "name"}
	 * (and "sys-name" in v3), as GET TYPE without full=1 answers */
	bool refs;
};

struct xms_type {
	const char *name;            /* "volumes": the path segment and the key of the list */
	const char *list_key;        /* the list's key when it is not name (xms: "xmss"); NULL: name */
	bool v1;                     /* served under /api/json/types too */
	/* every object's full content (each with "name" and "index") appended
	 * to arr; runs with the model locked */
	void (*list)(struct xms_ctx *x, struct json_object *arr);
	/* optional, for big lists: the same objects (in the request's scope,
	 * with sys-name and xms-id; their entries when x->refs) written as the
	 * members of a JSON array, byte for byte as the engine would send
	 * list's (json_text.h); used for GET TYPE[?full=1] without filter= (or
	 * prop= with full=1), where there is nothing to pick and the engine
	 * sends the text as it is */
	void (*list_text)(struct xms_ctx *x, struct json_text *w);
	/* create / change / delete; each answers x->rsp itself (api_error or
	 * xms_reply_created / xms_reply_ok).  index: the object the request
	 * names (0 for a DELETE that names none, e.g. by body fields).  NULL:
	 * the method is refused for this type. */
	void (*post)(struct xms_ctx *x);
	void (*put)(struct xms_ctx *x, uint64_t index);
	void (*del)(struct xms_ctx *x, uint64_t index);
	bool del_without_name;       /* DELETE may name no object (fields in the body) */
};

/* Registers the routes of every type in types[] (n of them) plus the type
 * list GET /api/json/v2/types.  -1 with the reason in err. */
int xms_routes_register(const struct xms_type *const *types, size_t n, char *err, size_t errlen);

/* 201 Created {"links": [{"href": BASE/TYPE/INDEX, "rel": "self"}]} */
void xms_reply_created(struct xms_ctx *x, const char *type, uint64_t index);
/* several links (a POST that creates several objects, e.g. a snapshot set) */
void xms_reply_created_many(struct xms_ctx *x, const char *type, const uint64_t *index, size_t n);
/* 200 with an empty body (PUT, DELETE) */
void xms_reply_ok(struct xms_ctx *x);

/* [guid, name, index], XMS's object id */
struct json_object *xms_oid(const char *guid, const char *name, uint64_t index);
/* a string property the way XMS sends numbers in most places: "123" */
struct json_object *xms_num_string(uint64_t v);

/* x's hint (want_index, want_name above): whether the engine may want the
 * object of this index and name; a list skips the others before it builds
 * them (a GET ?name= among 10,000 builds one object, not 10,000) */
bool xms_wanted(const struct xms_ctx *x, uint64_t index, const char *name);

/* The model lock every resource runs under (one API operation at a time). */
void xms_lock(void);
void xms_unlock(void);

#endif
