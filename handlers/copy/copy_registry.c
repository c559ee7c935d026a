/* copy_registry.c — one bounded table of third-party copy operations by list
 * identifier (copy_registry.h).  A flat array scanned under one mutex: a few
 * thousand entries at most, touched at the start and end of each command and
 * per 64 MiB piece of a WRITE USING TOKEN, never per block. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "handlers/copy/copy_limits.h"
#include "handlers/copy/copy_registry.h"

/* Enough for 16 LUs at the limits of both kinds; beyond that, kept results
 * of other LUs are recycled oldest first and new operations are refused as
 * busy. */
#define PER_DEV ((XCOPY_TOTAL_CONCURRENT + XCOPY_HELD_PER_DEV) + (ODX_CONCURRENT + ODX_HELD_PER_DEV))
#define REG_SLOTS (PER_DEV * 16u)

struct slot {
	const void *dev;            /* NULL: free */
	uint64_t nexus;             /* scope of the list id (0: the whole LU) */
	enum copy_kind kind;
	bool running;
	bool has_id;
	bool hold;
	uint32_t list_id;
	atomic_bool abort;          /* COPY OPERATION ABORT reached it (token kinds) */
	uint64_t seq;               /* age, for recycling the oldest kept */
	union {
		struct copy_status xcopy;   /* COPY_KIND_XCOPY_LID1 */
		struct odx_op odx;          /* the token kinds */
	} r;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct slot slots[REG_SLOTS];
static uint64_t next_seq;

static bool is_xcopy(enum copy_kind k)
{
	return k == COPY_KIND_XCOPY_LID1;
}

static void release(struct slot *s)
{
	memset(s, 0, sizeof(*s));
}

/* the same list id in the same scope, of any kind: one namespace */
static bool same_id(const struct slot *s, const void *dev, uint64_t nexus, uint32_t list_id)
{
	return s->dev && s->dev == dev && s->nexus == nexus && s->has_id && s->list_id == list_id;
}

/* Oldest kept (completed) slot, of dev and of kind's family if dev != NULL. */
static struct slot *oldest_kept(const void *dev, bool xcopy)
{
	struct slot *best = NULL;

	for (unsigned i = 0; i < REG_SLOTS; i++) {
		struct slot *s = &slots[i];
		if (!s->dev || s->running || (dev && (s->dev != dev || is_xcopy(s->kind) != xcopy)))
			continue;
		if (!best || s->seq < best->seq)
			best = s;
	}
	return best;
}

static unsigned count(const void *dev, bool running, bool xcopy)
{
	unsigned n = 0;

	for (unsigned i = 0; i < REG_SLOTS; i++)
		if (slots[i].dev == dev && slots[i].running == running && is_xcopy(slots[i].kind) == xcopy)
			n++;
	return n;
}

/* Release the completed results of list_id in its scope, except keep. */
static void drop_completed(const void *dev, uint64_t nexus, uint32_t list_id, const struct slot *keep)
{
	for (unsigned i = 0; i < REG_SLOTS; i++) {
		struct slot *s = &slots[i];
		if (s != keep && !s->running && same_id(s, dev, nexus, list_id))
			release(s);
	}
}

static unsigned running_limit(bool xcopy)
{
	return xcopy ? XCOPY_TOTAL_CONCURRENT : ODX_CONCURRENT;
}

static unsigned kept_limit(bool xcopy)
{
	return xcopy ? XCOPY_HELD_PER_DEV : ODX_HELD_PER_DEV;
}

int copy_reg_begin(const void *dev, uint64_t nexus, enum copy_kind kind, bool has_id, uint32_t list_id, bool hold)
{
	int ret = COPY_REG_BUSY;
	bool xcopy = is_xcopy(kind);

	pthread_mutex_lock(&lock);
	if (count(dev, true, xcopy) >= running_limit(xcopy))
		goto out;
	if (has_id) {
		/* SPC-4: a list id its own nexus still runs, by any third-party
		 * copy command, is refused; without a known nexus the other one
		 * may be another host's (copy_registry.h) */
		for (unsigned i = 0; nexus && i < REG_SLOTS; i++) {
			if (slots[i].running && same_id(&slots[i], dev, nexus, list_id)) {
				ret = COPY_REG_DUPLICATE;
				goto out;
			}
		}
		/* a new operation with the list id of kept results replaces them */
		drop_completed(dev, nexus, list_id, NULL);
	}

	struct slot *free_slot = NULL;
	for (unsigned i = 0; i < REG_SLOTS && !free_slot; i++)
		if (!slots[i].dev)
			free_slot = &slots[i];
	if (!free_slot) {
		free_slot = oldest_kept(NULL, false);
		if (!free_slot)
			goto out;
		release(free_slot);
	}
	free_slot->dev = dev;
	free_slot->nexus = nexus;
	free_slot->kind = kind;
	free_slot->running = true;
	free_slot->has_id = has_id;
	free_slot->hold = hold;
	free_slot->list_id = has_id ? list_id : 0;
	atomic_store(&free_slot->abort, false);
	free_slot->seq = ++next_seq;
	if (xcopy) {
		free_slot->r.xcopy.cm_status = COPY_IN_PROGRESS;
	} else {
		free_slot->r.odx.sa = (uint8_t)kind;
		free_slot->r.odx.status = ODX_OP_RUNNING;
	}
	ret = (int)(free_slot - slots);
out:
	pthread_mutex_unlock(&lock);
	return ret;
}

static struct slot *slot_at(int slot)
{
	if (slot < 0 || (unsigned)slot >= REG_SLOTS)
		return NULL;
	return &slots[slot];
}

void copy_reg_progress(int slot, uint16_t segments, uint64_t count_done)
{
	struct slot *s = slot_at(slot);

	if (!s)
		return;
	pthread_mutex_lock(&lock);
	if (is_xcopy(s->kind)) {
		s->r.xcopy.segments = segments;
		s->r.xcopy.bytes = count_done;
	} else {
		s->r.odx.segments = segments;
		s->r.odx.blocks = count_done;
	}
	pthread_mutex_unlock(&lock);
}

bool copy_reg_aborted(int slot)
{
	struct slot *s = slot_at(slot);

	return s && atomic_load(&s->abort);
}

/* The operation of s ended with its results already in s->r: keep them
 * (one per list id and scope: the one that ended last) within the LU's
 * bound for the kind, or free the slot. */
static void end_locked(struct slot *s)
{
	const void *dev = s->dev;
	bool xcopy = is_xcopy(s->kind);

	if (!s->hold) {
		release(s);
		return;
	}
	if (s->has_id)
		drop_completed(dev, s->nexus, s->list_id, s);
	s->running = false;
	s->seq = ++next_seq;
	while (count(dev, false, xcopy) > kept_limit(xcopy)) {
		struct slot *old = oldest_kept(dev, xcopy);
		if (!old)
			break;
		release(old);
	}
}

void copy_reg_end_xcopy(int slot, const struct copy_status *st)
{
	struct slot *s = slot_at(slot);

	if (!s)
		return;
	pthread_mutex_lock(&lock);
	if (s->dev && is_xcopy(s->kind)) {
		s->r.xcopy = *st;
		end_locked(s);
	}
	pthread_mutex_unlock(&lock);
}

void copy_reg_end_odx(int slot, const struct odx_op *op)
{
	struct slot *s = slot_at(slot);

	if (!s)
		return;
	pthread_mutex_lock(&lock);
	if (s->dev && !is_xcopy(s->kind)) {
		s->r.odx = *op;
		/* COPY OPERATION ABORT reached it while it ran: whatever stopped
		 * it, RRTI says terminated (with the blocks written and the sense) */
		if (atomic_load(&s->abort))
			s->r.odx.status = ODX_OP_TERMINATED;
		end_locked(s);
	}
	pthread_mutex_unlock(&lock);
}

/* list_id of nexus on dev, of the kind family asked for; a running one is
 * reported before kept results of the same id (nexus 0 may have both). */
static struct slot *find(const void *dev, uint64_t nexus, uint32_t list_id, bool xcopy)
{
	struct slot *hit = NULL;

	for (unsigned i = 0; i < REG_SLOTS; i++) {
		struct slot *s = &slots[i];
		if (same_id(s, dev, nexus, list_id) && is_xcopy(s->kind) == xcopy && (!hit || s->running))
			hit = s;
	}
	return hit;
}

bool copy_reg_xcopy_status(const void *dev, uint64_t nexus, uint8_t list_id, bool consume, struct copy_status *out)
{
	bool found = false;

	pthread_mutex_lock(&lock);
	struct slot *s = find(dev, nexus, list_id, true);
	/* A copy sent with 10b has a status only while it runs.  Of a completed
	 * 00b copy only a successful one keeps COPY STATUS data: a failed one
	 * keeps its FAILED SEGMENT DETAILS alone (SA 4), as its COPY STATUS
	 * would say nothing the EXTENDED COPY's own sense did not
	 * (copy_registry.h, docs/xcopy.md "Held data"). */
	if (s && (s->running || (s->hold && s->r.xcopy.cm_status == COPY_DONE_OK))) {
		*out = s->r.xcopy;
		found = true;
		if (consume && !s->running)
			release(s);
	}
	pthread_mutex_unlock(&lock);
	return found;
}

bool copy_reg_xcopy_failed(const void *dev, uint64_t nexus, uint8_t list_id, bool consume, struct copy_status *out)
{
	bool found = false;

	pthread_mutex_lock(&lock);
	struct slot *s = NULL;
	for (unsigned i = 0; i < REG_SLOTS && !s; i++)
		if (!slots[i].running && slots[i].hold && is_xcopy(slots[i].kind) &&
		    same_id(&slots[i], dev, nexus, list_id))
			s = &slots[i];
	if (s && s->r.xcopy.cm_status == COPY_DONE_ERROR) {
		*out = s->r.xcopy;
		found = true;
		if (consume)
			release(s);
	}
	pthread_mutex_unlock(&lock);
	return found;
}

bool copy_reg_odx_get(const void *dev, uint64_t nexus, uint32_t list_id, struct odx_op *out)
{
	pthread_mutex_lock(&lock);
	struct slot *s = find(dev, nexus, list_id, false);
	if (s)
		*out = s->r.odx;
	pthread_mutex_unlock(&lock);
	return s != NULL;
}

int copy_reg_odx_abort(const void *dev, uint64_t nexus, uint32_t list_id, uint8_t token[ODX_TOKEN_LEN],
		       bool *has_token)
{
	int ret = 0;

	*has_token = false;
	pthread_mutex_lock(&lock);
	struct slot *s = find(dev, nexus, list_id, false);
	if (s && s->running) {
		atomic_store(&s->abort, true);
		ret = 1;
	} else if (s) {
		if (s->r.odx.has_token) {
			memcpy(token, s->r.odx.token, ODX_TOKEN_LEN);
			*has_token = true;
			s->r.odx.status = ODX_OP_TERMINATED;
		}
		ret = 2;
	}
	pthread_mutex_unlock(&lock);
	return ret;
}

void copy_reg_forget_dev(const void *dev)
{
	pthread_mutex_lock(&lock);
	for (unsigned i = 0; i < REG_SLOTS; i++)
		if (slots[i].dev == dev)
			release(&slots[i]);
	pthread_mutex_unlock(&lock);
}

unsigned copy_reg_running(const void *dev, bool xcopy)
{
	pthread_mutex_lock(&lock);
	unsigned n = count(dev, true, xcopy);
	pthread_mutex_unlock(&lock);
	return n;
}
