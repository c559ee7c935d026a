/* api_session.c — see api_session.h.  One mutex over a small array: logins
 * and lookups are a few per poll, far from contention, and a scan of 256
 * entries costs less than the TLS record around it. */
#include "target/api/api_session.h"

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

struct session {
	bool used;
	char token[API_SESSION_TOKEN_LEN + 1];
	char user[API_SESSION_USER_MAX + 1];
	uint64_t last;              /* when it was last used */
};

static struct session table[API_SESSION_MAX];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static bool expired(const struct session *s, uint64_t now)
{
	return now >= s->last && now - s->last >= API_SESSION_IDLE_S;
}

/* equal in time independent of where the first difference is */
static bool token_equal(const char *a, const char *b)
{
	unsigned diff = 0;

	for (size_t i = 0; i < API_SESSION_TOKEN_LEN; i++)
		diff |= (unsigned)(a[i] ^ b[i]);
	return diff == 0;
}

static bool token_shaped(const char *t)
{
	size_t i = 0;

	if (!t)
		return false;
	for (; t[i] && i <= API_SESSION_TOKEN_LEN; i++)
		if (!((t[i] >= '0' && t[i] <= '9') || (t[i] >= 'a' && t[i] <= 'f')))
			return false;
	return i == API_SESSION_TOKEN_LEN && !t[i];
}

int api_session_open(const char *user, uint64_t now, char token[API_SESSION_TOKEN_LEN + 1])
{
	unsigned char raw[API_SESSION_TOKEN_BYTES];
	struct session *slot = NULL;

	if (gnutls_rnd(GNUTLS_RND_KEY, raw, sizeof(raw)) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(token + 2 * i, 3, "%02x", raw[i]);
	memset(raw, 0, sizeof(raw));
	pthread_mutex_lock(&lock);
	/* a free or expired slot, else the least recently used one */
	for (size_t i = 0; i < API_SESSION_MAX; i++) {
		struct session *s = &table[i];
		if (!s->used || expired(s, now)) {
			slot = s;
			break;
		}
		if (!slot || s->last < slot->last)
			slot = s;
	}
	slot->used = true;
	memcpy(slot->token, token, API_SESSION_TOKEN_LEN + 1);
	snprintf(slot->user, sizeof(slot->user), "%s", user);
	slot->last = now;
	pthread_mutex_unlock(&lock);
	return 0;
}

bool api_session_check(const char *token, uint64_t now, char *user, size_t userlen)
{
	bool found = false;

	if (!token_shaped(token))
		return false;
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < API_SESSION_MAX; i++) {
		struct session *s = &table[i];
		if (!s->used || !token_equal(s->token, token))
			continue;
		if (expired(s, now)) {
			s->used = false;
			break;
		}
		s->last = now;
		snprintf(user, userlen, "%s", s->user);
		found = true;
		break;
	}
	pthread_mutex_unlock(&lock);
	return found;
}

bool api_session_close(const char *token)
{
	bool found = false;

	if (!token_shaped(token))
		return false;
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < API_SESSION_MAX; i++) {
		if (table[i].used && token_equal(table[i].token, token)) {
			memset(&table[i], 0, sizeof(table[i]));
			found = true;
		}
	}
	pthread_mutex_unlock(&lock);
	return found;
}

void api_session_close_user(const char *user)
{
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < API_SESSION_MAX; i++)
		if (table[i].used && strcmp(table[i].user, user) == 0)
			memset(&table[i], 0, sizeof(table[i]));
	pthread_mutex_unlock(&lock);
}

size_t api_session_count(uint64_t now)
{
	size_t n = 0;

	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < API_SESSION_MAX; i++)
		n += table[i].used && !expired(&table[i], now);
	pthread_mutex_unlock(&lock);
	return n;
}

void api_session_clear(void)
{
	pthread_mutex_lock(&lock);
	memset(table, 0, sizeof(table));
	pthread_mutex_unlock(&lock);
}
