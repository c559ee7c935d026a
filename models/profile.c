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
#include "lunlab/errf.h"
#include "lunlab/read_file.h"

struct loaded {
	char *key; /* built-in name or path as given */
	const struct lunlab_profile *p;
	struct loaded *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct loaded *loaded;

/* a profile is a page of text, not a megabyte */
static char *read_file(const char *path, size_t *len, char **err)
{
	const struct ll_read_rules rules = { .max = 1u << 20 };
	char why[512];
	char *text = ll_read_file(path, &rules, len, why, sizeof(why));

	if (!text)
		ll_strerrf(err, "profile %s", why);
	return text;
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
