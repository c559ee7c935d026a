/* snapshot.c — instant snapshots (volume_names.h, array_snapshot): a new
 * named volume whose map is a copy of its source's, every mapped block's
 * reference count raised by one.  No data is read, hashed or copied, so
 * unique and physical space do not change; the copies diverge from their
 * sources block by block as either is written (a write replaces a map
 * entry, the shared block keeps its other references).
 *
 * A snapshot set is taken at one point in time: every source's resize lock
 * is held for writing (which waits for the commands in flight on it and
 * holds new ones) while all the maps are copied.  Lock order as everywhere:
 * the array's vol_mu, then resize locks by volume address. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/array/array_internal.h"
#include "handlers/array/volume_names.h"

static char *msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *msg(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

/* Copy src's map into the empty dst (same size); returns 0 or -ENOSPC. */
static int copy_map(struct volume *dst, struct volume *src, uint64_t *entries)
{
	struct array *a = src->a;
	uint64_t n = 0;
	int rc = 0;

	for (uint64_t l = 0; l < src->nleaves && !rc; l++) {
		uint32_t *leaf = atomic_load(&src->leaves[l]);
		if (!leaf)
			continue;
		for (uint32_t i = 0; i < MAP_LEAF_ENTRIES; i++) {
			uint32_t id = __atomic_load_n(&leaf[i], __ATOMIC_RELAXED), nid, old;
			if (!id)
				continue;
			/* src's entry holds id; a saturated count stores the content
			 * again (the only way a snapshot can need space) */
			if (bs_ref_more(a, id, &nid) != 0) {
				rc = -ENOSPC;
				break;
			}
			if (map_set(dst, (l << MAP_LEAF_SHIFT) + i, nid, &old) != 0) {
				bs_unref(a, nid);
				rc = -ENOSPC;
				break;
			}
			n++;
		}
	}
	atomic_store(&dst->mapped, n); /* exact even on failure: destroy unmaps them */
	*entries += n;
	return rc;
}

static int by_address(const void *x, const void *y)
{
	uintptr_t a = (uintptr_t) * (struct volume *const *)x, b = (uintptr_t) * (struct volume *const *)y;
	return a < b ? -1 : a > b;
}

int array_snapshot(struct array *a, const char *const *src, const char *const *dst, size_t n, bool readonly,
		   uint64_t *entries, char **err)
{
	char *e = NULL;
	int rc = 0;

	*entries = 0;
	if (err)
		*err = NULL;
	if (!n || !src || !dst) {
		e = msg("a snapshot needs at least one source volume");
		rc = -EINVAL;
		goto out_early;
	}
	for (size_t i = 0; i < n; i++) {
		if (!src[i] || !dst[i] || !volume_name_ok(dst[i])) {
			e = msg("snapshot name '%s': want 1..%d printable characters other than space ; , / =",
				dst[i] ? dst[i] : "", VOLUME_NAME_MAX - 1);
			rc = -EINVAL;
			goto out_early;
		}
		for (size_t j = 0; j < i; j++)
			if (!strcmp(dst[i], dst[j])) {
				e = msg("snapshot name '%s' is given twice", dst[i]);
				rc = -EEXIST;
				goto out_early;
			}
	}
	struct volume **sv = calloc(n, sizeof(*sv)), **dv = calloc(n, sizeof(*dv)), **lk = calloc(n, sizeof(*lk));
	if (!sv || !dv || !lk) {
		free(sv);
		free(dv);
		free(lk);
		e = msg("out of memory");
		rc = -ENOSPC;
		goto out_early;
	}

	pthread_mutex_lock(&a->vol_mu);
	for (size_t i = 0; i < n && !rc; i++) {
		if (!(sv[i] = vn_find(a, src[i]))) {
			e = msg("volume '%s': no such volume in array '%s'", src[i], a->name);
			rc = -ENOENT;
		} else if (vn_find(a, dst[i])) {
			e = msg("volume '%s' already exists in array '%s'", dst[i], a->name);
			rc = -EEXIST;
		}
	}
	if (rc) {
		pthread_mutex_unlock(&a->vol_mu);
		goto out;
	}

	/* hold every source (each once, in address order) */
	size_t nl = 0;
	for (size_t i = 0; i < n; i++) {
		size_t j;
		for (j = 0; j < nl && lk[j] != sv[i]; j++)
			;
		if (j == nl)
			lk[nl++] = sv[i];
	}
	qsort(lk, nl, sizeof(*lk), by_address);
	for (size_t j = 0; j < nl; j++)
		pthread_rwlock_wrlock(&lk[j]->resize_lock);
	for (size_t i = 0; i < n && !rc; i++) {
		dv[i] = vio_alloc(a, sv[i]->size, sv[i]->lba_size);
		if (!dv[i] || !(dv[i]->name = strdup(dst[i])) || !(dv[i]->snapshot_of = strdup(src[i]))) {
			e = msg("out of memory for the map of snapshot '%s'", dst[i]);
			rc = -ENOSPC;
		} else if ((rc = copy_map(dv[i], sv[i], entries)) != 0) {
			e = msg("snapshot '%s' of '%s': out of space copying its map", dst[i], src[i]);
		}
	}
	for (size_t j = nl; j-- > 0;)
		pthread_rwlock_unlock(&lk[j]->resize_lock);

	if (rc) {
		pthread_mutex_unlock(&a->vol_mu);
		for (size_t i = 0; i < n; i++)
			volume_destroy(dv[i]); /* not linked: drops what copy_map took */
		*entries = 0;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		dv[i]->readonly = readonly;
		dv[i]->attached = false;
		vio_link(dv[i]);
		array_ref(a); /* each name keeps the array alive */
	}
	pthread_mutex_unlock(&a->vol_mu);
out:
	free(sv);
	free(dv);
	free(lk);
out_early:
	if (err)
		*err = e;
	else
		free(e);
	return rc;
}
