/* xms_common.c — see xms_common.h. */
#include "target/api/xms_common.h"
#include "target/api/xms_folders.h"
#include "target/api/xms_tags.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "target/api/api_json.h"
#include "target/api/xms_scsi.h"

struct xms_cluster *xms_request_cluster(struct xms_ctx *x)
{
	struct xms_cluster *c = NULL;

	if (x->cluster) {
		c = xms_cluster_by_name(&g_xms, x->cluster);
		if (!c) {
			char *end;
			unsigned long long i = strtoull(x->cluster, &end, 10);
			if (*x->cluster >= '1' && *x->cluster <= '9' && !*end)
				c = xms_cluster_get(&g_xms, i);
		}
	} else if (g_xms.clusters.n) {
		c = &g_xms.clusters.v[0];
	}
	if (!c)
		api_error(x->rsp, 400, XMS_ERR_NOT_FOUND);
	else
		g_xms.scope = c->index; /* what the request makes is unique within its cluster */
	return c;
}

bool xms_wanted_candidates(const struct xms_ctx *x, enum xms_name_kind k, const uint64_t **v, size_t *n)
{
	if (x->want_index) {
		*v = &x->want_index;
		*n = 1;
		return true;
	}
	if (!x->want_name)
		return false;
	*v = xms_names_find(&g_xms.names, k, g_xms.scope, x->want_name, n);
	return true;
}

int xms_field_string(struct xms_ctx *x, const char *field, size_t maxlen, const char **out)
{
	char err[256];
	int rc = api_json_string(x->body, field, maxlen, out, err, sizeof(err));

	if (rc < 0)
		api_errorf(x->rsp, 400, "Command Syntax Error: %s", err);
	return rc;
}

int xms_field_uint(struct xms_ctx *x, const char *field, uint64_t max, uint64_t *out)
{
	char err[256];
	int rc = api_json_uint(x->body, field, max, out, err, sizeof(err));

	if (rc < 0)
		api_errorf(x->rsp, 400, "Command Syntax Error: %s", err);
	return rc;
}

int xms_field_or_param(struct xms_ctx *x, const char *field, size_t maxlen, const char **out)
{
	int rc = xms_field_string(x, field, maxlen, out);
	const char *p;

	if (rc != 0)
		return rc;
	p = api_param(x->req, field);
	if (!p)
		return 0;
	if (!*p || strlen(p) > maxlen) {
		api_errorf(x->rsp, 400, "Command Syntax Error: %s: want 1..%zu characters", field, maxlen);
		return -1;
	}
	*out = p;
	return 1;
}

int xms_field_any(struct xms_ctx *x, const char *const *fields, size_t maxlen, const char **out,
		  const char **which)
{
	for (size_t i = 0; fields[i]; i++) {
		int rc = xms_field_string(x, fields[i], maxlen, out);
		if (rc != 0) {
			if (which)
				*which = fields[i];
			return rc;
		}
	}
	return 0;
}

int xms_field_ref(struct xms_ctx *x, const char *const *fields, char *buf, size_t buflen, const char **out)
{
	for (size_t i = 0; fields[i]; i++) {
		struct json_object *v;
		if (json_object_object_get_ex(x->body, fields[i], &v) && v && json_object_is_type(v, json_type_int)) {
			int64_t n = json_object_get_int64(v);
			if (n < 1) {
				api_errorf(x->rsp, 400, "Command Syntax Error: %s: an index is 1 or more", fields[i]);
				return -1;
			}
			snprintf(buf, buflen, "%lld", (long long)n);
			*out = buf;
			return 1;
		}
		int rc = xms_field_string(x, fields[i], XMS_NAME_MAX, out);
		if (rc != 0)
			return rc;
	}
	return 0;
}

bool xms_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > XMS_NAME_MAX || s[0] == ' ' || s[n - 1] == ' ')
		return false;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

struct json_object *xms_kb(uint64_t bytes)
{
	return xms_num_string((bytes + 1023) / 1024);
}

struct json_object *xms_ratio(uint64_t num, uint64_t den)
{
	char s[32];
	double r = den ? (double)num / (double)den : 0.0;

	snprintf(s, sizeof(s), "%.3f", r);
	return json_object_new_double_s(r, s);
}

struct json_object *xms_cluster_oid(const struct xms_cluster *c) { return xms_oid(c->guid, c->name, c->index); }
struct json_object *xms_volume_oid(const struct xms_volume *v) { return xms_oid(v->guid, v->name, v->index); }
struct json_object *xms_ig_oid(const struct xms_ig *g) { return xms_oid(g->guid, g->name, g->index); }
struct json_object *xms_cg_oid(const struct xms_cg *g) { return xms_oid(g->guid, g->name, g->index); }
struct json_object *xms_snapset_oid(const struct xms_snapset *s) { return xms_oid(s->guid, s->name, s->index); }

struct json_object *xms_tg_oid(void)
{
	return xms_oid("00000000000000000000000000000001", "Default", 1);
}

bool xms_republish(struct xms_ctx *x)
{
	char err[256];

	if (xms_scsi_publish_maps(&g_xms, err, sizeof(err)) < 0 ||
	    xms_scsi_publish_chap(&g_xms, err, sizeof(err)) < 0)
		return api_errorf(x->rsp, 500, "internal error: %s", err);
	return true;
}

struct json_object *xms_time(int64_t t)
{
	char s[32];
	struct tm tm;
	time_t tt = (time_t)t;

	gmtime_r(&tt, &tm);
	strftime(s, sizeof(s), "%Y-%m-%d %H:%M:%S", &tm);
	return json_object_new_string(s);
}

bool xms_attrs_field(struct xms_ctx *x, unsigned set, struct xms_attrs *a)
{
	char err[200];

	struct xms_attrs n = *a;

	if (!xms_attrs_parse(x->body, set, &n, err, sizeof(err)))
		return api_errorf(x->rsp, 400, "Command Syntax Error: %s", err);
	/* tag-list names tags: the model's (xms_tags.h); the kind is the type's */
	if (set & XMS_ATTR_TAGS) {
		const char *t = x->type->name;
		enum xms_tag_kind k = strcmp(t, "initiator-groups") == 0 ? XMS_TAG_IG
				      : strcmp(t, "initiators") == 0	   ? XMS_TAG_INITIATOR
				      : strcmp(t, "consistency-groups") == 0 ? XMS_TAG_CG
									     : XMS_TAG_VOLUME;
		if (!xms_tag_list_field(x, k, &n))
			return false;
		/* XMS 3's folder of a new volume or group: its tag (xms_folders.h) */
		if (x->req->method == API_POST && (strcmp(t, "volumes") == 0 || k == XMS_TAG_IG) &&
		    !xms_folder_field(x, k, &n))
			return false;
	}
	*a = n;
	return true;
}
