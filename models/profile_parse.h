/* profile_parse.h — the strict profile parser behind profile_get(), exposed for
 * the unit tests and for tools that validate a profile file. */
#ifndef LUNLAB_MODELS_PROFILE_PARSE_H
#define LUNLAB_MODELS_PROFILE_PARSE_H

#include <stddef.h>

#include "models/profile.h"

/* Parse one profile document.  origin names it in errors ("path:line: field: why").
 * Returns a malloc'd profile (free with profile_free) or NULL with *err malloc'd. */
struct lunlab_profile *profile_parse(const char *text, size_t len, const char *origin, char **err);
void profile_free(struct lunlab_profile *p);

#endif
