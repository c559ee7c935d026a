/* lu_stats.h — what the target core saw of each logical unit: commands,
 * bytes that crossed the wire and host-observed latency, by command kind.
 * LIO keeps the same per-LU figures in its core (target_core_stat.c); the
 * array's own figures (modeled latency, capacity) come from the handler
 * through include/lunlab/array_ctl.h.
 *
 * Cost on the I/O path: one record per command, a handful of relaxed atomic
 * adds into the shard of the I/O thread that completes it (each shard on
 * cache lines of its own, so threads never bounce a line and never take a
 * lock).  Readers (the /metrics scrape) sum the shards; a snapshot taken
 * while commands complete may be a few commands behind, never torn within
 * one counter, and counters only ever grow. */
#ifndef LUNLAB_LU_STATS_H
#define LUNLAB_LU_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lunlab/latency_buckets.h"

enum lu_kind {
	LU_KIND_READ,        /* READ(6/10/12/16) */
	LU_KIND_WRITE,       /* WRITE(6/10/12/16), WRITE AND VERIFY(10/12/16), WRITE ATOMIC(16) */
	LU_KIND_XCOPY,       /* EXTENDED COPY (83h) */
	LU_KIND_WRITE_SAME,  /* WRITE SAME(10/16) */
	LU_KIND_UNMAP,       /* UNMAP */
	LU_KIND_CAW,         /* COMPARE AND WRITE */
	LU_KIND_OTHER,       /* everything else (INQUIRY, LOG SENSE, TUR, ...) */
	LU_KINDS
};

/* the kind of a CDB (an LU command's LU_CDB_MAX-byte buffer): its CDB_CLASS_* in the
 * layout table (lunlab/cdb_decode.h) */
enum lu_kind lu_kind_of(const uint8_t *cdb, size_t cdb_len);
/* "read", "write", "xcopy", "write_same", "unmap", "caw", "other" */
const char *lu_kind_name(enum lu_kind k);

struct lu_stats;

/* Shards per set: I/O threads map onto them modulo this. */
#define LU_STATS_SHARDS 8
/* shard | LU_STATS_SOLE: the caller is the only thread that ever adds to
 * this shard of any set (an I/O thread's own index while there are no more
 * I/O threads than shards), so its adds need no locked instruction: a
 * relaxed load and store each.  A locked add costs ~9 ns here against
 * ~1.5 (bench/cmd-cost.sh's notes), and a command is counted into three
 * sets of five counters: ~0.1 us of a 4 KiB read's ~4.5 us of target CPU. */
#define LU_STATS_SOLE 0x80000000u

/* NULL when out of memory. */
struct lu_stats *lu_stats_new(void);
void lu_stats_free(struct lu_stats *s);

/* One command answered: bytes is what crossed the wire for it (Data-Out
 * received or Data-In sent), good whether its status was GOOD, latency_ns
 * from its command PDU's arrival to its response.  shard: the completing
 * I/O thread's index (any value works; equal values share cache lines;
 * LU_STATS_SOLE as above). */
void lu_stats_record(struct lu_stats *s, unsigned shard, enum lu_kind kind, uint64_t bytes, bool good,
		     uint64_t latency_ns);

/* One command's figures, worked out once (its kind decoded and its latency
 * bucket found) for the several sets that count it: the LU's, its portal's
 * and its initiator's (target/iscsi/path_stats.h).  Each further set then
 * costs only its adds. */
struct lu_stats_sample {
	enum lu_kind kind;
	bool good;
	unsigned bucket;        /* lunlab_lat_bucket(latency_ns) */
	uint64_t bytes, latency_ns;
};
void lu_stats_sample_set(struct lu_stats_sample *smp, enum lu_kind kind, uint64_t bytes, bool good,
			 uint64_t latency_ns);
/* lu_stats_record of a sample (s NULL: nothing). */
void lu_stats_add(struct lu_stats *s, unsigned shard, const struct lu_stats_sample *smp);

struct lu_kind_figures {
	uint64_t commands;
	uint64_t errors;                          /* status other than GOOD */
	uint64_t bytes;
	uint64_t latency_sum_ns;
	uint64_t latency_buckets[LUNLAB_LAT_BUCKETS]; /* per bucket, not cumulative */
};

/* Sum of every shard, per kind. */
void lu_stats_read(const struct lu_stats *s, struct lu_kind_figures out[LU_KINDS]);
/* The same sums of one kind without the latency buckets (out's are left
 * 0): a tenth of the counters, for readers of the totals alone (the XMS
 * API reads them for each of 10,000 volumes in one listing). */
void lu_stats_read_kind(const struct lu_stats *s, enum lu_kind kind, struct lu_kind_figures *out);

#endif
