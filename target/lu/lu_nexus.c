/* lu_nexus.c — one session's (I_T nexus's) view of the LU table and the
 * unit attentions it owes (see lu_table.h).  Runs on the session's I/O
 * thread only, so nothing here is locked; the table's snapshot it reads is
 * kept alive by the grace period (lu_rcu.h). */
#include "lunlab/scsi_vocab.h"
#include "target/lu/lu_table_priv.h"

#include <stdlib.h>
#include <string.h>

static struct lu_seen *seen_find(struct lu_nexus *nx, uint64_t id)
{
	size_t lo = 0, hi = nx->nseen;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (nx->seen[mid].id == id)
			return &nx->seen[mid];
		if (id < nx->seen[mid].id)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

static int by_id(const void *a, const void *b)
{
	const struct lu_seen *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* The nexus's records for the LUs it sees in s: kept for those it saw
 * before, made with today's generations for new ones (nothing happened to
 * them that this nexus should hear of: a new LU is announced by 3F/0E). */
static void resync_seen(struct lu_nexus *nx, const struct lu_snap *s, const struct lu_view *v)
{
	size_t want = s->nglobal + (v ? v->n : 0), n = 0;
	struct lu_seen *fresh = calloc(want ? want : 1, sizeof(*fresh));

	if (!fresh)
		return; /* keep the old records: at worst an attention is missed, never a crash */
	for (size_t i = 0; i < want; i++) {
		struct lu_entry *e = i < s->nglobal ? s->global[i] : v->entries[i - s->nglobal];
		struct lu_seen *old = seen_find(nx, e->id);

		if (old) {
			fresh[n++] = *old;
		} else {
			fresh[n].id = e->id;
			fresh[n].reset_gen = atomic_load(&e->reset_gen);
			fresh[n].capacity_gen = atomic_load(&e->capacity_gen);
			fresh[n].alua_gen = atomic_load(&e->alua_gen);
			fresh[n].medium_gen = atomic_load(&e->medium_gen);
			n++;
		}
	}
	qsort(fresh, n, sizeof(*fresh), by_id);
	/* one LU mapped at two LUNs: one record */
	size_t u = 0;
	for (size_t i = 0; i < n; i++)
		if (u == 0 || fresh[u - 1].id != fresh[i].id)
			fresh[u++] = fresh[i];
	free(nx->seen);
	nx->seen = fresh;
	nx->nseen = u;
	nx->capseen = want;
}

static void sync(struct lu_nexus *nx, const char *initiator, const struct lu_snap *s)
{
	const struct lu_view *v = lu_snap_view(s, initiator);
	uint64_t vg = v ? v->gen : 0; /* generations start at 1: 0 is "no maps" */

	/* the initiator's inventory: the global LUs and its own maps */
	if (nx->started && (s->global_gen != nx->inv_global || vg != nx->inv_view))
		nx->inventory_ua = true;
	nx->inv_global = s->global_gen;
	nx->inv_view = vg;
	nx->view = v;
	resync_seen(nx, s, v);
	nx->snap_gen = s->gen;
}

void lu_nexus_start(struct lu_nexus *nx, const char *initiator)
{
	struct lu_snap *s = atomic_load_explicit(&lu_cur, memory_order_acquire);

	nx->started = false;
	nx->inventory_ua = false;
	nx->initiator = initiator;
	if (s)
		sync(nx, initiator, s);
	nx->started = true;
}

void lu_nexus_free(struct lu_nexus *nx)
{
	free(nx->seen);
	memset(nx, 0, sizeof(*nx));
}

struct lu_entry *lu_nexus_lookup(struct lu_nexus *nx, const char *initiator, uint64_t lun, bool lun_ok)
{
	struct lu_snap *s = atomic_load_explicit(&lu_cur, memory_order_acquire);

	if (!s)
		return NULL;
	if (s->gen != nx->snap_gen)
		sync(nx, initiator, s);
	if (!lun_ok)
		return NULL;
	if (lun < s->nglobal)
		return s->global[lun];
	return lu_view_find(nx->view, lun);
}

static bool ua(uint8_t out[3], uint16_t asc_ascq)
{
	out[0] = SCSI_SK_UNIT_ATTENTION;
	out[1] = scsi_asc(asc_ascq);
	out[2] = scsi_ascq(asc_ascq);
	return true;
}

bool lu_nexus_take_ua(struct lu_nexus *nx, struct lu_entry *e, uint8_t opcode, uint8_t out[3])
{
	struct lu_seen *seen;
	uint64_t g;

	/* SAM-5 5.14: these are answered without reporting a unit attention */
	if (!e || opcode == SCSI_OP_INQUIRY || opcode == SCSI_OP_REPORT_LUNS || opcode == SCSI_OP_REQUEST_SENSE)
		return false;
	seen = seen_find(nx, e->id);
	if (seen && (g = atomic_load(&e->reset_gen)) != seen->reset_gen) {
		seen->reset_gen = g;
		return ua(out, SCSI_ASC_BUS_DEVICE_RESET);
	}
	if (nx->inventory_ua) {
		nx->inventory_ua = false;
		return ua(out, SCSI_ASC_REPORTED_LUNS_DATA_CHANGED);
	}
	if (seen && (g = atomic_load(&e->medium_gen)) != seen->medium_gen) {
		seen->medium_gen = g;
		return ua(out, SCSI_ASC_NOT_READY_TO_READY_CHANGE);
	}
	if (seen && (g = atomic_load(&e->capacity_gen)) != seen->capacity_gen) {
		seen->capacity_gen = g;
		return ua(out, SCSI_ASC_CAPACITY_DATA_CHANGED);
	}
	if (seen && (g = atomic_load(&e->alua_gen)) != seen->alua_gen) {
		seen->alua_gen = g;
		return ua(out, SCSI_ASC_ALUA_STATE_CHANGED);
	}
	return false;
}

void lu_nexus_alua_seen(struct lu_nexus *nx, struct lu_entry *e)
{
	struct lu_seen *seen = e ? seen_find(nx, e->id) : NULL;

	if (seen)
		seen->alua_gen = atomic_load(&e->alua_gen);
}

bool lu_nexus_power_on_first(struct lu_nexus *nx, struct lu_entry *e)
{
	struct lu_seen *seen = e && e->power_on ? seen_find(nx, e->id) : NULL;

	if (!seen || seen->power_on_done)
		return false;
	seen->power_on_done = true;
	return true;
}

void lu_nexus_reset_seen(struct lu_nexus *nx, struct lu_entry *e)
{
	struct lu_seen *seen = e ? seen_find(nx, e->id) : NULL;

	if (seen)
		seen->reset_gen = atomic_load(&e->reset_gen);
}
