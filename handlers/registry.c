/* registry.c — the open lunlab devices of this process, so EXTENDED COPY can
 * resolve a CSCD designator to an LU of the same array and the management
 * plane can find an LU's figures by its tcmu device.  Two hash tables (by
 * NAA, by tcmu device) under one mutex: lunlab-target makes LUs by the
 * thousand through its API, and a list scanned at every open and for every
 * LU of a /metrics scrape cost O(n) each (n^2 for 10,000 volumes).  Touched
 * on open/close, once per copy and per LU figures read, never per I/O. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/lunlab_dev.h"
#include "lunlab/fnv1a.h"

/* Buckets per table, a power of two: doubled when devices outnumber them
 * twice over (chains stay short), never shrunk.  Before the first
 * allocation, or if it failed, the tables have REG_MIN_BUCKETS in place. */
#define REG_MIN_BUCKETS 64u

struct reg_table {
	struct lunlab_dev **naa, **tdev; /* chains: next_by_naa, next_by_tdev */
	size_t buckets;
	size_t count;
};

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct lunlab_dev *naa_fixed[REG_MIN_BUCKETS], *tdev_fixed[REG_MIN_BUCKETS];
static struct reg_table reg = { naa_fixed, tdev_fixed, REG_MIN_BUCKETS, 0 };

static size_t naa_slot(const uint8_t naa[16], size_t buckets)
{
	return (size_t)ll_fnv1a64(LL_FNV1A64_BASIS, naa, 16) & (buckets - 1);
}

static size_t tdev_slot(const struct tcmu_device *tdev, size_t buckets)
{
	uint64_t k = (uint64_t)(uintptr_t)tdev;

	return (size_t)((k >> 4) * 0x9E3779B97F4A7C15ull >> 32) & (buckets - 1);
}

static void link_dev(struct lunlab_dev **naa, struct lunlab_dev **tdev, size_t buckets, struct lunlab_dev *d)
{
	size_t a = naa_slot(d->naa, buckets), t = tdev_slot(d->tdev, buckets);

	d->next_by_naa = naa[a];
	naa[a] = d;
	d->next_by_tdev = tdev[t];
	tdev[t] = d;
}

/* Twice the buckets, every device relinked; on no memory the tables stay
 * as they are (longer chains, still correct). */
static void grow_locked(void)
{
	size_t nb = reg.buckets * 2;
	struct lunlab_dev **naa = calloc(nb, sizeof(*naa)), **tdev = calloc(nb, sizeof(*tdev));

	if (!naa || !tdev) {
		free(naa);
		free(tdev);
		return;
	}
	for (size_t i = 0; i < reg.buckets; i++) {
		/* every device is in exactly one naa chain: walk those */
		for (struct lunlab_dev *d = reg.naa[i], *next; d; d = next) {
			next = d->next_by_naa;
			link_dev(naa, tdev, nb, d);
		}
	}
	if (reg.naa != naa_fixed) {
		free(reg.naa);
		free(reg.tdev);
	}
	reg.naa = naa;
	reg.tdev = tdev;
	reg.buckets = nb;
}

void lunlab_dev_register(struct lunlab_dev *d)
{
	pthread_mutex_lock(&reg_lock);
	if (reg.count + 1 > 2 * reg.buckets)
		grow_locked();
	link_dev(reg.naa, reg.tdev, reg.buckets, d);
	reg.count++;
	pthread_mutex_unlock(&reg_lock);
}

void lunlab_dev_unregister(struct lunlab_dev *d)
{
	bool found = false;

	pthread_mutex_lock(&reg_lock);
	for (struct lunlab_dev **pp = &reg.naa[naa_slot(d->naa, reg.buckets)]; *pp; pp = &(*pp)->next_by_naa) {
		if (*pp == d) {
			*pp = d->next_by_naa;
			found = true;
			break;
		}
	}
	for (struct lunlab_dev **pp = &reg.tdev[tdev_slot(d->tdev, reg.buckets)]; *pp; pp = &(*pp)->next_by_tdev) {
		if (*pp == d) {
			*pp = d->next_by_tdev;
			break;
		}
	}
	if (found)
		reg.count--;
	d->next_by_naa = d->next_by_tdev = NULL;
	pthread_mutex_unlock(&reg_lock);
}

struct lunlab_dev *lunlab_dev_find_by_naa(const struct array *a, const uint8_t naa[16])
{
	struct lunlab_dev *hit = NULL;

	pthread_mutex_lock(&reg_lock);
	for (struct lunlab_dev *d = reg.naa[naa_slot(naa, reg.buckets)]; d; d = d->next_by_naa) {
		if (d->array == a && memcmp(d->naa, naa, 16) == 0) {
			hit = d;
			break;
		}
	}
	pthread_mutex_unlock(&reg_lock);
	return hit;
}

struct lunlab_dev *lunlab_dev_find_by_tdev(const struct tcmu_device *tdev)
{
	struct lunlab_dev *hit = NULL;

	pthread_mutex_lock(&reg_lock);
	for (struct lunlab_dev *d = reg.tdev[tdev_slot(tdev, reg.buckets)]; d; d = d->next_by_tdev)
		if (d->tdev == tdev) {
			hit = d;
			break;
		}
	pthread_mutex_unlock(&reg_lock);
	return hit;
}
