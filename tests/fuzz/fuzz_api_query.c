/* fuzz_api_query.c — a URL query string as the API sees it: split at '&'
 * and '=' and URL-decoded with libmicrohttpd's own decoder (what the server
 * hands the router), then api_query_parse() (target/api/api_query.c).
 * The same parameters go through the performance query's parser
 * (target/api/xms_perf_query.c: entity=, time-frame=, from-time=,
 * to-time=, granularity=, limit=, aggregation-type=, cluster-name= /
 * cluster-id=).
 * Invariants: a refused query has a one-line reason naming the parameter;
 * an accepted one stays inside the limits (props, filters, terms, field
 * and value lengths; the performance query's entity, limit and
 * granularity). */
#include <microhttpd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "target/api/api_query.h"
#include "target/api/api_router.h"
#include "target/api/xms_perf_query.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct api_param p[API_MAX_PARAMS];
	struct api_query q;
	char *text = malloc(size + 1), *save = NULL, err[320];
	size_t n = 0;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (char *tok = strtok_r(text, "&", &save); tok && n < API_MAX_PARAMS; tok = strtok_r(NULL, "&", &save)) {
		char *eq = strchr(tok, '=');
		if (eq)
			*eq++ = '\0';
		MHD_http_unescape(tok);
		if (eq)
			MHD_http_unescape(eq);
		p[n].key = tok;
		p[n].value = eq ? eq : "";
		n++;
	}
	err[0] = '\0';
	if (api_query_parse(p, n, &q, err, sizeof(err)) < 0) {
		if (strncmp(err, "Command Syntax Error: ", 22) != 0 && strcmp(err, "out of memory") != 0)
			abort();
		if (strchr(err, '\n'))
			abort();
	} else {
		if (q.nprops > API_QUERY_MAX_PROPS || q.nfilters > API_QUERY_MAX_FILTERS)
			abort();
		for (size_t i = 0; i < q.nprops; i++)
			if (!q.props[i][0] || strlen(q.props[i]) > API_QUERY_FIELD_MAX || !api_query_wants(&q, q.props[i]))
				abort();
		for (size_t i = 0; i < q.nfilters; i++) {
			if (q.filters[i].nterms == 0 || q.filters[i].nterms > API_QUERY_MAX_TERMS)
				abort();
			for (size_t t = 0; t < q.filters[i].nterms; t++)
				if (!q.filters[i].terms[t].field[0] || (int)q.filters[i].terms[t].op > API_OP_LIKE ||
				    strlen(q.filters[i].terms[t].value) > API_QUERY_VALUE_MAX)
					abort();
		}
		if (q.name && (!*q.name || strlen(q.name) > API_QUERY_VALUE_MAX))
			abort();
	}
	api_query_free(&q);

	struct xms_perf_query pq;
	err[0] = '\0';
	if (xms_perf_query_parse(p, n, 1796000000000LL, &pq, err, sizeof(err)) < 0) {
		if (strncmp(err, "Command Syntax Error: ", 22) != 0 || strchr(err, '\n'))
			abort();
	} else if ((unsigned)pq.entity >= XMS_PERF_ENTITIES || pq.limit == 0 || pq.limit > XMS_PERF_QUERY_LIMIT_MAX ||
		   !pq.granularity || pq.granularity_ms < 0 || pq.naggs == 0 || pq.naggs > XMS_PERF_AGGS ||
		   (pq.cluster && !*pq.cluster)) {
		abort();
	} else {
		/* each aggregation type once */
		for (unsigned a = 0; a < pq.naggs; a++) {
			if ((unsigned)pq.aggs[a] >= XMS_PERF_AGGS)
				abort();
			for (unsigned b = 0; b < a; b++)
				if (pq.aggs[a] == pq.aggs[b])
					abort();
		}
	}
	free(text);
	return 0;
}
