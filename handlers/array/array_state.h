/* array_state.h — an array kept in a state directory (--state-dir,
 * cfgstring state_dir=; docs/persistence.md): DIR/arrays/NAME holds its
 * metadata (meta.db, store_db.h) and its payload slots (blocks.dat,
 * payload_file.h).  Below the registry (array.c), which attaches it, and
 * above one array's core (array_core.c), whose volume list it fills at open
 * and follows through hooks (array_internal.h): it loads the block store
 * and the volumes at open, and commits
 * what changed, always a cut between commands, as one SQLite transaction
 * after the payloads it references are on disk.
 *
 * When a change is durable (SBC-4 5.26 / 4.15, the caching mode page):
 *   - array_sync() returns once every change made before it was called is
 *     on stable storage (SYNCHRONIZE CACHE; a write with FUA; every write
 *     of a LU whose WCE is 0);
 *   - a committer thread also commits on its own, every
 *     ARRAY_STATE_COMMIT_MS and when enough has changed, so a crash loses
 *     at most about that much of what was never synchronised;
 *   - whatever a crash loses, it loses whole commands: the state after a
 *     restart is the one of some cut, never a torn block or half an
 *     EXTENDED COPY, UNMAP, WRITE SAME or COMPARE AND WRITE.
 * Every function is thread safe. */
#ifndef LUNLAB_ARRAY_STATE_H
#define LUNLAB_ARRAY_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "handlers/array/volume.h"

#define ARRAY_STATE_COMMIT_MS 1000
/* a commit on its own once this many blocks changed (~64 MiB at 16 KiB) */
#define ARRAY_STATE_COMMIT_BLOCKS 4096u

struct array;
struct volume;

/* array_get() with a state directory (an absolute path; NULL: memory, as
 * array_get) and the profile it is stamped with.  The first LU of an array
 * decides where it lives; a later LU naming another directory, a state
 * written for other parameters or another profile, or a damaged state is
 * refused with *err (malloc'd) saying why. */
struct array *array_get_state(const char *name, const struct array_params *p, const char *state_dir,
			      const char *profile, char **err);

/* Is a kept in a state directory? */
bool array_persistent(const struct array *a);

/* Flags of the volume that survive a restart (store_db.h STORE_VOL_*). */
uint32_t array_volume_flags(struct volume *v);
/* Set (val) or clear the flags in mask; durable when it returns 0. */
int array_volume_set_flags(struct volume *v, uint32_t mask, uint32_t val);

/* One SCSI command's changes, however many volume calls they take (an
 * EXTENDED COPY's segments), go in one commit: bracket them.  Nests; never
 * call array_sync inside.  Nothing for an array in memory. */
void array_cmd_begin(struct array *a);
void array_cmd_end(struct array *a);

/* Every change so far durable: 0, or -errno (-EIO: the state directory
 * could not be written; the changes stay for the next attempt).  0 at once
 * for an array in memory.  -EDEADLK called inside array_cmd_begin/end
 * (the commit would wait for the caller). */
int array_sync(struct array *a);

/* Figures of the state directory (bench, docs): commits so far, bytes of
 * blocks.dat on disk, bytes of meta.db (with its log). */
struct array_state_usage {
	uint64_t commits;
	uint64_t blocks_file_bytes, blocks_disk_bytes;
	uint64_t meta_bytes;
};
int array_state_usage(struct array *a, struct array_state_usage *out);

/* lunlab-target --check-state: verify the array kept in dir (the directory
 * of one array, DIR/arrays/NAME) offline.  0 with a one-line summary in
 * out, or -1 with the first inconsistency in err. */
int array_state_check(const char *dir, char *out, size_t outlen, char *err, size_t errlen);

#endif
