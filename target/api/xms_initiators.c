/* xms_initiators.c — `initiator-groups` and `initiators`.  An initiator is
 * an iSCSI name (port-address) in one group; a LUN map to the group makes
 * the volume visible to every initiator in it (LUN masking, xms_scsi.c).
 * An initiator's CHAP credentials (initiator-authentication-*, and
 * initiator-discovery-* for discovery sessions) are what it must log in
 * with while its cluster's chap-authentication-mode (chap-discovery-mode)
 * is not disabled (target/iscsi/auth_dyn.h). */
#include <json-c/json.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/api/api_json.h"
#include "target/api/xms_common.h"
#include "target/api/xms_perf.h"
#include "target/api/xms_resources.h"
#include "target/api/xms_tags.h"
#include "target/iscsi/auth_chap.h"
#include "target/iscsi/auth_config.h"

static size_t ig_vols(uint64_t ig)
{
	size_t n = 0;

	for (size_t i = 0; i < g_xms.lunmaps.n; i++)
		if (g_xms.lunmaps.v[i].ig == ig)
			n++;
	return n;
}

static size_t ig_inits(uint64_t ig)
{
	size_t n = 0;

	for (size_t i = 0; i < g_xms.initiators.n; i++)
		if (g_xms.initiators.v[i].ig == ig)
			n++;
	return n;
}

/* the sum of the IG's initiators' counters (xms_perf.h) */
static struct xms_perf_counters ig_counters(uint64_t ig)
{
	struct xms_perf_counters pc = { 0 };

	for (size_t i = 0; i < g_xms.initiators.n; i++)
		if (g_xms.initiators.v[i].ig == ig)
			xms_perf_add_initiator(&pc, g_xms.initiators.v[i].port_address);
	return pc;
}

/* What a listing of every group shows of their initiators and maps, summed
 * in one pass over each, by the group's position in g_xms.igs (a listing
 * of G groups used to walk every initiator and map per group: G x I).
 * NULL when out of memory (the listing counts per group then). */
struct ig_sums {
	size_t inits, vols;
	struct xms_perf_counters pc;
};

static struct ig_sums *ig_sums_build(void)
{
	struct ig_sums *s = calloc(g_xms.igs.n ? g_xms.igs.n : 1, sizeof(*s));

	for (size_t i = 0; s && i < g_xms.initiators.n; i++) {
		const struct xms_ig *g = xms_ig_get(&g_xms, g_xms.initiators.v[i].ig);
		if (!g)
			continue;
		s[g - g_xms.igs.v].inits++;
		xms_perf_add_initiator(&s[g - g_xms.igs.v].pc, g_xms.initiators.v[i].port_address);
	}
	for (size_t i = 0; s && i < g_xms.lunmaps.n; i++) {
		const struct xms_ig *g = xms_ig_get(&g_xms, g_xms.lunmaps.v[i].ig);
		if (g)
			s[g - g_xms.igs.v].vols++;
	}
	return s;
}

static void list_igs(struct xms_ctx *x, struct json_object *arr)
{
	uint64_t now_ms = xms_perf_now_ms();
	const uint64_t *want;
	size_t nwant;
	bool some = xms_wanted_candidates(x, XMS_NAME_IG, &want, &nwant);
	/* one group: its own counts; every group: the sums of one pass */
	struct ig_sums *sums = some ? NULL : ig_sums_build();

	for (size_t i = 0; i < (some ? nwant : g_xms.igs.n); i++) {
		struct xms_ig *g = some ? xms_ig_get(&g_xms, want[i]) : &g_xms.igs.v[i];
		if (!g || !xms_wanted(x, g->index, g->name))
			continue;
		const struct ig_sums *sum = sums ? &sums[g - g_xms.igs.v] : NULL;
		const struct xms_cluster *c = xms_cluster_get(&g_xms, g->cluster);
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "name", json_object_new_string(g->name));
		json_object_object_add(o, "index", json_object_new_int64((int64_t)g->index));
		json_object_object_add(o, "guid", json_object_new_string(g->guid));
		json_object_object_add(o, "ig-id", xms_ig_oid(g));
		if (c)
			json_object_object_add(o, "sys-id", xms_cluster_oid(c));
		json_object_object_add(o, "num-of-initiators",
				       json_object_new_int64((int64_t)(sum ? sum->inits : ig_inits(g->index))));
		json_object_object_add(o, "num-of-vols", json_object_new_int64((int64_t)(sum ? sum->vols : ig_vols(g->index))));
		xms_attrs_show(&g->attrs, XMS_ATTR_OS, o);
		xms_tag_list_show(&g->attrs, o);
		/* performance: what its initiators sent, the counters /metrics
		 * serves per initiator (lunlab_initiator_*) */
		struct xms_perf_counters pc = sum ? sum->pc : ig_counters(g->index);
		xms_perf_show(&g->perf, &pc, now_ms, o);
		json_object_array_add(arr, o);
	}
	free(sums);
}

static void post_ig(struct xms_ctx *x)
{
	static const char *const fields[] = { "ig-name", "name", NULL };
	struct xms_cluster *c = xms_request_cluster(x);
	const char *name;
	struct xms_ig *g;
	struct xms_attrs attrs;
	int rc;

	if (!c)
		return;
	memset(&attrs, 0, sizeof(attrs));
	rc = xms_field_any(x, fields, XMS_NAME_MAX, &name, NULL);
	if (rc < 0)
		return;
	if (rc == 0 || !xms_name_ok(name)) {
		api_error(x->rsp, 400, "Command Syntax Error: ig-name: want 1..128 printable characters");
		return;
	}
	if (!xms_attrs_field(x, XMS_ATTR_OS | XMS_ATTR_TAGS, &attrs))
		return;
	if (xms_ig_by_name(&g_xms, name)) {
		api_error(x->rsp, 400, XMS_ERR_OBJ_NAME_NOT_UNIQUE);
		return;
	}
	if (g_xms.igs.n >= XMS_MAX_OBJECTS) {
		api_error(x->rsp, 400, XMS_ERR_TOO_MANY);
		return;
	}
	g = xms_ig_add(&g_xms);
	if (!g) {
		api_error(x->rsp, 500, "out of memory");
		return;
	}
	if (!xms_ig_set_name(&g_xms, g, c->index, name)) {
		xms_ig_del(&g_xms, g->index);
		api_error(x->rsp, 500, "out of memory");
		return;
	}
	g->attrs = attrs;
	xms_reply_created(x, "initiator-groups", g->index);
}

/* DELETE a group that maps no volume: its initiators go with it */
static void del_ig(struct xms_ctx *x, uint64_t index)
{
	if (ig_vols(index)) {
		api_error(x->rsp, 400, XMS_ERR_IG_NOT_EMPTY);
		return;
	}
	for (size_t i = g_xms.initiators.n; i-- > 0;)
		if (g_xms.initiators.v[i].ig == index)
			xms_initiator_del(&g_xms, g_xms.initiators.v[i].index);
	xms_ig_del(&g_xms, index);
	if (xms_republish(x))
		xms_reply_ok(x);
}

/* PUT: a new name, operating-system, tag-list */
static void put_ig(struct xms_ctx *x, uint64_t index)
{
	static const char *const fields[] = { "new-name", "ig-name", "name", NULL };
	struct xms_ig *g = xms_ig_get(&g_xms, index);
	const char *name;
	struct xms_attrs attrs = g->attrs;
	int rc = xms_field_any(x, fields, XMS_NAME_MAX, &name, NULL);

	if (rc < 0)
		return;
	if ((rc == 0 && !json_object_object_get_ex(x->body, "operating-system", NULL) &&
	     !json_object_object_get_ex(x->body, "tag-list", NULL)) || (rc > 0 && !xms_name_ok(name))) {
		api_error(x->rsp, 400, "Command Syntax Error: new-name: want 1..128 printable characters");
		return;
	}
	if (!xms_attrs_field(x, XMS_ATTR_OS | XMS_ATTR_TAGS, &attrs))
		return;
	if (rc > 0 && xms_ig_by_name(&g_xms, name) && xms_ig_by_name(&g_xms, name) != g) {
		api_error(x->rsp, 400, XMS_ERR_OBJ_NAME_NOT_UNIQUE);
		return;
	}
	if (rc > 0 && !xms_ig_set_name(&g_xms, g, g->cluster, name)) {
		api_error(x->rsp, 500, "out of memory");
		return;
	}
	g->attrs = attrs;
	xms_model_changed(&g_xms, XMS_KIND_IG, g->index);
	xms_reply_ok(x);
}

const struct xms_type xms_type_igs = {
	.name = "initiator-groups",
	.v1 = true,
	.list = list_igs,
	.post = post_ig,
	.put = put_ig,
	.del = del_ig,
};

/* ---- initiators ---- */

static void list_inits(struct xms_ctx *x, struct json_object *arr)
{
	uint64_t now_ms = xms_perf_now_ms();

	const uint64_t *want;
	size_t nwant;
	bool some = xms_wanted_candidates(x, XMS_NAME_INITIATOR, &want, &nwant);

	for (size_t i = 0; i < (some ? nwant : g_xms.initiators.n); i++) {
		struct xms_initiator *n = some ? xms_initiator_get(&g_xms, want[i]) : &g_xms.initiators.v[i];
		if (!n || !xms_wanted(x, n->index, n->name))
			continue;
		const struct xms_ig *g = xms_ig_get(&g_xms, n->ig);
		const struct xms_cluster *c = xms_cluster_get(&g_xms, n->cluster);
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "name", json_object_new_string(n->name));
		json_object_object_add(o, "index", json_object_new_int64((int64_t)n->index));
		json_object_object_add(o, "guid", json_object_new_string(n->guid));
		json_object_object_add(o, "initiator-id", xms_oid(n->guid, n->name, n->index));
		if (g)
			json_object_object_add(o, "ig-id", xms_ig_oid(g));
		if (c)
			json_object_object_add(o, "sys-id", xms_cluster_oid(c));
		json_object_object_add(o, "port-address", json_object_new_string(n->port_address));
		json_object_object_add(o, "port-type", json_object_new_string("iscsi"));
		/* XMS shows the credentials (clients reuse them: the Cinder driver does) */
		json_object_object_add(o, "chap-authentication-initiator-user-name", json_object_new_string(n->auth_user));
		json_object_object_add(o, "chap-authentication-initiator-password", json_object_new_string(n->auth_pass));
		json_object_object_add(o, "chap-discovery-initiator-user-name", json_object_new_string(n->disc_user));
		json_object_object_add(o, "chap-discovery-initiator-password", json_object_new_string(n->disc_pass));
		xms_attrs_show(&n->attrs, XMS_ATTR_OS, o);
		xms_tag_list_show(&n->attrs, o);
		/* performance: what this IQN sent, the counters /metrics serves as
		 * lunlab_initiator_* (target/iscsi/path_stats.h); an initiator group
		 * shows the sum of its initiators' */
		struct xms_perf_counters pc = { 0 };
		xms_perf_add_initiator(&pc, n->port_address);
		xms_perf_show(&n->perf, &pc, now_ms, o);
		json_object_array_add(arr, o);
	}
}

/* the CHAP fields of a POST/PUT, checked as the login will use them.  A
 * field may come alone (PyXtremIO PUTs one): it replaces that half of the
 * pair, and the pair it makes with what the initiator has must be whole
 * (both set) or cleared (both ""). */
static bool chap_fields(struct xms_ctx *x, struct xms_initiator *n)
{
	static const struct {
		const char *user, *pass, *remove;
		size_t ou, op;
	} pairs[] = {
		{ "initiator-authentication-user-name", "initiator-authentication-password",
		  "remove-initiator-authentication-credentials",
		  offsetof(struct xms_initiator, auth_user), offsetof(struct xms_initiator, auth_pass) },
		{ "initiator-discovery-user-name", "initiator-discovery-password",
		  "remove-initiator-discovery-credentials",
		  offsetof(struct xms_initiator, disc_user), offsetof(struct xms_initiator, disc_pass) },
	};

	for (size_t i = 0; i < 2; i++) {
		struct json_object *ju = NULL, *jp = NULL, *jr = NULL;
		char u[XMS_CHAP_MAX + 1], p[XMS_CHAP_MAX + 1];
		size_t pl;
		bool hu = json_object_object_get_ex(x->body, pairs[i].user, &ju) && ju;
		bool hp = json_object_object_get_ex(x->body, pairs[i].pass, &jp) && jp;

		/* PyXtremIO clears a pair with {"remove-...-credentials": "enabled"} */
		if (json_object_object_get_ex(x->body, pairs[i].remove, &jr) && jr) {
			if (!json_object_is_type(jr, json_type_string) ||
			    (strcmp(json_object_get_string(jr), "enabled") && strcmp(json_object_get_string(jr), "disabled")))
				return api_errorf(x->rsp, 400, "Command Syntax Error: %s: want enabled or disabled",
						  pairs[i].remove);
			if (strcmp(json_object_get_string(jr), "enabled") == 0) {
				if (hu || hp)
					return api_errorf(x->rsp, 400, "Command Syntax Error: %s: and new credentials too",
							  pairs[i].remove);
				memset((char *)n + pairs[i].ou, 0, XMS_CHAP_MAX + 1);
				memset((char *)n + pairs[i].op, 0, XMS_CHAP_MAX + 1);
				continue;
			}
		}
		if (!hu && !hp)
			continue;
		if ((hu && !json_object_is_type(ju, json_type_string)) || (hp && !json_object_is_type(jp, json_type_string)))
			return api_errorf(x->rsp, 400, "Command Syntax Error: %s: want a string",
					  hu && !json_object_is_type(ju, json_type_string) ? pairs[i].user : pairs[i].pass);
		if ((hu && (size_t)json_object_get_string_len(ju) > CHAP_NAME_MAX) ||
		    (hu && strlen(json_object_get_string(ju)) != (size_t)json_object_get_string_len(ju)))
			return api_errorf(x->rsp, 400, "Command Syntax Error: %s: want 1..%d characters without spaces",
					  pairs[i].user, CHAP_NAME_MAX);
		if (hp && ((size_t)json_object_get_string_len(jp) > CHAP_SECRET_MAX ||
			   strlen(json_object_get_string(jp)) != (size_t)json_object_get_string_len(jp)))
			return api_errorf(x->rsp, 400, "Command Syntax Error: %s: %d characters, want %d..%d",
					  pairs[i].pass, json_object_get_string_len(jp), CHAP_SECRET_MIN, CHAP_SECRET_MAX);
		snprintf(u, sizeof(u), "%s", hu ? json_object_get_string(ju) : (char *)n + pairs[i].ou);
		snprintf(p, sizeof(p), "%s", hp ? json_object_get_string(jp) : (char *)n + pairs[i].op);
		pl = strlen(p);
		if (!*u && !*p) { /* clears them */
			((char *)n + pairs[i].ou)[0] = '\0';
			((char *)n + pairs[i].op)[0] = '\0';
			continue;
		}
		if (!*u || !*p)
			return api_errorf(x->rsp, 400, "Command Syntax Error: %s and %s: one would be set without the other",
					  pairs[i].user, pairs[i].pass);
		if (strlen(u) > CHAP_NAME_MAX || strcspn(u, " \t\r\n") != strlen(u))
			return api_errorf(x->rsp, 400, "Command Syntax Error: %s: want 1..%d characters without spaces",
					  pairs[i].user, CHAP_NAME_MAX);
		/* the secret itself is never echoed: its length is */
		if (pl < CHAP_SECRET_MIN || pl > CHAP_SECRET_MAX)
			return api_errorf(x->rsp, 400, "Command Syntax Error: %s: %zu characters, want %d..%d",
					  pairs[i].pass, pl, CHAP_SECRET_MIN, CHAP_SECRET_MAX);
		snprintf((char *)n + pairs[i].ou, XMS_CHAP_MAX + 1, "%s", u);
		snprintf((char *)n + pairs[i].op, XMS_CHAP_MAX + 1, "%s", p);
		memset(p, 0, sizeof(p));
	}
	return true;
}

static void post_init(struct xms_ctx *x)
{
	static const char *const name_fields[] = { "initiator-name", "name", NULL };
	struct xms_cluster *c = xms_request_cluster(x);
	struct xms_initiator tmp, *n;
	const char *name = NULL, *port, *igref, *why;
	char gbuf[24];
	const struct xms_ig *g;
	int rc;

	if (!c)
		return;
	memset(&tmp, 0, sizeof(tmp));
	if ((rc = xms_field_string(x, "port-address", XMS_IQN_MAX, &port)) < 0)
		return;
	if (rc == 0) {
		api_error(x->rsp, 400, "Command Syntax Error: port-address: missing (the initiator's iSCSI name)");
		return;
	}
	if ((why = auth_check_iqn(port))) {
		api_errorf(x->rsp, 400, "Command Syntax Error: port-address: %s", why);
		return;
	}
	if ((rc = xms_field_any(x, name_fields, XMS_NAME_MAX, &name, NULL)) < 0)
		return;
	if (rc == 0)
		name = port;
	if (!xms_name_ok(name)) {
		api_error(x->rsp, 400, "Command Syntax Error: initiator-name: want 1..128 printable characters");
		return;
	}
	static const char *const ig_fields[] = { "ig-id", "ig-name", NULL };
	if ((rc = xms_field_ref(x, ig_fields, gbuf, sizeof(gbuf), &igref)) < 0)
		return;
	if (rc == 0) {
		api_error(x->rsp, 400, "Command Syntax Error: ig-id: missing (the initiator group)");
		return;
	}
	g = xms_ig_ref(&g_xms, igref);
	if (!g) {
		api_error(x->rsp, 400, XMS_ERR_IG_NOT_FOUND);
		return;
	}
	if (xms_initiator_by_name(&g_xms, name)) {
		api_error(x->rsp, 400, XMS_ERR_OBJ_NAME_NOT_UNIQUE);
		return;
	}
	if (xms_initiator_by_port(&g_xms, port)) {
		api_error(x->rsp, 400, XMS_ERR_INITIATOR_EXISTS);
		return;
	}
	if (!chap_fields(x, &tmp) || !xms_attrs_field(x, XMS_ATTR_OS | XMS_ATTR_TAGS, &tmp.attrs)) {
		explicit_bzero(&tmp, sizeof(tmp));
		return;
	}
	if (g_xms.initiators.n >= XMS_MAX_OBJECTS) {
		api_error(x->rsp, 400, XMS_ERR_TOO_MANY);
		return;
	}
	n = xms_initiator_add(&g_xms);
	if (!n) {
		api_error(x->rsp, 500, "out of memory");
		return;
	}
	if (!xms_initiator_set_name(&g_xms, n, g->cluster, name, port)) {
		xms_initiator_del(&g_xms, n->index);
		explicit_bzero(&tmp, sizeof(tmp));
		api_error(x->rsp, 500, "out of memory");
		return;
	}
	n->ig = g->index;
	memcpy(n->auth_user, tmp.auth_user, sizeof(n->auth_user));
	memcpy(n->auth_pass, tmp.auth_pass, sizeof(n->auth_pass));
	memcpy(n->disc_user, tmp.disc_user, sizeof(n->disc_user));
	memcpy(n->disc_pass, tmp.disc_pass, sizeof(n->disc_pass));
	n->attrs = tmp.attrs;
	explicit_bzero(&tmp, sizeof(tmp));
	if (xms_republish(x))
		xms_reply_created(x, "initiators", n->index);
}

/* PUT: CHAP credentials, a new name, another group, operating-system */
static void put_init(struct xms_ctx *x, uint64_t index)
{
	static const char *const name_fields[] = { "new-name", "initiator-name", "name", NULL };
	static const char *const ig_fields[] = { "ig-id", "ig-name", NULL };
	struct xms_initiator *n = xms_initiator_get(&g_xms, index), tmp;
	const char *name = NULL, *igref = NULL;
	const struct xms_ig *g = NULL;
	char gbuf[24];
	int rn, rg;

	if (!n) {
		api_error(x->rsp, 400, XMS_ERR_NOT_FOUND);
		return;
	}
	if ((rn = xms_field_any(x, name_fields, XMS_NAME_MAX, &name, NULL)) < 0 ||
	    (rg = xms_field_ref(x, ig_fields, gbuf, sizeof(gbuf), &igref)) < 0)
		return;
	if (rn > 0 && !xms_name_ok(name)) {
		api_error(x->rsp, 400, "Command Syntax Error: new-name: want 1..128 printable characters");
		return;
	}
	if (rg > 0 && !(g = xms_ig_ref(&g_xms, igref))) {
		api_error(x->rsp, 400, XMS_ERR_IG_NOT_FOUND);
		return;
	}
	/* its name and its iSCSI name must be free in the cluster it ends in
	 * (a group of another cluster moves it there) */
	uint64_t dest = g ? g->cluster : n->cluster;
	uint64_t other = xms_names_first(&g_xms.names, XMS_NAME_INITIATOR, dest, rn > 0 ? name : n->name);
	if (other && other != n->index) {
		api_error(x->rsp, 400, XMS_ERR_OBJ_NAME_NOT_UNIQUE);
		return;
	}
	other = xms_names_first(&g_xms.names, XMS_NAME_PORT, dest, n->port_address);
	if (other && other != n->index) {
		api_error(x->rsp, 400, XMS_ERR_INITIATOR_EXISTS);
		return;
	}
	tmp = *n;
	if (!chap_fields(x, &tmp) || !xms_attrs_field(x, XMS_ATTR_OS | XMS_ATTR_TAGS, &tmp.attrs)) {
		explicit_bzero(&tmp, sizeof(tmp));
		return;
	}
	if (!xms_initiator_set_name(&g_xms, n, dest, rn > 0 ? name : NULL, NULL)) {
		explicit_bzero(&tmp, sizeof(tmp));
		api_error(x->rsp, 500, "out of memory");
		return;
	}
	memcpy(n->auth_user, tmp.auth_user, sizeof(n->auth_user));
	memcpy(n->auth_pass, tmp.auth_pass, sizeof(n->auth_pass));
	memcpy(n->disc_user, tmp.disc_user, sizeof(n->disc_user));
	memcpy(n->disc_pass, tmp.disc_pass, sizeof(n->disc_pass));
	n->attrs = tmp.attrs;
	explicit_bzero(&tmp, sizeof(tmp));
	if (g)
		n->ig = g->index;
	xms_model_changed(&g_xms, XMS_KIND_INITIATOR, n->index); /* CHAP, group or settings: stored */
	if (xms_republish(x))
		xms_reply_ok(x);
}

static void del_init(struct xms_ctx *x, uint64_t index)
{
	xms_initiator_del(&g_xms, index);
	if (xms_republish(x))
		xms_reply_ok(x);
}

const struct xms_type xms_type_initiators = {
	.name = "initiators",
	.v1 = true,
	.list = list_inits,
	.post = post_init,
	.put = put_init,
	.del = del_init,
};
