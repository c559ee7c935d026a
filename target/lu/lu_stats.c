/* lu_stats.c — per-LU host-observed command figures (lu_stats.h). */
#include "target/lu/lu_stats.h"
#include "lunlab/cdb_decode.h"
#include "target/lu/lu_cmd.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Shards per LU: I/O threads map onto them modulo this.  Eight covers the
 * thread counts lunlab runs with; more threads than shards only share
 * lines (still correct: the adds are atomic). */
#define LU_STATS_SHARDS 8

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
	struct cdb_info ci;

	if (cdb_decode(cdb, cdb_len, 0, &ci) != CDB_DECODE_OK)
		return LU_KIND_OTHER;
	switch (ci.layout->cls) {
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

static void add(_Atomic uint64_t *c, uint64_t n)
{
	atomic_fetch_add_explicit(c, n, memory_order_relaxed);
}

void lu_stats_record(struct lu_stats *s, unsigned shard, enum lu_kind kind, uint64_t bytes, bool good,
		     uint64_t latency_ns)
{
	struct kind_counters *k;

	if (!s || (unsigned)kind >= LU_KINDS)
		return;
	k = &s->shard[shard % LU_STATS_SHARDS].k[kind];
	add(&k->commands, 1);
	if (!good)
		add(&k->errors, 1);
	if (bytes)
		add(&k->bytes, bytes);
	add(&k->latency_sum_ns, latency_ns);
	add(&k->buckets[lunlab_lat_bucket(latency_ns)], 1);
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
