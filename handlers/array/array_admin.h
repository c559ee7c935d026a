/* array_admin.h — store functions beyond the frozen volume.h: used by tests,
 * benchmarks and anyone who needs complete capacity figures. */
#ifndef LUNLAB_ARRAY_ADMIN_H
#define LUNLAB_ARRAY_ADMIN_H

#include <stdbool.h>
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

/* ---- the registry, for the array-control interface ---- */
#define ARRAY_NAME_MAX 64 /* bytes with the NUL (lunlab_dev.array_name) */
/* The live array called name with one more reference (array_put it), or NULL. */
struct array *array_lookup(const char *name);
/* One more reference to an array the caller holds. */
void array_ref(struct array *a);
/* Names of the live arrays: up to max into names; returns how many exist. */
int array_names(char (*names)[ARRAY_NAME_MAX], int max);
const char *array_name(const struct array *a);
/* The profile the array was made for (the first LU's); set once. */
void array_set_profile(struct array *a, const char *profile);
void array_profile(struct array *a, char *out, size_t len);

/* ---- physical capacity (space.c; docs/accounting.md "Physical capacity") ---- */

struct array_space {
	uint64_t capacity_bytes;       /* usable physical capacity; 0 = no limit */
	uint64_t soft_threshold_bytes; /* use that raises 06/38/07; 0 = none */
	uint64_t used_bytes;           /* accounted blocks at their physical size, others at
	                                * dedup_block: an upper bound at every instant */
	uint64_t reserved_bytes;       /* set aside by commands in flight */
};
void array_get_space(struct array *a, struct array_space *out);

/* Events an array counts; each generation only grows.  The SCSI layer tells
 * every I_T nexus about each new one once (handlers/scsi/ua.c). */
enum array_event {
	ARRAY_EV_SOFT_THRESHOLD, /* use reached the soft threshold: 06/38/07 */
	ARRAY_EV_PARAMS,         /* capacity or threshold changed: 06/2A/01 (mode page 1Ch/02h) */
	ARRAY_EVENTS
};
uint64_t array_event_gen(struct array *a, enum array_event ev);

/* The profile's capacity and soft threshold (percent of capacity, 0 = none),
 * applied only while the array has no capacity yet (its first LU). */
void array_space_default(struct array *a, uint64_t capacity_bytes, unsigned soft_percent);

/* A LU's keys: array_capacity=BYTES (0: not given) and soft_threshold=PERCENT
 * (< 0: not given).  A key sets and pins the value; a LU whose key differs
 * from a pinned value is refused (-EINVAL, *err names the key and both
 * values), as is a capacity below what is in use (-ENOSPC). */
int array_space_keys(struct array *a, uint64_t capacity_bytes, int soft_percent, char **err);

/* Capacity and soft threshold in bytes (threshold 0 = none), pinned.
 * -EINVAL: capacity 0 or threshold above capacity; -ENOSPC: capacity below
 * what is in use now.  *err (malloc'd) says why. */
int array_set_capacity(struct array *a, uint64_t capacity_bytes, uint64_t soft_threshold_bytes, char **err);

#endif
