/* array.c — the process-wide registry of arrays: found by name, created with
 * their state directory and accounting workers, refcounted.  Near the top of
 * the store's layers (array_internal.h): it calls the state directory
 * (array_state.c), one array's core (array_core.c) and the accounting
 * workers, and none of them calls back. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/array/array_internal.h"
#include "handlers/array/array_state.h"
#include "handlers/array/block_account.h"
#include "lunlab/errf.h"
#include "state/state_dir.h"

static pthread_mutex_t registry_mu = PTHREAD_MUTEX_INITIALIZER;
static struct array *registry;

static char *mismatch(const char *name, const struct array_params *have, const struct array_params *want)
{
	if (have->dedup_block != want->dedup_block)
		return ll_strf("array '%s' exists with dedup_block %u, requested %u", name, have->dedup_block,
			   want->dedup_block);
	if (have->zlib_level != want->zlib_level)
		return ll_strf("array '%s' exists with zlib_level %d, requested %d", name, have->zlib_level,
			   want->zlib_level);
	if (have->zlib_window_bits != want->zlib_window_bits)
		return ll_strf("array '%s' exists with zlib_window_bits %d, requested %d", name,
			   have->zlib_window_bits, want->zlib_window_bits);
	if (have->alloc_unit != want->alloc_unit)
		return ll_strf("array '%s' exists with alloc_unit %u, requested %u", name, have->alloc_unit,
			   want->alloc_unit);
	return NULL;
}

struct array *array_get_state(const char *name, const struct array_params *p, const char *state_dir,
			      const char *profile, char **err)
{
	char *e = NULL;
	struct array *a = NULL;
	if (err)
		*err = NULL;
	if (!name || !*name || !p) {
		e = ll_strf("array name and parameters are required");
		goto out_err;
	}
	if ((e = array_params_check(p)))
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
			e = have ? ll_strf("array '%s' is kept in state directory %s; this LU has none", name, have)
				 : ll_strf("array '%s' is in memory; this LU names state_dir=%s", name, state_dir);
		if (!e && have && (state_array_dir(state_dir, name, want, sizeof(want)) < 0 || strcmp(want, have)))
			e = ll_strf("array '%s' is kept in %s; this LU names state_dir=%s", name, have, state_dir);
		if (!e)
			a->users++;
		pthread_mutex_unlock(&registry_mu);
		if (e)
			goto out_err;
		return a;
	}
	if (!(a = array_new(name, p, &e))) {
		pthread_mutex_unlock(&registry_mu);
		goto out_err;
	}
	/* the state loads and is checked before the accountants start on the
	 * blocks it left pending */
	if (state_dir && array_state_attach(a, state_dir, profile, &e) < 0) {
		pthread_mutex_unlock(&registry_mu);
		array_free(a);
		goto out_err;
	}
	if (acct_attach(a->bs, &(struct acct_params){ p->zlib_level, p->zlib_window_bits, space_headroom, a })) {
		pthread_mutex_unlock(&registry_mu);
		array_state_detach(a);
		array_free(a);
		e = ll_strf("out of memory creating array '%s'", name);
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
	array_free(a);
}

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

unsigned array_registry_count(void)
{
	unsigned n = 0;
	pthread_mutex_lock(&registry_mu);
	for (struct array *a = registry; a; a = a->next)
		n++;
	pthread_mutex_unlock(&registry_mu);
	return n;
}

