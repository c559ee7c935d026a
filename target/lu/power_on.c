/* power_on.c — which initiator ports each LU has told of its power on
 * (power_on.h). */
#include "target/lu/power_on.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "target/lu/lu_table.h"

/* One LU's told ports: open addressing over 64-bit hashes (0 = empty). */
struct told_set {
	uint64_t *slot;
	size_t cap, n; /* cap: a power of two, or 0 */
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct told_set told[LU_TABLE_MAX];

static uint64_t port_hash(const char *iqn, const uint8_t isid[6])
{
	uint64_t h = 14695981039346656037ull;

	for (const char *p = iqn ? iqn : ""; *p; p++) {
		h ^= (uint8_t)*p;
		h *= 1099511628211ull;
	}
	for (int i = 0; i < 6; i++) {
		h ^= isid[i];
		h *= 1099511628211ull;
	}
	return h ? h : 1;
}

static bool set_has(const struct told_set *s, uint64_t h)
{
	if (!s->cap)
		return false;
	for (size_t i = h & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
		if (s->slot[i] == h)
			return true;
		if (!s->slot[i])
			return false;
	}
}

/* false: out of memory (the port then stays owed: told again next session) */
static bool set_add(struct told_set *s, uint64_t h)
{
	if ((s->n + 1) * 4 > s->cap * 3) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		uint64_t *slot = calloc(cap, sizeof(*slot));

		if (!slot)
			return false;
		for (size_t j = 0; j < s->cap; j++) {
			uint64_t v = s->slot[j];
			size_t i = v & (cap - 1);

			if (!v)
				continue;
			while (slot[i])
				i = (i + 1) & (cap - 1);
			slot[i] = v;
		}
		free(s->slot);
		s->slot = slot;
		s->cap = cap;
	}
	size_t i = h & (s->cap - 1);

	while (s->slot[i])
		i = (i + 1) & (s->cap - 1);
	s->slot[i] = h;
	s->n++;
	return true;
}

bool lu_power_on_owed(uint64_t lun, const char *iqn, const uint8_t isid[6])
{
	bool owed;

	if (lun >= lu_table_count())
		return false;
	pthread_mutex_lock(&mu);
	owed = !set_has(&told[lun], port_hash(iqn, isid));
	pthread_mutex_unlock(&mu);
	return owed;
}

bool lu_power_on_claim(uint64_t lun, const char *iqn, const uint8_t isid[6])
{
	uint64_t h = port_hash(iqn, isid);
	bool claim = false;

	if (lun >= lu_table_count())
		return false;
	pthread_mutex_lock(&mu);
	if (!set_has(&told[lun], h)) {
		(void)set_add(&told[lun], h);
		claim = true;
	}
	pthread_mutex_unlock(&mu);
	return claim;
}

static void forget_all(void)
{
	for (size_t i = 0; i < LU_TABLE_MAX; i++) {
		free(told[i].slot);
		memset(&told[i], 0, sizeof(told[i]));
	}
}

void lu_power_on_rearm(void)
{
	pthread_mutex_lock(&mu);
	forget_all();
	pthread_mutex_unlock(&mu);
}

void lu_power_on_reset(void)
{
	lu_power_on_rearm();
}
