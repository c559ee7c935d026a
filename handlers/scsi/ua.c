/* ua.c — unit attentions from the array's events, per I_T nexus (ua.h).
 *
 * Per LU, an open-addressing table of nexus records.  Records never move nor
 * die before the LU, the table only grows (a bigger copy published with a
 * release store, the old one kept until fini), so the per-command lookup
 * takes no lock: two atomic loads of the array's generations, a hash, a
 * probe.  Reporting an event is a CAS on the record, so two commands of one
 * nexus racing on two workers report it once. */
#include <stdlib.h>
#include <string.h>

#include "lunlab/scsi_vocab.h"
#include "handlers/copy/copy_nexus.h"
#include "handlers/scsi/scsi.h"
#include "handlers/scsi/sense.h"
#include "handlers/scsi/ua.h"

struct ua_rec {
	uint64_t nexus;
	_Atomic uint64_t seen[ARRAY_EVENTS]; /* generation last reported (or current when first seen) */
};

struct ua_tab {
	struct ua_tab *older;        /* the retired chain */
	uint64_t mask;               /* capacity - 1, capacity a power of two */
	_Atomic(struct ua_rec *) slot[];
};

static const uint16_t ua_sense[ARRAY_EVENTS] = { /* SCSI_ASC_* of each event's UA */
	[ARRAY_EV_SOFT_THRESHOLD] = SCSI_ASC_THIN_PROVISIONING_SOFT_THRESHOLD,
	[ARRAY_EV_PARAMS] = SCSI_ASC_MODE_PARAMETERS_CHANGED,
};

#define INITIAL_SLOTS 16u

static uint64_t hash(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

static struct ua_tab *tab_new(uint64_t slots)
{
	struct ua_tab *t = calloc(1, sizeof(*t) + slots * sizeof(t->slot[0]));

	if (t)
		t->mask = slots - 1;
	return t;
}

void scsi_ua_init(struct scsi_ua *u)
{
	pthread_mutex_init(&u->mu, NULL);
	atomic_init(&u->tab, NULL);
	u->retired = NULL;
	u->count = 0;
}

void scsi_ua_fini(struct scsi_ua *u)
{
	struct ua_tab *t = atomic_load(&u->tab);

	if (t) {
		for (uint64_t i = 0; i <= t->mask; i++)
			free(atomic_load(&t->slot[i]));
		free(t);
	}
	for (struct ua_tab *o = u->retired, *next; o; o = next) {
		next = o->older;
		free(o);
	}
	u->retired = NULL;
	atomic_store(&u->tab, NULL);
	pthread_mutex_destroy(&u->mu);
}

static struct ua_rec *lookup(struct ua_tab *t, uint64_t nexus)
{
	if (!t)
		return NULL;
	for (uint64_t i = hash(nexus) & t->mask;; i = (i + 1) & t->mask) {
		struct ua_rec *r = atomic_load_explicit(&t->slot[i], memory_order_acquire);
		if (!r || r->nexus == nexus)
			return r;
	}
}

static void place(struct ua_tab *t, struct ua_rec *r)
{
	uint64_t i = hash(r->nexus) & t->mask;

	while (atomic_load_explicit(&t->slot[i], memory_order_relaxed))
		i = (i + 1) & t->mask;
	atomic_store_explicit(&t->slot[i], r, memory_order_release);
}

/* A new nexus: it starts at the generations of now (gens). */
static struct ua_rec *insert(struct scsi_ua *u, uint64_t nexus, const uint64_t *gens)
{
	pthread_mutex_lock(&u->mu);
	struct ua_tab *t = atomic_load(&u->tab);
	struct ua_rec *r = lookup(t, nexus);
	if (r)
		goto out;
	if (!t || (u->count + 1) * 4 > (t->mask + 1) * 3) {
		struct ua_tab *n = tab_new(t ? (t->mask + 1) * 2 : INITIAL_SLOTS);
		if (!n)
			goto out;
		if (t) {
			for (uint64_t i = 0; i <= t->mask; i++) {
				struct ua_rec *o = atomic_load(&t->slot[i]);
				if (o)
					place(n, o);
			}
			t->older = u->retired;
			u->retired = t;
		}
		atomic_store_explicit(&u->tab, n, memory_order_release);
		t = n;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		goto out;
	r->nexus = nexus;
	for (int k = 0; k < ARRAY_EVENTS; k++)
		atomic_init(&r->seen[k], gens[k]);
	place(t, r);
	u->count++;
out:
	pthread_mutex_unlock(&u->mu);
	return r;
}

/* The event this command's nexus is owed, claimed (-1: none). */
static int claim(struct scsi_cmd *cmd)
{
	struct lunlab_dev *d = cmd->dev;
	uint64_t gens[ARRAY_EVENTS];

	if (!d->array)
		return -1;
	for (int k = 0; k < ARRAY_EVENTS; k++)
		gens[k] = array_event_gen(d->array, (enum array_event)k);
	struct scsi_ua *u = &scsi_lu(d)->ua;
	uint64_t nexus = copy_cmd_nexus(cmd);
	struct ua_rec *r = lookup(atomic_load_explicit(&u->tab, memory_order_acquire), nexus);
	if (!r) {
		insert(u, nexus, gens); /* owes nothing yet (on failure: retried next command) */
		return -1;
	}
	for (int k = 0; k < ARRAY_EVENTS; k++) {
		uint64_t seen = atomic_load(&r->seen[k]);
		while (seen < gens[k])
			if (atomic_compare_exchange_weak(&r->seen[k], &seen, gens[k]))
				return k;
	}
	return -1;
}

int scsi_ua_check(struct scsi_cmd *cmd)
{
	uint8_t op = cmd->cdb[0];

	if (op == SCSI_OP_INQUIRY || op == SCSI_OP_REPORT_LUNS || op == SCSI_OP_REQUEST_SENSE)
		return TCMU_STS_OK;
	int k = claim(cmd);
	if (k < 0)
		return TCMU_STS_OK;
	return sense_set(cmd, SCSI_SK_UNIT_ATTENTION, ua_sense[k]);
}

bool scsi_ua_take(struct scsi_cmd *cmd, uint8_t *asc, uint8_t *ascq)
{
	int k = claim(cmd);

	if (k < 0)
		return false;
	*asc = scsi_asc(ua_sense[k]);
	*ascq = scsi_ascq(ua_sense[k]);
	return true;
}
