/* range_lock.c — striped range locks over a volume's blocks.  Blocks are
 * grouped in regions of 2^LOCK_REGION_SHIFT; region r is guarded by stripe
 * r % NSTRIPES.  A lockset names the stripes an operation needs in one or two
 * volumes; they are taken in one global order (volume address, then stripe
 * number), so no two operations can deadlock, and writers of disjoint
 * regions run in parallel. */
#include <string.h>

#include "handlers/array/array_internal.h"

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

void lockset_lock(struct lockset *ls, int write)
{
	ls->write = write;
	for (int k = 0; k < ls->nv; k++)
		for (unsigned s = 0; s < NSTRIPES; s++)
			if (ls->bits[k][s / 64] & (1ull << (s % 64))) {
				if (write)
					pthread_rwlock_wrlock(&ls->v[k]->stripes[s]);
				else
					pthread_rwlock_rdlock(&ls->v[k]->stripes[s]);
			}
}

void lockset_unlock(struct lockset *ls)
{
	for (int k = ls->nv - 1; k >= 0; k--)
		for (unsigned s = NSTRIPES; s-- > 0;)
			if (ls->bits[k][s / 64] & (1ull << (s % 64)))
				pthread_rwlock_unlock(&ls->v[k]->stripes[s]);
}
