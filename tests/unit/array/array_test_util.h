/* array_test_util.h — helpers shared by the array unit tests: a fresh array
 * per test (unique name), a deterministic PRNG, and I/O shorthands. */
#ifndef ARRAY_TEST_UTIL_H
#define ARRAY_TEST_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <unistd.h>
#include <cmocka.h>

#include "handlers/array/volume.h"
#include "handlers/array/array_admin.h"

static inline struct array *new_array(uint32_t block, int level, uint32_t unit)
{
	static unsigned seq;
	char name[64];
	snprintf(name, sizeof(name), "test-%u-%u", (unsigned)getpid(), __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED));
	struct array_params p = { .dedup_block = block, .zlib_level = level, .zlib_window_bits = 14, .alloc_unit = unit };
	char *err = NULL;
	struct array *a = array_get(name, &p, &err);
	if (!a)
		fail_msg("array_get: %s", err ? err : "?");
	return a;
}

static inline uint64_t rng_next(uint64_t *s)
{
	/* splitmix64: deterministic, seedable, good enough for test data */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline void fill_random(void *buf, size_t n, uint64_t *s)
{
	unsigned char *p = buf;
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)rng_next(s);
}

static inline int wr(struct volume *v, uint64_t off, const void *buf, uint64_t len)
{
	struct iovec io = { (void *)buf, len };
	return volume_write(v, off, len, &io, 1);
}

static inline int rd(struct volume *v, uint64_t off, void *buf, uint64_t len)
{
	struct iovec io = { buf, len };
	return volume_read(v, off, len, &io, 1);
}

/* The figures once the accounting backlog is drained: exact by definition
 * (docs/accounting.md); test_accounting.c checks what they are before. */
static inline struct array_stats stats_of(struct array *a)
{
	struct array_stats s;
	array_flush_accounting(a);
	array_get_stats(a, &s);
	return s;
}

/* err is a malloc'd one-line message containing part; frees it. */
static inline void expect_msg(char *err, const char *part)
{
	assert_non_null(err);
	if (!strstr(err, part))
		fail_msg("'%s' lacks '%s'", err ? err : "(null)", part);
	assert_null(strchr(err, '\n'));
	free(err);
}

#endif
