/* state_dir.h — a lunlab state directory (lunlab-target --state-dir DIR, the
 * handler's cfgstring state_dir=DIR; docs/persistence.md):
 *
 *   DIR/lock                 held (flock) by the process that uses DIR
 *   DIR/target.db            lunlab-target's own state (reservations with
 *                            APTPL, ...): SQLite
 *   DIR/arrays/NAME/         one per array of handler_lunlab.so:
 *       lock                 held by the process serving the array
 *       meta.db              volumes, maps, block records (SQLite)
 *       blocks.dat           block payloads, one slot per block id
 *
 * A directory is used by one process at a time: the lock is taken with
 * flock(LOCK_EX | LOCK_NB) and names the holder's pid when it is busy. */
#ifndef LUNLAB_STATE_DIR_H
#define LUNLAB_STATE_DIR_H

#include <stdbool.h>
#include <stddef.h>

#define STATE_PATH_MAX 4096

/* Create dir (and its parents) when create is set, check it is a directory
 * we can write, and take dir/lock.  *lock_fd gets the descriptor that holds
 * the lock (close it to release).  0, or -1 with a one-line reason. */
int state_dir_lock(const char *dir, bool create, int *lock_fd, char *err, size_t errlen);

/* Release what state_dir_lock took. */
void state_dir_unlock(int lock_fd);

/* The directory of array `name` inside state directory dir: "DIR/arrays/"
 * followed by the name when it is made only of [A-Za-z0-9_-] and does not
 * start with '-', else by a spelling that is (every other byte as %XX).
 * 0, or -1 when the result does not fit out[outlen]. */
int state_array_dir(const char *dir, const char *name, char *out, size_t outlen);

/* Does dir hold state (dir/target.db or dir/arrays)? */
bool state_dir_has_state(const char *dir);

#endif
