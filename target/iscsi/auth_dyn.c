/* auth_dyn.c — see auth_dyn.h. */
#include "target/iscsi/auth_dyn.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct auth_dyn_entry *table;
static size_t ntable;

static void drop(struct auth_dyn_entry *t, size_t n)
{
	if (t)
		explicit_bzero(t, n * sizeof(*t));
	free(t);
}

int auth_dyn_set(const struct auth_dyn_entry *entries, size_t n)
{
	struct auth_dyn_entry *copy = n ? malloc(n * sizeof(*copy)) : NULL, *old;
	size_t nold;

	if (n && !copy)
		return -1;
	if (n)
		memcpy(copy, entries, n * sizeof(*copy));
	pthread_mutex_lock(&lock);
	old = table;
	nold = ntable;
	table = copy;
	ntable = n;
	pthread_mutex_unlock(&lock);
	drop(old, nold);
	return 0;
}

void auth_dyn_clear(void)
{
	auth_dyn_set(NULL, 0);
}

static bool fill(struct auth_user *out, const char *user, const char *secret)
{
	size_t sl = strlen(secret);

	if (!user[0] || !sl || sl > CHAP_SECRET_MAX)
		return false;
	memset(out, 0, sizeof(*out));
	memcpy(out->name, user, strlen(user) + 1);
	memcpy(out->secret, secret, sl);
	out->secret_len = sl;
	return true;
}

bool auth_dyn_lookup(const char *initiator, bool discovery, struct auth_user *out)
{
	bool found = false;

	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < ntable; i++) {
		const struct auth_dyn_entry *e = &table[i];
		if (strcasecmp(e->iqn, initiator) != 0)
			continue;
		if (discovery ? e->discovery_on : e->login_on)
			found = discovery ? fill(out, e->disc_user, e->disc_secret) : fill(out, e->user, e->secret);
		break;
	}
	pthread_mutex_unlock(&lock);
	return found;
}
