/* xms_refresh.c — snapshot refresh and restore (XMS 4.0's "create and
 * reassign"): POST snapshots with one from-*-id (a volume, a consistency
 * group or a snapshot set) and one to-*-id (the same kinds).  Each target
 * volume's data becomes its source's, in place: the target keeps its name,
 * its NAA, its LUN maps and its hosts' sessions, and only its data changes,
 * as a metadata copy in the array (array_ctl.refresh: map entries and
 * reference counts, nothing read or written).  Before that, unless
 * `no-backup`, the targets' data is kept in a new snapshot set
 * (`TARGET.SUFFIX`, `backup-snap-suffix`).  The hosts of every refreshed
 * LU get 06/28/00 (xms_scsi_refresh).
 *
 * What the public clients send (facts, not code, from their source):
 *   - CoprHD XtremIOSnapCreateAndReassign (xtremio v2 client): cluster-id,
 *     from-volume-id / from-consistency-group-id / from-snapshot-set-id,
 *     to-volume-id / to-consistency-group-id / to-snapshot-set-id,
 *     snapshot-set-name, no-backup (a string), backup-snap-suffix;
 *   - XtremIO.Utils (mtboren): from-consistency-group-id + to-snapshot-set-id,
 *     no-backup as JSON true unless a backup is asked for;
 *   - MTSXtremIO (dmuegge) New-XtremSnapshotRefresh: from-* + to-* +
 *     cluster-id + snapshot-set-name (the refreshed set's new name);
 *   - docbert's xtremio-python: no-backup "true", else backup-snap-suffix.
 * Pairs.  One source and one target are a pair whatever their kinds.  Lists
 * (groups, sets) pair each target with the source of the same lineage:
 * the volume both descend from through ancestor-vol-id (a set taken of a
 * group pairs with that group's volumes). */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "target/api/api_json.h"
#include "target/api/xms_common.h"
#include "target/api/xms_events.h"
#include "target/api/xms_resources.h"
#include "target/api/xms_scsi.h"

static const char *const from_fields[] = { "from-volume-id", "from-consistency-group-id", "from-snapshot-set-id",
					   NULL };
static const char *const to_fields[] = { "to-volume-id", "to-consistency-group-id", "to-snapshot-set-id", NULL };

bool xms_refresh_requested(const struct xms_ctx *x)
{
	struct json_object *v;

	if (!x->body || !json_object_is_type(x->body, json_type_object))
		return false;
	for (int i = 0; from_fields[i]; i++)
		if (json_object_object_get_ex(x->body, from_fields[i], &v) ||
		    json_object_object_get_ex(x->body, to_fields[i], &v))
			return true;
	return false;
}

/* one side of the refresh: its volumes (malloc'd) */
struct side {
	const char *field;   /* the body field that named it */
	uint64_t *v;
	size_t n;
	uint64_t set;        /* a snapshot set: its index */
};

static bool resolve(struct xms_ctx *x, const char *const *fields, const char *what, struct side *s)
{
	char buf[24];
	const char *ref;
	int given = 0;

	for (int i = 0; fields[i]; i++) {
		const char *one[] = { fields[i], NULL };
		int rc = xms_field_ref(x, one, buf, sizeof(buf), &ref);
		const struct xms_idlist *list = NULL;
		uint64_t single = 0;

		if (rc < 0)
			return false;
		if (rc == 0)
			continue;
		if (++given > 1)
			break;
		s->field = fields[i];
		if (i == 0) {
			const struct xms_volume *v = xms_volume_ref(&g_xms, ref);
			if (!v)
				return api_error(x->rsp, 400, XMS_ERR_VOL_NOT_FOUND);
			single = v->index;
		} else if (i == 1) {
			const struct xms_cg *g = xms_cg_ref(&g_xms, ref);
			if (!g)
				return api_error(x->rsp, 400, XMS_ERR_CG_NOT_FOUND);
			list = &g->vols;
		} else {
			const struct xms_snapset *ss = xms_snapset_ref(&g_xms, ref);
			if (!ss)
				return api_error(x->rsp, 400, XMS_ERR_NOT_FOUND);
			list = &ss->vols;
			s->set = ss->index;
		}
		s->n = list ? list->n : 1;
		s->v = calloc(s->n ? s->n : 1, sizeof(*s->v));
		if (!s->v)
			return api_error(x->rsp, 500, "out of memory");
		if (list)
			memcpy(s->v, list->v, list->n * sizeof(*s->v));
		else
			s->v[0] = single;
	}
	if (given != 1)
		return api_errorf(x->rsp, 400, "Command Syntax Error: a refresh takes exactly one of %s, %s, %s", fields[0],
				  fields[1], fields[2]);
	if (s->n == 0)
		return api_errorf(x->rsp, 400, "Command Syntax Error: %s: the %s has no volume", s->field, what);
	return true;
}

/* the volume v descends from through ancestor-vol-id (itself if none) */
static uint64_t lineage(uint64_t index)
{
	for (int depth = 0; depth < 1024; depth++) {
		const struct xms_volume *v = xms_volume_get(&g_xms, index);
		if (!v || !v->ancestor || !xms_volume_get(&g_xms, v->ancestor))
			return index;
		index = v->ancestor;
	}
	return index;
}

/* src_for[i]: the source of target i */
static bool pair(struct xms_ctx *x, const struct side *from, const struct side *to, uint64_t *src_for)
{
	if (from->n == 1 && to->n == 1) {
		src_for[0] = from->v[0];
		return true;
	}
	if (from->n != to->n)
		return api_errorf(x->rsp, 400, "Command Syntax Error: %s has %zu volumes, %s %zu", from->field, from->n,
				  to->field, to->n);
	for (size_t i = 0; i < to->n; i++) {
		uint64_t root = lineage(to->v[i]), found = 0;
		for (size_t j = 0; j < from->n; j++) {
			if (lineage(from->v[j]) != root)
				continue;
			if (found)
				return api_errorf(x->rsp, 400, "Command Syntax Error: %s: two volumes share the lineage of "
						  "'%s'", from->field, xms_volume_get(&g_xms, to->v[i])->name);
			found = from->v[j];
		}
		if (!found)
			return api_errorf(x->rsp, 400, "Command Syntax Error: %s: no volume of the lineage of '%s' (of %s)",
					  from->field, xms_volume_get(&g_xms, to->v[i])->name, to->field);
		for (size_t k = 0; k < i; k++)
			if (src_for[k] == found)
				return api_errorf(x->rsp, 400, "Command Syntax Error: %s: '%s' would refresh two volumes",
						  from->field, xms_volume_get(&g_xms, found)->name);
		src_for[i] = found;
	}
	return true;
}

/* no-backup: JSON true/false or the strings "true"/"false" (CoprHD and
 * docbert's client send a string) */
static int no_backup(struct xms_ctx *x, bool *out)
{
	struct json_object *v;

	*out = false;
	if (!json_object_object_get_ex(x->body, "no-backup", &v) || !v)
		return 0;
	if (json_object_is_type(v, json_type_boolean)) {
		*out = json_object_get_boolean(v);
		return 1;
	}
	if (json_object_is_type(v, json_type_string)) {
		const char *s = json_object_get_string(v);
		if (strcmp(s, "true") == 0 || strcmp(s, "false") == 0) {
			*out = s[0] == 't';
			return 1;
		}
	}
	api_error(x->rsp, 400, "Command Syntax Error: no-backup: want true or false");
	return -1;
}

void xms_refresh(struct xms_ctx *x)
{
	struct side from = { 0 }, to = { 0 };
	uint64_t *src_for = NULL, *backup = NULL, backup_set = 0;
	struct xms_volume **sp = NULL, **dp = NULL;
	const struct xms_cluster *c = NULL;
	const char *suffix = NULL, *set_name = NULL;
	char err[320], dflt[64];
	bool nobak = false;
	static unsigned long long backups; /* default suffixes stay unique within a second */

	if (!resolve(x, from_fields, "source", &from) || !resolve(x, to_fields, "target", &to))
		goto out;
	if (no_backup(x, &nobak) < 0 || xms_field_string(x, "backup-snap-suffix", 64, &suffix) < 0 ||
	    xms_field_string(x, "snapshot-set-name", XMS_NAME_MAX, &set_name) < 0)
		goto out;
	if (set_name && !xms_name_ok(set_name)) {
		api_error(x->rsp, 400, "Command Syntax Error: snapshot-set-name: want 1..128 printable characters");
		goto out;
	}
	if (suffix && (!*suffix || strchr(suffix, ' '))) {
		api_error(x->rsp, 400, "Command Syntax Error: backup-snap-suffix: want 1..64 characters without spaces");
		goto out;
	}
	if (nobak && suffix) {
		api_error(x->rsp, 400, "Command Syntax Error: backup-snap-suffix: no backup is made with no-backup");
		goto out;
	}
	/* the set a to-snapshot-set-id refresh renames must not clash */
	if (set_name) {
		const struct xms_snapset *other = xms_snapset_by_name(&g_xms, set_name);
		if (other && other->index != to.set) {
			api_error(x->rsp, 400, XMS_ERR_OBJ_NAME_NOT_UNIQUE);
			goto out;
		}
	}
	src_for = calloc(to.n, sizeof(*src_for));
	sp = calloc(to.n, sizeof(*sp));
	dp = calloc(to.n, sizeof(*dp));
	if (!src_for || !sp || !dp) {
		api_error(x->rsp, 500, "out of memory");
		goto out;
	}
	if (!pair(x, &from, &to, src_for))
		goto out;
	c = xms_cluster_get(&g_xms, xms_volume_get(&g_xms, to.v[0])->cluster);
	for (size_t i = 0; i < to.n; i++) {
		const struct xms_volume *s = xms_volume_get(&g_xms, src_for[i]), *d = xms_volume_get(&g_xms, to.v[i]);
		if (s->cluster != c->index || d->cluster != c->index) {
			api_error(x->rsp, 400, "Command Syntax Error: the volumes belong to different clusters");
			goto out;
		}
		if (s->index == d->index) {
			api_errorf(x->rsp, 400, "Command Syntax Error: %s: '%s' cannot be refreshed from itself", to.field,
				   d->name);
			goto out;
		}
		if (s->size != d->size || s->lb_size != d->lb_size) {
			api_errorf(x->rsp, 400, "Command Syntax Error: %s: '%s' and '%s' differ in size or block size",
				   to.field, s->name, d->name);
			goto out;
		}
	}
	/* the targets' data as it was, unless no-backup (one set, one moment) */
	if (!nobak) {
		struct xms_snap_spec r = { 0 };
		snprintf(dflt, sizeof(dflt), "backup.%lld.%llu", (long long)time(NULL), ++backups);
		r.src = to.v;
		r.n = to.n;
		r.suffix = suffix ? suffix : dflt;
		r.suffix_field = "backup-snap-suffix";
		r.set_name = to.set ? NULL : set_name;
		if (!xms_snapset_make(x, c, &r, &backup, &backup_set))
			goto out;
	}
	for (size_t i = 0; i < to.n; i++) {
		sp[i] = xms_volume_get(&g_xms, src_for[i]);
		dp[i] = xms_volume_get(&g_xms, to.v[i]);
	}
	if (xms_scsi_refresh(c, sp, dp, to.n, err, sizeof(err)) < 0) {
		if (backup)
			xms_snapset_unmake(c, backup, to.n, backup_set);
		api_errorf(x->rsp, 400, "Command Syntax Error: %s", err);
		goto out;
	}
	if (to.set && set_name) {
		struct xms_snapset *ts = xms_snapset_get(&g_xms, to.set);
		if (ts && !xms_snapset_set_name(&g_xms, ts, ts->cluster, set_name)) {
			api_error(x->rsp, 500, "out of memory: the volumes were refreshed, the set keeps its name");
			goto out;
		}
	}
	/* what happened, in the array's event log (the generic audit line of a POST
	 * snapshots names no snapshot made when there is no backup) */
	for (size_t i = 0; i < to.n; i++) {
		const struct xms_volume *s = xms_volume_get(&g_xms, src_for[i]), *d = xms_volume_get(&g_xms, to.v[i]);
		xms_event(XMS_SEV_INFO, "audit", "Volume", d->name, "LL0104", "User %s refreshed volume '%s' from '%s'%s",
			  x->req->user ? x->req->user : "-", d->name, s->name, nobak ? " (no backup)" : "");
	}
	xms_reply_created_many(x, "volumes", to.v, to.n);
out:
	free(from.v);
	free(to.v);
	free(src_for);
	free(backup);
	free(sp);
	free(dp);
}
