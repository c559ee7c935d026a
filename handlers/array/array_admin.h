/* array_admin.h — store functions beyond the frozen volume.h: used by tests,
 * benchmarks and anyone who needs complete capacity figures. */
#ifndef LUNLAB_ARRAY_ADMIN_H
#define LUNLAB_ARRAY_ADMIN_H

#include <stddef.h>
#include <stdint.h>

struct array;

/* Accounting runs inline on the write path (docs/accounting.md), so the
 * figures are complete whenever array_get_stats returns; this waits for
 * nothing today and exists so callers need not change if that does. */
void array_flush_accounting(struct array *a);

/* Replace the 64-bit content fingerprint (default: low half of XXH3-128).
 * Only for tests of the collision path: call before the first write. */
void array_set_fingerprint(struct array *a, uint64_t (*fn)(const void *data, size_t len));

/* Number of live arrays in the process registry (tests). */
unsigned array_registry_count(void);

#endif
