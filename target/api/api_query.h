/* api_query.h — the query parameters of an XMS GET (and DELETE) as XMS
 * reads them:
 *   name=NAME                  one object by name
 *   full=1                     whole objects in a list, not just name + href
 *   prop=P (repeatable, or P1,P2)   only these properties
 *   filter=F:OP:V[,F:OP:V...]  (repeatable)  OP: eq ne gt ge lt le like;
 *                              the terms of one filter are alternatives (OR),
 *                              several filter parameters must all hold (AND)
 *   cluster-name=NAME          which cluster (multi-cluster XMS)
 * A parameter lunlab does not know is ignored, as XMS ignores it (the
 * Cinder driver sends `props`); a known one with a bad value is a 400 whose
 * message names it.  The strings point into the api_param array. */
#ifndef LUNLAB_API_QUERY_H
#define LUNLAB_API_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "target/api/api_router.h"

#define API_QUERY_MAX_PROPS 32
#define API_QUERY_MAX_FILTERS 8
#define API_QUERY_MAX_TERMS 64     /* alternatives in one filter parameter */
#define API_QUERY_FIELD_MAX 64
#define API_QUERY_VALUE_MAX 256

enum api_filter_op { API_OP_EQ, API_OP_NE, API_OP_GT, API_OP_GE, API_OP_LT, API_OP_LE, API_OP_LIKE };

struct api_filter_term {
	char field[API_QUERY_FIELD_MAX + 1];
	enum api_filter_op op;
	char value[API_QUERY_VALUE_MAX + 1];
};

struct api_filter {
	struct api_filter_term *terms; /* malloc'd */
	size_t nterms;
};

struct api_query {
	const char *name;          /* NULL: none */
	bool full;
	const char *cluster;       /* cluster-name, NULL: none */
	char props[API_QUERY_MAX_PROPS][API_QUERY_FIELD_MAX + 1];
	size_t nprops;
	struct api_filter filters[API_QUERY_MAX_FILTERS];
	size_t nfilters;
};

/* 0, or -1 with the reason (naming the parameter) in err.  Free with
 * api_query_free() either way. */
int api_query_parse(const struct api_param *params, size_t n, struct api_query *q, char *err, size_t errlen);
void api_query_free(struct api_query *q);

/* true when props is empty or lists p */
bool api_query_wants(const struct api_query *q, const char *p);

#endif
