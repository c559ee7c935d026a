/* range_lock.c — range locks over a volume's blocks.  Blocks are grouped in
 * regions of 2^LOCK_REGION_SHIFT; region r is guarded by stripe r % NSTRIPES.
 * An operation first takes each volume's resize lock (shared), then the
 * stripes of its ranges; an operation that would need more than
 * MAX_STRIPES_HELD stripes of a volume (a multi-MiB range) takes that
 * volume's resize lock exclusively instead, which is cheaper than hundreds of
 * stripe locks and keeps the number of locks one thread holds small.
 * Order: every resize lock (by volume address), then every stripe (by volume
 * address, then stripe number); so no two operations can deadlock, and
 * writers of disjoint regions run in parallel. */
#include <string.h>

#include "handlers/array/volume_internal.h"

void lockset_add(struct lockset *ls, struct volume *v, uint64_t b0, uint64_t nb)
{
	int k;
	for (k = 0; k < ls->nv; k++)
		if (ls->v[k] == v)
			break;
	if (k == ls->nv) {
		/* Keep volumes sorted by address: that is the lock order. */
		if (ls->nv == 1 && (uintptr_t)v < (uintptr_t)ls->v[0]) {
			ls->v[1] = ls->v[0];
			memcpy(ls->bits[1], ls->bits[0], sizeof(ls->bits[0]));
			memset(ls->bits[0], 0, sizeof(ls->bits[0]));
			k = 0;
		}
		ls->v[k] = v;
		ls->nv++;
	}
	if (!nb)
		return;
	uint64_t r0 = b0 >> LOCK_REGION_SHIFT, r1 = (b0 + nb - 1) >> LOCK_REGION_SHIFT;
	if (r1 - r0 + 1 >= NSTRIPES) {
		memset(ls->bits[k], 0xff, sizeof(ls->bits[k]));
		return;
	}
	for (uint64_t r = r0; r <= r1; r++) {
		unsigned s = (unsigned)(r % NSTRIPES);
		ls->bits[k][s / 64] |= 1ull << (s % 64);
	}
}

static int nstripes(const uint64_t *bits)
{
	int n = 0;
	for (unsigned i = 0; i < NSTRIPES / 64; i++)
		n += __builtin_popcountll(bits[i]);
	return n;
}

void lockset_lock(struct lockset *ls, int write)
{
	ls->write = write;
	for (int k = 0; k < ls->nv; k++) {
		ls->excl[k] = nstripes(ls->bits[k]) > MAX_STRIPES_HELD;
		if (ls->excl[k])
			pthread_rwlock_wrlock(&ls->v[k]->resize_lock);
		else
			pthread_rwlock_rdlock(&ls->v[k]->resize_lock);
	}
	/* Visit only the set bits, in increasing stripe order (the lock order):
	 * a 4 KiB command holds one stripe of 256, and testing every bit cost
	 * more instructions than the rest of the command (callgrind, 4 KiB QD32). */
	for (int k = 0; k < ls->nv; k++) {
		if (ls->excl[k])
			continue;
		for (unsigned w = 0; w < NSTRIPES / 64; w++)
			for (uint64_t m = ls->bits[k][w]; m; m &= m - 1) {
				unsigned s = w * 64 + (unsigned)__builtin_ctzll(m);
				if (write)
					pthread_rwlock_wrlock(&ls->v[k]->stripes[s]);
				else
					pthread_rwlock_rdlock(&ls->v[k]->stripes[s]);
			}
	}
}

void lockset_unlock(struct lockset *ls)
{
	for (int k = ls->nv - 1; k >= 0; k--) {
		if (ls->excl[k])
			continue;
		/* release order does not matter for deadlock freedom */
		for (unsigned w = 0; w < NSTRIPES / 64; w++)
			for (uint64_t m = ls->bits[k][w]; m; m &= m - 1)
				pthread_rwlock_unlock(&ls->v[k]->stripes[w * 64 + (unsigned)__builtin_ctzll(m)]);
	}
	for (int k = ls->nv - 1; k >= 0; k--)
		pthread_rwlock_unlock(&ls->v[k]->resize_lock);
}
