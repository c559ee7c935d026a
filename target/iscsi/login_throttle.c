/* login_throttle.c — see login_throttle.h for the rules and their numbers. */
#include "target/iscsi/login_throttle.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

struct entry {
	char host[LOGIN_THROTTLE_HOST_MAX];
	unsigned fails;         /* in a row */
	uint64_t last_fail;     /* ms */
	uint64_t next_try;      /* ms: tries before this are refused */
};

static struct entry table[LOGIN_THROTTLE_ADDRS];
static size_t used;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint64_t failures[LOGIN_THROTTLE_KINDS], refused[LOGIN_THROTTLE_KINDS];

const char *login_throttle_kind_name(enum login_throttle_kind k)
{
	return k == LOGIN_THROTTLE_API ? "api" : "chap";
}

static uint64_t (*_Atomic test_clock)(void);

void login_throttle_set_clock(uint64_t (*clock_ms)(void))
{
	test_clock = clock_ms;
}

uint64_t login_throttle_now_ms(void)
{
	struct timespec ts;
	uint64_t (*c)(void) = test_clock;

	if (c)
		return c();
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void login_throttle_host(const char *peer, char *out, size_t len)
{
	const char *end;
	size_t n;

	if (!len)
		return;
	if (peer[0] == '[') { /* [V6]:PORT */
		end = strchr(peer, ']');
		peer++;
		n = end ? (size_t)(end - peer) : strlen(peer);
	} else {
		end = strchr(peer, ':');
		/* one ':' is HOST:PORT; more is a bare IPv6 address */
		n = end && !strchr(end + 1, ':') ? (size_t)(end - peer) : strlen(peer);
	}
	if (n >= len)
		n = len - 1;
	memcpy(out, peer, n);
	out[n] = '\0';
}

/* an entry that has not failed for FORGET_S and is not locked is gone */
static bool stale(const struct entry *e, uint64_t now)
{
	return now >= e->next_try && now - e->last_fail >= (uint64_t)LOGIN_THROTTLE_FORGET_S * 1000u;
}

static struct entry *find(const char *host, uint64_t now)
{
	for (size_t i = 0; i < used; i++) {
		if (strcmp(table[i].host, host) != 0)
			continue;
		if (stale(&table[i], now)) {
			table[i] = table[--used];
			return NULL;
		}
		return &table[i];
	}
	return NULL;
}

uint64_t login_throttle_check(enum login_throttle_kind k, const char *host, uint64_t now_ms)
{
	uint64_t wait = 0;
	struct entry *e;

	pthread_mutex_lock(&lock);
	e = find(host, now_ms);
	if (e && now_ms < e->next_try)
		wait = e->next_try - now_ms;
	pthread_mutex_unlock(&lock);
	if (wait)
		atomic_fetch_add_explicit(&refused[k], 1, memory_order_relaxed);
	return wait;
}

/* the wait after the n-th failure in a row */
static uint64_t wait_after(unsigned n)
{
	uint64_t w;

	if (n >= LOGIN_THROTTLE_LOCK_FAILS)
		return (uint64_t)LOGIN_THROTTLE_LOCK_S * 1000u;
	if (n <= LOGIN_THROTTLE_FREE)
		return 0;
	w = (uint64_t)LOGIN_THROTTLE_BASE_MS << (n - LOGIN_THROTTLE_FREE - 1);
	return w > (uint64_t)LOGIN_THROTTLE_MAX_WAIT_S * 1000u ? (uint64_t)LOGIN_THROTTLE_MAX_WAIT_S * 1000u : w;
}

uint64_t login_throttle_fail(enum login_throttle_kind k, const char *host, uint64_t now_ms, unsigned *in_row)
{
	struct entry *e;
	uint64_t w;

	atomic_fetch_add_explicit(&failures[k], 1, memory_order_relaxed);
	pthread_mutex_lock(&lock);
	e = find(host, now_ms);
	if (!e) {
		if (used < LOGIN_THROTTLE_ADDRS) {
			e = &table[used++];
		} else { /* full: the oldest failure gives its place */
			e = &table[0];
			for (size_t i = 1; i < used; i++)
				if (table[i].last_fail < e->last_fail)
					e = &table[i];
		}
		memset(e, 0, sizeof(*e));
		snprintf(e->host, sizeof(e->host), "%s", host);
	}
	if (e->fails < LOGIN_THROTTLE_LOCK_FAILS)
		e->fails++;
	else
		e->fails = LOGIN_THROTTLE_LOCK_FAILS; /* a failure after a lockout locks again */
	e->last_fail = now_ms;
	w = wait_after(e->fails);
	e->next_try = now_ms + w;
	if (in_row)
		*in_row = e->fails;
	pthread_mutex_unlock(&lock);
	return w;
}

static _Atomic login_throttle_listener listener;

void login_throttle_set_listener(login_throttle_listener fn)
{
	listener = fn;
}

void login_throttle_notify(enum login_throttle_kind k, const char *host, const char *user, unsigned in_row,
			   uint64_t wait_ms)
{
	login_throttle_listener fn = listener;

	if (fn)
		fn(k, host, user, in_row, wait_ms);
}

void login_throttle_ok(const char *host)
{
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < used; i++) {
		if (strcmp(table[i].host, host) == 0) {
			table[i] = table[--used];
			break;
		}
	}
	pthread_mutex_unlock(&lock);
}

uint64_t login_throttle_failures(enum login_throttle_kind k)
{
	return atomic_load_explicit(&failures[k], memory_order_relaxed);
}

uint64_t login_throttle_refused(enum login_throttle_kind k)
{
	return atomic_load_explicit(&refused[k], memory_order_relaxed);
}

size_t login_throttle_locked(uint64_t now_ms)
{
	size_t n = 0;

	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < used; i++)
		n += table[i].fails >= LOGIN_THROTTLE_LOCK_FAILS && now_ms < table[i].next_try;
	pthread_mutex_unlock(&lock);
	return n;
}

void login_throttle_reset(void)
{
	pthread_mutex_lock(&lock);
	memset(table, 0, sizeof(table));
	used = 0;
	pthread_mutex_unlock(&lock);
	for (int k = 0; k < LOGIN_THROTTLE_KINDS; k++) {
		atomic_store(&failures[k], 0);
		atomic_store(&refused[k], 0);
	}
}
