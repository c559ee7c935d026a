/* registry.c — handler loading and registration, as tcmu-runner does it:
 * every handler_*.so in a directory is dlopen()ed RTLD_NOW|RTLD_LOCAL and its
 * handler_init() calls back tcmur_register_handler().  Registration happens
 * at start-up only, so one mutex is enough (it is never on the I/O path). */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lunlab/array_ctl.h"
#include "target/tcmu/host_priv.h"

#define MAX_HANDLERS 64

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tcmur_handler *handlers[MAX_HANDLERS];
static size_t nr_handlers;
/* the array-control table (array_ctl.h) each handler's module gave through
 * the extension contract (host_ext.h); NULL for modules that gave none (any
 * tcmu-runner handler) */
static const struct lunlab_array_ctl *ctls[MAX_HANDLERS];
/* why the last tcmur_register_handler() on this thread failed, so the
 * loader's one error line can say it instead of just "-1" */
static _Thread_local char reg_why[128];

int tcmur_register_handler(struct tcmur_handler *h)
{
	if (!h || !h->subtype || !h->subtype[0]) {
		snprintf(reg_why, sizeof(reg_why), "handler without a subtype");
		return -1;
	}
	pthread_mutex_lock(&reg_lock);
	for (size_t i = 0; i < nr_handlers; i++) {
		if (strcmp(handlers[i]->subtype, h->subtype) == 0) {
			pthread_mutex_unlock(&reg_lock);
			snprintf(reg_why, sizeof(reg_why), "subtype '%s' is already registered", h->subtype);
			return -1;
		}
	}
	if (nr_handlers == MAX_HANDLERS) {
		pthread_mutex_unlock(&reg_lock);
		snprintf(reg_why, sizeof(reg_why), "too many handlers (max %d)", MAX_HANDLERS);
		return -1;
	}
	/* tcmu-runner calls init() before the handler becomes visible, and a
	 * failing init() refuses the registration. */
	if (h->init && h->init() != 0) {
		pthread_mutex_unlock(&reg_lock);
		snprintf(reg_why, sizeof(reg_why), "handler '%s': init() failed", h->subtype);
		return -1;
	}
	handlers[nr_handlers++] = h;
	pthread_mutex_unlock(&reg_lock);
	return 0;
}

/* lunlab_host_ops.handler_set_array_ctl (include/lunlab/host_ext.h) */
int host_ext_handler_set_array_ctl(const struct tcmur_handler *h, const struct lunlab_array_ctl *ctl)
{
	int rc = -ENOENT;

	if (!ctl)
		return -EINVAL;
	pthread_mutex_lock(&reg_lock);
	for (size_t i = 0; i < nr_handlers; i++)
		if (handlers[i] == h) {
			ctls[i] = ctl;
			rc = 0;
			break;
		}
	pthread_mutex_unlock(&reg_lock);
	return rc;
}

struct tcmur_handler *host_find_handler(const char *subtype, size_t len)
{
	struct tcmur_handler *found = NULL;

	pthread_mutex_lock(&reg_lock);
	for (size_t i = 0; i < nr_handlers; i++) {
		if (strlen(handlers[i]->subtype) == len &&
		    memcmp(handlers[i]->subtype, subtype, len) == 0) {
			found = handlers[i];
			break;
		}
	}
	pthread_mutex_unlock(&reg_lock);
	return found;
}

const struct lunlab_array_ctl *host_handler_array_ctl(const struct tcmur_handler *h)
{
	const struct lunlab_array_ctl *ctl = NULL;

	pthread_mutex_lock(&reg_lock);
	for (size_t i = 0; i < nr_handlers; i++)
		if (handlers[i] == h) {
			ctl = ctls[i];
			break;
		}
	pthread_mutex_unlock(&reg_lock);
	return ctl;
}

static int is_handler_file(const char *name)
{
	size_t n = strlen(name);

	return strncmp(name, "handler_", 8) == 0 && n > 11 && strcmp(name + n - 3, ".so") == 0;
}

__attribute__((format(printf, 2, 3))) static int set_err(char **err, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		free(*err);
		va_start(ap, fmt);
		if (vasprintf(err, fmt, ap) < 0)
			*err = NULL;
		va_end(ap);
	}
	return -1;
}

/* Returns how many handlers the file registered, -1 with *err. */
static int load_one(const char *path, char **err)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return set_err(err, "%s: dlopen failed: %s", path, dlerror());
	dlerror();
	int (*init)(void) = (int (*)(void))dlsym(h, "handler_init");
	if (!init) {
		const char *e = dlerror();

		set_err(err, "%s: no handler_init: %s", path, e ? e : "symbol is NULL");
		dlclose(h);
		return -1;
	}
	size_t before;

	pthread_mutex_lock(&reg_lock);
	before = nr_handlers;
	pthread_mutex_unlock(&reg_lock);
	reg_why[0] = 0;
	int rc = init();

	if (rc != 0) {
		char why[160];

		snprintf(why, sizeof(why), "%d%s%s", rc, reg_why[0] ? ": " : "", reg_why);
		set_err(err, "%s: handler_init() failed: %s", path, why);
		/* not dlclose()d: init may have left threads or atexit hooks
		 * pointing into the module (tcmu-runner never unloads either) */
		return -1;
	}
	pthread_mutex_lock(&reg_lock);
	int registered = (int)(nr_handlers - before);

	pthread_mutex_unlock(&reg_lock);
	return registered;
}

int tcmu_host_load_handler_file(const char *path, char **err)
{
	if (err)
		*err = NULL;
	if (!path)
		return set_err(err, "handler file not given");
	return load_one(path, err);
}

int tcmu_host_load_handlers(const char *dir, char **err)
{
	struct dirent **list = NULL;
	int n, count = 0, rc = 0;

	if (err)
		*err = NULL;
	if (!dir)
		return set_err(err, "handler directory not given");
	n = scandir(dir, &list, NULL, alphasort);
	if (n < 0)
		return set_err(err, "%s: cannot read handler directory: %s", dir, strerror(errno));
	/* Every file is tried even after a failure so the log names all bad
	 * handlers at once; the first error is returned. */
	for (int i = 0; i < n; i++) {
		if (is_handler_file(list[i]->d_name)) {
			char *path = NULL, *e = NULL;

			if (asprintf(&path, "%s/%s", dir, list[i]->d_name) < 0) {
				rc = set_err(err, "%s: out of memory", dir);
			} else {
				int r = load_one(path, &e);

				if (r < 0) {
					tcmu_err_message(NULL, __func__, __LINE__, "%s", e ? e : path);
					if (rc == 0 && err) {
						*err = e;
						e = NULL;
					}
					rc = -1;
				} else {
					count += r;
				}
				free(e);
				free(path);
			}
		}
		free(list[i]);
	}
	free(list);
	if (rc < 0)
		return -1;
	return count;
}

/* destroy() every handler and forget them.  The modules stay mapped, as in
 * tcmu-runner: a handler may keep a background thread (a pacer, a timer)
 * running until the process exits, and unmapping its code under it would
 * crash. */
void host_handlers_destroy(void)
{
	pthread_mutex_lock(&reg_lock);
	for (size_t i = nr_handlers; i-- > 0;) {
		if (handlers[i]->destroy)
			handlers[i]->destroy();
		handlers[i] = NULL;
	}
	nr_handlers = 0;
	pthread_mutex_unlock(&reg_lock);
}
