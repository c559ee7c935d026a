/* fault_rules.c — the rule set (fault_rules.h): add, remove, list, and the
 * per-command verdict.  One mutex covers the set; the hot path without rules
 * is a single atomic load.  Each rule owns a splitmix64 sequence seeded with
 * its seed=, drawn only when it needs a random decision, so the k-th match
 * of a rule decides the same way in every run with the same seed. */
#include "target/lu/fault_rules.h"
#include "lunlab/scsi_vocab.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

struct rule {
	unsigned id;
	struct fault_spec s;
	uint64_t added_ms;
	uint64_t matches, hits;
	uint64_t rng;
	bool spent;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct rule rules[FAULT_RULES_MAX];
static size_t nrules;
static unsigned next_id = 1;
static atomic_uint live; /* nrules, for the lock-free "no rules" test */
static uint64_t (*clock_fn)(void);
static uint64_t hit_totals[FAULT_ACTIONS]; /* under lock; never reset (fault_rules_hit_totals) */

static uint64_t real_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint64_t now_ms(void)
{
	return clock_fn ? clock_fn() : real_now_ms();
}

void fault_rules_set_clock(uint64_t (*fn)(void))
{
	clock_fn = fn;
}

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* uniform in [0, 1) with 53 bits */
static double uniform01(uint64_t *state)
{
	return (double)(splitmix64(state) >> 11) * 0x1.0p-53;
}

int fault_rules_add_spec(const struct fault_spec *s, char *err, size_t errlen)
{
	int id;

	pthread_mutex_lock(&lock);
	if (nrules == FAULT_RULES_MAX) {
		pthread_mutex_unlock(&lock);
		snprintf(err, errlen, "already %d fault rules (remove some first)", FAULT_RULES_MAX);
		return -1;
	}
	struct rule *r = &rules[nrules++];
	memset(r, 0, sizeof(*r));
	r->id = next_id++;
	r->s = *s;
	r->rng = s->seed;
	r->added_ms = now_ms();
	id = (int)r->id;
	atomic_store(&live, (unsigned)nrules);
	pthread_mutex_unlock(&lock);
	return id;
}

int fault_rules_add(const char *spec, char *err, size_t errlen)
{
	struct fault_spec s;

	if (!fault_spec_parse(spec, &s, err, errlen))
		return -1;
	return fault_rules_add_spec(&s, err, errlen);
}

int fault_rules_remove(unsigned id)
{
	int rc = -1;

	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < nrules; i++) {
		if (rules[i].id == id) {
			memmove(&rules[i], &rules[i + 1], (nrules - i - 1) * sizeof(rules[0]));
			nrules--;
			rc = 0;
			break;
		}
	}
	atomic_store(&live, (unsigned)nrules);
	pthread_mutex_unlock(&lock);
	return rc;
}

void fault_rules_clear(void)
{
	pthread_mutex_lock(&lock);
	nrules = 0; /* ids keep counting: an old id never names a new rule */
	atomic_store(&live, 0);
	pthread_mutex_unlock(&lock);
}

static bool window_over(const struct rule *r, uint64_t now)
{
	return r->s.has_window && now - r->added_ms >= r->s.window_end_ms;
}

static void info_of(const struct rule *r, struct fault_rule_info *out, uint64_t now)
{
	memset(out, 0, sizeof(*out));
	out->id = r->id;
	fault_spec_format(&r->s, out->spec, sizeof(out->spec));
	out->matches = r->matches;
	out->hits = r->hits;
	out->spent = r->spent || window_over(r, now);
	out->age_ms = now - r->added_ms;
}

size_t fault_rules_list(struct fault_rule_info *out, size_t max)
{
	size_t n;
	uint64_t now = now_ms();

	pthread_mutex_lock(&lock);
	n = nrules;
	for (size_t i = 0; i < n && i < max; i++)
		info_of(&rules[i], &out[i], now);
	pthread_mutex_unlock(&lock);
	return n;
}

bool fault_rules_get(unsigned id, struct fault_rule_info *out)
{
	bool found = false;
	uint64_t now = now_ms();

	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < nrules; i++) {
		if (rules[i].id == id) {
			info_of(&rules[i], out, now);
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(&lock);
	return found;
}

static bool op_fits(const struct fault_spec *s, const uint8_t *cdb, size_t cdb_len)
{
	switch (s->op) {
	case FAULT_OP_ANY:
		return !fault_cdb_exempt(cdb, cdb_len);
	case FAULT_OP_OPCODE:
		return cdb_len && cdb[0] == s->opcode;
	default:
		return fault_cdb_kind(cdb, cdb_len) == s->op;
	}
}

/* Does the command address a block of the rule's range?  *at: the first
 * such block (for a medium error's INFORMATION field). */
static bool lba_fits(const struct fault_spec *s, const struct fault_cmd *c, uint64_t *at)
{
	uint64_t lba, n, end;

	if (!s->has_lba) {
		if (fault_cdb_range(c->cdb, c->cdb_len, &lba, &n)) {
			*at = lba;
			return true;
		}
		*at = UINT64_MAX; /* no LBA to report */
		return true;
	}
	if (c->cdb_len && c->cdb[0] == SCSI_OP_UNMAP)
		return fault_unmap_overlaps(c->data, c->data_len, s->lba_first, s->lba_last, at);
	if (!fault_cdb_range(c->cdb, c->cdb_len, &lba, &n))
		return false; /* no blocks named: a range rule never matches it */
	end = n - 1 > UINT64_MAX - lba ? UINT64_MAX : lba + n - 1;
	if (lba > s->lba_last || end < s->lba_first)
		return false;
	*at = lba > s->lba_first ? lba : s->lba_first;
	return true;
}

static bool fits(const struct fault_spec *s, const struct fault_cmd *c, uint64_t *at)
{
	if (s->has_lun && c->lun != s->lun)
		return false;
	if (!op_fits(s, c->cdb, c->cdb_len))
		return false;
	if (s->initiator[0] && (!c->initiator || strcasecmp(s->initiator, c->initiator) != 0))
		return false;
	if (s->portal[0] && !((c->portal && strcmp(s->portal, c->portal) == 0) ||
			      (c->portal_adv && strcmp(s->portal, c->portal_adv) == 0)))
		return false;
	return lba_fits(s, c, at);
}

static uint64_t draw_delay(struct rule *r)
{
	const struct fault_spec *s = &r->s;
	double d;

	switch (s->delay_kind) {
	case FAULT_DELAY_UNIFORM:
		return s->delay_a_us + (uint64_t)(uniform01(&r->rng) * (double)(s->delay_b_us - s->delay_a_us + 1));
	case FAULT_DELAY_EXP:
		d = -(double)s->delay_a_us * log1p(-uniform01(&r->rng));
		return d >= (double)FAULT_DELAY_MAX_US ? FAULT_DELAY_MAX_US : (uint64_t)d;
	case FAULT_DELAY_FIXED:
	default:
		return s->delay_a_us;
	}
}

static void fill_hit(struct rule *r, uint64_t at, struct fault_hit *h)
{
	const struct fault_spec *s = &r->s;

	memset(h, 0, sizeof(*h));
	h->rule = r->id;
	h->first = r->hits == 1;
	h->action = s->action;
	h->has_sense = s->has_sense;
	h->key = s->key;
	h->asc = s->asc;
	h->ascq = s->ascq;
	h->status = s->status;
	h->drop_after = s->drop_after;
	h->xcopy_segments = s->xcopy_segments;
	h->lba_first = s->has_lba ? s->lba_first : 0;
	h->lba_last = s->has_lba ? s->lba_last : UINT64_MAX;
	if (s->action == FAULT_ACT_DELAY)
		h->delay_us = draw_delay(r);
	/* a medium error names the block that failed, as a disk does (Linux
	 * completes the blocks before it and fails only the rest) */
	if (s->action == FAULT_ACT_SENSE && s->key == SCSI_SK_MEDIUM_ERROR && at != UINT64_MAX) {
		h->has_info = true;
		h->info_lba = at;
	}
}

void fault_rules_hit_totals(uint64_t out[FAULT_ACTIONS])
{
	pthread_mutex_lock(&lock);
	memcpy(out, hit_totals, sizeof(hit_totals));
	pthread_mutex_unlock(&lock);
}

bool fault_rules_any(void)
{
	return atomic_load_explicit(&live, memory_order_relaxed) != 0;
}

bool fault_rules_check(const struct fault_cmd *c, struct fault_hit *hit)
{
	bool fired = false;
	uint64_t now;

	if (!atomic_load_explicit(&live, memory_order_relaxed))
		return false;
	now = now_ms();
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < nrules && !fired; i++) {
		struct rule *r = &rules[i];
		uint64_t at = UINT64_MAX;

		if (r->spent)
			continue;
		if (r->s.has_window) {
			uint64_t age = now - r->added_ms;
			if (age < r->s.window_start_ms)
				continue;
			if (age >= r->s.window_end_ms) {
				r->spent = true;
				continue;
			}
		}
		if (!fits(&r->s, c, &at))
			continue;
		r->matches++;
		if (r->matches % r->s.every != 0)
			continue;
		if (r->s.has_p && r->s.p < 1.0 && !(uniform01(&r->rng) < r->s.p))
			continue;
		r->hits++;
		hit_totals[r->s.action]++;
		if (r->s.count && r->hits >= r->s.count)
			r->spent = true;
		fill_hit(r, at, hit);
		fired = true;
	}
	pthread_mutex_unlock(&lock);
	return fired;
}
