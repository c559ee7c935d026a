/* handler_dir.c — the default handler directory (see handler_dir.h).  The
 * paths come from meson: LUNLAB_BUILD_EXE_DIR (where the build puts
 * lunlab-target), LUNLAB_HANDLER_DIR (the build's handlers/) and
 * LUNLAB_INSTALLED_HANDLER_DIR (prefix/libdir/tcmu-runner, where meson install
 * and the Debian package put handler_lunlab.so). */
#include "target/handler_dir.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef LUNLAB_HANDLER_DIR
#define LUNLAB_HANDLER_DIR "handlers"
#endif
#ifndef LUNLAB_BUILD_EXE_DIR
#define LUNLAB_BUILD_EXE_DIR ""
#endif
#ifndef LUNLAB_INSTALLED_HANDLER_DIR
#define LUNLAB_INSTALLED_HANDLER_DIR LUNLAB_HANDLER_DIR
#endif

const char *handler_dir_pick(const char *exe_dir, const char *build_exe_dir,
			     const char *build_handlers, const char *installed)
{
	/* exact directory match: an installed copy elsewhere never borrows the
	 * build tree's handler, even when that tree still exists */
	if (exe_dir && build_exe_dir && *build_exe_dir && strcmp(exe_dir, build_exe_dir) == 0)
		return build_handlers;
	return installed;
}

const char *handler_dir_default(void)
{
	static char exe[PATH_MAX];
	const char *env = getenv("LUNLAB_HANDLER_PATH");
	char *slash;
	ssize_t n;

	if (env && *env)
		return env;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) /* no /proc: the installed directory, the safe choice */
		return handler_dir_pick(NULL, LUNLAB_BUILD_EXE_DIR, LUNLAB_HANDLER_DIR,
					LUNLAB_INSTALLED_HANDLER_DIR);
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	return handler_dir_pick(exe, LUNLAB_BUILD_EXE_DIR, LUNLAB_HANDLER_DIR, LUNLAB_INSTALLED_HANDLER_DIR);
}

bool handler_dir_is_shared(const char *dir)
{
	return dir && strcmp(dir, LUNLAB_INSTALLED_HANDLER_DIR) == 0 &&
	       strcmp(LUNLAB_INSTALLED_HANDLER_DIR, LUNLAB_HANDLER_DIR) != 0;
}
