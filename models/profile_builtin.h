/* profile_builtin.h — the built-in profile texts, generated at build time from
 * models/profiles/<name>.yaml by models/embed_profiles.py. */
#ifndef LUNLAB_MODELS_PROFILE_BUILTIN_H
#define LUNLAB_MODELS_PROFILE_BUILTIN_H

struct profile_builtin {
	const char *name;   /* file name without .yaml */
	const char *origin; /* path in the source tree, for error messages */
	const char *text;
};

/* Terminated by an entry with name == NULL. */
extern const struct profile_builtin profile_builtins[];
/* The same names, NULL-terminated (profile_builtin_names()). */
extern const char *const profile_builtin_name_list[];

#endif
