/* bufcache.h — per-I/O-thread cache of command data buffers, by power-of-two
 * size class, so a steady stream of 4 KiB or 4 MiB commands stops calling
 * malloc/free (and does not fault in fresh pages for every 4 MiB read). */
#ifndef LUNLAB_ISCSI_BUFCACHE_H
#define LUNLAB_ISCSI_BUFCACHE_H

#include <stddef.h>

#define BUFCACHE_MIN_SHIFT 12  /* 4 KiB */
#define BUFCACHE_MAX_SHIFT 24  /* 16 MiB; larger buffers are not cached */
#define BUFCACHE_PER_CLASS 64
#define BUFCACHE_MAX_BYTES (64u << 20) /* keep at most this much idle per thread */

struct bufcache {
	void *free[BUFCACHE_MAX_SHIFT - BUFCACHE_MIN_SHIFT + 1][BUFCACHE_PER_CLASS];
	int nfree[BUFCACHE_MAX_SHIFT - BUFCACHE_MIN_SHIFT + 1];
	size_t idle_bytes;
};

/* Returns a buffer of at least len bytes; *cap gets its real size. */
void *bufcache_get(struct bufcache *bc, size_t len, size_t *cap);
void bufcache_put(struct bufcache *bc, void *buf, size_t cap);
void bufcache_drain(struct bufcache *bc);

#endif
