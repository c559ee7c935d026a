/* test_api_query.c — XMS query parameters: name, full, prop (repeated and
 * comma lists), filter (terms, alternatives, several filters, values with
 * ':'), cluster-name, ignored unknown parameters, and one exact message per
 * bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "target/api/api_query.h"

#define P(k, v) { k, v }

static void good(void **state)
{
	struct api_param p[] = { P("name", "vol1"), P("full", "1"), P("prop", "lun,ig-id"), P("prop", "index"),
				 P("filter", "vol-name:eq:a:b,ig-name:ne:x"), P("filter", "lun:ge:3"),
				 P("cluster-name", "xbrick1"), P("props", "ignored"), P("data", "{}") };
	struct api_query q;
	char err[256];

	assert_int_equal(api_query_parse(p, sizeof(p) / sizeof(p[0]), &q, err, sizeof(err)), 0);
	assert_string_equal(q.name, "vol1");
	assert_true(q.full);
	assert_string_equal(q.cluster, "xbrick1");
	assert_int_equal(q.nprops, 3);
	assert_string_equal(q.props[1], "ig-id");
	assert_true(api_query_wants(&q, "index"));
	assert_false(api_query_wants(&q, "name"));
	assert_int_equal(q.nfilters, 2);
	assert_int_equal(q.filters[0].nterms, 2);
	assert_string_equal(q.filters[0].terms[0].field, "vol-name");
	assert_int_equal(q.filters[0].terms[0].op, API_OP_EQ);
	assert_string_equal(q.filters[0].terms[0].value, "a:b"); /* the value may hold ':' */
	assert_int_equal(q.filters[0].terms[1].op, API_OP_NE);
	assert_int_equal(q.filters[1].terms[0].op, API_OP_GE);
	assert_string_equal(q.filters[1].terms[0].value, "3");
	api_query_free(&q);
	/* "cluster-name=" (xtremio-ansible sends it empty) names no cluster */
	struct api_param e[] = { P("cluster-name", ""), P("name", "v") };
	assert_int_equal(api_query_parse(e, 2, &q, err, sizeof(err)), 0);
	assert_null(q.cluster);
	assert_string_equal(q.name, "v");
	api_query_free(&q);
	/* nothing asked: every property wanted */
	assert_int_equal(api_query_parse(NULL, 0, &q, err, sizeof(err)), 0);
	assert_true(api_query_wants(&q, "anything"));
	assert_false(q.full);
	api_query_free(&q);
}

static void bad(const char *k, const char *v, const char *msg)
{
	struct api_param p[] = { { k, v } };
	struct api_query q;
	char err[256];

	assert_int_equal(api_query_parse(p, 1, &q, err, sizeof(err)), -1);
	assert_string_equal(err, msg);
	api_query_free(&q);
}

static void bad_values(void **state)
{
	bad("filter", "vol-name", "Command Syntax Error: filter: want FIELD:OP:VALUE");
	bad("filter", "vol-name:eq", "Command Syntax Error: filter: want FIELD:OP:VALUE");
	bad("filter", ":eq:x", "Command Syntax Error: filter: field: want 1..64 characters [A-Za-z0-9-_.]");
	bad("filter", "a b:eq:x", "Command Syntax Error: filter: field: want 1..64 characters [A-Za-z0-9-_.]");
	bad("filter", "name:regex:x", "Command Syntax Error: filter: operator: want eq, ne, gt, ge, lt, le or like");
	bad("filter", "name:eq:a,", "Command Syntax Error: filter: want FIELD:OP:VALUE");
	bad("filter", "name:eq:\x01", "Command Syntax Error: filter: value: want at most 256 printable characters");
	bad("full", "yes", "Command Syntax Error: full: want 1 or 0");
	bad("prop", "a,", "Command Syntax Error: prop: empty name after ','");
	bad("prop", "", "Command Syntax Error: prop: want property names of 1..64 characters [A-Za-z0-9-_.]");
	bad("prop", "a;b", "Command Syntax Error: prop: want property names of 1..64 characters [A-Za-z0-9-_.]");
	bad("name", "", "Command Syntax Error: name: want 1..256 printable characters");
	bad("cluster-name", "a\x01", "Command Syntax Error: cluster-name: want at most 256 printable characters");
}

static void limits(void **state)
{
	struct api_param p[API_QUERY_MAX_FILTERS + 1];
	struct api_query q;
	char err[256], many[API_QUERY_MAX_TERMS * 8 + 16], big[API_QUERY_VALUE_MAX + 16];
	size_t o = 0;

	for (size_t i = 0; i <= API_QUERY_MAX_FILTERS; i++)
		p[i] = (struct api_param){ "filter", "a:eq:1" };
	assert_int_equal(api_query_parse(p, API_QUERY_MAX_FILTERS, &q, err, sizeof(err)), 0);
	api_query_free(&q);
	assert_int_equal(api_query_parse(p, API_QUERY_MAX_FILTERS + 1, &q, err, sizeof(err)), -1);
	assert_string_equal(err, "Command Syntax Error: filter: more than 8 filter parameters");
	api_query_free(&q);
	for (int i = 0; i <= API_QUERY_MAX_TERMS; i++)
		o += (size_t)snprintf(many + o, sizeof(many) - o, "%sa:eq:%d", i ? "," : "", i % 10);
	bad("filter", many, "Command Syntax Error: filter: more than 64 alternatives");
	memset(big, 'x', sizeof(big));
	memcpy(big, "a:eq:", 5);
	big[API_QUERY_VALUE_MAX + 6] = '\0';
	bad("filter", big, "Command Syntax Error: filter: value: want at most 256 printable characters");
	/* a name given twice must agree */
	struct api_param two[] = { { "name", "a" }, { "name", "b" } };
	assert_int_equal(api_query_parse(two, 2, &q, err, sizeof(err)), -1);
	assert_string_equal(err, "Command Syntax Error: name: given twice");
	api_query_free(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(good),
		cmocka_unit_test(bad_values),
		cmocka_unit_test(limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
