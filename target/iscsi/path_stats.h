/* path_stats.h — what went through each end of the I_T paths: the figures
 * lu_stats.h keeps per LU (commands, wire bytes, latency sums by kind),
 * kept also per portal (the --listen address a command came through: XMS's
 * "target") and per initiator (its IQN: the initiators of an XMS initiator
 * group).  /metrics serves them (lunlab_portal_*, lunlab_initiator_*) and
 * the management API shows targets' and initiator groups' performance
 * from them: one bookkeeping for both.
 *
 * Cost on the I/O path: the same sharded relaxed adds as lu_stats, twice
 * more per command.  A connection finds its initiator's counters once (its
 * first command; a mutex and a scan of the table), then keeps the pointer.
 * Bounded: PATH_STATS_INITIATORS initiators are counted (each ~11 KB);
 * later ones are not (path_stats_untracked counts their commands), and an
 * initiator's counters stay when its sessions end (counters only grow). */
#ifndef LUNLAB_PATH_STATS_H
#define LUNLAB_PATH_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "target/lu/lu_stats.h"

#define PATH_STATS_PORTALS 16      /* TARGET_MAX_PORTALS */
#define PATH_STATS_INITIATORS 256
#define PATH_STATS_NAME_MAX 224    /* an IQN is at most 223 bytes */

/* The counters of portal i (0..PATH_STATS_PORTALS-1; NULL otherwise, or
 * out of memory). */
struct lu_stats *path_stats_portal(int i);
/* The counters of initiator iqn, made on first use; NULL when the table is
 * full (or out of memory). */
struct lu_stats *path_stats_initiator(const char *iqn);
/* The counters of initiator iqn if it has any yet (NULL: none), made by
 * no one: for readers (the API).  IQNs compare case-insensitively, as
 * RFC 3722 folds them. */
const struct lu_stats *path_stats_initiator_find(const char *iqn);
/* A command of an initiator beyond the bound: counted here only. */
void path_stats_untracked_add(void);
uint64_t path_stats_untracked(void);

/* Every initiator counted so far, in the order first seen: fn(iqn, stats,
 * arg) under the table's lock (keep it short). */
void path_stats_each_initiator(void (*fn)(const char *iqn, const struct lu_stats *s, void *arg), void *arg);

/* Tests: forget every initiator and zero the portals. */
void path_stats_reset(void);

#endif
