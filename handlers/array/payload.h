/* payload.h — the storage of block payloads: the bottom layer of the array's
 * store.  The block store (block_store.c) keeps the dedup_block bytes of
 * every unique block here and is its only caller; nothing above the block
 * store knows where payloads live.
 *
 *   volumes (volume_*.c) -> block store (block_store.c) -> payloads (payload_*.c)
 *
 * Memory today (payload_mem.c: one allocation per block); a persistent
 * backend (--state-dir) implements the same calls.  A payload is written
 * once (payload_put), read through the returned pointer for as long as the
 * block lives, and released once (payload_free); the block id is passed so a
 * backend can key its records by it.  Every call may run concurrently. */
#ifndef LUNLAB_ARRAY_PAYLOAD_H
#define LUNLAB_ARRAY_PAYLOAD_H

#include <stdint.h>

struct payload_store;

/* A store of payloads of block_bytes bytes each; NULL when out of memory. */
struct payload_store *payload_open(uint32_t block_bytes);
/* Every payload must have been freed (the block store frees what it holds). */
void payload_close(struct payload_store *ps);

/* Store a copy of block_bytes bytes at src for block id; returns where they
 * can be read until payload_free, or NULL when there is no room. */
void *payload_put(struct payload_store *ps, uint32_t id, const void *src);
void payload_free(struct payload_store *ps, uint32_t id, void *p);

#endif
