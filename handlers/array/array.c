/* array.c — the process-wide registry of arrays (found by name, refcounted),
 * parameter validation, each array's volumes (created here, so the volume
 * layer never needs the array) and its capacity figures.  The top of the
 * store's layers (array_internal.h): it calls the volume layer, the block
 * store and the accounting workers, and none of them calls back. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/array/array_internal.h"
#include "handlers/array/array_state.h"
#include "handlers/array/block_account.h"
#include "state/state_dir.h"

static pthread_mutex_t registry_mu = PTHREAD_MUTEX_INITIALIZER;
static struct array *registry;

char *array_msg(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

static int pow2(uint32_t x) { return x && !(x & (x - 1)); }

static char *validate(const struct array_params *p)
{
	/* 32 KiB max keeps an exact compressed size (<= block + deflate's few
	 * bytes of framing) inside the record's 16-bit field. */
	if (!pow2(p->dedup_block) || p->dedup_block < 512 || p->dedup_block > 32768)
		return array_msg("dedup_block %u: must be a power of two in 512..32768", p->dedup_block);
	if (p->zlib_level < 0 || p->zlib_level > 9)
		return array_msg("zlib_level %d: must be 0..9", p->zlib_level);
	if (p->zlib_window_bits < 9 || p->zlib_window_bits > 15)
		return array_msg("zlib_window_bits %d: must be 9..15", p->zlib_window_bits);
	if (p->alloc_unit < 1 || p->alloc_unit > p->dedup_block)
		return array_msg("alloc_unit %u: must be 1..dedup_block (%u)", p->alloc_unit, p->dedup_block);
	return NULL;
}

static char *mismatch(const char *name, const struct array_params *have, const struct array_params *want)
{
	if (have->dedup_block != want->dedup_block)
		return array_msg("array '%s' exists with dedup_block %u, requested %u", name, have->dedup_block,
			   want->dedup_block);
	if (have->zlib_level != want->zlib_level)
		return array_msg("array '%s' exists with zlib_level %d, requested %d", name, have->zlib_level,
			   want->zlib_level);
	if (have->zlib_window_bits != want->zlib_window_bits)
		return array_msg("array '%s' exists with zlib_window_bits %d, requested %d", name,
			   have->zlib_window_bits, want->zlib_window_bits);
	if (have->alloc_unit != want->alloc_unit)
		return array_msg("array '%s' exists with alloc_unit %u, requested %u", name, have->alloc_unit,
			   want->alloc_unit);
	return NULL;
}

/* A new array, not in the registry; accounting workers attached when
 * account is set.  NULL with *e. */
static struct array *array_new(const char *name, const struct array_params *p, bool account, char **e)
{
	struct array *a = calloc(1, sizeof(*a));

	if (!a || !(a->name = strdup(name)) || !(a->bs = bs_create(p->dedup_block, p->alloc_unit)) ||
	    (account && acct_attach(a->bs, &(struct acct_params){ p->zlib_level, p->zlib_window_bits, space_headroom, a }))) {
		if (a) {
			bs_destroy(a->bs);
			free(a->name);
			free(a);
		}
		*e = array_msg("out of memory creating array '%s'", name);
		return NULL;
	}
	a->p = *p;
	a->users = 1;
	pthread_mutex_init(&a->vol_mu, NULL);
	space_init(&a->space);
	space_attach(a); /* the block store's space hooks: before the first write (or load) */
	return a;
}

static void array_free(struct array *a, bool account)
{
	/* Volumes hold no registry reference of their own; destroying the
	 * array with live volumes is the caller's bug, but free their maps
	 * anyway so nothing leaks. */
	while (a->vols)
		volume_destroy(a->vols);
	if (account)
		acct_detach(a->bs);
	bs_destroy(a->bs);
	space_fini(&a->space);
	pthread_mutex_destroy(&a->vol_mu);
	free(a->name);
	free(a);
}

struct array *array_get_state(const char *name, const struct array_params *p, const char *state_dir,
			      const char *profile, char **err)
{
	char *e = NULL;
	struct array *a = NULL;
	if (err)
		*err = NULL;
	if (!name || !*name || !p) {
		e = array_msg("array name and parameters are required");
		goto out_err;
	}
	if ((e = validate(p)))
		goto out_err;

	pthread_mutex_lock(&registry_mu);
	for (a = registry; a; a = a->next)
		if (!strcmp(a->name, name))
			break;
	if (a) {
		const char *have = a->state ? array_state_dir(a) : NULL;
		char want[4096];

		e = mismatch(name, &a->p, p);
		/* one array lives in one place: every LU of it names the same */
		if (!e && (!have) != (!state_dir))
			e = have ? array_msg("array '%s' is kept in state directory %s; this LU has none", name, have)
				 : array_msg("array '%s' is in memory; this LU names state_dir=%s", name, state_dir);
		if (!e && have && (state_array_dir(state_dir, name, want, sizeof(want)) < 0 || strcmp(want, have)))
			e = array_msg("array '%s' is kept in %s; this LU names state_dir=%s", name, have, state_dir);
		if (!e)
			a->users++;
		pthread_mutex_unlock(&registry_mu);
		if (e)
			goto out_err;
		return a;
	}
	if (!(a = array_new(name, p, false, &e))) {
		pthread_mutex_unlock(&registry_mu);
		goto out_err;
	}
	/* the state loads and is checked before the accountants start on the
	 * blocks it left pending */
	if (state_dir && array_state_attach(a, state_dir, profile, &e) < 0) {
		pthread_mutex_unlock(&registry_mu);
		array_free(a, false);
		goto out_err;
	}
	if (acct_attach(a->bs, &(struct acct_params){ p->zlib_level, p->zlib_window_bits, space_headroom, a })) {
		pthread_mutex_unlock(&registry_mu);
		array_state_detach(a);
		array_free(a, false);
		e = array_msg("out of memory creating array '%s'", name);
		goto out_err;
	}
	a->next = registry;
	registry = a;
	pthread_mutex_unlock(&registry_mu);
	return a;

out_err:
	if (err)
		*err = e;
	else
		free(e);
	return NULL;
}

struct array *array_get(const char *name, const struct array_params *p, char **err)
{
	return array_get_state(name, p, NULL, NULL, err);
}

struct array *array_check_new(const char *name, const struct array_params *p, char **err)
{
	char *e = NULL;

	*err = NULL;
	if ((e = validate(p))) {
		*err = e;
		return NULL;
	}
	return array_new(name, p, false, err);
}

void array_check_free(struct array *a)
{
	array_free(a, false);
}

void array_put(struct array *a)
{
	if (!a)
		return;
	pthread_mutex_lock(&registry_mu);
	if (--a->users > 0) {
		pthread_mutex_unlock(&registry_mu);
		return;
	}
	for (struct array **pp = &registry; *pp; pp = &(*pp)->next)
		if (*pp == a) {
			*pp = a->next;
			break;
		}
	pthread_mutex_unlock(&registry_mu);
	/* the accountants first (their results are state too), then the last
	 * commit: what the array holds is on disk before its memory goes */
	acct_detach(a->bs);
	array_state_detach(a);
	array_free(a, false);
}

const struct array_params *array_params(const struct array *a) { return &a->p; }

void array_ref(struct array *a)
{
	pthread_mutex_lock(&registry_mu);
	a->users++;
	pthread_mutex_unlock(&registry_mu);
}

struct array *array_lookup(const char *name)
{
	struct array *a;

	if (!name)
		return NULL;
	pthread_mutex_lock(&registry_mu);
	for (a = registry; a; a = a->next)
		if (!strcmp(a->name, name)) {
			a->users++;
			break;
		}
	pthread_mutex_unlock(&registry_mu);
	return a;
}

int array_names(char (*names)[ARRAY_NAME_MAX], int max)
{
	int n = 0;

	pthread_mutex_lock(&registry_mu);
	for (struct array *a = registry; a; a = a->next, n++)
		if (names && n < max)
			snprintf(names[n], ARRAY_NAME_MAX, "%s", a->name);
	pthread_mutex_unlock(&registry_mu);
	return n;
}

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
	out->metadata_bytes = f.meta_bytes + sizeof(*a);
	pthread_mutex_lock(&a->vol_mu);
	for (struct volume *v = a->vols; v; v = v->next) {
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

unsigned array_registry_count(void)
{
	unsigned n = 0;
	pthread_mutex_lock(&registry_mu);
	for (struct array *a = registry; a; a = a->next)
		n++;
	pthread_mutex_unlock(&registry_mu);
	return n;
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

void array_vol_link(struct array *a, struct volume *v)
{
	v->next = a->vols;
	a->vols = v;
	array_state_vol_new(a, v);
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
	for (struct volume **pp = &a->vols; *pp; pp = &(*pp)->next)
		if (*pp == v) {
			*pp = v->next;
			break;
		}
	array_state_vol_gone(a, v);
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
