/* split_work.h — run the pieces of one large command on several cores.
 *
 * A large WRITE's whole blocks are fingerprinted, looked up and copied one
 * after another, lock-free (volume_io.c prestore).  At queue depth 1 a single
 * thread did all of it while the other cores sat idle: a 4 MiB write of
 * unique data at 4 KiB blocks took 3.5 ms of one core on this project's
 * 2-core machines, more than the fa420 model leaves for it.  split_run hands
 * the pieces to a small process-wide pool of helper threads and works on them
 * itself too; pieces are claimed one at a time, so when the helpers are busy
 * (many commands in flight, no idle core) the caller simply does them all and
 * nothing waits on a helper that never comes. */
#ifndef LUNLAB_SPLIT_WORK_H
#define LUNLAB_SPLIT_WORK_H

/* How many pieces are worth making at most: the online cores (1: no helpers,
 * split_run runs every piece in the caller). */
unsigned split_width(void);

/* Run fn(arg, i) for every i in [0, n), each exactly once, the caller's
 * thread among those running them; returns when all n have returned.  fn
 * must be safe to run concurrently for different i. */
void split_run(unsigned n, void (*fn)(void *arg, unsigned piece), void *arg);

#endif
