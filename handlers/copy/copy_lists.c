/* copy_lists.c — bounded table of running and held copies (see copy_lists.h).
 * A flat array scanned under one mutex: a few hundred entries at most, and
 * it is touched at the start and end of each EXTENDED COPY only. */
#include <pthread.h>
#include <string.h>

#include "handlers/copy/copy.h"
#include "handlers/copy/copy_limits.h"
#include "handlers/copy/copy_lists.h"

/* Enough for 16 LUs at their limits; beyond that, held statuses of other
 * LUs are recycled oldest first and new copies are refused as busy. */
#define COPY_SLOTS ((XCOPY_TOTAL_CONCURRENT + XCOPY_HELD_PER_DEV) * 16u)

struct slot {
	const void *dev;            /* NULL: free */
	uint64_t nexus;             /* scope of the list id (0: the whole LU) */
	bool running;
	bool has_id;
	bool hold;
	uint8_t list_id;
	uint64_t seq;               /* age, for recycling the oldest held */
	struct copy_status st;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct slot slots[COPY_SLOTS];
static uint64_t next_seq;

static void release(struct slot *s)
{
	memset(s, 0, sizeof(*s));
}

static bool same_id(const struct slot *s, const void *dev, uint64_t nexus, uint8_t list_id)
{
	return s->dev == dev && s->nexus == nexus && s->has_id && s->list_id == list_id;
}

/* Oldest held (completed) slot, of dev if dev != NULL. */
static struct slot *oldest_held(const void *dev)
{
	struct slot *best = NULL;

	for (unsigned i = 0; i < COPY_SLOTS; i++) {
		struct slot *s = &slots[i];
		if (!s->dev || s->running || (dev && s->dev != dev))
			continue;
		if (!best || s->seq < best->seq)
			best = s;
	}
	return best;
}

static unsigned count(const void *dev, bool running)
{
	unsigned n = 0;

	for (unsigned i = 0; i < COPY_SLOTS; i++)
		if (slots[i].dev == dev && slots[i].running == running)
			n++;
	return n;
}

/* Release the completed statuses of list_id in its scope, except keep. */
static void drop_completed(const void *dev, uint64_t nexus, uint8_t list_id, const struct slot *keep)
{
	for (unsigned i = 0; i < COPY_SLOTS; i++) {
		struct slot *s = &slots[i];
		if (s != keep && !s->running && same_id(s, dev, nexus, list_id))
			release(s);
	}
}

int copy_lists_begin(const void *dev, uint64_t nexus, bool has_id, uint8_t list_id, bool hold)
{
	int ret = COPY_BEGIN_BUSY;

	pthread_mutex_lock(&lock);
	if (count(dev, true) >= XCOPY_TOTAL_CONCURRENT)
		goto out;
	if (has_id) {
		/* SPC-4: a list id its own nexus still runs is refused; without a
		 * known nexus the other copy may be another host's (copy_lists.h) */
		for (unsigned i = 0; nexus && i < COPY_SLOTS; i++) {
			if (slots[i].running && same_id(&slots[i], dev, nexus, list_id)) {
				ret = COPY_BEGIN_DUPLICATE;
				goto out;
			}
		}
		/* a new copy with the list id of a held status replaces it */
		drop_completed(dev, nexus, list_id, NULL);
	}

	struct slot *free_slot = NULL;
	for (unsigned i = 0; i < COPY_SLOTS && !free_slot; i++)
		if (!slots[i].dev)
			free_slot = &slots[i];
	if (!free_slot) {
		free_slot = oldest_held(NULL);
		if (!free_slot)
			goto out;
		release(free_slot);
	}
	free_slot->dev = dev;
	free_slot->nexus = nexus;
	free_slot->running = true;
	free_slot->has_id = has_id;
	free_slot->hold = hold;
	free_slot->list_id = has_id ? list_id : 0;
	free_slot->seq = ++next_seq;
	free_slot->st.cm_status = COPY_IN_PROGRESS;
	ret = (int)(free_slot - slots);
out:
	pthread_mutex_unlock(&lock);
	return ret;
}

void copy_lists_progress(int slot, uint16_t segments, uint64_t bytes)
{
	if (slot < 0 || (unsigned)slot >= COPY_SLOTS)
		return;
	pthread_mutex_lock(&lock);
	slots[slot].st.segments = segments;
	slots[slot].st.bytes = bytes;
	pthread_mutex_unlock(&lock);
}

void copy_lists_end(int slot, const struct copy_status *st)
{
	if (slot < 0 || (unsigned)slot >= COPY_SLOTS)
		return;
	pthread_mutex_lock(&lock);
	struct slot *s = &slots[slot];
	if (!s->hold) {
		release(s);
	} else {
		const void *dev = s->dev;
		/* one held status per list id and scope: the copy that ended last */
		drop_completed(dev, s->nexus, s->list_id, s);
		s->running = false;
		s->st = *st;
		s->seq = ++next_seq;
		while (count(dev, false) > XCOPY_HELD_PER_DEV) {
			struct slot *old = oldest_held(dev);
			if (!old)
				break;
			release(old);
		}
	}
	pthread_mutex_unlock(&lock);
}

static struct slot *find(const void *dev, uint64_t nexus, uint8_t list_id)
{
	struct slot *hit = NULL;

	/* a running copy is reported before a held status of the same id */
	for (unsigned i = 0; i < COPY_SLOTS; i++) {
		struct slot *s = &slots[i];
		if (same_id(s, dev, nexus, list_id) && (!hit || s->running))
			hit = s;
	}
	return hit;
}

bool copy_lists_status(const void *dev, uint64_t nexus, uint8_t list_id, bool consume, struct copy_status *out)
{
	bool found = false;

	pthread_mutex_lock(&lock);
	struct slot *s = find(dev, nexus, list_id);
	/* A copy sent with 10b has a status only while it runs.  Of a completed
	 * 00b copy only a successful one keeps COPY STATUS data: a failed one
	 * keeps its FAILED SEGMENT DETAILS alone (SA 4), as its COPY STATUS
	 * would say nothing the EXTENDED COPY's own sense did not (copy_lists.h,
	 * docs/xcopy.md "Held data"). */
	if (s && (s->running || (s->hold && s->st.cm_status == COPY_DONE_OK))) {
		*out = s->st;
		found = true;
		if (consume && !s->running)
			release(s);
	}
	pthread_mutex_unlock(&lock);
	return found;
}

bool copy_lists_failed(const void *dev, uint64_t nexus, uint8_t list_id, bool consume, struct copy_status *out)
{
	bool found = false;

	pthread_mutex_lock(&lock);
	struct slot *s = NULL;
	for (unsigned i = 0; i < COPY_SLOTS && !s; i++)
		if (!slots[i].running && slots[i].hold && same_id(&slots[i], dev, nexus, list_id))
			s = &slots[i];
	if (s && s->st.cm_status == COPY_DONE_ERROR) {
		*out = s->st;
		found = true;
		if (consume)
			release(s);
	}
	pthread_mutex_unlock(&lock);
	return found;
}

void copy_lists_forget_dev(const void *dev)
{
	pthread_mutex_lock(&lock);
	for (unsigned i = 0; i < COPY_SLOTS; i++)
		if (slots[i].dev == dev)
			release(&slots[i]);
	pthread_mutex_unlock(&lock);
}

unsigned copy_lists_running(const void *dev)
{
	pthread_mutex_lock(&lock);
	unsigned n = count(dev, true);
	pthread_mutex_unlock(&lock);
	return n;
}
