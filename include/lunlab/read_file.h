/* read_file.h — the one way lunlab reads a whole small file into memory
 * (the config file, the CHAP secrets file, the API's PEM files, a scenario
 * step's captured output): bounded, checked on the open descriptor (what is
 * read is what was checked), NUL-terminated for text parsers.
 * Errors follow include/lunlab/errf.h: one line into err, "PATH: reason". */
#ifndef LUNLAB_READ_FILE_H
#define LUNLAB_READ_FILE_H

#include <stdbool.h>
#include <stddef.h>

struct ll_read_rules {
	size_t max;          /* refuse a larger file ... */
	bool truncate;       /* ... or keep its first max bytes (captured output) */
	bool secret;         /* must be ours and unreadable by group/others */
	const char *holds;   /* with secret: what it holds, for the mode error ("secrets") */
	bool nonempty;       /* refuse an empty file */
};

/* The regular file at path, whole, into a malloc'd buffer with a NUL after
 * its *len bytes; NULL and err on failure.  A secret file's buffer is wiped
 * before it is freed here; the caller wipes it (explicit_bzero) after use. */
char *ll_read_file(const char *path, const struct ll_read_rules *r, size_t *len, char *err, size_t errlen);

#endif
