/* fnv1a.h — the one FNV-1a (Fowler/Noll/Vo) of lunlab: a small, fast,
 * non-cryptographic hash for names that must map to the same value at every
 * start (generated serials, NAA ids, port keys, private array names) and for
 * test fingerprints.  Header-only: the target, the handler .so, the client
 * and the tests include it without linking anything.  Never for secrets or
 * for anything an attacker could choose to collide on purpose. */
#ifndef LUNLAB_FNV1A_H
#define LUNLAB_FNV1A_H

#include <stddef.h>
#include <stdint.h>

#define LL_FNV1A32_BASIS 2166136261u
#define LL_FNV1A64_BASIS 14695981039346656037ull

/* n bytes hashed on from h (start with LL_FNV1A32_BASIS). */
static inline uint32_t ll_fnv1a32(uint32_t h, const void *buf, size_t n)
{
	const uint8_t *p = buf;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

/* n bytes hashed on from h (start with LL_FNV1A64_BASIS). */
static inline uint64_t ll_fnv1a64(uint64_t h, const void *buf, size_t n)
{
	const uint8_t *p = buf;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

#endif
