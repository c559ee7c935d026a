/* mem_backend.h — TEST ONLY: a tiny in-memory LU (TUR, INQUIRY, READ
 * CAPACITY, READ/WRITE 10/16) that completes on its own worker thread, like
 * the real tcmu host does, so the transport's cross-thread completion path is
 * exercised without the handler. */
#ifndef LUNLAB_TEST_MEM_BACKEND_H
#define LUNLAB_TEST_MEM_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "target/lu/lu_cmd.h"

struct lu_backend *mem_backend_new(size_t size, unsigned block_size);
void mem_backend_free(struct lu_backend *be);
/* lu_cmd.arrival_ns of the last command executed */
uint64_t mem_backend_last_arrival(struct lu_backend *be);
/* hold: commands queue up and none completes until released (mem_backend_free
 * still drains them) */
void mem_backend_hold(struct lu_backend *be, bool hold);
/* commands queued and not yet executed (held ones included) */
unsigned long mem_backend_queued(struct lu_backend *be);

/* Early Data-Out (lu_backend_ops.data_arrived): when on, the LU records
 * every call with a checksum of the prefix it says is final, and checks at
 * execution that those bytes did not change; its state is dropped through
 * lu_cmd.early_drop. */
struct mem_early_stats {
	unsigned long calls;     /* data_arrived calls */
	unsigned long states;    /* commands that got a state */
	unsigned long drops;     /* early_drop calls */
	unsigned long bad;       /* calls that broke the contract (see mem_backend.c) */
	unsigned long last_bytes; /* bytes of the latest call */
};
void mem_backend_early(struct lu_backend *be, bool on);
struct mem_early_stats mem_backend_early_stats(struct lu_backend *be);

#endif
