/* cost.c — the array cost model: resources, queueing and the real-time deadline.
 *
 * A command is served concurrently by up to four FIFO resources, each a single
 * queue in modeled time (docs/models.md "Cost model"):
 *   cpu      the array's cores, pooled: a command's work fans out over all cores
 *            (content-addressed metadata is spread over every controller), so it
 *            occupies the pool for work / cores;
 *   journal  the serialized commit of map-entry updates (writes, XCOPY, UNMAP...):
 *            per command + per entry;
 *   frontend host data over the target ports (bytes / bandwidth);
 *   backend  data to and from the SSDs (bytes / bandwidth).
 * The command completes when its last resource is done, plus a fixed latency.  The
 * host turnaround (fabric + host stack, not seen by the array) is added to the
 * deadline only.  One mutex per array guards the few words of queue state; an
 * unmodeled array (profile `unlimited`) has no queues and counts its telemetry
 * with atomics instead, so its commands take no lock here. */
#include "models/cost.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/cost_params.h"
#include "models/cost_virtual.h"
#include "models/vsessions.h"

#define WINDOW_NS 1000000000ull
#define NWIN 64 /* live 1-s windows: completions land at most this far from the newest */
#define MIB (1ull << 20)

__extension__ typedef unsigned __int128 u128;

struct window {
	int64_t idx; /* -1: unused */
	uint64_t lat_sum, lat_cnt;
	double busy; /* core-ns */
};

struct telemetry_state {
	bool started;
	uint64_t first_arrival, last_completion;
	uint64_t commands, busy, max_latency;
	uint64_t turnaround;
	uint64_t journal_busy, frontend_busy, backend_busy; /* ns of service, summed */
	uint64_t hist[32];
	uint64_t bucket_ops[COST_BUCKETS], bucket_bytes[COST_BUCKETS], bucket_latency[COST_BUCKETS];
	struct window win[NWIN];
	uint64_t peak_latency; /* of windows already closed */
	double peak_busy;
};

struct cost_model {
	char name[64];
	unsigned refs;
	bool registered;
	struct cost_model *next;
	const struct lunlab_profile *p;
	const struct cost_params *cp; /* NULL: unmodeled */
	double scale;
	pthread_mutex_t mu;
	bool clock_started;
	uint64_t t0_real;
	uint64_t cpu_free, journal_free, frontend_free, backend_free;
	struct telemetry_state t;
	_Atomic uint64_t fault_delay;        /* telemetry fault_delay_ns, for both paths */
	/* unmodeled and on the real clock: telemetry without the lock (every
	 * latency is 0, so commands, sizes and elapsed time are all there is) */
	struct {
		_Atomic uint64_t t0;                 /* first command's real time + 1; 0: none yet */
		_Atomic uint64_t last;               /* latest arrival, ns after t0 */
		_Atomic uint64_t commands;
		_Atomic uint64_t commands_ever;      /* never reset: cost_model_totals */
		_Atomic uint64_t bucket_ops[COST_BUCKETS], bucket_bytes[COST_BUCKETS];
	} fast;
	/* never reset (cost_model_totals); first_arrival/last_completion in modeled time */
	struct cost_totals totals;
	bool totals_started;
	uint64_t totals_first, totals_last;
	/* virtual clock: when each modeled host stream may send its next command, a min-heap */
	unsigned vstreams; /* 0: real clock */
	bool vpinned;      /* the LU's configuration fixed vstreams: clients may not change it */
	uint64_t vfront;   /* modeled "now": the latest arrival charged */
	uint64_t *vfree;
	struct vsessions *vs; /* non-NULL: one stream per initiator session (vsessions.h) */
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cost_model *registry;

static uint64_t muldiv(uint64_t a, uint64_t b, uint64_t d)
{
	u128 x = (u128)a * b / d;
	return x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
}

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

unsigned cost_bucket_of(uint64_t bytes)
{
	for (unsigned b = 0; b < COST_BUCKETS - 1; b++)
		if (bytes <= (512ull << b))
			return b;
	return COST_BUCKETS - 1;
}

static bool updates_map(enum cost_kind k)
{
	return k == COST_WRITE || k == COST_XCOPY || k == COST_WRITE_SAME || k == COST_UNMAP || k == COST_CAW;
}

/* Logical bytes whose map entries the command touches. */
static uint64_t covered_bytes(const struct cost_req *r)
{
	switch (r->kind) {
	case COST_XCOPY:
	case COST_WRITE_SAME:
	case COST_UNMAP:
		return r->xcopy_bytes;
	case COST_VERIFY:
		return r->bytes > r->xcopy_bytes ? r->bytes : r->xcopy_bytes;
	case COST_READ:
	case COST_WRITE:
	case COST_CAW:
		return r->bytes;
	case COST_OTHER:
		break;
	}
	return 0;
}

void cost_service_of(const struct lunlab_profile *p, const struct cost_req *r, struct cost_service *s)
{
	memset(s, 0, sizeof(*s));
	const struct cost_params *c = p ? p->cost_params : NULL;
	if (!p || !p->modeled || !c)
		return;
	uint64_t covered = covered_bytes(r);
	s->entries = p->dedup_block ? div_up(covered, p->dedup_block) : 0;
	s->cpu_work_ns = c->cpu_cmd_ns + s->entries * c->cpu_entry_ns + muldiv(r->bytes, c->cpu_mib_ns, MIB);
	if (r->kind == COST_XCOPY && r->xcopy_segments > 1)
		s->cpu_work_ns += (uint64_t)(r->xcopy_segments - 1) * c->cpu_segment_ns;
	s->cpu_ns = div_up(s->cpu_work_ns, c->cores);
	if (updates_map(r->kind))
		s->journal_ns = c->journal_cmd_ns + s->entries * c->journal_entry_ns;
	if (c->frontend_mb_s)
		s->frontend_ns = muldiv(r->bytes, 1000, c->frontend_mb_s);
	uint64_t be = 0;
	if (r->kind == COST_READ || r->kind == COST_VERIFY) {
		be = covered;
	} else if (r->kind == COST_WRITE || r->kind == COST_CAW) {
		uint64_t saved = r->dedup_hits * p->dedup_block;
		be = r->bytes > saved ? r->bytes - saved : 0;
	}
	if (c->backend_mb_s)
		s->backend_ns = muldiv(be, 1000, c->backend_mb_s);
	s->fixed_ns = c->fixed_latency_ns;
	s->host_turnaround_ns = c->host_turnaround_ns;
	if (r->kind == COST_XCOPY)
		s->host_turnaround_ns += muldiv(covered, c->host_turnaround_ns_per_mib, MIB);
}

/* ---- telemetry ---- */

static void window_close(struct telemetry_state *t, struct window *w)
{
	if (w->idx < 0)
		return;
	if (w->lat_cnt && w->lat_sum / w->lat_cnt > t->peak_latency)
		t->peak_latency = w->lat_sum / w->lat_cnt;
	if (w->busy > t->peak_busy)
		t->peak_busy = w->busy;
}

/* The live window for modeled time ts, or NULL when it has already been closed. */
static struct window *window_at(struct telemetry_state *t, uint64_t ts)
{
	int64_t idx = ts > t->first_arrival ? (int64_t)((ts - t->first_arrival) / WINDOW_NS) : 0;
	struct window *w = &t->win[idx % NWIN];
	if (w->idx == idx)
		return w;
	if (w->idx > idx)
		return NULL; /* far in the past: its slot holds a newer window */
	window_close(t, w);
	memset(w, 0, sizeof(*w));
	w->idx = idx;
	return w;
}

static void telemetry_reset(struct telemetry_state *t)
{
	memset(t, 0, sizeof(*t));
	for (unsigned i = 0; i < NWIN; i++)
		t->win[i].idx = -1;
}

/* CPU busy of the interval [start, end) on the pooled cores, spread over the windows. */
static void account_busy(struct telemetry_state *t, uint64_t start, uint64_t end, uint64_t work)
{
	if (!work)
		return;
	if (start < t->first_arrival)
		start = t->first_arrival;
	if (end <= start) {
		struct window *w = window_at(t, start);
		if (w)
			w->busy += (double)work;
		return;
	}
	double per_ns = (double)work / (double)(end - start);
	uint64_t a = start;
	while (a < end) {
		uint64_t wend = t->first_arrival + ((a - t->first_arrival) / WINDOW_NS + 1) * WINDOW_NS;
		uint64_t b = wend < end ? wend : end;
		struct window *w = window_at(t, a);
		if (w)
			w->busy += per_ns * (double)(b - a);
		a = b;
	}
}

/* The never-reset totals /metrics exports (cost_model_totals). */
static void account_totals(struct cost_model *m, const struct cost_result *res)
{
	struct cost_totals *o = &m->totals;

	if (!m->totals_started) {
		m->totals_started = true;
		m->totals_first = res->arrival_ns;
	}
	if (res->completion_ns > m->totals_last)
		m->totals_last = res->completion_ns;
	o->commands++;
	o->cpu_ns += res->cpu_ns;
	o->latency_sum_ns += res->latency_ns;
	o->latency_buckets[lunlab_lat_bucket(res->latency_ns)]++;
}

static void account(struct cost_model *m, const struct cost_req *r, const struct cost_result *res,
		    uint64_t cpu_start, uint64_t cpu_end)
{
	struct telemetry_state *t = &m->t;
	account_totals(m, res);
	if (!t->started) {
		t->started = true;
		t->first_arrival = res->arrival_ns;
	}
	t->commands++;
	t->busy += res->cpu_ns;
	t->turnaround += res->next_arrival_ns - res->completion_ns;
	if (res->completion_ns > t->last_completion)
		t->last_completion = res->completion_ns;
	if (res->latency_ns > t->max_latency)
		t->max_latency = res->latency_ns;
	uint64_t us = res->latency_ns / 1000;
	unsigned h = 63u - (unsigned)__builtin_clzll(us + 1);
	t->hist[h > 31 ? 31 : h]++;
	if (r->kind != COST_OTHER) {
		uint64_t size = covered_bytes(r);
		if (r->kind == COST_CAW || size == 0)
			size = r->bytes;
		unsigned b = cost_bucket_of(size);
		if (r->kind == COST_XCOPY && m->cp && m->cp->xcopy_bucket == XCOPY_BUCKET_GT1MB)
			b = COST_BUCKETS - 1;
		t->bucket_ops[b]++;
		t->bucket_bytes[b] += size;
		t->bucket_latency[b] += res->latency_ns;
	}
	struct window *w = window_at(t, res->completion_ns);
	if (w) {
		w->lat_sum += res->latency_ns;
		w->lat_cnt++;
	}
	account_busy(t, cpu_start, cpu_end, res->cpu_ns);
}

/* ---- virtual clock ---- */

/* Restore the heap below the root after its value grew. */
static void vheap_sift_down(uint64_t *h, unsigned n)
{
	unsigned i = 0;
	for (;;) {
		unsigned l = 2 * i + 1, r = l + 1, min = i;
		if (l < n && h[l] < h[min])
			min = l;
		if (r < n && h[r] < h[min])
			min = r;
		if (min == i)
			return;
		uint64_t t = h[i];
		h[i] = h[min];
		h[min] = t;
		i = min;
	}
}

/* Modeled arrival of the next command: the stream free earliest sends it.  Commands that
 * neither move nor map data (INQUIRY, LOG SENSE, ...) are the host looking, not a stream's
 * work: they arrive at the front and hold no stream. */
static uint64_t virtual_arrival_locked(struct cost_model *m, enum cost_kind kind)
{
	uint64_t arrival = kind == COST_OTHER ? m->vfront : m->vfree[0];
	if (arrival > m->vfront)
		m->vfront = arrival;
	return arrival;
}

/* The stream that sent the last command is free again at next_ns. */
static void virtual_release_locked(struct cost_model *m, enum cost_kind kind, uint64_t next_ns)
{
	if (kind == COST_OTHER)
		return;
	m->vfree[0] = next_ns;
	vheap_sift_down(m->vfree, m->vstreams);
}

/* ---- queueing ---- */

static uint64_t serve(uint64_t *free_at, uint64_t arrival, uint64_t svc, uint64_t *start)
{
	uint64_t s = *free_at > arrival ? *free_at : arrival;
	*free_at = s + svc;
	if (start)
		*start = s;
	return s + svc;
}

/* Caller holds m->mu. */
static void charge_locked(struct cost_model *m, const struct cost_req *r, uint64_t arrival,
			  struct cost_result *res)
{
	struct cost_service s;
	cost_service_of(m->p, r, &s);
	memset(res, 0, sizeof(*res));
	res->arrival_ns = arrival;
	uint64_t done = arrival, cpu_start = arrival, cpu_end = arrival;
	if (m->cp) {
		if (s.cpu_ns) {
			cpu_end = serve(&m->cpu_free, arrival, s.cpu_ns, &cpu_start);
			done = cpu_end;
		}
		uint64_t e;
		if (s.journal_ns && (e = serve(&m->journal_free, arrival, s.journal_ns, NULL)) > done)
			done = e;
		if (s.frontend_ns && (e = serve(&m->frontend_free, arrival, s.frontend_ns, NULL)) > done)
			done = e;
		if (s.backend_ns && (e = serve(&m->backend_free, arrival, s.backend_ns, NULL)) > done)
			done = e;
		res->latency_ns = done - arrival + s.fixed_ns;
		res->cpu_ns = s.cpu_work_ns;
		m->t.journal_busy += s.journal_ns;
		m->t.frontend_busy += s.frontend_ns;
		m->t.backend_busy += s.backend_ns;
	}
	res->completion_ns = arrival + res->latency_ns;
	res->next_arrival_ns = res->completion_ns + s.host_turnaround_ns;
	account(m, r, res, cpu_start, cpu_end);
}

static bool lock_free(const struct cost_model *m) { return !m->cp && !m->vstreams; }

/* An unmodeled command arriving at arrival (ns of the model's clock): no
 * queue, latency 0; the telemetry account() would keep, in atomics. */
static void charge_unmodeled(struct cost_model *m, const struct cost_req *r, uint64_t arrival,
			     struct cost_result *out)
{
	uint64_t last = atomic_load_explicit(&m->fast.last, memory_order_relaxed);
	while (arrival > last &&
	       !atomic_compare_exchange_weak_explicit(&m->fast.last, &last, arrival, memory_order_relaxed,
						       memory_order_relaxed))
		;
	atomic_fetch_add_explicit(&m->fast.commands, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&m->fast.commands_ever, 1, memory_order_relaxed);
	if (r->kind != COST_OTHER) {
		uint64_t size = covered_bytes(r);
		if (r->kind == COST_CAW || size == 0)
			size = r->bytes;
		unsigned b = cost_bucket_of(size);
		atomic_fetch_add_explicit(&m->fast.bucket_ops[b], 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&m->fast.bucket_bytes[b], size, memory_order_relaxed);
	}
	if (out) {
		memset(out, 0, sizeof(*out));
		out->arrival_ns = out->completion_ns = out->next_arrival_ns = arrival;
	}
}

/* The real clock of a lock-free model: ns since its first command. */
static uint64_t unmodeled_arrival(struct cost_model *m, uint64_t now_ns)
{
	uint64_t t0 = atomic_load_explicit(&m->fast.t0, memory_order_relaxed), none = 0;
	if (!t0)
		t0 = atomic_compare_exchange_strong(&m->fast.t0, &none, now_ns + 1) ? now_ns + 1 : none;
	return now_ns + 1 > t0 ? now_ns + 1 - t0 : 0;
}

void cost_model_charge_at(struct cost_model *m, const struct cost_req *r, uint64_t arrival_ns,
			  struct cost_result *out)
{
	struct cost_result res;
	if (lock_free(m)) {
		charge_unmodeled(m, r, arrival_ns, out);
		return;
	}
	pthread_mutex_lock(&m->mu);
	charge_locked(m, r, arrival_ns, &res);
	pthread_mutex_unlock(&m->mu);
	if (out)
		*out = res;
}

uint64_t cost_model_charge_ex(struct cost_model *m, const struct cost_req *r, uint64_t now_ns,
			      struct cost_result *out)
{
	struct cost_result res;
	uint64_t deadline = now_ns;
	if (lock_free(m)) {
		charge_unmodeled(m, r, unmodeled_arrival(m, now_ns), out);
		return now_ns;
	}
	pthread_mutex_lock(&m->mu);
	if (m->vs) {
		/* work no session sent (a snapshot through the array-control interface):
		 * the host looking, at the front */
		charge_locked(m, r, m->vfront, &res);
		pthread_mutex_unlock(&m->mu);
		if (out)
			*out = res;
		return now_ns;
	}
	if (m->vstreams) {
		charge_locked(m, r, virtual_arrival_locked(m, r->kind), &res);
		virtual_release_locked(m, r->kind, res.next_arrival_ns);
		pthread_mutex_unlock(&m->mu);
		if (out)
			*out = res;
		return now_ns; /* never held: the host's time is modeled, not waited for */
	}
	if (!m->clock_started) {
		m->clock_started = true;
		m->t0_real = now_ns;
	}
	/* Modeled time runs 1/scale as fast as real time; unpaced (0) maps 1:1 so the
	 * telemetry still means something about the offered load. */
	uint64_t real = now_ns > m->t0_real ? now_ns - m->t0_real : 0;
	uint64_t arrival = m->scale > 0 ? (uint64_t)((double)real / m->scale) : real;
	charge_locked(m, r, arrival, &res);
	pthread_mutex_unlock(&m->mu);
	if (m->cp && m->scale > 0)
		deadline = now_ns + (uint64_t)llround((double)(res.next_arrival_ns - res.arrival_ns) * m->scale);
	if (out)
		*out = res;
	return deadline;
}

uint64_t cost_model_charge(struct cost_model *m, const struct cost_req *r, uint64_t now_ns)
{
	return cost_model_charge_ex(m, r, now_ns, NULL);
}

/* ---- lifetime ---- */

static struct cost_model *model_alloc(const struct lunlab_profile *p, double time_scale)
{
	struct cost_model *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	pthread_mutex_init(&m->mu, NULL);
	m->p = p;
	m->cp = p && p->modeled ? p->cost_params : NULL;
	m->scale = time_scale > 0 && isfinite(time_scale) ? time_scale : 0;
	m->vstreams = cost_time_virtual_streams(time_scale);
	if (m->vstreams && !(m->vfree = calloc(m->vstreams, sizeof(*m->vfree)))) {
		free(m);
		return NULL;
	}
	m->refs = 1;
	telemetry_reset(&m->t);
	return m;
}

struct cost_model *cost_model_new(const struct lunlab_profile *p, double time_scale)
{
	return model_alloc(p, time_scale);
}

struct cost_model *cost_model_get(const char *array_name, const struct lunlab_profile *p, double time_scale)
{
	pthread_mutex_lock(&registry_lock);
	struct cost_model *m;
	for (m = registry; m; m = m->next)
		if (!strcmp(m->name, array_name ? array_name : "")) {
			/* The first LU of an array fixes its profile and time scale. */
			m->refs++;
			pthread_mutex_unlock(&registry_lock);
			return m;
		}
	m = model_alloc(p, time_scale);
	if (m) {
		snprintf(m->name, sizeof(m->name), "%s", array_name ? array_name : "");
		m->registered = true;
		m->next = registry;
		registry = m;
	}
	pthread_mutex_unlock(&registry_lock);
	return m;
}

struct cost_model *cost_model_find(const char *array_name)
{
	struct cost_model *m;

	pthread_mutex_lock(&registry_lock);
	for (m = registry; m; m = m->next)
		if (!strcmp(m->name, array_name ? array_name : "")) {
			m->refs++;
			break;
		}
	pthread_mutex_unlock(&registry_lock);
	return m;
}

void cost_model_put(struct cost_model *m)
{
	if (!m)
		return;
	pthread_mutex_lock(&registry_lock);
	if (--m->refs) {
		pthread_mutex_unlock(&registry_lock);
		return;
	}
	if (m->registered)
		for (struct cost_model **pp = &registry; *pp; pp = &(*pp)->next)
			if (*pp == m) {
				*pp = m->next;
				break;
			}
	pthread_mutex_unlock(&registry_lock);
	pthread_mutex_destroy(&m->mu);
	vsess_free(m->vs);
	free(m->vfree);
	free(m);
}

static void fast_telemetry(struct cost_model *m, struct cost_telemetry *out)
{
	out->commands = atomic_load(&m->fast.commands);
	out->modeled_elapsed_ns = atomic_load(&m->fast.last);
	out->latency_hist[0] = out->commands;
	for (unsigned b = 0; b < COST_BUCKETS; b++) {
		out->bucket_ops[b] = atomic_load(&m->fast.bucket_ops[b]);
		out->bucket_bytes[b] = atomic_load(&m->fast.bucket_bytes[b]);
	}
	out->time_scale = m->scale;
}

static void fast_reset(struct cost_model *m)
{
	atomic_store(&m->fast.t0, 0);
	atomic_store(&m->fast.last, 0);
	atomic_store(&m->fast.commands, 0);
	for (unsigned b = 0; b < COST_BUCKETS; b++) {
		atomic_store(&m->fast.bucket_ops[b], 0);
		atomic_store(&m->fast.bucket_bytes[b], 0);
	}
}

void cost_model_note_fault_delay(struct cost_model *m, uint64_t ns)
{
	if (m && ns)
		atomic_fetch_add(&m->fault_delay, ns);
}

/* ---- one stream per initiator session (vsessions.h) ---- */

/* Charge every waiting command whose turn has come, in modeled arrival order.  force: a
 * flush, everything waiting.  Caller holds m->mu. */
static void sessions_drain_locked(struct cost_model *m, bool force)
{
	uint64_t at;
	int i;

	while ((i = vsess_next(m->vs, force, &at)) >= 0) {
		struct vsess_cmd c;
		struct cost_result res;
		vsess_pop(m->vs, i, &c);
		charge_locked(m, &c.req, at, &res);
		if (at > m->vfront)
			m->vfront = at;
		vsess_charged(m->vs, i, covered_bytes(&c.req) ? covered_bytes(&c.req) : c.req.bytes, &res);
		if (c.sink)
			c.sink(c.ctx, &c.req, &res);
	}
}

/* Everything waiting is charged, and every session starts again at the front. */
static void sessions_flush_locked(struct cost_model *m)
{
	if (!m->vs)
		return;
	sessions_drain_locked(m, true);
	vsess_barrier(m->vs, m->vfront);
}

int cost_model_use_sessions(struct cost_model *m)
{
	pthread_mutex_lock(&m->mu);
	int rc = 0;
	if (!m->vstreams)
		rc = -1;
	else if (!m->vs && !(m->vs = vsess_new()))
		rc = -3;
	else
		m->vpinned = true; /* the host is the sessions: LOG SELECT 000Ah may not resize it */
	pthread_mutex_unlock(&m->mu);
	return rc;
}

bool cost_model_sessions(struct cost_model *m)
{
	pthread_mutex_lock(&m->mu);
	bool on = m->vs != NULL;
	pthread_mutex_unlock(&m->mu);
	return on;
}

void cost_model_charge_session(struct cost_model *m, const struct cost_req *r, uint64_t nexus, vsess_sink_fn sink,
			       void *ctx)
{
	struct cost_result res;

	pthread_mutex_lock(&m->mu);
	int i = vsess_note(m->vs, nexus, m->vfront);
	struct vsess_cmd c = { *r, sink, ctx };
	if (r->kind != COST_OTHER && i >= 0 && vsess_push(m->vs, i, &c) == 0) {
		sessions_drain_locked(m, false);
		pthread_mutex_unlock(&m->mu);
		return;
	}
	/* the host looking (INQUIRY, LOG SENSE...): at the front, holding no stream; or a
	 * command the table had no room for, charged unordered */
	charge_locked(m, r, m->vfront, &res);
	pthread_mutex_unlock(&m->mu);
	if (sink)
		sink(ctx, r, &res);
}

void cost_model_flush(struct cost_model *m)
{
	pthread_mutex_lock(&m->mu);
	sessions_flush_locked(m);
	pthread_mutex_unlock(&m->mu);
}

unsigned cost_model_session_stats(struct cost_model *m, struct vsess_stats *out, unsigned max, uint64_t *overflows)
{
	unsigned n = 0;

	pthread_mutex_lock(&m->mu);
	*overflows = 0;
	if (m->vs) {
		sessions_flush_locked(m);
		n = vsess_stats(m->vs, out, max);
		*overflows = vsess_overflows(m->vs);
	}
	pthread_mutex_unlock(&m->mu);
	return n;
}

void cost_model_telemetry(struct cost_model *m, struct cost_telemetry *out)
{
	memset(out, 0, sizeof(*out));
	out->fault_delay_ns = atomic_load(&m->fault_delay);
	if (lock_free(m)) {
		fast_telemetry(m, out);
		return;
	}
	pthread_mutex_lock(&m->mu);
	sessions_flush_locked(m); /* what waits for its turn is part of the figures */
	const struct telemetry_state *t = &m->t;
	out->commands = t->commands;
	out->turnaround_ns = t->turnaround;
	out->journal_busy_ns = t->journal_busy;
	out->frontend_busy_ns = t->frontend_busy;
	out->backend_busy_ns = t->backend_busy;
	out->modeled_elapsed_ns = t->started ? t->last_completion - t->first_arrival : 0;
	out->modeled_busy_ns = t->busy;
	out->cores = m->cp ? m->cp->cores : 0;
	out->max_latency_ns = t->max_latency;
	uint64_t peak_lat = t->peak_latency;
	double peak_busy = t->peak_busy;
	for (unsigned i = 0; i < NWIN; i++) {
		const struct window *w = &t->win[i];
		if (w->idx < 0)
			continue;
		if (w->lat_cnt && w->lat_sum / w->lat_cnt > peak_lat)
			peak_lat = w->lat_sum / w->lat_cnt;
		if (w->busy > peak_busy)
			peak_busy = w->busy;
	}
	out->peak_latency_ns = peak_lat;
	if (out->cores) {
		/* A run shorter than one window is judged over its own length. */
		double span = out->modeled_elapsed_ns && out->modeled_elapsed_ns < WINDOW_NS
				      ? (double)out->modeled_elapsed_ns : (double)WINDOW_NS;
		double pm = peak_busy * 1000.0 / ((double)out->cores * span);
		out->peak_cpu_permille = pm > 1000.0 ? 1000 : (uint32_t)llround(pm);
	}
	memcpy(out->latency_hist, t->hist, sizeof(out->latency_hist));
	memcpy(out->bucket_ops, t->bucket_ops, sizeof(out->bucket_ops));
	memcpy(out->bucket_bytes, t->bucket_bytes, sizeof(out->bucket_bytes));
	memcpy(out->bucket_latency_ns, t->bucket_latency, sizeof(out->bucket_latency_ns));
	out->time_scale = m->scale;
	out->virtual_streams = m->vstreams;
	pthread_mutex_unlock(&m->mu);
}

/* Virtual clock: the host starts over from an idle array: the queued work is done by the
 * new front, and every stream is free at it.  Caller holds m->mu. */
static void virtual_idle_locked(struct cost_model *m)
{
	uint64_t idle = m->vfront;
	uint64_t busy[] = { m->cpu_free, m->journal_free, m->frontend_free, m->backend_free };
	for (unsigned i = 0; i < sizeof(busy) / sizeof(busy[0]); i++)
		if (busy[i] > idle)
			idle = busy[i];
	m->vfront = idle;
	for (unsigned i = 0; i < m->vstreams; i++)
		m->vfree[i] = idle;
}

void cost_model_totals(struct cost_model *m, struct cost_totals *out)
{
	if (lock_free(m)) {
		/* unmodeled: every latency and every CPU charge is 0 */
		memset(out, 0, sizeof(*out));
		out->commands = atomic_load(&m->fast.commands_ever);
		out->latency_buckets[lunlab_lat_bucket(0)] = out->commands;
		out->time_scale = m->scale;
		return;
	}
	pthread_mutex_lock(&m->mu);
	*out = m->totals;
	out->modeled_elapsed_ns = m->totals_started && m->totals_last > m->totals_first
					  ? m->totals_last - m->totals_first : 0;
	out->cores = m->cp ? m->cp->cores : 0;
	out->time_scale = m->scale;
	out->virtual_streams = m->vstreams;
	pthread_mutex_unlock(&m->mu);
}

void cost_model_reset_telemetry(struct cost_model *m)
{
	atomic_store(&m->fault_delay, 0);
	if (lock_free(m)) {
		fast_reset(m);
		return;
	}
	pthread_mutex_lock(&m->mu);
	sessions_flush_locked(m);
	telemetry_reset(&m->t);
	if (m->vstreams)
		virtual_idle_locked(m); /* what follows is measured from a clean start */
	if (m->vs) {
		vsess_barrier(m->vs, m->vfront);
		vsess_reset_stats(m->vs);
	}
	pthread_mutex_unlock(&m->mu);
}

int cost_model_set_virtual_streams(struct cost_model *m, unsigned n)
{
	if (n < 1 || n > COST_VIRTUAL_STREAMS_MAX)
		return -1;
	pthread_mutex_lock(&m->mu);
	int rc = 0;
	if (!m->vstreams) {
		rc = -1;
	} else if (m->vpinned) {
		rc = -2;
	} else if (n != m->vstreams) {
		uint64_t *f = realloc(m->vfree, n * sizeof(*f));
		if (!f) {
			rc = -3;
		} else {
			m->vfree = f;
			m->vstreams = n;
			virtual_idle_locked(m);
		}
	}
	pthread_mutex_unlock(&m->mu);
	return rc;
}

void cost_model_pin_virtual_streams(struct cost_model *m)
{
	pthread_mutex_lock(&m->mu);
	m->vpinned = true;
	pthread_mutex_unlock(&m->mu);
}

bool cost_model_virtual_streams_pinned(struct cost_model *m)
{
	pthread_mutex_lock(&m->mu);
	bool p = m->vpinned;
	pthread_mutex_unlock(&m->mu);
	return p;
}
