/* array.c — the process-wide registry of arrays (found by name, refcounted),
 * parameter validation and the capacity figures. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/array/array_internal.h"

static pthread_mutex_t registry_mu = PTHREAD_MUTEX_INITIALIZER;
static struct array *registry;

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

static int pow2(uint32_t x) { return x && !(x & (x - 1)); }

static char *validate(const struct array_params *p)
{
	/* 32 KiB max keeps an exact compressed size (<= block + deflate's few
	 * bytes of framing) inside the record's 16-bit field. */
	if (!pow2(p->dedup_block) || p->dedup_block < 512 || p->dedup_block > 32768)
		return msg("dedup_block %u: must be a power of two in 512..32768", p->dedup_block);
	if (p->zlib_level < 0 || p->zlib_level > 9)
		return msg("zlib_level %d: must be 0..9", p->zlib_level);
	if (p->zlib_window_bits < 9 || p->zlib_window_bits > 15)
		return msg("zlib_window_bits %d: must be 9..15", p->zlib_window_bits);
	if (p->alloc_unit < 1 || p->alloc_unit > p->dedup_block)
		return msg("alloc_unit %u: must be 1..dedup_block (%u)", p->alloc_unit, p->dedup_block);
	return NULL;
}

static char *mismatch(const char *name, const struct array_params *have, const struct array_params *want)
{
	if (have->dedup_block != want->dedup_block)
		return msg("array '%s' exists with dedup_block %u, requested %u", name, have->dedup_block,
			   want->dedup_block);
	if (have->zlib_level != want->zlib_level)
		return msg("array '%s' exists with zlib_level %d, requested %d", name, have->zlib_level,
			   want->zlib_level);
	if (have->zlib_window_bits != want->zlib_window_bits)
		return msg("array '%s' exists with zlib_window_bits %d, requested %d", name,
			   have->zlib_window_bits, want->zlib_window_bits);
	if (have->alloc_unit != want->alloc_unit)
		return msg("array '%s' exists with alloc_unit %u, requested %u", name, have->alloc_unit,
			   want->alloc_unit);
	return NULL;
}

struct array *array_get(const char *name, const struct array_params *p, char **err)
{
	char *e = NULL;
	struct array *a = NULL;
	if (err)
		*err = NULL;
	if (!name || !*name || !p) {
		e = msg("array name and parameters are required");
		goto out_err;
	}
	if ((e = validate(p)))
		goto out_err;

	pthread_mutex_lock(&registry_mu);
	for (a = registry; a; a = a->next)
		if (!strcmp(a->name, name))
			break;
	if (a) {
		e = mismatch(name, &a->p, p);
		if (!e)
			a->users++;
		pthread_mutex_unlock(&registry_mu);
		if (e)
			goto out_err;
		return a;
	}
	a = calloc(1, sizeof(*a));
	if (!a || !(a->name = strdup(name)) || bs_init(a)) {
		pthread_mutex_unlock(&registry_mu);
		if (a) {
			bs_fini(a);
			free(a->name);
			free(a);
		}
		e = msg("out of memory creating array '%s'", name);
		goto out_err;
	}
	a->p = *p;
	a->users = 1;
	pthread_mutex_init(&a->vol_mu, NULL);
	space_init(&a->space);
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
	/* Volumes hold no registry reference of their own; destroying the
	 * array with live volumes is the caller's bug, but free their maps
	 * anyway so nothing leaks. */
	while (a->vols)
		volume_destroy(a->vols);
	bs_fini(a);
	space_fini(&a->space);
	pthread_mutex_destroy(&a->vol_mu);
	free(a->name);
	free(a);
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
	memset(out, 0, sizeof(*out));
	array_flush_accounting(a);
	int64_t single = 0;
	for (unsigned i = 0; i < NSHARDS; i++) {
		struct shard *s = &a->shards[i];
		pthread_mutex_lock(&s->mu);
		out->unique_blocks += s->unique_blocks;
		out->physical_bytes += s->physical_bytes;
		out->compressed_bytes += s->compressed_bytes;
		single += atomic_load(&s->single_ref);
		pthread_mutex_unlock(&s->mu);
	}
	out->single_ref_blocks = single > 0 ? (uint64_t)single : 0;
	out->metadata_bytes = atomic_load(&a->meta_bytes);
	pthread_mutex_lock(&a->vol_mu);
	for (struct volume *v = a->vols; v; v = v->next) {
		out->mapped_blocks += atomic_load(&v->mapped);
		out->metadata_bytes += atomic_load(&v->meta_bytes);
	}
	pthread_mutex_unlock(&a->vol_mu);
	out->logical_bytes = out->mapped_blocks * a->p.dedup_block;
	out->unique_bytes = out->unique_blocks * a->p.dedup_block;
	out->pending_blocks = 0; /* accounting is inline */
}

void array_flush_accounting(struct array *a) { (void)a; }

void array_set_fingerprint(struct array *a, uint64_t (*fn)(const void *data, size_t len))
{
	a->fp = fn ? fn : bs_default_fingerprint;
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
