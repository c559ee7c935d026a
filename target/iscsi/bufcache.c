/* bufcache.c — see bufcache.h.  Only its own I/O thread touches a cache. */
#include "target/iscsi/bufcache.h"

#include <stdlib.h>

static int size_class(size_t len)
{
	int s = BUFCACHE_MIN_SHIFT;

	while (((size_t)1 << s) < len)
		s++;
	return s;
}

void *bufcache_get(struct bufcache *bc, size_t len, size_t *cap)
{
	int s = size_class(len ? len : 1);

	if (s > BUFCACHE_MAX_SHIFT) {
		*cap = len;
		return malloc(len);
	}
	*cap = (size_t)1 << s;
	if (bc) {
		int k = s - BUFCACHE_MIN_SHIFT;
		if (bc->nfree[k]) {
			bc->idle_bytes -= *cap;
			return bc->free[k][--bc->nfree[k]];
		}
	}
	return malloc(*cap);
}

void bufcache_put(struct bufcache *bc, void *buf, size_t cap)
{
	int s;

	if (!buf)
		return;
	s = size_class(cap);
	if (bc && ((size_t)1 << s) == cap && s <= BUFCACHE_MAX_SHIFT &&
	    bc->idle_bytes + cap <= BUFCACHE_MAX_BYTES) {
		int k = s - BUFCACHE_MIN_SHIFT;
		if (bc->nfree[k] < BUFCACHE_PER_CLASS) {
			bc->free[k][bc->nfree[k]++] = buf;
			bc->idle_bytes += cap;
			return;
		}
	}
	free(buf);
}

void bufcache_drain(struct bufcache *bc)
{
	for (int k = 0; k <= BUFCACHE_MAX_SHIFT - BUFCACHE_MIN_SHIFT; k++)
		while (bc->nfree[k])
			free(bc->free[k][--bc->nfree[k]]);
	bc->idle_bytes = 0;
}
