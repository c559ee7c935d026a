/* pr_flows.c — the cluster flows that depend on lunlab-target's persistent
 * reservations, run with libiscsi against a real target (pr_run.sh starts
 * it): one iSCSI session per "node", each with its own initiator name.
 *
 *   fence_scsi  Linux fence-agents (agents/scsi/fence_scsi.py): every node
 *               REGISTER AND IGNORE EXISTING KEY, one RESERVE type 5
 *               (Write Exclusive - Registrants Only); fencing is PREEMPT AND
 *               ABORT of the victim's key by a surviving node; the victim
 *               then gets REGISTRATIONS PREEMPTED once, RESERVATION
 *               CONFLICT on writes, GOOD on reads; unfencing registers again.
 *   windows     a Windows failover cluster disk: register, RESERVE,
 *               READ RESERVATION / READ KEYS polling, arbitration by
 *               PREEMPT, RELEASE, CLEAR when the cluster is destroyed; run
 *               with type 5 and type 6 (docs/reservations.md says why both).
 *
 * Usage: pr_flows HOST:PORT TARGET_IQN LUN.  Prints one "ok:" line per
 * check, "FAIL:" lines for the others; exit 0 only if nothing failed. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#include "lunlab/scsi_vocab.h"

#define ST_GOOD SCSI_STAT_GOOD
#define ST_CHECK SCSI_STAT_CHECK_CONDITION
#define ST_CONFLICT SCSI_STAT_RESERVATION_CONFLICT
#define BS 512

static const char *g_portal, *g_iqn;
static int g_lun, g_failed;

static void check(bool ok, const char *what)
{
	if (ok) {
		printf("ok: %s\n", what);
	} else {
		printf("FAIL: %s\n", what);
		g_failed++;
	}
}

struct node {
	const char *name;
	struct iscsi_context *iscsi;
	uint64_t key;
};

static bool node_login(struct node *n)
{
	n->iscsi = iscsi_create_context(n->name);
	if (!n->iscsi)
		return false;
	iscsi_set_targetname(n->iscsi, g_iqn);
	iscsi_set_session_type(n->iscsi, ISCSI_SESSION_NORMAL);
	iscsi_set_header_digest(n->iscsi, ISCSI_HEADER_DIGEST_NONE);
	if (iscsi_full_connect_sync(n->iscsi, g_portal, g_lun) != 0) {
		fprintf(stderr, "login of %s failed: %s\n", n->name, iscsi_get_error(n->iscsi));
		iscsi_destroy_context(n->iscsi);
		n->iscsi = NULL;
		return false;
	}
	return true;
}

static void node_logout(struct node *n)
{
	if (!n->iscsi)
		return;
	iscsi_logout_sync(n->iscsi);
	iscsi_destroy_context(n->iscsi);
	n->iscsi = NULL;
}

/* status of a task, -1 if it never completed; *asc_ascq gets the sense */
static int task_status(struct scsi_task *t, int *asc_ascq)
{
	int st;

	if (!t)
		return -1;
	st = t->status;
	if (asc_ascq)
		*asc_ascq = st == ST_CHECK ? (int)t->sense.key << 16 | t->sense.ascq : 0;
	scsi_free_scsi_task(t);
	return st;
}

static int prout(struct node *n, int sa, int type, uint64_t rk, uint64_t sark)
{
	struct scsi_persistent_reserve_out_basic p;

	memset(&p, 0, sizeof(p));
	p.reservation_key = rk;
	p.service_action_reservation_key = sark;
	return task_status(iscsi_persistent_reserve_out_sync(n->iscsi, g_lun, sa, 0, type, &p), NULL);
}

static int tur(struct node *n, int *sense)
{
	return task_status(iscsi_testunitready_sync(n->iscsi, g_lun), sense);
}

/* the unit attention a node's next command meets: 06/2A/ascq expected */
static void expect_ua(struct node *n, int ascq, const char *what)
{
	int sense = 0, st = tur(n, &sense);

	check(st == ST_CHECK && sense == (0x06 << 16 | 0x2a << 8 | ascq), what);
	check(tur(n, NULL) == ST_GOOD, "  ... reported once (the next TEST UNIT READY is GOOD)");
}

static void expect_no_ua(struct node *n, const char *what)
{
	check(tur(n, NULL) == ST_GOOD, what);
}

/* READ KEYS: the count (or -1), keys in out[], PRGENERATION in *gen */
static int read_keys(struct node *n, uint64_t *out, int max, uint32_t *gen)
{
	struct scsi_task *t = iscsi_persistent_reserve_in_sync(n->iscsi, g_lun, 0, 1024);
	int cnt;

	if (!t || t->status != ST_GOOD || t->datain.size < 8) {
		task_status(t, NULL);
		return -1;
	}
	*gen = scsi_get_uint32(t->datain.data);
	cnt = (int)(scsi_get_uint32(t->datain.data + 4) / 8);
	for (int i = 0; i < cnt && i < max && 8 + 8 * i + 8 <= t->datain.size; i++)
		out[i] = (uint64_t)scsi_get_uint32(t->datain.data + 8 + 8 * i) << 32 |
			 scsi_get_uint32(t->datain.data + 12 + 8 * i);
	scsi_free_scsi_task(t);
	return cnt;
}

static bool keys_are(struct node *n, const uint64_t *want, int nwant, uint32_t *gen)
{
	uint64_t got[16];
	uint32_t g = 0;
	int cnt = read_keys(n, got, 16, &g);

	if (gen)
		*gen = g;
	if (cnt != nwant)
		return false;
	for (int i = 0; i < nwant; i++) {
		bool found = false;
		for (int j = 0; j < cnt; j++)
			found |= got[j] == want[i];
		if (!found)
			return false;
	}
	return true;
}

/* READ RESERVATION: 1 reserved (key, type filled), 0 not, -1 error */
static int read_reservation(struct node *n, uint64_t *key, int *type)
{
	struct scsi_task *t = iscsi_persistent_reserve_in_sync(n->iscsi, g_lun, 1, 64);
	int r;

	if (!t || t->status != ST_GOOD || t->datain.size < 8) {
		task_status(t, NULL);
		return -1;
	}
	r = scsi_get_uint32(t->datain.data + 4) >= 16 && t->datain.size >= 24;
	if (r) {
		*key = (uint64_t)scsi_get_uint32(t->datain.data + 8) << 32 | scsi_get_uint32(t->datain.data + 12);
		*type = t->datain.data[21] & 0x0f;
	}
	scsi_free_scsi_task(t);
	return r;
}

static bool reserved_as(struct node *n, uint64_t key, int type)
{
	uint64_t k = 0;
	int ty = 0;

	return read_reservation(n, &k, &ty) == 1 && k == key && ty == type;
}

static int write_block(struct node *n, uint32_t lba, uint8_t fill)
{
	uint8_t buf[BS];

	memset(buf, fill, sizeof(buf));
	return task_status(iscsi_write10_sync(n->iscsi, g_lun, lba, buf, BS, BS, 0, 0, 0, 0, 0), NULL);
}

/* READ(10) of one block: status; *fill gets its first byte if the whole
 * block holds that one value, else -1 */
static int read_block(struct node *n, uint32_t lba, int *fill)
{
	struct scsi_task *t = iscsi_read10_sync(n->iscsi, g_lun, lba, BS, BS, 0, 0, 0, 0, 0);
	int st;

	if (!t)
		return -1;
	st = t->status;
	*fill = -1;
	if (st == ST_GOOD && t->datain.size == BS) {
		*fill = t->datain.data[0];
		for (int i = 1; i < BS; i++)
			if (t->datain.data[i] != t->datain.data[0])
				*fill = -1;
	}
	scsi_free_scsi_task(t);
	return st;
}

/* READ FULL STATUS names each registrant by its iSCSI TransportID */
static bool full_status_names(struct node *n, struct node **who, int cnt)
{
	struct scsi_task *t = iscsi_persistent_reserve_in_sync(n->iscsi, g_lun, 3, 4096);
	bool ok = t && t->status == ST_GOOD && t->datain.size >= 8;
	int off = 8, seen = 0;

	while (ok && off + 24 <= t->datain.size) {
		const uint8_t *e = t->datain.data + off;
		uint32_t dlen = scsi_get_uint32(e + 20);
		const char *tid = (const char *)e + 28;
		bool matched = false;

		if (off + 24 + (int)dlen > t->datain.size || dlen < 24 || e[24] != 0x45) {
			ok = false;
			break;
		}
		for (int i = 0; i < cnt; i++) {
			size_t l = strlen(who[i]->name);
			uint64_t key = (uint64_t)scsi_get_uint32(e) << 32 | scsi_get_uint32(e + 4);
			if (key == who[i]->key && strncmp(tid, who[i]->name, l) == 0 &&
			    strncmp(tid + l, ",i,0x", 5) == 0 && strlen(tid + l + 5) == 12)
				matched = true;
		}
		ok = matched;
		seen++;
		off += 24 + (int)dlen;
	}
	if (t)
		scsi_free_scsi_task(t);
	return ok && seen == cnt;
}

static void fence_scsi_flow(void)
{
	struct node a = { "iqn.2026-11.org.lunlab.test:fence-a", NULL, 0x5a5a000000000001ull };
	struct node b = { "iqn.2026-11.org.lunlab.test:fence-b", NULL, 0x5a5a000000000002ull };
	struct node c = { "iqn.2026-11.org.lunlab.test:fence-c", NULL, 0x5a5a000000000003ull };
	struct node *all[3] = { &a, &b, &c };
	uint64_t k3[3] = { a.key, b.key, c.key }, k_ab[2] = { a.key, b.key }, k_bc[2] = { b.key, c.key };
	uint32_t gen0, gen1;
	int fill;

	printf("== fence_scsi (type 5, Write Exclusive - Registrants Only)\n");
	for (int i = 0; i < 3; i++)
		if (!node_login(all[i])) {
			check(false, "login of every node");
			goto out;
		}
	/* unfence ("on"): sg_turs, register, then the first node reserves */
	for (int i = 0; i < 3; i++) {
		tur(all[i], NULL);
		check(prout(all[i], 6, 0, 0, all[i]->key) == ST_GOOD, "REGISTER AND IGNORE EXISTING KEY of a node");
	}
	check(keys_are(&c, k3, 3, &gen0), "READ KEYS lists the three node keys");
	check(read_reservation(&a, &(uint64_t){ 0 }, &(int){ 0 }) == 0, "no reservation before the first node reserves");
	check(prout(&a, 1, 5, a.key, 0) == ST_GOOD, "node a RESERVE type 5");
	check(reserved_as(&c, a.key, 5), "READ RESERVATION from node c: a's key, type 5");
	check(full_status_names(&b, all, 3), "READ FULL STATUS: each key with its node's TransportID (iqn,i,0x<ISID>)");
	for (int i = 0; i < 3; i++)
		check(write_block(all[i], 100 + (uint32_t)i, (uint8_t)(0xa0 + i)) == ST_GOOD,
		      "a registered node writes");

	/* fence ("off" of node c, run on node b) */
	tur(&b, NULL);
	check(prout(&b, 5, 5, b.key, c.key) == ST_GOOD, "node b PREEMPT AND ABORT of node c's key");
	check(keys_are(&a, k_ab, 2, &gen1), "READ KEYS: c's key is gone, a's and b's stay");
	check(gen1 == gen0 + 1, "PRGENERATION went up by one");
	check(reserved_as(&a, a.key, 5), "the reservation is still a's (c did not hold it)");
	expect_ua(&c, 0x05, "node c: UNIT ATTENTION 06/2A/05 REGISTRATIONS PREEMPTED");
	expect_no_ua(&a, "node a: no unit attention");
	check(write_block(&c, 102, 0xee) == ST_CONFLICT, "fenced node c: WRITE -> RESERVATION CONFLICT");
	check(read_block(&c, 102, &fill) == ST_GOOD && fill == 0xa2, "fenced node c: READ works, its block unchanged");
	check(read_block(&a, 102, &fill) == ST_GOOD && fill == 0xa2, "node a reads c's block unchanged");
	check(prout(&c, 5, 5, c.key, a.key) == ST_CONFLICT, "fenced node c cannot fence back (PREEMPT AND ABORT -> conflict)");

	/* fencing the holder moves the reservation */
	check(prout(&b, 5, 5, b.key, a.key) == ST_GOOD, "node b fences the holder a");
	check(reserved_as(&c, b.key, 5), "READ RESERVATION: now b's key, type 5");
	expect_ua(&a, 0x05, "node a: UNIT ATTENTION 06/2A/05");
	check(write_block(&a, 100, 0xee) == ST_CONFLICT, "fenced node a: WRITE -> RESERVATION CONFLICT");
	check(write_block(&b, 101, 0xb1) == ST_GOOD, "node b still writes");

	/* unfence c: register again and write */
	check(prout(&c, 6, 0, 0, c.key) == ST_GOOD, "node c unfenced: REGISTER AND IGNORE EXISTING KEY");
	check(keys_are(&b, k_bc, 2, NULL), "READ KEYS: b and c");
	check(write_block(&c, 102, 0xc2) == ST_GOOD, "unfenced node c writes again");
	check(prout(&b, 3, 0, b.key, 0) == ST_GOOD, "CLEAR (test cleanup)");
	expect_ua(&c, 0x03, "node c: UNIT ATTENTION 06/2A/03 RESERVATIONS PREEMPTED after CLEAR");
out:
	for (int i = 0; i < 3; i++)
		node_logout(all[i]);
}

static void windows_flow(int type)
{
	struct node n1 = { "iqn.1991-05.com.microsoft:node1.cluster.test", NULL, 0x0000003d4d534654ull };
	struct node n2 = { "iqn.1991-05.com.microsoft:node2.cluster.test", NULL, 0x0000004e4d534654ull };
	uint64_t both[2] = { n1.key, n2.key }, k2[1] = { n2.key };
	uint32_t gen;
	int fill, st;
	char what[160];

	printf("== Windows failover cluster disk (type %d)\n", type);
	if (!node_login(&n1) || !node_login(&n2)) {
		check(false, "login of both nodes");
		goto out;
	}
	tur(&n1, NULL);
	tur(&n2, NULL);
	/* node 1 brings the disk online: register, reserve, verify */
	check(prout(&n1, 6, 0, 0, n1.key) == ST_GOOD, "node 1 REGISTER AND IGNORE EXISTING KEY");
	check(prout(&n1, 1, type, n1.key, 0) == ST_GOOD, "node 1 RESERVE");
	check(reserved_as(&n1, n1.key, type), "node 1 READ RESERVATION: its key and type");
	check(write_block(&n1, 200, 0x11) == ST_GOOD, "owner node 1 writes");
	/* node 2 joins: registers and polls */
	check(prout(&n2, 6, 0, 0, n2.key) == ST_GOOD, "node 2 REGISTER AND IGNORE EXISTING KEY");
	check(keys_are(&n2, both, 2, NULL), "node 2 READ KEYS: both keys");
	check(reserved_as(&n2, n1.key, type), "node 2 READ RESERVATION: node 1 owns the disk");
	check(prout(&n2, 1, type, n2.key, 0) == ST_CONFLICT, "node 2 RESERVE while node 1 owns it -> conflict");
	/* arbitration: node 1 stops defending, node 2 preempts */
	check(prout(&n2, 4, type, n2.key, n1.key) == ST_GOOD, "node 2 PREEMPT of node 1's key");
	check(reserved_as(&n2, n2.key, type), "node 2 now owns the reservation");
	check(keys_are(&n2, k2, 1, NULL), "READ KEYS: only node 2");
	expect_ua(&n1, 0x05, "node 1: UNIT ATTENTION 06/2A/05 REGISTRATIONS PREEMPTED");
	check(write_block(&n1, 200, 0x99) == ST_CONFLICT, "node 1 WRITE -> RESERVATION CONFLICT");
	st = read_block(&n1, 200, &fill);
	snprintf(what, sizeof(what), "node 1 READ -> %s", type == 6 ? "RESERVATION CONFLICT (exclusive access)" : "GOOD (write exclusive)");
	check(type == 6 ? st == ST_CONFLICT : st == ST_GOOD && fill == 0x11, what);
	check(read_block(&n2, 200, &fill) == ST_GOOD && fill == 0x11, "node 2 reads node 1's data, unchanged");
	check(write_block(&n2, 200, 0x22) == ST_GOOD, "node 2 writes");
	/* node 1 comes back as a registrant: it can write again (registrants only) */
	check(prout(&n1, 6, 0, 0, n1.key) == ST_GOOD, "node 1 registers again");
	check(write_block(&n1, 201, 0x12) == ST_GOOD, "registered node 1 writes (registrants-only type)");
	/* offline: RELEASE, then the cluster is destroyed: CLEAR */
	check(prout(&n2, 2, type, n2.key, 0) == ST_GOOD, "node 2 RELEASE");
	/* the unit attention comes first: PERSISTENT RESERVE IN would meet it too */
	expect_ua(&n1, 0x04, "node 1: UNIT ATTENTION 06/2A/04 RESERVATIONS RELEASED");
	check(read_reservation(&n1, &(uint64_t){ 0 }, &(int){ 0 }) == 0, "no reservation after RELEASE");
	check(keys_are(&n1, both, 2, &gen), "READ KEYS: both registered");
	check(prout(&n1, 3, 0, n1.key, 0) == ST_GOOD, "node 1 CLEAR (cluster destroyed)");
	expect_ua(&n2, 0x03, "node 2: UNIT ATTENTION 06/2A/03 RESERVATIONS PREEMPTED");
	check(keys_are(&n2, NULL, 0, &(uint32_t){ 0 }), "READ KEYS: none left");
	check(write_block(&n2, 200, 0x00) == ST_GOOD && write_block(&n1, 201, 0x00) == ST_GOOD,
	      "both nodes write again once nothing is reserved");
	/* SCSI-2 RESERVE(6) while a persistent reservation exists: conflict */
	check(prout(&n1, 6, 0, 0, n1.key) == ST_GOOD && prout(&n1, 1, type, n1.key, 0) == ST_GOOD,
	      "node 1 reserves again");
	check(task_status(iscsi_reserve6_sync(n2.iscsi, g_lun), NULL) == ST_CONFLICT,
	      "node 2 RESERVE(6) under a persistent reservation -> conflict");
	check(prout(&n1, 3, 0, n1.key, 0) == ST_GOOD, "CLEAR (test cleanup)");
out:
	node_logout(&n1);
	node_logout(&n2);
}

int main(int argc, char **argv)
{
	static char portal[256];

	if (argc != 4) {
		fprintf(stderr, "usage: %s HOST:PORT TARGET_IQN LUN\n", argv[0]);
		return 2;
	}
	snprintf(portal, sizeof(portal), "%s", argv[1]);
	g_portal = portal;
	g_iqn = argv[2];
	g_lun = atoi(argv[3]);
	fence_scsi_flow();
	windows_flow(6);
	windows_flow(5);
	printf("%s: %d check(s) failed\n", g_failed ? "FAIL" : "PASS", g_failed);
	return g_failed ? 1 : 0;
}
