/* lu_nexus.c — one session's (I_T nexus's) view of the LU table, and its
 * side of the LUs' unit attention stores (target/core/ua_queue.h).  Runs on the session's I/O
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
 * before, made for new ones, whose stores it attaches to (nothing that
 * happened to them before should reach this nexus: a new LU is announced
 * by 3F/0E). */
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
			fresh[n].ua_seen = 0; /* looks once */
			ua_queue_attach(e->ua, nx->port);
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

/* fn on every LU the nexus sees in s (an LU at two LUNs: twice) */
static void each_seen_lu(const struct lu_nexus *nx, const struct lu_snap *s, void (*fn)(struct lu_entry *e, uint64_t port))
{
	for (size_t i = 0; i < s->nglobal; i++)
		fn(s->global[i], nx->port);
	for (size_t i = 0; nx->view && i < nx->view->n; i++)
		fn(nx->view->entries[i], nx->port);
}

static void post_inventory(struct lu_entry *e, uint64_t port)
{
	ua_queue_post_port(e->ua, port, UA_INVENTORY);
}

static void clear_inventory(struct lu_entry *e, uint64_t port)
{
	ua_queue_clear(e->ua, port, UA_BIT(UA_INVENTORY));
}

static void sync(struct lu_nexus *nx, const char *initiator, const struct lu_snap *s)
{
	const struct lu_view *v = lu_snap_view(s, initiator);
	uint64_t vg = v ? v->gen : 0; /* generations start at 1: 0 is "no maps" */
	bool changed = nx->started && (s->global_gen != nx->inv_global || vg != nx->inv_view);

	nx->inv_global = s->global_gen;
	nx->inv_view = vg;
	nx->view = v;
	resync_seen(nx, s, v);
	nx->snap_gen = s->gen;
	/* the initiator's inventory (the global LUs and its own maps) changed:
	 * 06/3F/0E for this nexus, on every LU it now sees */
	if (changed)
		each_seen_lu(nx, s, post_inventory);
}

void lu_nexus_start(struct lu_nexus *nx, const char *initiator, const uint8_t isid[6])
{
	struct lu_snap *s = atomic_load_explicit(&lu_cur, memory_order_acquire);

	nx->started = false;
	nx->initiator = initiator;
	nx->port = ua_port_key(initiator, isid);
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

void lu_nexus_inventory_told(struct lu_nexus *nx)
{
	struct lu_snap *s = atomic_load_explicit(&lu_cur, memory_order_acquire);

	/* the same snapshot the nexus's view belongs to (a command's lookup
	 * synced it; the grace period keeps it) */
	if (s && s->gen == nx->snap_gen)
		each_seen_lu(nx, s, clear_inventory);
}

bool lu_nexus_take_ua(struct lu_nexus *nx, struct lu_entry *e, uint8_t opcode, uint8_t out[3])
{
	struct lu_seen *seen;
	unsigned allowed = UA_ALL;
	enum ua_kind k;

	/* SAM-5 5.14: these are answered without reporting a unit attention */
	if (!e || opcode == SCSI_OP_INQUIRY || opcode == SCSI_OP_REPORT_LUNS)
		return false;
	/* REQUEST SENSE returns a power on or a reservation condition as its
	 * sense data; the others wait for the next command (lunlab's
	 * behaviour before the store: the conformance suites agree with it) */
	if (opcode == SCSI_OP_REQUEST_SENSE)
		allowed = UA_BIT(UA_POWER_ON) | UA_RESERVATION;
	seen = seen_find(nx, e->id);
	if (!ua_queue_take(e->ua, nx->port, allowed, seen ? &seen->ua_seen : NULL, &k))
		return false;
	if (k == UA_INVENTORY)
		lu_nexus_inventory_told(nx); /* once per nexus, not once per LU */
	out[0] = SCSI_SK_UNIT_ATTENTION;
	out[1] = scsi_asc(ua_kind_asc(k));
	out[2] = scsi_ascq(ua_kind_asc(k));
	return true;
}
