/* api_query.c — see api_query.h.  Every length is checked before a copy. */
#include "target/api/api_query.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const op_names[] = { "eq", "ne", "gt", "ge", "lt", "le", "like" };

void api_query_free(struct api_query *q)
{
	for (size_t i = 0; i < q->nfilters; i++)
		free(q->filters[i].terms);
	q->nfilters = 0;
}

bool api_query_wants(const struct api_query *q, const char *p)
{
	if (q->nprops == 0)
		return true;
	/* the first byte first: a listing asks this of every member of every
	 * object, and most differ there (bench/api-pollers.sh) */
	for (size_t i = 0; i < q->nprops; i++)
		if (q->props[i][0] == p[0] && strcmp(q->props[i], p) == 0)
			return true;
	return false;
}

static bool field_ok(const char *s, size_t n)
{
	if (n == 0 || n > API_QUERY_FIELD_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
		      c == '_' || c == '.'))
			return false;
	}
	return true;
}

static bool printable(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return false;
	return true;
}

/* prop=a or prop=a,b */
static int add_props(struct api_query *q, const char *v, char *err, size_t errlen)
{
	if (!*v) {
		snprintf(err, errlen, "Command Syntax Error: prop: want property names of 1..%d characters "
			 "[A-Za-z0-9-_.]", API_QUERY_FIELD_MAX);
		return -1;
	}
	while (*v) {
		size_t n = strcspn(v, ",");
		if (!field_ok(v, n)) {
			snprintf(err, errlen, "Command Syntax Error: prop: want property names of 1..%d characters "
				 "[A-Za-z0-9-_.]", API_QUERY_FIELD_MAX);
			return -1;
		}
		if (q->nprops == API_QUERY_MAX_PROPS) {
			snprintf(err, errlen, "Command Syntax Error: prop: more than %d properties", API_QUERY_MAX_PROPS);
			return -1;
		}
		memcpy(q->props[q->nprops], v, n);
		q->props[q->nprops][n] = '\0';
		q->nprops++;
		v += n;
		if (*v == ',') {
			v++;
			if (!*v) {
				snprintf(err, errlen, "Command Syntax Error: prop: empty name after ','");
				return -1;
			}
		}
	}
	return 0;
}

/* one term F:OP:V of n bytes (the value may hold ':') */
static int parse_term(const char *s, size_t n, struct api_filter_term *t, char *err, size_t errlen)
{
	const char *c1 = memchr(s, ':', n), *c2;
	size_t fl, ol, vl;

	if (!c1 || !(c2 = memchr(c1 + 1, ':', n - (size_t)(c1 + 1 - s)))) {
		snprintf(err, errlen, "Command Syntax Error: filter: want FIELD:OP:VALUE");
		return -1;
	}
	fl = (size_t)(c1 - s);
	ol = (size_t)(c2 - c1 - 1);
	vl = n - (size_t)(c2 + 1 - s);
	if (!field_ok(s, fl)) {
		snprintf(err, errlen, "Command Syntax Error: filter: field: want 1..%d characters [A-Za-z0-9-_.]",
			 API_QUERY_FIELD_MAX);
		return -1;
	}
	t->op = (enum api_filter_op)-1;
	for (size_t i = 0; i < sizeof(op_names) / sizeof(op_names[0]); i++)
		if (strlen(op_names[i]) == ol && memcmp(op_names[i], c1 + 1, ol) == 0)
			t->op = (enum api_filter_op)i;
	if ((int)t->op < 0) {
		snprintf(err, errlen, "Command Syntax Error: filter: operator: want eq, ne, gt, ge, lt, le or like");
		return -1;
	}
	if (vl > API_QUERY_VALUE_MAX || !printable(c2 + 1, vl)) {
		snprintf(err, errlen, "Command Syntax Error: filter: value: want at most %d printable characters",
			 API_QUERY_VALUE_MAX);
		return -1;
	}
	memcpy(t->field, s, fl);
	t->field[fl] = '\0';
	memcpy(t->value, c2 + 1, vl);
	t->value[vl] = '\0';
	return 0;
}

static int add_filter(struct api_query *q, const char *v, char *err, size_t errlen)
{
	struct api_filter *f;
	size_t nterms = 1, len = strlen(v);

	if (q->nfilters == API_QUERY_MAX_FILTERS) {
		snprintf(err, errlen, "Command Syntax Error: filter: more than %d filter parameters",
			 API_QUERY_MAX_FILTERS);
		return -1;
	}
	for (size_t i = 0; i < len; i++)
		if (v[i] == ',')
			nterms++;
	if (nterms > API_QUERY_MAX_TERMS) {
		snprintf(err, errlen, "Command Syntax Error: filter: more than %d alternatives", API_QUERY_MAX_TERMS);
		return -1;
	}
	f = &q->filters[q->nfilters];
	f->terms = calloc(nterms, sizeof(*f->terms));
	f->nterms = 0;
	if (!f->terms) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	q->nfilters++; /* freed by api_query_free from here on */
	for (const char *p = v;;) {
		size_t n = strcspn(p, ",");
		if (parse_term(p, n, &f->terms[f->nterms], err, errlen) < 0)
			return -1;
		f->nterms++;
		p += n;
		if (!*p)
			break;
		p++;
	}
	return 0;
}

int api_query_parse(const struct api_param *params, size_t n, struct api_query *q, char *err, size_t errlen)
{
	memset(q, 0, sizeof(*q));
	for (size_t i = 0; i < n; i++) {
		const char *k = params[i].key, *v = params[i].value;

		if (strcmp(k, "name") == 0) {
			if (!*v || strlen(v) > API_QUERY_VALUE_MAX || !printable(v, strlen(v))) {
				snprintf(err, errlen, "Command Syntax Error: name: want 1..%d printable characters",
					 API_QUERY_VALUE_MAX);
				return -1;
			}
			if (q->name && strcmp(q->name, v) != 0) {
				snprintf(err, errlen, "Command Syntax Error: name: given twice");
				return -1;
			}
			q->name = v;
		} else if (strcmp(k, "full") == 0) {
			if (strcmp(v, "1") == 0 || strcmp(v, "true") == 0 || strcmp(v, "True") == 0) {
				q->full = true;
			} else if (strcmp(v, "0") == 0 || strcmp(v, "false") == 0 || strcmp(v, "False") == 0) {
				q->full = false;
			} else {
				snprintf(err, errlen, "Command Syntax Error: full: want 1 or 0");
				return -1;
			}
		} else if (strcmp(k, "prop") == 0) {
			if (add_props(q, v, err, errlen) < 0)
				return -1;
		} else if (strcmp(k, "filter") == 0) {
			if (add_filter(q, v, err, errlen) < 0)
				return -1;
		} else if (strcmp(k, "cluster-name") == 0) {
			if (!*v)
				continue; /* "cluster-name=" (xtremio-ansible sends it): no cluster named */
			if (strlen(v) > API_QUERY_VALUE_MAX || !printable(v, strlen(v))) {
				snprintf(err, errlen, "Command Syntax Error: cluster-name: want at most %d printable characters",
					 API_QUERY_VALUE_MAX);
				return -1;
			}
			q->cluster = v;
		}
		/* anything else: ignored (docs/api.md) */
	}
	return 0;
}
