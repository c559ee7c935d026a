/* fuzz_profile_parse.c — libFuzzer target: any bytes as a profile document
 * (models/profile_parse.c, the strict YAML parser behind profile_get() for a
 * path).  The text is an exact-size heap copy without a terminating NUL, so
 * ASan sees any read past len.  An accepted profile must satisfy the ranges
 * profile_parse.c promises; a refused one must come with a one-line error. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/profile_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *err = NULL;
	char *text = malloc(size ? size : 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	struct lunlab_profile *p = profile_parse(text, size, "fuzz.yaml", &err);
	if (p) {
		if (err || p->name[0] == '\0' || !memchr(p->name, '\0', sizeof(p->name)) ||
		    p->dedup_block < 512 || p->dedup_block > (1u << 20) || p->zlib_level < 0 ||
		    p->zlib_level > 9 || p->zlib_window_bits < 9 || p->zlib_window_bits > 15 ||
		    p->alloc_unit < 1 || p->alloc_unit > (1u << 20)) {
			fprintf(stderr, "profile_parse accepted an out-of-range profile '%.31s'\n", p->name);
			abort();
		}
		profile_free(p);
	} else {
		if (!err || strchr(err, '\n')) {
			fprintf(stderr, "profile_parse error is not one line: [%s]\n", err ? err : "(null)");
			abort(); /* one line naming the field */
		}
		free(err);
	}
	free(text);
	return 0;
}
