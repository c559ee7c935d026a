/* lu_table.c — the LU table's writers and its global-LUN readers (see
 * lu_table.h).  A writer builds a complete new snapshot, publishes it with
 * one atomic store, waits for the grace period (lu_rcu.h) and frees the old
 * one: readers never take a lock and never see a half-built table. */
#include "target/lu/lu_table_priv.h"

#include <ctype.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "target/lu/alua.h"
#include "target/lu/lu_rcu.h"
#include "target/lu/lu_stats.h"
#include "target/lu/pr.h"

_Atomic(struct lu_snap *) lu_cur;

static pthread_mutex_t wlock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint64_t next_id = 1;   /* entry ids */
static uint64_t next_gen = 1;          /* snapshot and view generations (under wlock) */

/* every entry alive, mapped or not, so lu_table_reset frees them all;
 * doubly linked, so that releasing one costs no walk (10,000 API volumes
 * released oldest first made a shutdown walk the list 10,000 times) */
struct entry_node {
	struct lu_entry e;
	struct entry_node *next, *prev;
};
static struct entry_node *entries;

static struct lu_snap *cur(void)
{
	return atomic_load_explicit(&lu_cur, memory_order_acquire);
}

static void snap_free(struct lu_snap *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nviews; i++) {
		free(s->views[i].luns);
		free(s->views[i].entries);
	}
	free(s->views);
	free(s->global);
	free(s->all);
	free(s);
}

const struct lu_view *lu_snap_view(const struct lu_snap *s, const char *initiator)
{
	size_t lo = 0, hi = s ? s->nviews : 0;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcasecmp(initiator, s->views[mid].iqn);
		if (c == 0)
			return &s->views[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

struct lu_entry *lu_view_find(const struct lu_view *v, uint64_t lun)
{
	size_t lo = 0, hi = v ? v->n : 0;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (v->luns[mid] == lun)
			return v->entries[mid];
		if (lun < v->luns[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* ---- entries ---- */

static struct lu_entry *entry_alloc(struct lu_backend *be, bool global)
{
	struct entry_node *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->e.ua = ua_queue_new();
	n->e.pr = pr_state_new(n->e.ua);
	n->e.stats = lu_stats_new();
	if (!n->e.ua || !n->e.pr || !n->e.stats) {
		pr_state_free(n->e.pr);
		ua_queue_free(n->e.ua);
		lu_stats_free(n->e.stats);
		free(n);
		return NULL;
	}
	n->e.be = be;
	n->e.global = global;
	n->e.id = atomic_fetch_add(&next_id, 1);
	n->next = entries;
	if (entries)
		entries->prev = n;
	entries = n;
	return &n->e;
}

static void entry_release(struct lu_entry *e)
{
	struct entry_node *n = (struct entry_node *)(void *)((char *)e - offsetof(struct entry_node, e));

	if (n->prev)
		n->prev->next = n->next;
	else
		entries = n->next;
	if (n->next)
		n->next->prev = n->prev;
	pr_state_free(n->e.pr);
	lu_stats_free(n->e.stats);
	alua_free(&n->e);
	ua_queue_free(n->e.ua);
	free(n);
}

struct lu_entry *lu_entry_new(struct lu_backend *be)
{
	struct lu_entry *e;

	if (!be)
		return NULL;
	pthread_mutex_lock(&wlock);
	e = entry_alloc(be, false);
	pthread_mutex_unlock(&wlock);
	return e;
}

void lu_entry_free(struct lu_entry *e)
{
	if (!e)
		return;
	pthread_mutex_lock(&wlock);
	entry_release(e);
	pthread_mutex_unlock(&wlock);
}

void lu_entry_capacity_changed(struct lu_entry *e)
{
	ua_queue_post_all(e->ua, UA_CAPACITY, 0);
}

void lu_entry_medium_changed(struct lu_entry *e)
{
	ua_queue_post_all(e->ua, UA_MEDIUM, 0);
}

void lu_entry_lun_reset(struct lu_entry *e)
{
	ua_queue_post_all(e->ua, UA_LUN_RESET, 0);
}

/* ---- snapshots ---- */

/* a copy of s's global list with room for one more */
static struct lu_snap *snap_new(void)
{
	struct lu_snap *s = calloc(1, sizeof(*s));

	if (s)
		s->gen = next_gen++;
	return s;
}

/* s->all: the global entries, then every mapped one not seen before */
static int collect_all(struct lu_snap *s)
{
	size_t cap = s->nglobal;

	for (size_t i = 0; i < s->nviews; i++)
		cap += s->views[i].n;
	s->all = calloc(cap ? cap : 1, sizeof(*s->all));
	if (!s->all)
		return -1;
	for (size_t i = 0; i < s->nglobal; i++)
		s->all[s->nall++] = s->global[i];
	for (size_t i = 0; i < s->nviews; i++) {
		for (size_t j = 0; j < s->views[i].n; j++) {
			struct lu_entry *e = s->views[i].entries[j];
			bool dup = false;
			for (size_t k = s->nglobal; k < s->nall && !dup; k++)
				dup = s->all[k] == e;
			if (!dup)
				s->all[s->nall++] = e;
		}
	}
	return 0;
}

/* swap in s, wait until no reader can hold the old one, free it */
static void publish(struct lu_snap *s)
{
	struct lu_snap *old = cur();

	atomic_store_explicit(&lu_cur, s, memory_order_release);
	lu_rcu_synchronize();
	snap_free(old);
}

static int copy_views(struct lu_snap *dst, const struct lu_snap *src)
{
	if (!src || !src->nviews)
		return 0;
	dst->views = calloc(src->nviews, sizeof(*dst->views));
	if (!dst->views)
		return -1;
	for (size_t i = 0; i < src->nviews; i++) {
		const struct lu_view *a = &src->views[i];
		struct lu_view *b = &dst->views[i];

		*b = *a;
		b->luns = malloc(a->n * sizeof(*b->luns));
		b->entries = malloc(a->n * sizeof(*b->entries));
		dst->nviews = i + 1;
		if (!b->luns || !b->entries)
			return -1;
		memcpy(b->luns, a->luns, a->n * sizeof(*b->luns));
		memcpy(b->entries, a->entries, a->n * sizeof(*b->entries));
	}
	return 0;
}

int lu_table_add(struct lu_backend *be)
{
	struct lu_snap *old, *s;
	struct lu_entry *e;
	int lun = -1;

	if (!be)
		return -1;
	pthread_mutex_lock(&wlock);
	old = cur();
	if ((old ? old->nglobal : 0) >= LU_TABLE_MAX)
		goto out;
	for (size_t i = 0; old && i < old->nviews; i++)
		if (lu_view_find(&old->views[i], old->nglobal)) /* the next global LUN is mapped */
			goto out;
	s = snap_new();
	e = s ? entry_alloc(be, true) : NULL;
	if (!e) {
		free(s);
		goto out;
	}
	s->global_gen = s->gen;
	s->nglobal = (old ? old->nglobal : 0) + 1;
	s->global = malloc(s->nglobal * sizeof(*s->global));
	if (!s->global || copy_views(s, old) < 0) {
		entry_release(e);
		snap_free(s);
		goto out;
	}
	if (old)
		memcpy(s->global, old->global, old->nglobal * sizeof(*s->global));
	s->global[s->nglobal - 1] = e;
	if (collect_all(s) < 0) {
		entry_release(e);
		snap_free(s);
		goto out;
	}
	publish(s);
	lun = (int)(s->nglobal - 1);
out:
	pthread_mutex_unlock(&wlock);
	return lun;
}

static int spec_cmp(const void *a, const void *b)
{
	const struct lu_map_spec *x = *(const struct lu_map_spec *const *)a, *y = *(const struct lu_map_spec *const *)b;
	int c = strcasecmp(x->iqn, y->iqn);

	if (c)
		return c;
	return x->lun < y->lun ? -1 : x->lun > y->lun;
}

static bool same_view(const struct lu_view *a, const struct lu_view *b)
{
	if (!a || a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (a->luns[i] != b->luns[i] || a->entries[i]->id != b->entries[i]->id)
			return false;
	return true;
}

/* the views of sorted specs (grouped by iqn) into s; -1 with err */
static int build_views(struct lu_snap *s, const struct lu_snap *old, const struct lu_map_spec **sp, size_t n,
		       char *err, size_t errlen)
{
	size_t nv = 0;

	for (size_t i = 0; i < n; i++)
		if (i == 0 || strcasecmp(sp[i]->iqn, sp[i - 1]->iqn) != 0)
			nv++;
	s->views = nv ? calloc(nv, sizeof(*s->views)) : NULL;
	if (nv && !s->views) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < n;) {
		size_t j = i;
		struct lu_view *v = &s->views[s->nviews++];
		const struct lu_view *was;

		while (j < n && strcasecmp(sp[j]->iqn, sp[i]->iqn) == 0)
			j++;
		for (size_t k = 0; sp[i]->iqn[k] && k < LU_IQN_MAX; k++)
			v->iqn[k] = (char)tolower((unsigned char)sp[i]->iqn[k]);
		v->luns = malloc((j - i) * sizeof(*v->luns));
		v->entries = malloc((j - i) * sizeof(*v->entries));
		if (!v->luns || !v->entries) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		for (size_t k = i; k < j; k++) {
			if (k > i && sp[k]->lun == sp[k - 1]->lun) {
				snprintf(err, errlen, "initiator %.64s: two LUs at LUN %llu", v->iqn,
					 (unsigned long long)sp[k]->lun);
				return -1;
			}
			v->luns[v->n] = sp[k]->lun;
			v->entries[v->n] = sp[k]->e;
			v->n++;
		}
		was = lu_snap_view(old, v->iqn);
		v->gen = same_view(was, v) ? was->gen : next_gen++;
		i = j;
	}
	return 0;
}

int lu_table_set_maps(const struct lu_map_spec *maps, size_t n, char *err, size_t errlen)
{
	const struct lu_map_spec **sp = NULL;
	struct lu_snap *old, *s = NULL;
	int rc = -1;

	pthread_mutex_lock(&wlock);
	old = cur();
	for (size_t i = 0; i < n; i++) {
		if (!maps[i].iqn || !maps[i].iqn[0] || strlen(maps[i].iqn) > LU_IQN_MAX || !maps[i].e) {
			snprintf(err, errlen, "map %zu: no initiator name or no LU", i);
			goto out;
		}
		if (maps[i].lun >= LU_TABLE_MAX) {
			snprintf(err, errlen, "LUN %llu: above %d", (unsigned long long)maps[i].lun, LU_TABLE_MAX - 1);
			goto out;
		}
		if (old && maps[i].lun < old->nglobal) {
			snprintf(err, errlen, "LUN %llu belongs to a --lun LU, which every initiator sees",
				 (unsigned long long)maps[i].lun);
			goto out;
		}
	}
	sp = malloc((n ? n : 1) * sizeof(*sp));
	s = snap_new();
	if (!sp || !s) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		sp[i] = &maps[i];
	qsort(sp, n, sizeof(*sp), spec_cmp);
	s->global_gen = old ? old->global_gen : 0;
	s->nglobal = old ? old->nglobal : 0;
	s->global = malloc((s->nglobal ? s->nglobal : 1) * sizeof(*s->global));
	if (!s->global) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (s->nglobal)
		memcpy(s->global, old->global, s->nglobal * sizeof(*s->global));
	if (build_views(s, old, sp, n, err, errlen) < 0)
		goto out;
	if (collect_all(s) < 0) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	publish(s);
	s = NULL;
	rc = 0;
out:
	snap_free(s);
	free(sp);
	pthread_mutex_unlock(&wlock);
	return rc;
}

void lu_table_reset(void)
{
	pthread_mutex_lock(&wlock);
	snap_free(atomic_exchange(&lu_cur, NULL));
	while (entries) {
		struct entry_node *n = entries;
		entries = n->next;
		if (entries)
			entries->prev = NULL;
		pr_state_free(n->e.pr);
		lu_stats_free(n->e.stats);
		alua_free(&n->e);
		ua_queue_free(n->e.ua);
		free(n);
	}
	pthread_mutex_unlock(&wlock);
}

/* ---- global LUNs ---- */

struct lu_entry *lu_table_entry(uint64_t lun)
{
	struct lu_snap *s = cur();

	return s && lun < s->nglobal ? s->global[lun] : NULL;
}

struct lu_backend *lu_table_get(uint64_t lun)
{
	struct lu_entry *e = lu_table_entry(lun);

	return e ? e->be : NULL;
}

size_t lu_table_count(void)
{
	struct lu_snap *s = cur();

	return s ? s->nglobal : 0;
}

struct pr_state *lu_table_pr(uint64_t lun)
{
	struct lu_entry *e = lu_table_entry(lun);

	return e ? e->pr : NULL;
}

void lu_table_each(void (*fn)(struct lu_entry *e, void *cls), void *cls)
{
	struct lu_snap *s = cur();

	for (size_t i = 0; s && i < s->nall; i++)
		fn(s->all[i], cls);
}
