/* array_core.c — one array: its parameters, block store and space, its list
 * of volumes (created here, so the volume layer never needs the array) and
 * its capacity figures.  Below the registry (array.c) and the state
 * directory (array_state.c), which both build on it; it calls the volume
 * layer, the block store, the space and the accounting, and names nothing
 * above it: what a state directory records of the volume list reaches it
 * through the hooks array_state.c installs (array_internal.h). */
#include <errno.h>
#include <stdio.h>
#include <search.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/array/array_internal.h"
#include "handlers/array/block_account.h"
#include "lunlab/errf.h"

static int pow2(uint32_t x) { return x && !(x & (x - 1)); }

char *array_params_check(const struct array_params *p)
{
	/* 32 KiB max keeps an exact compressed size (<= block + deflate's few
	 * bytes of framing) inside the record's 16-bit field. */
	if (!pow2(p->dedup_block) || p->dedup_block < 512 || p->dedup_block > 32768)
		return ll_strf("dedup_block %u: must be a power of two in 512..32768", p->dedup_block);
	if (p->zlib_level < 0 || p->zlib_level > 9)
		return ll_strf("zlib_level %d: must be 0..9", p->zlib_level);
	if (p->zlib_window_bits < 9 || p->zlib_window_bits > 15)
		return ll_strf("zlib_window_bits %d: must be 9..15", p->zlib_window_bits);
	if (p->alloc_unit < 1 || p->alloc_unit > p->dedup_block)
		return ll_strf("alloc_unit %u: must be 1..dedup_block (%u)", p->alloc_unit, p->dedup_block);
	return NULL;
}


/* A new array, not in the registry, without accounting workers (the
 * registry attaches them once a state directory has loaded).  NULL with
 * *err. */
struct array *array_new(const char *name, const struct array_params *p, char **err)
{
	char *e;

	*err = NULL;
	if ((e = array_params_check(p))) {
		*err = e;
		return NULL;
	}
	struct array *a = calloc(1, sizeof(*a));

	if (!a || !(a->name = strdup(name)) || !(a->bs = bs_create(p->dedup_block, p->alloc_unit))) {
		if (a) {
			bs_destroy(a->bs);
			free(a->name);
			free(a);
		}
		*err = ll_strf("out of memory creating array '%s'", name);
		return NULL;
	}
	a->p = *p;
	a->users = 1;
	pthread_mutex_init(&a->vol_mu, NULL);
	space_init(&a->space);
	space_attach(a); /* the block store's space hooks: before the first write (or load) */
	return a;
}

static void free_nothing(void *p) { (void)p; }

void array_free(struct array *a)
{
	/* Volumes hold no registry reference of their own; destroying the
	 * array with live volumes is the caller's bug, but free their maps
	 * anyway so nothing leaks. */
	while (a->vols)
		volume_destroy(a->vols);
	tdestroy(a->by_name, free_nothing); /* empty by now: its volumes are gone */
	bs_destroy(a->bs);
	space_fini(&a->space);
	pthread_mutex_destroy(&a->vol_mu);
	free(a->name);
	free(a);
}

const struct array_params *array_params(const struct array *a) { return &a->p; }

const char *array_name(const struct array *a) { return a->name; }

void array_set_profile(struct array *a, const char *profile)
{
	pthread_mutex_lock(&a->vol_mu);
	if (!a->profile[0] && profile)
		snprintf(a->profile, sizeof(a->profile), "%s", profile);
	pthread_mutex_unlock(&a->vol_mu);
}

void array_profile(struct array *a, char *out, size_t len)
{
	pthread_mutex_lock(&a->vol_mu);
	snprintf(out, len, "%s", a->profile);
	pthread_mutex_unlock(&a->vol_mu);
}

void array_get_stats(struct array *a, struct array_stats *out)
{
	struct bs_figures f;

	memset(out, 0, sizeof(*out));
	bs_figures(a->bs, &f);
	out->unique_blocks = f.unique_blocks;
	out->pending_blocks = f.pending_blocks;
	out->physical_bytes = f.physical_bytes;
	out->compressed_bytes = f.compressed_bytes;
	out->single_ref_blocks = f.single_ref_blocks;
	out->metadata_bytes = f.meta_bytes + sizeof(*a) + atomic_load(&a->bs->map_chunk_bytes) +
			      atomic_load(&a->bs->map_index_bytes);
	pthread_mutex_lock(&a->vol_mu);
	for (struct volume *v = a->vols; v; v = v->next) {
		/* an ODX hold's entries are no volume's logical space; its map's
		 * memory is the array's all the same */
		if (!v->hidden)
			out->mapped_blocks += atomic_load(&v->mapped);
		out->metadata_bytes += atomic_load(&v->meta_bytes);
	}
	pthread_mutex_unlock(&a->vol_mu);
	out->logical_bytes = out->mapped_blocks * a->p.dedup_block;
	out->unique_bytes = out->unique_blocks * a->p.dedup_block;
}

void array_flush_accounting(struct array *a)
{
	acct_drain(a->bs);
}

void array_set_fingerprint(struct array *a, uint64_t (*fn)(const void *data, size_t len))
{
	bs_set_fingerprint(a->bs, fn);
}

/* ---- volumes: created and listed here, run by the volume layer ---- */

struct volume *array_vol_alloc(struct array *a, uint64_t size_bytes, uint32_t lba_size)
{
	if (!a)
		return NULL;
	struct volume *v = calloc(1, sizeof(*v));
	if (!v)
		return NULL;
	if (vol_init(v, a->bs, size_bytes, lba_size)) {
		free(v);
		return NULL;
	}
	v->owner = a;
	/* kept in a state directory: its changes are recorded from the start
	 * (a snapshot's copied map included) */
	if (a->state && map_persist_enable(v) < 0) {
		vol_fini(v);
		free(v);
		return NULL;
	}
	return v;
}

/* ---- the name index: a tree of &v->name (char **), under vol_mu ---- */

static int name_cmp(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

static struct volume *of_name(char **slot)
{
	return (struct volume *)(void *)((char *)slot - offsetof(struct volume, name));
}

static void name_link(struct array *a, struct volume *v)
{
	char ***slot;

	if (!v->name)
		return;
	slot = tsearch(&v->name, &a->by_name, name_cmp);
	if (!slot) {
		a->names_partial = true; /* out of memory: vn_find walks the list */
		return;
	}
	if (*slot != &v->name) { /* the name again: the list's walk finds the newest, so does the tree */
		*slot = &v->name;
		a->name_dups++;
	}
}

/* v leaves the list (or was never on it) */
static void name_unlink(struct array *a, struct volume *v)
{
	char ***slot;

	if (!v->name || !(slot = tfind(&v->name, &a->by_name, name_cmp)) || *slot != &v->name)
		return;
	tdelete(&v->name, &a->by_name, name_cmp);
	if (!a->name_dups)
		return;
	/* another volume of that name: the newest left on the list (rare: a damaged state) */
	for (struct volume *o = a->vols; o; o = o->next) {
		if (o != v && o->name && strcmp(o->name, v->name) == 0) {
			a->name_dups--;
			name_link(a, o);
			return;
		}
	}
}

struct volume *array_vol_by_name(struct array *a, const char *name)
{
	char ***slot;

	if (a->names_partial) {
		for (struct volume *v = a->vols; v; v = v->next)
			if (v->name && !strcmp(v->name, name))
				return v;
		return NULL;
	}
	slot = tfind(&name, &a->by_name, name_cmp);
	return slot ? of_name(*slot) : NULL;
}

void array_vol_link(struct array *a, struct volume *v)
{
	name_link(a, v);
	v->next = a->vols;
	v->pprev = &a->vols;
	if (a->vols)
		a->vols->pprev = &v->next;
	a->vols = v;
	if (a->vol_hooks)
		a->vol_hooks->joined(a, v);
}

struct volume *volume_create(struct array *a, uint64_t size_bytes, uint32_t lba_size)
{
	struct volume *v = array_vol_alloc(a, size_bytes, lba_size);
	if (!v)
		return NULL;
	pthread_mutex_lock(&a->vol_mu);
	array_vol_link(a, v);
	pthread_mutex_unlock(&a->vol_mu);
	return v;
}

void volume_destroy(struct volume *v)
{
	if (!v)
		return;
	struct array *a = v->owner;
	/* the volume leaving and its references going: one piece of a commit */
	bs_mutation_begin(a->bs);
	pthread_mutex_lock(&a->vol_mu);
	if (v->pprev) {
		*v->pprev = v->next;
		if (v->next)
			v->next->pprev = v->pprev;
		v->pprev = NULL;
	}
	name_unlink(a, v);
	if (a->vol_hooks)
		a->vol_hooks->left(a, v);
	pthread_mutex_unlock(&a->vol_mu);
	vol_fini(v);
	bs_mutation_end(a->bs);
	free(v->name);
	free(v->snapshot_of);
	free(v->pkey);
	free(v->pcommitted);
	free(v);
}

struct array *volume_array(const struct volume *v) { return v->owner; }
