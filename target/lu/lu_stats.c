/* lu_stats.c — per-LU host-observed command figures (lu_stats.h). */
#include "target/lu/lu_stats.h"
#include "lunlab/cdb_decode.h"
#include "target/lu/lu_cmd.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Eight shards (lu_stats.h) cover the thread counts lunlab runs with; more
 * threads than shards only share lines (still correct: then the adds are
 * atomic, never LU_STATS_SOLE). */

struct kind_counters {
	_Atomic uint64_t commands, errors, bytes, latency_sum_ns;
	_Atomic uint64_t buckets[LUNLAB_LAT_BUCKETS];
};

struct shard {
	_Alignas(64) struct kind_counters k[LU_KINDS];
};

struct lu_stats {
	struct shard shard[LU_STATS_SHARDS];
};

enum lu_kind lu_kind_of(const uint8_t *cdb, size_t cdb_len)
{
	/* the layout alone: a full decode's fields are not needed here */
	const struct cdb_layout *l = cdb_layout_of(cdb, cdb_len);

	if (!l)
		return LU_KIND_OTHER;
	switch (l->cls) {
	case CDB_CLASS_READ: return LU_KIND_READ;
	case CDB_CLASS_WRITE: return LU_KIND_WRITE;
	case CDB_CLASS_XCOPY: return LU_KIND_XCOPY;
	case CDB_CLASS_WRITE_SAME: return LU_KIND_WRITE_SAME;
	case CDB_CLASS_UNMAP: return LU_KIND_UNMAP;
	case CDB_CLASS_CAW: return LU_KIND_CAW;
	default: return LU_KIND_OTHER;
	}
}

const char *lu_kind_name(enum lu_kind k)
{
	static const char *const names[LU_KINDS] = {
		"read", "write", "xcopy", "write_same", "unmap", "caw", "other",
	};

	return (unsigned)k < LU_KINDS ? names[k] : "other";
}

struct lu_stats *lu_stats_new(void)
{
	struct lu_stats *s = aligned_alloc(_Alignof(struct shard), sizeof(*s));

	if (s)
		memset(s, 0, sizeof(*s)); /* all-zero bytes are zero atomics on every target we build for */
	return s;
}

void lu_stats_free(struct lu_stats *s)
{
	free(s);
}

static void add(_Atomic uint64_t *c, uint64_t n, bool sole)
{
	/* readers only ever load: a sole writer's load and store is never
	 * torn for them, and nobody else writes this shard (LU_STATS_SOLE) */
	if (sole)
		atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n, memory_order_relaxed);
	else
		atomic_fetch_add_explicit(c, n, memory_order_relaxed);
}

void lu_stats_sample_set(struct lu_stats_sample *smp, enum lu_kind kind, uint64_t bytes, bool good,
			 uint64_t latency_ns)
{
	smp->kind = kind;
	smp->good = good;
	smp->bucket = lunlab_lat_bucket(latency_ns);
	smp->bytes = bytes;
	smp->latency_ns = latency_ns;
}

void lu_stats_add(struct lu_stats *s, unsigned shard, const struct lu_stats_sample *smp)
{
	bool sole = shard & LU_STATS_SOLE;
	struct kind_counters *k;

	if (!s || (unsigned)smp->kind >= LU_KINDS)
		return;
	k = &s->shard[(shard & ~LU_STATS_SOLE) % LU_STATS_SHARDS].k[smp->kind];
	add(&k->commands, 1, sole);
	if (!smp->good)
		add(&k->errors, 1, sole);
	if (smp->bytes)
		add(&k->bytes, smp->bytes, sole);
	add(&k->latency_sum_ns, smp->latency_ns, sole);
	add(&k->buckets[smp->bucket], 1, sole);
}

void lu_stats_record(struct lu_stats *s, unsigned shard, enum lu_kind kind, uint64_t bytes, bool good,
		     uint64_t latency_ns)
{
	struct lu_stats_sample smp;

	lu_stats_sample_set(&smp, kind, bytes, good, latency_ns);
	lu_stats_add(s, shard, &smp);
}

static uint64_t get(const _Atomic uint64_t *c)
{
	return atomic_load_explicit(c, memory_order_relaxed);
}

void lu_stats_read(const struct lu_stats *s, struct lu_kind_figures out[LU_KINDS])
{
	memset(out, 0, sizeof(struct lu_kind_figures) * LU_KINDS);
	if (!s)
		return;
	for (unsigned i = 0; i < LU_STATS_SHARDS; i++)
		for (unsigned k = 0; k < LU_KINDS; k++) {
			const struct kind_counters *c = &s->shard[i].k[k];

			out[k].commands += get(&c->commands);
			out[k].errors += get(&c->errors);
			out[k].bytes += get(&c->bytes);
			out[k].latency_sum_ns += get(&c->latency_sum_ns);
			for (unsigned b = 0; b < LUNLAB_LAT_BUCKETS; b++)
				out[k].latency_buckets[b] += get(&c->buckets[b]);
		}
}

void lu_stats_read_kind(const struct lu_stats *s, enum lu_kind kind, struct lu_kind_figures *out)
{
	memset(out, 0, sizeof(*out));
	if (!s || (unsigned)kind >= LU_KINDS)
		return;
	for (unsigned i = 0; i < LU_STATS_SHARDS; i++) {
		const struct kind_counters *c = &s->shard[i].k[kind];

		out->commands += get(&c->commands);
		out->errors += get(&c->errors);
		out->bytes += get(&c->bytes);
		out->latency_sum_ns += get(&c->latency_sum_ns);
	}
}
