/* auth_config.c — see auth_config.h. */
#include "target/iscsi/auth_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

bool auth_config_allows(const struct auth_config *cfg, const char *initiator)
{
	if (!cfg || cfg->nallow == 0)
		return true;
	for (int i = 0; i < cfg->nallow; i++)
		if (strcasecmp(cfg->allow[i], initiator) == 0)
			return true;
	return false;
}

bool auth_config_requires_chap(const struct auth_config *cfg)
{
	return cfg && cfg->nusers > 0;
}

const struct auth_user *auth_config_find_user(const struct auth_config *cfg, const char *name)
{
	if (!cfg)
		return NULL;
	for (int i = 0; i < cfg->nusers; i++)
		if (strcmp(cfg->users[i].name, name) == 0)
			return &cfg->users[i];
	return NULL;
}

static bool printable_word(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

const char *auth_check_iqn(const char *iqn)
{
	size_t n = strlen(iqn);

	if (n == 0 || n > AUTH_IQN_MAX)
		return "an iSCSI name has 1..223 bytes";
	if (strncasecmp(iqn, "iqn.", 4) != 0 && strncasecmp(iqn, "eui.", 4) != 0 &&
	    strncasecmp(iqn, "naa.", 4) != 0)
		return "an iSCSI name starts with iqn., eui. or naa.";
	if (!printable_word(iqn))
		return "an iSCSI name has no spaces or control characters";
	return NULL;
}

bool auth_config_add_allow(struct auth_config *cfg, const char *iqn, char *err, size_t errlen)
{
	const char *why = auth_check_iqn(iqn);
	char **n;

	if (why) {
		snprintf(err, errlen, "initiator name '%.64s': %s", iqn, why);
		return false;
	}
	if (cfg->nallow == AUTH_MAX_ALLOW) {
		snprintf(err, errlen, "more than %d allowed initiators", AUTH_MAX_ALLOW);
		return false;
	}
	n = realloc(cfg->allow, (size_t)(cfg->nallow + 1) * sizeof(*n));
	if (!n) {
		snprintf(err, errlen, "out of memory");
		return false;
	}
	cfg->allow = n;
	n[cfg->nallow] = strdup(iqn);
	if (!n[cfg->nallow]) {
		snprintf(err, errlen, "out of memory");
		return false;
	}
	cfg->nallow++;
	return true;
}

static bool same_secret(const struct auth_user *a, const uint8_t *s, size_t n)
{
	return a->secret_len == n && memcmp(a->secret, s, n) == 0;
}

bool auth_config_add_user(struct auth_config *cfg, bool mutual, const char *name,
			  const char *secret, char *err, size_t errlen)
{
	size_t nl = strlen(name), sl = strlen(secret);
	struct auth_user *u;

	if (nl == 0 || nl > CHAP_NAME_MAX || !printable_word(name)) {
		snprintf(err, errlen, "field 2 (user name): want 1..%d printable characters, no spaces",
			 CHAP_NAME_MAX);
		return false;
	}
	/* the secret's bytes are never echoed, only its length */
	if (sl < CHAP_SECRET_MIN || sl > CHAP_SECRET_MAX) {
		snprintf(err, errlen, "field 3 (secret): %zu bytes, want %d..%d", sl, CHAP_SECRET_MIN,
			 CHAP_SECRET_MAX);
		return false;
	}
	if (!printable_word(secret)) {
		snprintf(err, errlen, "field 3 (secret): printable characters only, no spaces");
		return false;
	}
	/* RFC 7143, CHAP considerations: a secret that authenticates initiators
	 * must not also authenticate the target (and vice versa) */
	if (mutual) {
		for (int i = 0; i < cfg->nusers; i++) {
			if (same_secret(&cfg->users[i], (const uint8_t *)secret, sl)) {
				snprintf(err, errlen, "field 3 (secret): the mutual secret equals the secret "
					 "of chap user '%s'; they must differ", cfg->users[i].name);
				return false;
			}
		}
		if (cfg->has_mutual) {
			snprintf(err, errlen, "field 1: a second 'mutual' line (the target has one identity)");
			return false;
		}
		u = &cfg->mutual;
		cfg->has_mutual = true;
	} else {
		if (auth_config_find_user(cfg, name)) {
			snprintf(err, errlen, "field 2 (user name): '%s' defined twice", name);
			return false;
		}
		if (cfg->has_mutual && same_secret(&cfg->mutual, (const uint8_t *)secret, sl)) {
			snprintf(err, errlen, "field 3 (secret): equals the mutual secret; they must differ");
			return false;
		}
		if (cfg->nusers == AUTH_MAX_USERS) {
			snprintf(err, errlen, "more than %d chap users", AUTH_MAX_USERS);
			return false;
		}
		/* fixed room for every user: growing by realloc would leave old
		 * copies of the secrets behind, unwiped */
		if (!cfg->users)
			cfg->users = calloc(AUTH_MAX_USERS, sizeof(*cfg->users));
		if (!cfg->users) {
			snprintf(err, errlen, "out of memory");
			return false;
		}
		u = &cfg->users[cfg->nusers++];
	}
	memset(u, 0, sizeof(*u));
	memcpy(u->name, name, nl);
	memcpy(u->secret, secret, sl);
	u->secret_len = sl;
	return true;
}

bool auth_config_add_api_user(struct auth_config *cfg, const char *name, const char *secret, char *err,
			      size_t errlen)
{
	size_t nl = strlen(name), sl = strlen(secret);
	struct auth_user *u;

	if (nl == 0 || nl > AUTH_API_NAME_MAX || !printable_word(name) || strchr(name, ':')) {
		snprintf(err, errlen, "field 2 (user name): want 1..%d printable characters, no spaces or ':'",
			 AUTH_API_NAME_MAX);
		return false;
	}
	if (sl < AUTH_API_SECRET_MIN || sl > CHAP_SECRET_MAX) {
		snprintf(err, errlen, "field 3 (secret): %zu bytes, want %d..%d", sl, AUTH_API_SECRET_MIN,
			 CHAP_SECRET_MAX);
		return false;
	}
	if (!printable_word(secret)) {
		snprintf(err, errlen, "field 3 (secret): printable characters only, no spaces");
		return false;
	}
	for (int i = 0; i < cfg->napi_users; i++) {
		if (strcmp(cfg->api_users[i].name, name) == 0) {
			snprintf(err, errlen, "field 2 (user name): api user '%s' defined twice", name);
			return false;
		}
	}
	if (cfg->napi_users == AUTH_MAX_API_USERS) {
		snprintf(err, errlen, "more than %d api users", AUTH_MAX_API_USERS);
		return false;
	}
	/* fixed room, as for chap users: no unwiped copies left by realloc */
	if (!cfg->api_users)
		cfg->api_users = calloc(AUTH_MAX_API_USERS, sizeof(*cfg->api_users));
	if (!cfg->api_users) {
		snprintf(err, errlen, "out of memory");
		return false;
	}
	u = &cfg->api_users[cfg->napi_users++];
	memset(u, 0, sizeof(*u));
	memcpy(u->name, name, nl);
	memcpy(u->secret, secret, sl);
	u->secret_len = sl;
	return true;
}

void auth_config_free(struct auth_config *cfg)
{
	if (cfg->api_users)
		explicit_bzero(cfg->api_users, (size_t)cfg->napi_users * sizeof(*cfg->api_users));
	free(cfg->api_users);
	if (cfg->users)
		explicit_bzero(cfg->users, (size_t)cfg->nusers * sizeof(*cfg->users));
	free(cfg->users);
	explicit_bzero(&cfg->mutual, sizeof(cfg->mutual));
	for (int i = 0; i < cfg->nallow; i++)
		free(cfg->allow[i]);
	free(cfg->allow);
	memset(cfg, 0, sizeof(*cfg));
}
