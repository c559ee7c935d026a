/* scn_parse.h - read a scenario file (YAML, libyaml) into a validated struct scn_model.
 * Every refusal is one line "FILE:LINE:COLUMN: key: what is wrong" (line and column of the
 * offending node, 1-based), so a CI log points at the mistake before anything started. */
#ifndef LUNLAB_CLIENT_SCN_PARSE_H
#define LUNLAB_CLIENT_SCN_PARSE_H

#include <stddef.h>

#include "client/scn_model.h"

/* 0, or -1 with the one line in err.  name: the file name the messages use. */
int scn_parse_file(const char *path, struct scn_model *m, char *err, size_t errlen);
int scn_parse_text(const char *name, const char *text, size_t len, struct scn_model *m, char *err, size_t errlen);

/* "2s", "500ms", "1.5m", "3" (seconds) -> seconds; 0 or -1 */
int scn_parse_duration(const char *s, double *out);
/* "07/27/07" -> 0x072707; 0 or -1 */
int scn_parse_sense(const char *s, unsigned *out);

#endif
