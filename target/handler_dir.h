/* handler_dir.h — where lunlab-target looks for handler_*.so when neither
 * --handler-path nor $LUNLAB_HANDLER_PATH says: the build tree's handlers/
 * when this executable is the one in the build tree, else the installed
 * directory (tcmu-runner's handler directory under meson's prefix/libdir), so
 * an installed lunlab-target never depends on a build tree that happens to exist. */
#ifndef LUNLAB_HANDLER_DIR_H
#define LUNLAB_HANDLER_DIR_H

#include <stdbool.h>

/* exe_dir: the directory of the running executable (NULL: unknown).  Returns
 * build_handlers when exe_dir is build_exe_dir, else installed. Pure. */
const char *handler_dir_pick(const char *exe_dir, const char *build_exe_dir,
			     const char *build_handlers, const char *installed);

/* The default for this process: env LUNLAB_HANDLER_PATH if set and not empty,
 * else handler_dir_pick() with /proc/self/exe and the compiled-in paths. */
const char *handler_dir_default(void);

/* true when dir is the installed directory, which lunlab shares with
 * tcmu-runner: its other handler_*.so (rbd, qcow, ...) need symbols only
 * tcmu-runner exports and cannot load into lunlab-target, so lunlab-target
 * loads only handler_lunlab.so from there.  Any other directory: every
 * handler_*.so, each one required to load. */
bool handler_dir_is_shared(const char *dir);

#endif
