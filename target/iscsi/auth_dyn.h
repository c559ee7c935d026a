/* auth_dyn.h — per-initiator CHAP credentials set at run time (by the
 * management API's initiators, XMS style), next to the auth file's static
 * ones (auth_config.h).
 *
 * Rule at login: when the cluster's mode for the session's kind (normal:
 * chap-authentication-mode, discovery: chap-discovery-mode) is on and the
 * initiator has credentials of that kind here, the login must authenticate
 * with exactly them (CHAP_N = the user name, the secret); the auth file's
 * chap users do not apply to it.  Otherwise the auth file decides, as
 * before.  Mutual CHAP, when the initiator asks for it, answers with the
 * auth file's `mutual` identity.  The table is replaced whole and read at
 * login only (a mutex; never on the I/O path). */
#ifndef LUNLAB_ISCSI_AUTH_DYN_H
#define LUNLAB_ISCSI_AUTH_DYN_H

#include <stdbool.h>
#include <stddef.h>

#include "target/iscsi/auth_config.h"

struct auth_dyn_entry {
	char iqn[AUTH_IQN_MAX + 1];
	char user[CHAP_NAME_MAX + 1];       /* "" : none */
	char secret[CHAP_SECRET_MAX + 1];
	char disc_user[CHAP_NAME_MAX + 1];  /* "" : none */
	char disc_secret[CHAP_SECRET_MAX + 1];
	bool login_on;      /* its cluster's chap-authentication-mode is not disabled */
	bool discovery_on;  /* its cluster's chap-discovery-mode is not disabled */
};

/* Replaces the table (entries are copied; the old secrets are wiped).
 * -1: out of memory (the old table stays). */
int auth_dyn_set(const struct auth_dyn_entry *entries, size_t n);
void auth_dyn_clear(void);

/* The credentials initiator must log in with for this kind of session:
 * true with them in *out (name and secret), false when the auth file
 * decides. */
bool auth_dyn_lookup(const char *initiator, bool discovery, struct auth_user *out);

#endif
