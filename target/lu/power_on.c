/* power_on.c — which initiator ports each LU has told of its power on
 * (power_on.h). */
#include "target/lu/power_on.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lunlab/fnv1a.h"
#include "target/lu/lu_table.h"

/* One LU's told ports: open addressing over 64-bit hashes (0 = empty).  A
 * --lun LU's is told[lun] below; a mapped LU's is its lu_entry.power_on. */
struct lu_told {
	uint64_t *slot;
	size_t cap, n; /* cap: a power of two, or 0 */
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct lu_told told[LU_TABLE_MAX];
/* which --lun LUs owe it at all: those of a target restarted on its state
 * directory, and every one after a TARGET COLD RESET (power_on.h) */
static bool armed[LU_TABLE_MAX];

static uint64_t port_hash(const char *iqn, const uint8_t isid[6])
{
	const char *name = iqn ? iqn : "";
	uint64_t h = ll_fnv1a64(ll_fnv1a64(LL_FNV1A64_BASIS, name, strlen(name)), isid, 6);

	return h ? h : 1;
}

static bool set_has(const struct lu_told *s, uint64_t h)
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
static bool set_add(struct lu_told *s, uint64_t h)
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
	owed = armed[lun] && !set_has(&told[lun], port_hash(iqn, isid));
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
	if (armed[lun] && !set_has(&told[lun], h)) {
		(void)set_add(&told[lun], h);
		claim = true;
	}
	pthread_mutex_unlock(&mu);
	return claim;
}

static void set_clear(struct lu_told *s)
{
	free(s->slot);
	memset(s, 0, sizeof(*s));
}

static void forget_all(void)
{
	for (size_t i = 0; i < LU_TABLE_MAX; i++)
		set_clear(&told[i]);
}

void lu_power_on_arm(uint64_t lun)
{
	if (lun >= LU_TABLE_MAX)
		return;
	pthread_mutex_lock(&mu);
	set_clear(&told[lun]);
	armed[lun] = true;
	pthread_mutex_unlock(&mu);
}

bool lu_entry_power_on_arm(struct lu_entry *e)
{
	bool ok = true;

	pthread_mutex_lock(&mu);
	if (e->power_on)
		set_clear(e->power_on); /* armed before: every port is owed it again */
	else
		ok = (e->power_on = calloc(1, sizeof(*e->power_on))) != NULL;
	pthread_mutex_unlock(&mu);
	return ok;
}

bool lu_entry_power_on_claim(struct lu_entry *e, const char *iqn, const uint8_t isid[6])
{
	uint64_t h = port_hash(iqn, isid);
	bool claim = false;

	pthread_mutex_lock(&mu);
	if (e->power_on && !set_has(e->power_on, h)) {
		(void)set_add(e->power_on, h);
		claim = true;
	}
	pthread_mutex_unlock(&mu);
	return claim;
}

void lu_entry_power_on_free(struct lu_entry *e)
{
	if (!e->power_on)
		return;
	set_clear(e->power_on);
	free(e->power_on);
	e->power_on = NULL;
}

static void rearm_mapped(struct lu_entry *e, void *cls)
{
	(void)cls;
	if (!e->global)
		(void)lu_entry_power_on_arm(e);
}

void lu_power_on_rearm(void)
{
	pthread_mutex_lock(&mu);
	forget_all();
	for (size_t i = 0; i < LU_TABLE_MAX; i++)
		armed[i] = true;
	pthread_mutex_unlock(&mu);
	lu_table_each(rearm_mapped, NULL);
}

void lu_power_on_reset(void)
{
	pthread_mutex_lock(&mu);
	forget_all();
	memset(armed, 0, sizeof(armed));
	pthread_mutex_unlock(&mu);
}
