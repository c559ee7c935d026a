/* payload_mem.c — payloads in process memory, one slot per block id, as the
 * file backend keeps them (slot = id).  The bytes are kept uncompressed
 * (docs/accounting.md "Data held uncompressed"): reads and read-modify-write
 * cost a memcpy, dedup verification a memcmp.
 *
 * Why slots and not one malloc per block: with malloc, a store filling with
 * new blocks grew the allocator's arenas a little at a time (an mprotect
 * call and its address-space lock every few dozen blocks, fighting the page
 * faults of the other writers), and every 4 KiB block straddled two pages
 * behind its 16-byte header.  Measured on a 4 MiB QD1 write of unique data at
 * 4 KiB blocks (the fa420 profile), that was half the write path's CPU while
 * the store filled.  Slots are page-aligned in segments of SEG_IDS ids,
 * reserved as one mapping each on first use; memory is touched only when a
 * slot is written, a freed slot is reused by the id's next block, and a
 * segment whose slots are all free gives its memory back (a deleted volume's
 * blocks do not stay resident). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "handlers/array/block_store.h"
#include "handlers/array/payload.h"

#define SEG_SHIFT 14u /* 16384 ids per segment: 64 MiB of 4 KiB blocks */
#define SEG_IDS (1u << SEG_SHIFT)
#define NSEGS (BLK_MAX_IDS >> SEG_SHIFT)
#define SEG_GIVING_BACK (1u << 31) /* in mem_seg.live: its memory is being given back */

struct mem_seg {
	_Atomic(unsigned char *) base; /* NULL until the segment's first put */
	atomic_uint live;              /* slots holding a payload */
};

struct mem_store {
	struct payload_store ps;       /* first: what payload.h's calls see */
	size_t seg_bytes;
	/* reserving a segment, and emptying one (its memory given back), one
	 * at a time: both are rare, neither may overlap a put into it */
	pthread_mutex_t seg_mu;
	struct mem_seg segs[NSEGS];
};

static struct mem_store *mem_of(struct payload_store *ps) { return (struct mem_store *)ps; }

static void *mem_put(struct payload_store *ps, uint32_t id, const void *src)
{
	struct mem_store *m = mem_of(ps);
	struct mem_seg *g = &m->segs[id >> SEG_SHIFT];
	unsigned char *base = atomic_load_explicit(&g->base, memory_order_acquire);

	unsigned prev = atomic_fetch_add(&g->live, 1);
	if (prev == 0 || (prev & SEG_GIVING_BACK) || !base) {
		/* first slot of an empty segment: wait out a give-back in progress,
		 * reserve the mapping if it has none */
		pthread_mutex_lock(&m->seg_mu);
		base = atomic_load_explicit(&g->base, memory_order_relaxed);
		if (!base) {
			void *p = mmap(NULL, m->seg_bytes, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
			if (p != MAP_FAILED)
				atomic_store_explicit(&g->base, base = p, memory_order_release);
		}
		pthread_mutex_unlock(&m->seg_mu);
		if (!base) {
			atomic_fetch_sub(&g->live, 1);
			return NULL;
		}
	}
	void *slot = base + (size_t)(id & (SEG_IDS - 1)) * ps->block_bytes;
	memcpy(slot, src, ps->block_bytes);
	return slot;
}

static void mem_free(struct payload_store *ps, uint32_t id, void *p)
{
	struct mem_store *m = mem_of(ps);
	struct mem_seg *g = &m->segs[id >> SEG_SHIFT];

	(void)p;
	if (atomic_fetch_sub(&g->live, 1) != 1)
		return;
	/* the last one: give the segment's memory back, unless a put came in
	 * meanwhile (it counted itself before it writes, and waits for us) */
	pthread_mutex_lock(&m->seg_mu);
	unsigned zero = 0;
	/* marked while the memory goes: a put that counts itself now sees the
	 * mark and waits for the lock instead of writing into the slot */
	if (atomic_compare_exchange_strong(&g->live, &zero, SEG_GIVING_BACK)) {
		(void)madvise(atomic_load_explicit(&g->base, memory_order_relaxed), m->seg_bytes, MADV_DONTNEED);
		atomic_fetch_and(&g->live, ~SEG_GIVING_BACK);
	}
	pthread_mutex_unlock(&m->seg_mu);
}

static void mem_close(struct payload_store *ps)
{
	struct mem_store *m = mem_of(ps);

	for (uint32_t i = 0; i < NSEGS; i++) {
		unsigned char *base = atomic_load(&m->segs[i].base);
		if (base)
			munmap(base, m->seg_bytes);
	}
	pthread_mutex_destroy(&m->seg_mu);
	munmap(m, sizeof(*m));
}

static const struct payload_ops mem_ops = {
	.put = mem_put,
	.free = mem_free,
	.close = mem_close,
};

struct payload_store *payload_open(uint32_t block_bytes)
{
	/* the segment table (16384 entries) is mapped, not allocated: only the
	 * pages of segments in use are ever touched */
	void *p = mmap(NULL, sizeof(struct mem_store), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	struct mem_store *m = p;
	m->ps.ops = &mem_ops;
	m->ps.block_bytes = block_bytes;
	m->seg_bytes = (size_t)SEG_IDS * block_bytes;
	pthread_mutex_init(&m->seg_mu, NULL);
	return &m->ps;
}
