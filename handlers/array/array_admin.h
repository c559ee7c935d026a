/* array_admin.h — store functions beyond the frozen volume.h: used by tests,
 * benchmarks and anyone who needs complete capacity figures. */
#ifndef LUNLAB_ARRAY_ADMIN_H
#define LUNLAB_ARRAY_ADMIN_H

#include <stddef.h>
#include <stdint.h>

struct array;

/* Wait until the accounting backlog is empty (pending_blocks == 0), working
 * on it in the calling thread too, so every figure of array_get_stats is
 * final (docs/accounting.md "When figures lag").  Writes that go on
 * meanwhile may add new pending blocks. */
void array_flush_accounting(struct array *a);

/* Replace the 64-bit content fingerprint (default: low half of XXH3-128).
 * Only for tests of the collision path: call before the first write. */
void array_set_fingerprint(struct array *a, uint64_t (*fn)(const void *data, size_t len));

/* Number of live arrays in the process registry (tests). */
unsigned array_registry_count(void);

#endif
