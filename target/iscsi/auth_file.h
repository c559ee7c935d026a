/* auth_file.h — the access-control file (--auth-file): CHAP credentials and
 * the initiator allow-list.  Format (docs/access-control.md), one entry a
 * line, fields separated by spaces or tabs, '#' starts a comment line:
 *   chap   USER SECRET   an initiator may log in as USER with SECRET
 *   mutual USER SECRET   the target's own name and secret for mutual CHAP
 *   allow  IQN           only listed initiators may log in (repeatable)
 *   api    USER SECRET   a user of the HTTP API (--api; target/api/api_auth.h)
 * The file must be a regular file owned by the user running lunlab-target
 * with no group/other permissions (0600 or stricter). */
#ifndef LUNLAB_ISCSI_AUTH_FILE_H
#define LUNLAB_ISCSI_AUTH_FILE_H

#include <stddef.h>

#include "target/iscsi/auth_config.h"

#define AUTH_FILE_MAX (1u << 20)
#define AUTH_LINE_MAX 1024

/* Opens, checks owner and mode, reads and parses path into cfg (which the
 * caller zeroed; entries add to what is already there).  0, or -1 with a
 * one-line error in err naming the file and the line/field or the mode. */
int auth_file_load(const char *path, struct auth_config *cfg, char *err, size_t errlen);

/* The parser alone, on len bytes of text; name is used in messages. */
int auth_file_parse(const char *text, size_t len, const char *name, struct auth_config *cfg,
		    char *err, size_t errlen);

#endif
