/* volume_names.h — named volumes of an array: volumes that outlive the device
 * that uses them, found by name, listed, deleted, and snapshotted.
 *
 * A device attaches to a named volume (volume_attach, from the cfgstring key
 * volume=NAME; created empty when none exists) and detaches when it closes
 * (volume_release); only array_volume_delete frees a named volume.  An
 * anonymous volume (volume_create) dies with its device as before.  A named
 * volume is attached to at most one device at a time, and holds a reference
 * to its array, so an array with named volumes lives on with no LU open.
 * Every function takes the array's own locks; any thread, any time. */
#ifndef LUNLAB_VOLUME_NAMES_H
#define LUNLAB_VOLUME_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct array;
struct volume;

#define VOLUME_NAME_MAX 128 /* bytes with the NUL */

/* 1..127 printable ASCII characters other than space ; , / = (the
 * cfgstring's separators and LIO's). */
bool volume_name_ok(const char *name);

/* Attach to the volume called name, creating an empty one of size_bytes
 * with lba_size blocks if there is none.  An existing volume must have that
 * size and block size: a device never resizes a volume by attaching (a
 * resize is the device's reconfig, so nothing is truncated by a typo).
 * -EBUSY: another device is attached; -EINVAL: bad name or a size/block
 * size mismatch; -ENOMEM.  *err (malloc'd) says why. */
int volume_attach(struct array *a, const char *name, uint64_t size_bytes, uint32_t lba_size, struct volume **out,
		  char **err);
/* The device is done with v: a named volume is detached, an anonymous one
 * destroyed. */
void volume_release(struct volume *v);
/* A read-only snapshot: devices attached to it must refuse writes. */
bool volume_is_readonly(struct volume *v);

/* Free the named volume (its blocks' references dropped).  -ENOENT: no
 * such volume; -EBUSY: a device is attached.  The caller holds its own
 * reference to a (the volume's is dropped here). */
int array_volume_delete(struct array *a, const char *name, char **err);

struct volume_info {
	char name[VOLUME_NAME_MAX];        /* "" for an anonymous volume */
	char snapshot_of[VOLUME_NAME_MAX]; /* "" unless made by array_snapshot */
	uint64_t size_bytes;
	uint64_t mapped_bytes;             /* mapped blocks x dedup_block */
	uint64_t single_ref_bytes;         /* blocks only this volume's map references, x dedup_block */
	uint32_t lba_size;
	bool attached, readonly;
};
/* Every volume of a (up to max into out); returns how many exist and the sum
 * of their sizes in *provisioned.  Counting single-reference blocks reads
 * every map entry: O(mapped blocks of the array). */
int array_volumes_info(struct array *a, struct volume_info *out, int max, uint64_t *provisioned);
/* The named volume's entry alone (a lookup of one volume need not count
 * every volume's blocks): 0, or -ENOENT (none by that name, or hidden). */
int array_volume_info(struct array *a, const char *name, struct volume_info *out);

/* The volume known by key (a LU's own volume: "lu:SERIAL"), for a device:
 * in a state directory the stored one when there is one (size and logical
 * block size must match it, except that a larger size grows it), a new
 * empty one otherwise; in memory always a new one.  NULL with *err. */
struct volume *array_volume_open(struct array *a, const char *key, uint64_t size_bytes, uint32_t lba_size,
				 char **err);
/* The device is done with v: in a state directory it stays (detached), in
 * memory it is destroyed. */
void array_volume_close(struct volume *v);

/* snapshot.c: instant snapshots of n named volumes at one point in time.
 * Writes (and reads) of every source are held while their maps are copied;
 * each dst[i] becomes a named volume sharing src[i]'s blocks (references
 * only, no data copied), read-only when readonly.  *entries receives the
 * number of map entries copied (what the cost model charges).  -ENOENT: a
 * source is missing; -EEXIST: a destination exists (or two are equal);
 * -EINVAL: a bad name or n == 0; -ENOSPC: no memory for the maps (or a
 * saturated block needed a copy the array has no space for). */
int array_snapshot(struct array *a, const char *const *src, const char *const *dst, size_t n, bool readonly,
		   uint64_t *entries, char **err);

/* Refresh: the data of each named volume dst[i] becomes src[i]'s, in place
 * and at one point in time (every volume involved is held while the maps
 * are replaced), as map entries and references, no data copied; devices
 * attached to dst[i] stay attached and read the new data from their next
 * command.  *entries counts the map entries that changed.  -ENOENT: a
 * volume is missing; -EINVAL: sizes or block sizes differ, a volume named
 * twice, n == 0 (a read-only snapshot may be refreshed: read-only is
 * what its hosts may do, not the array); -ENOSPC: a
 * saturated block needed a copy the array has no space for (the volumes
 * before it in the list are refreshed then). */
int array_refresh(struct array *a, const char *const *src, const char *const *dst, size_t n, uint64_t *entries,
		  char **err);

/* Delete every named volume no device uses, in every array (a host's
 * shutdown: the handler's destroy()). */
void array_drop_named_volumes(void);

#endif
