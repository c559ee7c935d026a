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
#include "lunlab/errf.h"

static int by_address(const void *x, const void *y)
{
	uintptr_t a = (uintptr_t) * (struct volume *const *)x, b = (uintptr_t) * (struct volume *const *)y;
	return a < b ? -1 : a > b;
}

static int snapshot(struct array *a, const char *const *src, const char *const *dst, size_t n, bool readonly,
		    uint64_t *entries, char **err);

/* A snapshot set is one piece of a commit (array_state.h): after a crash
 * either every snapshot of the set exists, with its sources' maps as they
 * were at that moment, or none. */
int array_snapshot(struct array *a, const char *const *src, const char *const *dst, size_t n, bool readonly,
		   uint64_t *entries, char **err)
{
	bs_mutation_begin(a->bs);
	int rc = snapshot(a, src, dst, n, readonly, entries, err);
	bs_mutation_end(a->bs);
	return rc;
}

static int snapshot(struct array *a, const char *const *src, const char *const *dst, size_t n, bool readonly,
		    uint64_t *entries, char **err)
{
	char *e = NULL;
	int rc = 0;

	*entries = 0;
	if (err)
		*err = NULL;
	if (!n || !src || !dst) {
		e = ll_strf("a snapshot needs at least one source volume");
		rc = -EINVAL;
		goto out_early;
	}
	for (size_t i = 0; i < n; i++) {
		if (!src[i] || !dst[i] || !volume_name_ok(dst[i])) {
			e = ll_strf("snapshot name '%s': want 1..%d printable characters other than space ; , / =",
				dst[i] ? dst[i] : "", VOLUME_NAME_MAX - 1);
			rc = -EINVAL;
			goto out_early;
		}
		for (size_t j = 0; j < i; j++)
			if (!strcmp(dst[i], dst[j])) {
				e = ll_strf("snapshot name '%s' is given twice", dst[i]);
				rc = -EEXIST;
				goto out_early;
			}
	}
	struct volume **sv = calloc(n, sizeof(*sv)), **dv = calloc(n, sizeof(*dv)), **lk = calloc(n, sizeof(*lk));
	if (!sv || !dv || !lk) {
		free(sv);
		free(dv);
		free(lk);
		e = ll_strf("out of memory");
		rc = -ENOSPC;
		goto out_early;
	}

	pthread_mutex_lock(&a->vol_mu);
	for (size_t i = 0; i < n && !rc; i++) {
		if (!(sv[i] = vn_find(a, src[i]))) {
			e = ll_strf("volume '%s': no such volume in array '%s'", src[i], a->name);
			rc = -ENOENT;
		} else if (vn_find(a, dst[i])) {
			e = ll_strf("volume '%s' already exists in array '%s'", dst[i], a->name);
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
		vol_hold(lk[j]);
	for (size_t i = 0; i < n && !rc; i++) {
		dv[i] = array_vol_alloc(a, sv[i]->size, sv[i]->lba_size);
		if (!dv[i] || !(dv[i]->name = strdup(dst[i])) || !(dv[i]->snapshot_of = strdup(src[i]))) {
			e = ll_strf("out of memory for the map of snapshot '%s'", dst[i]);
			rc = -ENOSPC;
		} else if (vol_copy_map(dv[i], sv[i], entries) != 0) {
			e = ll_strf("snapshot '%s' of '%s': out of space copying its map", dst[i], src[i]);
			rc = -ENOSPC;
		}
	}
	for (size_t j = nl; j-- > 0;)
		vol_unhold(lk[j]);

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
		array_vol_link(a, dv[i]);
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

/* ---- refresh: a volume's data replaced by another's in place ---- */

static int refresh(struct array *a, const char *const *src, const char *const *dst, size_t n, uint64_t *entries,
		   char **err);

/* Like a snapshot set, one piece of a commit: after a crash either every
 * destination has its source's data of that moment, or none changed. */
int array_refresh(struct array *a, const char *const *src, const char *const *dst, size_t n, uint64_t *entries,
		  char **err)
{
	bs_mutation_begin(a->bs);
	int rc = refresh(a, src, dst, n, entries, err);
	bs_mutation_end(a->bs);
	return rc;
}

static int refresh(struct array *a, const char *const *src, const char *const *dst, size_t n, uint64_t *entries,
		   char **err)
{
	char *e = NULL;
	int rc = 0;

	*entries = 0;
	if (err)
		*err = NULL;
	if (!n || !src || !dst || n > 4096) {
		if (err)
			*err = ll_strf("a refresh needs 1..4096 source and destination volumes");
		return -EINVAL;
	}
	struct volume **sv = calloc(n, sizeof(*sv)), **dv = calloc(n, sizeof(*dv)), **lk = calloc(2 * n, sizeof(*lk));
	if (!sv || !dv || !lk) {
		free(sv);
		free(dv);
		free(lk);
		if (err)
			*err = ll_strf("out of memory");
		return -ENOSPC;
	}
	pthread_mutex_lock(&a->vol_mu);
	for (size_t i = 0; i < n && !rc; i++) {
		if (!src[i] || !dst[i] || !(sv[i] = vn_find(a, src[i]))) {
			e = ll_strf("volume '%s': no such volume in array '%s'", src[i] ? src[i] : "", a->name);
			rc = -ENOENT;
		} else if (!(dv[i] = vn_find(a, dst[i]))) {
			e = ll_strf("volume '%s': no such volume in array '%s'", dst[i], a->name);
			rc = -ENOENT;
		} else if (sv[i] == dv[i]) {
			e = ll_strf("volume '%s' cannot be refreshed from itself", dst[i]);
			rc = -EINVAL;
		} else if (sv[i]->size != dv[i]->size || sv[i]->lba_size != dv[i]->lba_size) {
			/* a refresh keeps the destination's geometry: what its
			 * hosts read beyond a smaller source would be undefined */
			e = ll_strf("volume '%s' (%llu bytes, %u-byte blocks) and '%s' (%llu bytes, %u-byte blocks) "
				      "differ in size", src[i], (unsigned long long)sv[i]->size, sv[i]->lba_size, dst[i],
				      (unsigned long long)dv[i]->size, dv[i]->lba_size);
			rc = -EINVAL;
		}
		for (size_t j = 0; j < i && !rc; j++)
			if (dv[j] == dv[i] || dv[j] == sv[i] || sv[j] == dv[i]) {
				/* one map both read and replaced in one set has no
				 * single point in time to take it at */
				e = ll_strf("volume '%s' is named twice in one refresh", dv[j] == dv[i] ? dst[i] : src[i]);
				rc = -EINVAL;
			}
	}
	if (!rc) {
		/* hold every volume involved (each once, in address order) */
		size_t nl = 0;
		for (size_t i = 0; i < 2 * n; i++) {
			struct volume *v = i < n ? sv[i] : dv[i - n];
			size_t j;
			for (j = 0; j < nl && lk[j] != v; j++)
				;
			if (j == nl)
				lk[nl++] = v;
		}
		qsort(lk, nl, sizeof(*lk), by_address);
		for (size_t j = 0; j < nl; j++)
			vol_hold(lk[j]);
		for (size_t i = 0; i < n && !rc; i++)
			if ((rc = vol_replace_map(dv[i], sv[i], entries)) != 0)
				e = ll_strf("refresh of '%s' from '%s': out of space copying its map", dst[i], src[i]);
		for (size_t j = nl; j-- > 0;)
			vol_unhold(lk[j]);
	}
	pthread_mutex_unlock(&a->vol_mu);
	free(sv);
	free(dv);
	free(lk);
	if (err)
		*err = e;
	else
		free(e);
	return rc;
}
