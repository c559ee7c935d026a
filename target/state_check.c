/* state_check.c — lunlab-target --check-state DIR (state_check.h).  The
 * arrays are the handler's: it is loaded as the host loads it (its
 * handler_init gives the host its array-control table through the
 * extension contract, include/lunlab/host_ext.h) and asked through that
 * table, so the target never reads the array's format. */
#include "target/state_check.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lunlab/array_ctl.h"
#include "state/state_dir.h"
#include "target/tcmu/host.h"
#include "target/api/xms_store.h"
#include "target/target_state.h"

static int bad(const char *dir, const char *what, const char *why, int rc)
{
	fprintf(stderr, "lunlab-target: --check-state %s: %s%s%s\n", dir, what, *what ? ": " : "", why);
	return rc;
}

/* the interface of handler_lunlab.so in handler_path, or NULL with why.
 * The module stays loaded (hosts never unload a handler: the registry
 * keeps pointers into it). */
static const struct lunlab_array_ctl *find_ctl(const char *handler_path, char *why, size_t len)
{
	char path[1024], *err = NULL;
	const struct lunlab_array_ctl *ctl;

	snprintf(path, sizeof(path), "%.990s/handler_lunlab.so", handler_path);
	if (tcmu_host_load_handler_file(path, &err) < 0) {
		snprintf(why, len, "cannot load %s", err ? err : path);
		free(err);
		return NULL;
	}
	ctl = tcmu_host_array_ctl("lunlab");
	if (!lunlab_array_ctl_has(ctl, state_check)) {
		snprintf(why, len, "%s has no state check in its array-control interface (an older handler?)", path);
		return NULL;
	}
	return ctl;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int state_check_run(const char *dir, const char *handler_path)
{
	char out[1024], err[STATE_PATH_MAX + 1024], path[STATE_PATH_MAX];
	struct stat st;
	struct dirent **names = NULL;
	const struct lunlab_array_ctl *ctl = NULL;
	int n, rc = 0;

	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || !state_dir_has_state(dir))
		return bad(dir, "", "not a lunlab state directory", 2);
	if (target_state_check(dir, xms_store_check, out, sizeof(out), err, sizeof(err)) < 0)
		return bad(dir, "", err, 1);
	printf("ok: %s\n", out);
	snprintf(path, sizeof(path), "%s/arrays", dir);
	n = scandir(path, &names, NULL, by_name);
	for (int i = 0; i < n && rc == 0; i++) {
		char adir[STATE_PATH_MAX + 256];

		if (names[i]->d_name[0] == '.')
			continue;
		snprintf(adir, sizeof(adir), "%s/%s", path, names[i]->d_name);
		if (stat(adir, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		if (!ctl && !(ctl = find_ctl(handler_path, err, sizeof(err)))) {
			rc = bad(dir, "", err, 2);
			break;
		}
		if (ctl->state_check(adir, out, sizeof(out), err, sizeof(err)) != 0) {
			char what[300];

			snprintf(what, sizeof(what), "arrays/%s", names[i]->d_name);
			rc = bad(dir, what, err, 1);
			break;
		}
		printf("ok: %s\n", out);
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (rc == 0)
		printf("state %s: consistent\n", dir);
	return rc;
}
