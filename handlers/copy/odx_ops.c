/* odx_ops.c — bounded table of token operations per LU (odx_ops.h).  A flat
 * array scanned under one mutex, touched a few times per command. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "handlers/copy/odx_ops.h"

/* 16 LUs at their limits; beyond, the oldest completed ones are recycled. */
#define ODX_SLOTS ((ODX_CONCURRENT + ODX_HELD_PER_DEV) * 16u)

struct slot {
	const void *dev;               /* NULL: free */
	uint64_t nexus;
	uint32_t list_id;
	bool running;
	atomic_bool abort;
	uint64_t seq;
	struct odx_op op;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct slot slots[ODX_SLOTS];
static uint64_t next_seq;

static void release(struct slot *s)
{
	memset(s, 0, sizeof(*s));
}

static bool same(const struct slot *s, const void *dev, uint64_t nexus, uint32_t id)
{
	return s->dev && s->dev == dev && s->nexus == nexus && s->list_id == id;
}

static unsigned count(const void *dev, bool running)
{
	unsigned n = 0;

	for (unsigned i = 0; i < ODX_SLOTS; i++)
		if (slots[i].dev == dev && slots[i].running == running)
			n++;
	return n;
}

static struct slot *oldest_done(const void *dev)
{
	struct slot *best = NULL;

	for (unsigned i = 0; i < ODX_SLOTS; i++) {
		struct slot *s = &slots[i];
		if (!s->dev || s->running || (dev && s->dev != dev))
			continue;
		if (!best || s->seq < best->seq)
			best = s;
	}
	return best;
}

int odx_ops_begin(const void *dev, uint64_t nexus, uint32_t list_id, uint8_t sa)
{
	int ret = ODX_BEGIN_BUSY;

	pthread_mutex_lock(&lock);
	if (count(dev, true) >= ODX_CONCURRENT)
		goto out;
	struct slot *free_slot = NULL;
	for (unsigned i = 0; i < ODX_SLOTS; i++) {
		struct slot *s = &slots[i];
		if (same(s, dev, nexus, list_id)) {
			/* without a known nexus, another host's operation may share the
			 * id: the newer one wins (as copy_lists.h) */
			if (s->running && nexus) {
				ret = ODX_BEGIN_DUPLICATE;
				goto out;
			}
			if (!s->running)
				release(s);
		}
	}
	for (unsigned i = 0; i < ODX_SLOTS && !free_slot; i++)
		if (!slots[i].dev)
			free_slot = &slots[i];
	if (!free_slot) {
		free_slot = oldest_done(NULL);
		if (!free_slot)
			goto out;
		release(free_slot);
	}
	free_slot->dev = dev;
	free_slot->nexus = nexus;
	free_slot->list_id = list_id;
	free_slot->running = true;
	atomic_store(&free_slot->abort, false);
	free_slot->seq = ++next_seq;
	free_slot->op.sa = sa;
	free_slot->op.status = ODX_OP_RUNNING;
	ret = (int)(free_slot - slots);
out:
	pthread_mutex_unlock(&lock);
	return ret;
}

void odx_ops_progress(int slot, uint64_t blocks, uint16_t segments)
{
	if (slot < 0 || (unsigned)slot >= ODX_SLOTS)
		return;
	pthread_mutex_lock(&lock);
	slots[slot].op.blocks = blocks;
	slots[slot].op.segments = segments;
	pthread_mutex_unlock(&lock);
}

bool odx_ops_aborted(int slot)
{
	if (slot < 0 || (unsigned)slot >= ODX_SLOTS)
		return false;
	return atomic_load(&slots[slot].abort);
}

void odx_ops_end(int slot, const struct odx_op *op)
{
	if (slot < 0 || (unsigned)slot >= ODX_SLOTS)
		return;
	pthread_mutex_lock(&lock);
	struct slot *s = &slots[slot];
	const void *dev = s->dev;
	s->op = *op;
	/* COPY OPERATION ABORT reached it while it ran: whatever stopped it,
	 * RRTI says terminated (with the blocks written and the sense) */
	if (atomic_load(&s->abort))
		s->op.status = ODX_OP_TERMINATED;
	s->running = false;
	s->seq = ++next_seq;
	while (count(dev, false) > ODX_HELD_PER_DEV) {
		struct slot *old = oldest_done(dev);
		if (!old)
			break;
		release(old);
	}
	pthread_mutex_unlock(&lock);
}

static struct slot *find(const void *dev, uint64_t nexus, uint32_t id)
{
	for (unsigned i = 0; i < ODX_SLOTS; i++)
		if (same(&slots[i], dev, nexus, id))
			return &slots[i];
	return NULL;
}

bool odx_ops_get(const void *dev, uint64_t nexus, uint32_t list_id, struct odx_op *out)
{
	pthread_mutex_lock(&lock);
	struct slot *s = find(dev, nexus, list_id);
	if (s)
		*out = s->op;
	pthread_mutex_unlock(&lock);
	return s != NULL;
}

int odx_ops_abort(const void *dev, uint64_t nexus, uint32_t list_id, uint8_t token[ODX_TOKEN_LEN], bool *has_token)
{
	int ret = 0;

	*has_token = false;
	pthread_mutex_lock(&lock);
	struct slot *s = find(dev, nexus, list_id);
	if (s && s->running) {
		atomic_store(&s->abort, true);
		ret = 1;
	} else if (s) {
		if (s->op.has_token) {
			memcpy(token, s->op.token, ODX_TOKEN_LEN);
			*has_token = true;
			s->op.status = ODX_OP_TERMINATED;
		}
		ret = 2;
	}
	pthread_mutex_unlock(&lock);
	return ret;
}

void odx_ops_forget_dev(const void *dev)
{
	pthread_mutex_lock(&lock);
	for (unsigned i = 0; i < ODX_SLOTS; i++)
		if (slots[i].dev == dev)
			release(&slots[i]);
	pthread_mutex_unlock(&lock);
}
