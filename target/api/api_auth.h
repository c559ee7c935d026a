/* api_auth.h — who may use the HTTP API: the `api USER SECRET` lines of the
 * auth file (auth_file.h), checked against HTTP Basic credentials.  There is
 * no API without a user: lunlab-target refuses --api when the auth file has
 * no api line.  Secrets are compared in time independent of their content
 * and never logged. */
#ifndef LUNLAB_API_AUTH_H
#define LUNLAB_API_AUTH_H

#include <stdbool.h>
#include <stddef.h>

#include "target/iscsi/auth_config.h"

/* true when user/pass name one of cfg's api users */
bool api_auth_check(const struct auth_config *cfg, const char *user, const char *pass);

#endif
