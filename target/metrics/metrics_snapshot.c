/* metrics_snapshot.c — gathers the figures of metrics_snapshot.h. */
#include "target/metrics/metrics_snapshot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "target/iscsi/target.h"
#include "target/lu/lu_rcu.h"
#include "target/lu/proc_figures.h"
#include "target/lu/lu_table.h"
#include "target/tcmu/host.h"

const double metrics_lat_bounds_s[LUNLAB_LAT_BOUNDS] = {
	5e-6, 10e-6, 20e-6, 50e-6, 100e-6, 200e-6, 500e-6, 1e-3, 2e-3, 5e-3,
	10e-3, 20e-3, 50e-3, 100e-3, 200e-3, 500e-3, 1, 2, 5, 10,
};

double metrics_ratio(uint64_t num, uint64_t den)
{
	return den ? (double)num / (double)den : 0.0;
}

/* resident pages from /proc/self/statm (second field) */
static struct metrics_array *find_array(struct metrics_snapshot *s, const char *name)
{
	for (size_t i = 0; i < s->narr; i++)
		if (!strcmp(s->arr[i].name, name))
			return &s->arr[i];
	return NULL;
}

static int add_array(struct metrics_snapshot *s, size_t *cap, const char *name, const char *profile)
{
	struct metrics_array *a = find_array(s, name);

	if (a) {
		if (!a->profile[0] && profile)
			snprintf(a->profile, sizeof(a->profile), "%s", profile);
		return 0;
	}
	if (s->narr == *cap) {
		size_t n = *cap ? 2 * *cap : 8;
		void *p = realloc(s->arr, n * sizeof(*s->arr));

		if (!p)
			return -ENOMEM;
		s->arr = p;
		*cap = n;
	}
	a = &s->arr[s->narr++];
	memset(a, 0, sizeof(*a));
	snprintf(a->name, sizeof(a->name), "%s", name);
	snprintf(a->profile, sizeof(a->profile), "%s", profile ? profile : "");
	return 0;
}

/* Each array's own figures, from the first LU's table that offers them. */
static void array_figures(struct metrics_array *a, const struct lunlab_array_ctl *ctl)
{
	if (!a->have_figures && lunlab_array_ctl_has(ctl, array_figures) &&
	    ctl->array_figures(a->name, false, &a->fig) == 0) {
		a->have_figures = true;
		if (a->fig.profile[0])
			snprintf(a->profile, sizeof(a->profile), "%s", a->fig.profile);
	}
	if (!a->have_model && lunlab_array_ctl_has(ctl, array_model) && ctl->array_model(a->name, &a->model) == 0)
		a->have_model = true;
}

struct gather {
	struct metrics_snapshot *s;
	size_t lucap, arrcap;
	const struct lunlab_array_ctl *first_ctl;
	bool oom;
};

/* lu_table_each: one LU (inside the RCU read section, see metrics_snapshot_take) */
static void gather_lu(struct lu_entry *e, void *cls)
{
	struct gather *g = cls;
	struct metrics_snapshot *s = g->s;
	struct tcmu_device *dev = NULL;
	const struct lunlab_array_ctl *ctl;
	struct metrics_lu *l;

	if (g->oom || !e->be)
		return;
	if (s->nlu == g->lucap) {
		size_t n = g->lucap ? 2 * g->lucap : 16;
		void *p = realloc(s->lu, n * sizeof(*s->lu));

		if (!p) {
			g->oom = true;
			return;
		}
		s->lu = p;
		g->lucap = n;
	}
	l = &s->lu[s->nlu++];
	memset(l, 0, sizeof(*l));
	l->global = e->global;
	for (size_t i = 0, n = lu_table_count(); e->global && i < n; i++)
		if (lu_table_entry(i) == e) {
			l->lun = i;
			break;
		}
	lu_stats_read(e->stats, l->host);
	ctl = tcmu_host_backend_array_ctl(e->be, &dev);
	if (lunlab_array_ctl_has(ctl, lu_figures) && ctl->lu_figures(dev, &l->arr) == 0) {
		l->have_array = true;
		if (!g->first_ctl)
			g->first_ctl = ctl;
		if (add_array(s, &g->arrcap, l->arr.array, l->arr.profile) < 0) {
			g->oom = true;
			return;
		}
		array_figures(find_array(s, l->arr.array), ctl);
	}
}

/* global LUs first, by LUN; then the API's volumes by array and volume name */
static int lu_order(const void *a, const void *b)
{
	const struct metrics_lu *x = a, *y = b;
	int c;

	if (x->global != y->global)
		return x->global ? -1 : 1;
	if (x->global)
		return x->lun < y->lun ? -1 : x->lun > y->lun;
	c = strcmp(x->arr.array, y->arr.array);
	return c ? c : strcmp(x->arr.volume, y->arr.volume);
}

struct ini_gather {
	struct metrics_snapshot *s;
	size_t cap;
	bool oom;
};

static void gather_ini(const char *iqn, const struct lu_stats *st, void *arg)
{
	struct ini_gather *g = arg;

	if (g->oom || g->s->nini == g->cap)
		return; /* initiators first seen since the count: the next scrape */
	snprintf(g->s->ini[g->s->nini].name, sizeof(g->s->ini[0].name), "%s", iqn);
	lu_stats_read(st, g->s->ini[g->s->nini++].f);
}

static void count_ini(const char *iqn, const struct lu_stats *st, void *arg)
{
	(void)iqn;
	(void)st;
	(*(size_t *)arg)++;
}

/* the portals' and the initiators' figures (path_stats.h): -1 out of memory */
static int gather_paths(struct metrics_snapshot *s)
{
	struct ini_gather g = { .s = s };
	int np = g_target.nportals;

	if (np > 0) {
		s->portal = calloc((size_t)np, sizeof(*s->portal));
		if (!s->portal)
			return -1;
		for (int i = 0; i < np && i < PATH_STATS_PORTALS; i++) {
			const struct lu_stats *st = path_stats_portal(i);

			snprintf(s->portal[s->nportal].name, sizeof(s->portal[0].name), "%s", g_target.portals[i].name);
			if (st)
				lu_stats_read(st, s->portal[s->nportal].f);
			s->nportal++;
		}
	}
	path_stats_each_initiator(count_ini, &g.cap);
	if (g.cap) {
		s->ini = calloc(g.cap, sizeof(*s->ini));
		if (!s->ini)
			return -1;
		path_stats_each_initiator(gather_ini, &g);
	}
	s->ini_untracked = path_stats_untracked();
	return 0;
}

int metrics_snapshot_take(struct metrics_snapshot *s)
{
	struct timespec ts;
	struct gather g = { .s = s };

	memset(s, 0, sizeof(*s));
	clock_gettime(CLOCK_REALTIME, &ts);
	s->time_s = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	s->rss_bytes = proc_rss_bytes();
	s->cpu_seconds = proc_cpu_seconds();
	s->sessions[0] = iscsi_stats_sessions(false);
	s->sessions[1] = iscsi_stats_sessions(true);
	for (unsigned r = 0; r < LOGIN_RESULTS; r++)
		s->logins[r] = iscsi_stats_logins((enum login_result)r);
	for (unsigned k = 0; k < LOGIN_THROTTLE_KINDS; k++) {
		s->auth_failures[k] = login_throttle_failures((enum login_throttle_kind)k);
		s->auth_refused[k] = login_throttle_refused((enum login_throttle_kind)k);
	}
	s->auth_locked = login_throttle_locked(login_throttle_now_ms());
	fault_rules_hit_totals(s->fault_hits);
	s->nrules = fault_rules_list(NULL, 0);
	if (s->nrules) {
		s->rules = calloc(s->nrules, sizeof(*s->rules));
		if (!s->rules)
			goto oom;
		size_t now = fault_rules_list(s->rules, s->nrules);

		/* rules added since the count are left for the next scrape */
		if (now < s->nrules)
			s->nrules = now;
	}
	/* An RCU reader while it walks the LU table: the management API frees a
	 * deleted LU (and then its device) only after this thread is done. */
	lu_rcu_register();
	lu_table_each(gather_lu, &g);
	lu_rcu_unregister();
	if (g.oom)
		goto oom;
	if (s->nlu > 1)
		qsort(s->lu, s->nlu, sizeof(*s->lu), lu_order);
	if (gather_paths(s) < 0)
		goto oom;
	/* arrays with no LU attached now (the API's named volumes, a cluster
	 * before its first volume): lunlab's handler knows them all */
	if (!g.first_ctl)
		g.first_ctl = tcmu_host_array_ctl("lunlab");
	if (lunlab_array_ctl_has(g.first_ctl, array_list)) {
		char names[64][LUNLAB_ARRAY_NAME_MAX];
		int k = g.first_ctl->array_list(names, 64);

		for (int i = 0; i < k && i < 64; i++) {
			if (find_array(s, names[i]))
				continue;
			if (add_array(s, &g.arrcap, names[i], NULL) < 0)
				goto oom;
			array_figures(&s->arr[s->narr - 1], g.first_ctl);
		}
	}
	return 0;
oom:
	metrics_snapshot_free(s);
	return -ENOMEM;
}

void metrics_snapshot_free(struct metrics_snapshot *s)
{
	free(s->lu);
	free(s->arr);
	free(s->rules);
	free(s->portal);
	free(s->ini);
	memset(s, 0, sizeof(*s));
}
