/* space.c — one array's physical space (space.h): the block store's space
 * hooks (new / sized / freed blocks, reservations), capacity and the soft
 * threshold.
 *
 * Two counters: `used` (what the figures report) and `held` = used + what
 * commands have reserved.  A new block is refused when held + dedup_block
 * would pass the capacity; the check and the addition are one CAS on `held`,
 * so concurrent writers can never together overshoot.  All lock-free: the
 * hooks run under the store's shard locks. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "handlers/array/array_internal.h"
#include "lunlab/errf.h"

void space_init(struct space *s)
{
	atomic_init(&s->used, 0);
	atomic_init(&s->held, 0);
	atomic_init(&s->capacity, 0);
	atomic_init(&s->soft, 0);
	for (int i = 0; i < ARRAY_EVENTS; i++)
		atomic_init(&s->gen[i], 0);
	atomic_init(&s->above, false);
	pthread_mutex_init(&s->mu, NULL);
	s->cap_pinned = s->soft_pinned = false;
}

void space_fini(struct space *s) { pthread_mutex_destroy(&s->mu); }

/* Use must fall this far below the soft threshold before another crossing
 * counts: 1% of the capacity (at least one block), so a use that hovers at
 * the threshold (blocks counted at their worst case, then accounted lower)
 * does not raise a unit attention per block.  VPD B2 reports no percentage
 * (docs/accounting.md). */
static uint64_t rearm_margin(const struct array *a, uint64_t capacity)
{
	uint64_t m = capacity / 100;
	return m > a->p.dedup_block ? m : a->p.dedup_block;
}

/* After use grew: count a crossing of the soft threshold (once). */
static void check_rise(struct array *a)
{
	struct space *s = &a->space;
	uint64_t soft = atomic_load(&s->soft);

	if (!soft || atomic_load(&s->used) < soft || atomic_load(&s->above))
		return;
	bool no = false;
	if (atomic_compare_exchange_strong(&s->above, &no, true))
		atomic_fetch_add(&s->gen[ARRAY_EV_SOFT_THRESHOLD], 1);
}

/* After use fell: re-arm the threshold once use is clearly below it. */
static void check_fall(struct array *a)
{
	struct space *s = &a->space;
	uint64_t soft = atomic_load(&s->soft);

	if (!atomic_load(&s->above))
		return;
	uint64_t margin = rearm_margin(a, atomic_load(&s->capacity));
	if (!soft || atomic_load(&s->used) + margin < soft)
		atomic_store(&s->above, false);
}

/* Add n to held unless that passes the capacity. */
static int hold(struct array *a, uint64_t n)
{
	struct space *s = &a->space;
	uint64_t cur = atomic_load(&s->held);

	for (;;) {
		uint64_t cap = atomic_load(&s->capacity);
		if (cap && (cur + n < cur || cur + n > cap))
			return -ENOSPC;
		if (atomic_compare_exchange_weak(&s->held, &cur, cur + n))
			return 0;
	}
}

uint64_t space_headroom(void *ctx)
{
	struct space *s = &((struct array *)ctx)->space;
	uint64_t cap = atomic_load(&s->capacity), held = atomic_load(&s->held);
	uint64_t soft = atomic_load(&s->soft), used = atomic_load(&s->used);
	uint64_t room = UINT64_MAX;

	if (cap)
		room = cap > held ? cap - held : 0;
	/* below the soft threshold, the crossing (a unit attention) is near */
	if (soft && !atomic_load(&s->above) && soft - (used < soft ? used : soft) < room)
		room = used < soft ? soft - used : 0;
	return room;
}

/* ---- the block store's space hooks (block_store.h), ctx = the array ---- */

static int hook_new(void *ctx, uint32_t id, uint32_t bytes, struct bs_resv *r)
{
	struct array *a = ctx;
	struct space *s = &a->space;

	(void)id;
	if (r && r->unchecked) {
		atomic_fetch_add(&s->held, bytes);
	} else if (r && r->left >= bytes) {
		r->left -= bytes; /* already in held */
	} else {
		int rc = hold(a, bytes);
		if (rc)
			return rc;
	}
	atomic_fetch_add(&s->used, bytes);
	check_rise(a);
	return 0;
}

static void hook_sized(void *ctx, uint32_t id, uint32_t was, uint32_t now)
{
	struct array *a = ctx;
	struct space *s = &a->space;

	(void)id;
	if (now >= was)
		return;
	atomic_fetch_sub(&s->used, was - now);
	atomic_fetch_sub(&s->held, was - now);
	check_fall(a);
}

static void hook_freed(void *ctx, uint32_t id, uint32_t bytes)
{
	struct array *a = ctx;
	struct space *s = &a->space;

	(void)id;
	atomic_fetch_sub(&s->used, bytes);
	atomic_fetch_sub(&s->held, bytes);
	check_fall(a);
}

static int hook_reserve(void *ctx, uint64_t bytes)
{
	return hold(ctx, bytes);
}

static void hook_release(void *ctx, uint64_t bytes)
{
	struct array *a = ctx;

	atomic_fetch_sub(&a->space.held, bytes);
}

void space_attach(struct array *a)
{
	const struct bs_space_hooks h = {
		.ctx = a,
		.block_new = hook_new,
		.block_sized = hook_sized,
		.block_freed = hook_freed,
		.reserve = hook_reserve,
		.release = hook_release,
	};
	bs_set_space_hooks(a->bs, &h);
}

/* ---- settings and figures (array_admin.h) ---- */

void array_get_space(struct array *a, struct array_space *out)
{
	struct space *s = &a->space;
	uint64_t used = atomic_load(&s->used), held = atomic_load(&s->held);

	out->capacity_bytes = atomic_load(&s->capacity);
	out->soft_threshold_bytes = atomic_load(&s->soft);
	out->used_bytes = used;
	out->reserved_bytes = held > used ? held - used : 0;
}

uint64_t array_event_gen(struct array *a, enum array_event ev)
{
	return (unsigned)ev < ARRAY_EVENTS ? atomic_load(&a->space.gen[ev]) : 0;
}

/* Under s->mu: store new settings, count the change and re-evaluate the
 * threshold against the new values (a threshold lowered below the current
 * use is a crossing: the initiators learn that use is now above it). */
static void apply(struct array *a, uint64_t cap, uint64_t soft)
{
	struct space *s = &a->space;
	bool changed = atomic_load(&s->capacity) != cap || atomic_load(&s->soft) != soft;

	atomic_store(&s->capacity, cap);
	atomic_store(&s->soft, soft);
	if (changed)
		atomic_fetch_add(&s->gen[ARRAY_EV_PARAMS], 1);
	check_fall(a);
	check_rise(a);
}

static uint64_t percent_of(uint64_t cap, unsigned pct)
{
	return (uint64_t)((__uint128_t)cap * pct / 100);
}

void array_space_default(struct array *a, uint64_t capacity_bytes, unsigned soft_percent)
{
	struct space *s = &a->space;

	if (!capacity_bytes)
		return;
	pthread_mutex_lock(&s->mu);
	if (!atomic_load(&s->capacity))
		apply(a, capacity_bytes, percent_of(capacity_bytes, soft_percent > 100 ? 100 : soft_percent));
	pthread_mutex_unlock(&s->mu);
}

int array_space_keys(struct array *a, uint64_t capacity_bytes, int soft_percent, char **err)
{
	struct space *s = &a->space;
	int rc = 0;

	*err = NULL;
	if (!capacity_bytes && soft_percent < 0)
		return 0;
	pthread_mutex_lock(&s->mu);
	uint64_t cap = atomic_load(&s->capacity), soft = atomic_load(&s->soft);
	uint64_t used = atomic_load(&s->used);

	if (capacity_bytes && s->cap_pinned && capacity_bytes != cap) {
		*err = ll_strf("array_capacity %llu: array '%s' has array_capacity %llu (every LUN of an array "
			   "must give the same value, or none)",
			   (unsigned long long)capacity_bytes, a->name, (unsigned long long)cap);
		rc = -EINVAL;
		goto out;
	}
	if (capacity_bytes && capacity_bytes < used) {
		*err = ll_strf("array_capacity %llu: array '%s' already uses %llu bytes", (unsigned long long)capacity_bytes,
			   a->name, (unsigned long long)used);
		rc = -ENOSPC;
		goto out;
	}
	uint64_t new_cap = capacity_bytes ? capacity_bytes : cap;
	uint64_t new_soft = soft;
	if (soft_percent >= 0) {
		new_soft = percent_of(new_cap, (unsigned)soft_percent);
		if (!new_cap) {
			*err = ll_strf("soft_threshold %d: array '%s' has no capacity to take a percentage of", soft_percent,
				   a->name);
			rc = -EINVAL;
			goto out;
		}
		if (s->soft_pinned && new_soft != soft) {
			*err = ll_strf("soft_threshold %d: array '%s' has a soft threshold of %llu bytes (%llu%% of %llu); "
				   "every LUN of an array must give the same value, or none",
				   soft_percent, a->name, (unsigned long long)soft,
				   (unsigned long long)(cap ? soft * 100 / cap : 0), (unsigned long long)cap);
			rc = -EINVAL;
			goto out;
		}
	} else if (capacity_bytes && cap) {
		/* a new capacity keeps the threshold's share of it */
		new_soft = (uint64_t)((__uint128_t)soft * new_cap / cap);
	}
	apply(a, new_cap, new_soft);
	if (capacity_bytes)
		s->cap_pinned = true;
	if (soft_percent >= 0)
		s->soft_pinned = true;
out:
	pthread_mutex_unlock(&s->mu);
	return rc;
}

int array_set_capacity(struct array *a, uint64_t capacity_bytes, uint64_t soft_threshold_bytes, char **err)
{
	struct space *s = &a->space;
	int rc = 0;

	*err = NULL;
	if (!capacity_bytes) {
		*err = ll_strf("capacity 0: an array needs a capacity of at least one byte");
		return -EINVAL;
	}
	if (soft_threshold_bytes > capacity_bytes) {
		*err = ll_strf("soft threshold %llu is above the capacity %llu", (unsigned long long)soft_threshold_bytes,
			   (unsigned long long)capacity_bytes);
		return -EINVAL;
	}
	pthread_mutex_lock(&s->mu);
	uint64_t used = atomic_load(&s->used);
	if (capacity_bytes < used) {
		*err = ll_strf("capacity %llu is below the %llu bytes array '%s' uses now", (unsigned long long)capacity_bytes,
			   (unsigned long long)used, a->name);
		rc = -ENOSPC;
	} else {
		apply(a, capacity_bytes, soft_threshold_bytes);
		s->cap_pinned = s->soft_pinned = true;
	}
	pthread_mutex_unlock(&s->mu);
	return rc;
}
