/* api_auth.c — see api_auth.h. */
#include "target/api/api_auth.h"

#include <string.h>

/* equal in time that depends on the stored secret's length only */
static bool secret_equal(const struct auth_user *u, const char *pass)
{
	size_t got = strlen(pass);
	unsigned diff = (unsigned)(got ^ u->secret_len);

	for (size_t i = 0; i < u->secret_len; i++)
		diff |= (unsigned)(u->secret[i] ^ (uint8_t)(i < got ? pass[i] : 0));
	return diff == 0;
}

bool api_auth_check(const struct auth_config *cfg, const char *user, const char *pass)
{
	if (!cfg || !user || !pass)
		return false;
	for (int i = 0; i < cfg->napi_users; i++)
		if (strcmp(cfg->api_users[i].name, user) == 0)
			return secret_equal(&cfg->api_users[i], pass);
	return false;
}
