/* config_file.h — lunlab-target --config FILE: the command line's options as
 * a YAML mapping (docs/config.md).  Every key is an option's long name; lists
 * are sequences; each LUN is a mapping of --lun's keys.  Values go through
 * cli_set()/cli_lun_key(), the command line's own checks. */
#ifndef LUNLAB_TARGET_CONFIG_FILE_H
#define LUNLAB_TARGET_CONFIG_FILE_H

#include <stddef.h>

struct cli;

#define CONFIG_FILE_MAX (1u << 20) /* a config file is small: refuse more than 1 MiB */

/* Apply the YAML text (len bytes, NUL not needed) to c, which cli_init()
 * prepared.  origin names the file in errors.  0, or -1 with one line in err:
 * "ORIGIN:LINE: FIELD: why" (FIELD as "iqn", "listen[1]", "lun[0].block"). */
int config_file_parse(const char *text, size_t len, const char *origin, struct cli *c, char *err,
		      size_t errlen);

/* Read path (a regular file of at most CONFIG_FILE_MAX bytes) and parse it.
 * -1 with "PATH: why" or a parse error in err. */
int config_file_load(const char *path, struct cli *c, char *err, size_t errlen);

#endif
