/* vsessions.c — one modeled host stream per initiator session, and the order their
 * commands are charged in (vsessions.h).
 *
 * Sessions live in one array (never more than VSESS_MAX), found by nexus through an
 * open-addressing index rebuilt when a slot is reused.  The sessions waited for are also in a
 * min-heap by (free, nexus), so the next command is the heap's top: O(log sessions) per
 * command.  A flush scans (it is rare).  Nothing here runs unless the LU asked for this host. */
#include "models/vsessions.h"

#include <stdlib.h>
#include <string.h>

#define INDEX_SIZE (2u * VSESS_MAX) /* power of two */

struct sess {
	uint64_t nexus;
	bool waited;            /* known: its next command could come earlier than another's */
	bool seen;              /* sent a command since the last barrier */
	uint64_t free_ns;       /* when its stream sends its next command */
	int hpos;               /* place in the heap while waited, else -1 */
	struct vsess_cmd *q;    /* waiting commands, a ring */
	unsigned head, n, cap;
	struct vsess_stats st;
};

struct vsessions {
	struct sess *s;
	unsigned n;             /* used entries of s */
	int index[INDEX_SIZE];  /* -1: empty */
	int heap[VSESS_MAX];    /* the sessions waited for, earliest (free, nexus) first */
	unsigned hn;
	size_t waiting;
	uint64_t overflows;
	bool charged;           /* a data command was charged since the last barrier */
};

static unsigned slot_of(uint64_t nexus)
{
	return (unsigned)((nexus * 0x9e3779b97f4a7c15ull) >> 40) & (INDEX_SIZE - 1);
}

static void index_put(struct vsessions *v, int i)
{
	unsigned k = slot_of(v->s[i].nexus);
	while (v->index[k] >= 0)
		k = (k + 1) & (INDEX_SIZE - 1);
	v->index[k] = i;
}

static int index_find(const struct vsessions *v, uint64_t nexus)
{
	for (unsigned k = slot_of(nexus);; k = (k + 1) & (INDEX_SIZE - 1)) {
		int i = v->index[k];
		if (i < 0 || v->s[i].nexus == nexus)
			return i;
	}
}

/* (free, nexus) of a before b's */
static bool earlier(const struct sess *a, const struct sess *b)
{
	return a->free_ns < b->free_ns || (a->free_ns == b->free_ns && a->nexus < b->nexus);
}

static void heap_set(struct vsessions *v, unsigned k, int i)
{
	v->heap[k] = i;
	v->s[i].hpos = (int)k;
}

static void heap_up(struct vsessions *v, unsigned k)
{
	int i = v->heap[k];
	while (k > 0 && earlier(&v->s[i], &v->s[v->heap[(k - 1) / 2]])) {
		heap_set(v, k, v->heap[(k - 1) / 2]);
		k = (k - 1) / 2;
	}
	heap_set(v, k, i);
}

static void heap_down(struct vsessions *v, unsigned k)
{
	int i = v->heap[k];
	for (;;) {
		unsigned c = 2 * k + 1;
		if (c >= v->hn)
			break;
		if (c + 1 < v->hn && earlier(&v->s[v->heap[c + 1]], &v->s[v->heap[c]]))
			c++;
		if (!earlier(&v->s[v->heap[c]], &v->s[i]))
			break;
		heap_set(v, k, v->heap[c]);
		k = c;
	}
	heap_set(v, k, i);
}

/* Every session waited for, in a new heap (after a barrier moved or dropped them). */
static void heap_rebuild(struct vsessions *v)
{
	v->hn = 0;
	for (unsigned i = 0; i < v->n; i++) {
		v->s[i].hpos = -1;
		if (v->s[i].waited)
			heap_set(v, v->hn++, (int)i);
	}
	for (unsigned k = v->hn / 2; k-- > 0;)
		heap_down(v, k);
}

struct vsessions *vsess_new(void)
{
	struct vsessions *v = calloc(1, sizeof(*v));
	if (!v)
		return NULL;
	v->s = calloc(VSESS_MAX, sizeof(*v->s));
	if (!v->s) {
		free(v);
		return NULL;
	}
	memset(v->index, 0xff, sizeof(v->index));
	return v;
}

void vsess_free(struct vsessions *v)
{
	if (!v)
		return;
	for (unsigned i = 0; i < v->n; i++)
		free(v->s[i].q);
	free(v->s);
	free(v);
}

/* A slot for a new session: a free one, else one that is neither waited for nor has
 * anything waiting (its figures go with it). */
static int new_slot(struct vsessions *v)
{
	if (v->n < VSESS_MAX)
		return (int)v->n++;
	for (unsigned i = 0; i < v->n; i++)
		if (!v->s[i].waited && !v->s[i].n) {
			free(v->s[i].q);
			memset(&v->s[i], 0, sizeof(v->s[i]));
			v->s[i].nexus = UINT64_MAX; /* out of the index while it is rebuilt */
			v->s[i].hpos = -1;
			memset(v->index, 0xff, sizeof(v->index));
			for (unsigned j = 0; j < v->n; j++)
				if (j != i)
					index_put(v, (int)j);
			return (int)i;
		}
	return -1;
}

int vsess_note(struct vsessions *v, uint64_t nexus, uint64_t front_ns)
{
	int i = index_find(v, nexus);
	if (i < 0) {
		if ((i = new_slot(v)) < 0) {
			v->overflows++; /* its command is charged out of order */
			return -1;
		}
		v->s[i].nexus = nexus;
		v->s[i].hpos = -1;
		index_put(v, i);
	}
	struct sess *s = &v->s[i];
	if (!s->waited) {
		s->waited = true;
		if (s->free_ns < front_ns)
			s->free_ns = front_ns; /* it joins now, not in the modeled past */
		heap_set(v, v->hn++, i);
		heap_up(v, v->hn - 1);
	}
	s->seen = true;
	return i;
}

int vsess_push(struct vsessions *v, int i, const struct vsess_cmd *c)
{
	struct sess *s = &v->s[i];
	if (s->n == s->cap) {
		unsigned cap = s->cap ? 2 * s->cap : 4;
		struct vsess_cmd *q = malloc(cap * sizeof(*q));
		if (!q)
			return -1;
		for (unsigned k = 0; k < s->n; k++)
			q[k] = s->q[(s->head + k) % s->cap];
		free(s->q);
		s->q = q;
		s->head = 0;
		s->cap = cap;
	}
	s->q[(s->head + s->n) % s->cap] = *c;
	s->n++;
	v->waiting++;
	return 0;
}

/* The session whose command is next.  Not forced: the heap's top, if it has one waiting (if
 * not, it might yet send the command that comes first). */
static int choose(const struct vsessions *v, bool force)
{
	if (!force)
		return v->hn && v->s[v->heap[0]].n ? v->heap[0] : -1;
	int best = -1;
	for (unsigned i = 0; i < v->n; i++) {
		const struct sess *s = &v->s[i];
		if (s->n && (best < 0 || earlier(s, &v->s[best])))
			best = (int)i;
	}
	return best;
}

int vsess_next(struct vsessions *v, bool force, uint64_t *arrival_ns)
{
	int i = choose(v, force);
	if (i < 0 && !force && v->waiting > VSESS_WAITING_MAX) {
		i = choose(v, true);
		v->overflows++;
	}
	if (i >= 0)
		*arrival_ns = v->s[i].free_ns;
	return i;
}

void vsess_pop(struct vsessions *v, int i, struct vsess_cmd *out)
{
	struct sess *s = &v->s[i];
	*out = s->q[s->head];
	s->head = (s->head + 1) % s->cap;
	s->n--;
	v->waiting--;
}

void vsess_charged(struct vsessions *v, int i, uint64_t covered_bytes, const struct cost_result *res)
{
	struct sess *s = &v->s[i];
	struct vsess_stats *st = &s->st;
	if (!st->commands) {
		st->first_bytes = covered_bytes;
		st->first_arrival_ns = res->arrival_ns;
		st->first_completion_ns = res->completion_ns;
	}
	st->commands++;
	st->bytes += covered_bytes;
	if (res->completion_ns > st->last_completion_ns)
		st->last_completion_ns = res->completion_ns;
	s->free_ns = res->next_arrival_ns;
	if (s->hpos >= 0)
		heap_down(v, (unsigned)s->hpos); /* its time only grows */
	v->charged = true;
}

void vsess_barrier(struct vsessions *v, uint64_t front_ns)
{
	/* Only an interval in which data moved tells an idle session from a live one: two
	 * reads of the telemetry back to back (page 31h, then 32h) drop nobody. */
	for (unsigned i = 0; i < v->n; i++) {
		struct sess *s = &v->s[i];
		if (!s->seen && v->charged)
			s->waited = false;
		s->seen = false;
		if (s->free_ns < front_ns)
			s->free_ns = front_ns;
	}
	v->charged = false;
	heap_rebuild(v);
}

void vsess_reset_stats(struct vsessions *v)
{
	for (unsigned i = 0; i < v->n; i++) {
		uint64_t nexus = v->s[i].st.nexus;
		memset(&v->s[i].st, 0, sizeof(v->s[i].st));
		v->s[i].st.nexus = nexus;
	}
	v->overflows = 0;
}

size_t vsess_waiting(const struct vsessions *v)
{
	return v->waiting;
}

uint64_t vsess_overflows(const struct vsessions *v)
{
	return v->overflows;
}

static int by_nexus(const void *a, const void *b)
{
	const struct vsess_stats *x = a, *y = b;
	return x->nexus < y->nexus ? -1 : x->nexus > y->nexus;
}

unsigned vsess_stats(const struct vsessions *v, struct vsess_stats *out, unsigned max)
{
	unsigned n = 0;
	for (unsigned i = 0; i < v->n; i++) {
		if (!v->s[i].st.commands)
			continue;
		if (n < max) {
			out[n] = v->s[i].st;
			out[n].nexus = v->s[i].nexus;
		}
		n++;
	}
	if (out && n > 1)
		qsort(out, n < max ? n : max, sizeof(*out), by_nexus);
	return n;
}
