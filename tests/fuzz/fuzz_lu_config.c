/* fuzz_lu_config.c — libFuzzer target: any bytes as a handler cfgstring
 * (handlers/scsi/lu_config.c: "lunlab/key=value;...", what tcmu-runner and
 * lunlab-target hand to check_config and open; under LIO it is whatever an
 * administrator wrote into configfs).  The string is an exact-size heap copy
 * (its first NUL ends it, as in C), so ASan sees any read past it.  An
 * accepted config must hold only what the keys promise; a refused one must
 * come with a one-line reason. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/scsi/lu_config.h"
#include "models/cost_virtual.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int terminated(const char *s, size_t cap)
{
	return memchr(s, '\0', cap) != NULL;
}

static int name_chars(const char *s, const char *extra)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(extra, *s))
			return 0;
	return 1;
}

static int volume_chars(const char *s)
{
	for (; *s; s++)
		if (*s < 0x21 || *s > 0x7e || strchr(";,/=", *s))
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct lu_config c;
	char *why = NULL;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (lu_config_parse(text, &c, &why) == 0) {
		int bad = why != NULL || !terminated(c.model, sizeof(c.model)) || !c.model[0] ||
			  !terminated(c.profile, sizeof(c.profile)) || !terminated(c.array, sizeof(c.array)) ||
			  !terminated(c.serial, sizeof(c.serial)) || !terminated(c.volume, sizeof(c.volume)) ||
			  !name_chars(c.array, "._-") || !volume_chars(c.volume) || (c.volume[0] && !c.array[0]) ||
			  !(c.time_scale >= 0 || cost_time_virtual_streams(c.time_scale) > 0) || (c.physical_block && (c.physical_block < 512 ||
								      c.physical_block > (4u << 20) ||
								      (c.physical_block & (c.physical_block - 1)))) ||
			  (c.array_capacity && (c.array_capacity < (1ull << 20) || c.array_capacity > (1ull << 60))) ||
			  c.soft_threshold < -1 || c.soft_threshold > 100;
		if (bad) {
			fprintf(stderr, "lu_config_parse accepted an out-of-range config: [%s]\n", text);
			abort();
		}
	} else if (!why || strchr(why, '\n')) {
		fprintf(stderr, "lu_config_parse reason is not one line: [%s]\n", why ? why : "(null)");
		abort();
	}
	free(why);
	free(text);
	return 0;
}
