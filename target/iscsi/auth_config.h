/* auth_config.h — who may log in: the initiator allow-list (ACL) and the
 * CHAP credentials, loaded once at start (auth_file.c, --allow-initiator)
 * and read-only afterwards, so connections read it without a lock. */
#ifndef LUNLAB_ISCSI_AUTH_CONFIG_H
#define LUNLAB_ISCSI_AUTH_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "target/iscsi/auth_chap.h"

#define AUTH_MAX_USERS 256
#define AUTH_MAX_ALLOW 4096
#define AUTH_IQN_MAX 223   /* RFC 7143 section 4.2.7.1: iSCSI names up to 223 bytes */

struct auth_user {
	char name[CHAP_NAME_MAX + 1];
	uint8_t secret[CHAP_SECRET_MAX];
	size_t secret_len;
};

struct auth_config {
	struct auth_user *users;   /* "chap": initiators we accept (one-way CHAP) */
	int nusers;
	bool has_mutual;
	struct auth_user mutual;   /* "mutual": our own name + secret for mutual CHAP */
	char **allow;              /* initiator names allowed; empty: every initiator */
	int nallow;
	struct auth_user *api_users; /* "api": users of the HTTP API (target/api/api_auth.h) */
	int napi_users;
};

/* true when initiator may use this target: no allow-list, or on it (iSCSI
 * names compare case-insensitively, RFC 3722 normalises them to lower case). */
bool auth_config_allows(const struct auth_config *cfg, const char *initiator);
/* true when logins must authenticate with CHAP (some "chap" user exists) */
bool auth_config_requires_chap(const struct auth_config *cfg);
const struct auth_user *auth_config_find_user(const struct auth_config *cfg, const char *name);

/* Checks an iSCSI name for the allow-list (iqn./eui./naa. prefix, 1..223
 * bytes, no whitespace or control characters).  NULL if fine, else why not. */
const char *auth_check_iqn(const char *iqn);
/* Adds one name to the allow-list.  false with a one-line reason in err. */
bool auth_config_add_allow(struct auth_config *cfg, const char *iqn, char *err, size_t errlen);
/* Adds a CHAP user ("chap") or sets the mutual credentials; checks the
 * lengths and characters. false with a one-line reason naming the field. */
bool auth_config_add_user(struct auth_config *cfg, bool mutual, const char *name,
			  const char *secret, char *err, size_t errlen);

/* Adds an HTTP API user ("api USER SECRET"): a name of 1..64 printable
 * characters without ':' (HTTP Basic splits there), a secret of
 * AUTH_API_SECRET_MIN..255 printable characters.  false with a one-line
 * reason naming the field. */
#define AUTH_MAX_API_USERS 64
#define AUTH_API_NAME_MAX 64
#define AUTH_API_SECRET_MIN 8
bool auth_config_add_api_user(struct auth_config *cfg, const char *name, const char *secret, char *err,
			      size_t errlen);

/* Frees everything and wipes the secrets. */
void auth_config_free(struct auth_config *cfg);

#endif
