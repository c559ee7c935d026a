/* profile.c — profile_get(): built-in profiles by name, anything else as a file path.
 * Parsed profiles are kept until exit (callers hold plain pointers), one per name. */
#include "models/profile.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/profile_builtin.h"
#include "models/profile_parse.h"

struct loaded {
	char *key; /* built-in name or path as given */
	const struct lunlab_profile *p;
	struct loaded *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct loaded *loaded;

static char *read_file(const char *path, size_t *len, char **err)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		if (asprintf(err, "%s: cannot open profile: %s", path, strerror(errno)) < 0)
			*err = NULL;
		return NULL;
	}
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	while (buf) {
		if (n == cap) {
			if (cap >= (1u << 20)) { /* a profile is a page of text, not a megabyte */
				free(buf);
				fclose(f);
				if (asprintf(err, "%s: profile larger than 1 MiB", path) < 0)
					*err = NULL;
				return NULL;
			}
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		size_t r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	bool bad = ferror(f);
	fclose(f);
	if (!buf || bad) {
		free(buf);
		if (asprintf(err, "%s: cannot read profile", path) < 0)
			*err = NULL;
		return NULL;
	}
	*len = n;
	return buf;
}

static const struct lunlab_profile *load(const char *name, char **err)
{
	for (const struct profile_builtin *b = profile_builtins; b->name; b++) {
		if (strcmp(b->name, name))
			continue;
		struct lunlab_profile *p = profile_parse(b->text, strlen(b->text), b->origin, err);
		if (p && strcmp(p->name, b->name)) {
			if (asprintf(err, "%s: name '%s' differs from the file name", b->origin, p->name) < 0)
				*err = NULL;
			profile_free(p);
			return NULL;
		}
		return p;
	}
	if (!strchr(name, '/') && !strstr(name, ".yaml")) {
		if (asprintf(err, "profile '%s': not a built-in (x1, x2, fa420, unlimited) nor a path to a .yaml file",
			     name) < 0)
			*err = NULL;
		return NULL;
	}
	size_t len = 0;
	char *text = read_file(name, &len, err);
	if (!text)
		return NULL;
	struct lunlab_profile *p = profile_parse(text, len, name, err);
	free(text);
	return p;
}

const struct lunlab_profile *profile_get(const char *name, char **err)
{
	char *dummy = NULL;
	if (!err)
		err = &dummy;
	*err = NULL;
	if (!name || !*name) {
		*err = strdup("profile: empty name");
		free(dummy);
		return NULL;
	}
	pthread_mutex_lock(&lock);
	const struct lunlab_profile *p = NULL;
	for (struct loaded *l = loaded; l; l = l->next)
		if (!strcmp(l->key, name)) {
			p = l->p;
			break;
		}
	if (!p) {
		p = load(name, err);
		struct loaded *l = p ? calloc(1, sizeof(*l)) : NULL;
		char *key = l ? strdup(name) : NULL;
		if (p && (!l || !key)) {
			free(l);
			free(key);
			profile_free((struct lunlab_profile *)p);
			p = NULL;
			*err = strdup("out of memory");
		} else if (p) {
			l->key = key;
			l->p = p;
			l->next = loaded;
			loaded = l;
		}
	}
	pthread_mutex_unlock(&lock);
	free(dummy);
	return p;
}

const char *const *profile_builtin_names(void)
{
	return profile_builtin_name_list;
}
