/* path_stats.c — see path_stats.h. */
#include "target/iscsi/path_stats.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

static struct lu_stats *portals[PATH_STATS_PORTALS];
static bool portals_made;

static struct {
	char iqn[PATH_STATS_NAME_MAX];
	struct lu_stats *s;
} inis[PATH_STATS_INITIATORS];
static size_t ninis;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint64_t untracked;

/* made once, on the first call (the listeners open before any command) */
static void make_portals(void)
{
	for (int i = 0; i < PATH_STATS_PORTALS; i++)
		if (!portals[i])
			portals[i] = lu_stats_new();
	portals_made = true;
}

struct lu_stats *path_stats_portal(int i)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	if (i < 0 || i >= PATH_STATS_PORTALS)
		return NULL;
	pthread_once(&once, make_portals);
	return portals[i];
}

struct lu_stats *path_stats_initiator(const char *iqn)
{
	struct lu_stats *s = NULL;

	if (!iqn || !*iqn || strlen(iqn) >= PATH_STATS_NAME_MAX)
		return NULL;
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < ninis && !s; i++)
		if (strcasecmp(inis[i].iqn, iqn) == 0)
			s = inis[i].s;
	if (!s && ninis < PATH_STATS_INITIATORS) {
		s = lu_stats_new();
		if (s) {
			memcpy(inis[ninis].iqn, iqn, strlen(iqn) + 1);
			inis[ninis++].s = s;
		}
	}
	pthread_mutex_unlock(&lock);
	return s;
}

const struct lu_stats *path_stats_initiator_find(const char *iqn)
{
	const struct lu_stats *s = NULL;

	pthread_mutex_lock(&lock);
	for (size_t i = 0; iqn && i < ninis && !s; i++)
		if (strcasecmp(inis[i].iqn, iqn) == 0)
			s = inis[i].s;
	pthread_mutex_unlock(&lock);
	return s;
}

void path_stats_untracked_add(void)
{
	atomic_fetch_add_explicit(&untracked, 1, memory_order_relaxed);
}

uint64_t path_stats_untracked(void)
{
	return atomic_load_explicit(&untracked, memory_order_relaxed);
}

void path_stats_each_initiator(void (*fn)(const char *iqn, const struct lu_stats *s, void *arg), void *arg)
{
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < ninis; i++)
		fn(inis[i].iqn, inis[i].s, arg);
	pthread_mutex_unlock(&lock);
}

void path_stats_reset(void)
{
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < ninis; i++)
		lu_stats_free(inis[i].s);
	ninis = 0;
	pthread_mutex_unlock(&lock);
	if (portals_made)
		for (int i = 0; i < PATH_STATS_PORTALS; i++) {
			lu_stats_free(portals[i]);
			portals[i] = lu_stats_new();
		}
	atomic_store(&untracked, 0);
}
