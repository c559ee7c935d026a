/* payload.h — the storage of block payloads: the bottom layer of the array's
 * store.  The block store (block_store.c) keeps the dedup_block bytes of
 * every unique block here and is its only caller; nothing above the block
 * store knows where payloads live.
 *
 *   volumes (volume_*.c) -> block store (block_store.c) -> payloads (payload_*.c)
 *
 * Two backends implement the same calls: memory (payload_mem.c: slot = block
 * id in anonymous memory) and a file of slots (payload_file.c, --state-dir:
 * slot = block id, mapped read-only, every payload with its CRC32C).  A
 * payload is written once (payload_put), read through the returned pointer
 * for as long as the block lives, and released once (payload_free); the
 * block id is passed so a backend can key its records by it.  A backend
 * whose bytes come from outside the process (a file) checks them before
 * they are first served (payload_verify).  Every call may run concurrently. */
#ifndef LUNLAB_ARRAY_PAYLOAD_H
#define LUNLAB_ARRAY_PAYLOAD_H

#include <stdint.h>

struct payload_store;

struct payload_ops {
	void *(*put)(struct payload_store *ps, uint32_t id, const void *src);
	void (*free)(struct payload_store *ps, uint32_t id, void *p);
	void (*close)(struct payload_store *ps);
	/* NULL: the bytes never left this process, nothing to check */
	int (*verify)(struct payload_store *ps, uint32_t id);
};

/* What every backend's store starts with. */
struct payload_store {
	const struct payload_ops *ops;
	uint32_t block_bytes;
};

/* A store of payloads of block_bytes bytes each in memory; NULL when out of
 * memory. */
struct payload_store *payload_open(uint32_t block_bytes);
/* For tests of payload_open's store: wait until its filler thread (which
 * populates the memory just ahead of the slots stored so far) has done what
 * it aims at now; at once when it never started. */
void payload_mem_settle(struct payload_store *ps);
/* The memory backend's filler populates payload memory with the process's
 * mapping lock (the kernel's mmap_lock) held for reading, call after call.
 * A thread that changes the process's mappings meanwhile (malloc growing a
 * thread's arena calls mprotect a page or a few at a time, a large one mmap)
 * needs that lock for writing, and the kernel lets the filler's next call
 * take it first for up to a few milliseconds: measured on 4 MiB QD1 first
 * writes, the write path's metadata allocations (dedup tables, block
 * records, map chunks) waited 6.6 ms on average, 144 times in a traced
 * 2 s run (`perf lock contention`; tracing magnifies it; docs/accounting.md
 * "The mapping lock").  An
 * allocation on the write path is bracketed by these: the filler finishes
 * the piece it is populating (at most FILL_PIECE) and starts no other until
 * every bracket has closed.  Process-wide, like the lock; cheap when no
 * filler runs (one atomic add each). */
void payload_mapping_begin(void);
void payload_mapping_end(void);

/* Every payload must have been freed (the block store frees what it holds)
 * or, for a persistent backend, be kept by it. */
static inline void payload_close(struct payload_store *ps)
{
	ps->ops->close(ps);
}

/* Store a copy of block_bytes bytes at src for block id; returns where they
 * can be read until payload_free, or NULL when there is no room. */
static inline void *payload_put(struct payload_store *ps, uint32_t id, const void *src)
{
	return ps->ops->put(ps, id, src);
}

static inline void payload_free(struct payload_store *ps, uint32_t id, void *p)
{
	ps->ops->free(ps, id, p);
}

/* 0 when block id's bytes may be served; -EIO when they are not what was
 * stored (a damaged state directory: never served, reported instead). */
static inline int payload_verify(struct payload_store *ps, uint32_t id)
{
	return ps->ops->verify ? ps->ops->verify(ps, id) : 0;
}

#endif
