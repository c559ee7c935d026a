/* fault_check.c — every fault action of lunlab-target observed by a real
 * initiator (libiscsi), with the exact status and sense: fault_run.sh starts
 * the target with the rules listed there (two portals, three LUNs) and runs
 *
 *   fault_check static PORTAL1 PORTAL2 ADVERTISED2 IQN
 *
 * PORTAL2 listens with tpg=2 and advertise=ADVERTISED2.  Prints one "ok:" line
 * per check and "FAIL:" lines for the others; exit 0 only if none failed. */
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_util.h"
#include "client/xcopy_builder.h"

#define BS 512
#define INI "iqn.2026-11.org.lunlab:fault-check"
#define INI_OTHER "iqn.2026-11.org.lunlab:fault-other"

static const char *g_p1, *g_p2, *g_adv2, *g_iqn;

static struct iscsi_context *login(const char *portal, const char *initiator, bool reconnect)
{
	return session(portal, g_iqn, initiator, 0, reconnect);
}

static void logout(struct iscsi_context *i)
{
	session_end(i);
}

static void fill(uint8_t *b, size_t n, uint32_t seed)
{
	for (size_t k = 0; k < n; k++)
		b[k] = (uint8_t)(seed * 131 + k * 7 + (k >> 9));
}

static struct outcome write10(struct iscsi_context *i, int lun, uint32_t lba, uint8_t *data, uint32_t blocks)
{
	return outcome_of(iscsi_write10_sync(i, lun, lba, data, blocks * BS, BS, 0, 0, 0, 0, 0));
}

/* READ(10) into out (blocks*BS bytes) */
static struct outcome read10(struct iscsi_context *i, int lun, uint32_t lba, uint8_t *out, uint32_t blocks)
{
	struct scsi_task *t = iscsi_read10_sync(i, lun, lba, blocks * BS, BS, 0, 0, 0, 0, 0);

	if (t && t->status == ST_GOOD && out && t->datain.size >= (int)(blocks * BS))
		memcpy(out, t->datain.data, blocks * BS);
	return outcome_of(t);
}

static void medium_error(struct iscsi_context *i)
{
	struct outcome o;

	o = read10(i, 0, 1000, NULL, 8);
	check(o.status == ST_CHECK && o.sense == 0x031100, "READ in the medium-error range: CHECK CONDITION 03/11/00 (got %d %06x)",
	      o.status, o.sense);
	check(o.info_valid && o.info == 1000, "  ... INFORMATION names LBA 1000 (valid %d, %u)", o.info_valid, o.info);
	o = read10(i, 0, 990, NULL, 20);
	check(o.status == ST_CHECK && o.info_valid && o.info == 1000,
	      "READ of 990..1009: the first bad block, 1000, in INFORMATION (got %u)", o.info);
	o = read10(i, 0, 2000, NULL, 8);
	check(o.status == ST_GOOD, "READ just after the range: GOOD");
	o = read10(i, 0, 992, NULL, 8);
	check(o.status == ST_GOOD, "READ just before the range: GOOD");
}

static void statuses(struct iscsi_context *i)
{
	uint8_t data[8 * BS], back[8 * BS], zero[8 * BS];
	static const struct {
		uint32_t lba;
		int status;
		const char *name;
	} s[] = { { 3000, ST_BUSY, "BUSY" }, { 3100, ST_TSF, "TASK SET FULL" }, { 3200, ST_CONFLICT, "RESERVATION CONFLICT" } };

	memset(zero, 0, sizeof(zero));
	for (int k = 0; k < 3; k++) {
		struct outcome o;
		fill(data, sizeof(data), (uint32_t)k + 1);
		o = write10(i, 0, s[k].lba, data, 8);
		check(o.status == s[k].status && o.sense == 0, "WRITE at %u: status %s (0x%02x; got 0x%02x)", s[k].lba,
		      s[k].name, s[k].status, o.status);
		o = read10(i, 0, s[k].lba, back, 8);
		check(o.status == ST_GOOD && memcmp(back, zero, sizeof(zero)) == 0,
		      "  ... and nothing was written (reads back zeros)");
	}
}

static void not_ready_then_ready(struct iscsi_context *i)
{
	struct outcome o;

	for (int k = 1; k <= 2; k++) {
		o = outcome_of(iscsi_testunitready_sync(i, 2));
		check(o.status == ST_CHECK && o.sense == 0x020401,
		      "TEST UNIT READY %d on LUN 2: 02/04/01 BECOMING READY (got %d %06x)", k, o.status, o.sense);
	}
	o = outcome_of(iscsi_testunitready_sync(i, 2));
	check(o.status == ST_GOOD, "TEST UNIT READY 3 on LUN 2: GOOD (count=2 spent: the LU became ready)");
}

static void every_third(struct iscsi_context *i)
{
	char got[10] = "";

	for (int k = 0; k < 9; k++) {
		struct outcome o = outcome_of(iscsi_readcapacity10_sync(i, 2, 0, 0));
		strcat(got, o.status == ST_BUSY ? "B" : o.status == ST_GOOD ? "." : "?");
	}
	check(strcmp(got, "..B..B..B") == 0, "every=3: READ CAPACITY(10) on LUN 2 is BUSY every third time (%s)", got);
}

/* The rule is lba=4000-4099,count=1,delay=1500 (fault_run.sh).  The READ outside its range
 * goes first: had it matched, it would have spent the rule's one delay, and the READ inside
 * would come back at once.  So "the READ outside was not delayed" is the READ inside taking
 * at least 1.5 s, a bound from below that a slow machine only makes truer (it used to be the
 * outside READ answered "in under 1 s", a wall-clock threshold a stall could fail). */
static void delayed(struct iscsi_context *i)
{
	double t0 = now_s(), dt;
	struct outcome o = read10(i, 0, 4100, NULL, 8);

	dt = now_s() - t0;
	check(o.status == ST_GOOD, "READ outside the delay=1500 range (count=1): GOOD (after %.3f s)", dt);
	t0 = now_s();
	o = read10(i, 0, 4000, NULL, 8);
	dt = now_s() - t0;
	check(o.status == ST_GOOD && dt >= 1.5,
	      "READ inside it: GOOD after %.3f s (>= 1.5: the rule's one delay was still there, so the READ outside did not take it)",
	      dt);
}

/* async plumbing for held commands */
struct pending {
	bool done;
	int status;
	uint32_t tmf_response;
};

/* a task's completion (or libiscsi's cancellation): the task is ours to free */
static void task_cb(struct iscsi_context *i, int status, void *data, void *priv)
{
	struct pending *p = priv;

	(void)i;
	p->done = true;
	p->status = status;
	if (data)
		scsi_free_scsi_task(data);
}

static void tmf_cb(struct iscsi_context *i, int status, void *data, void *priv)
{
	struct pending *p = priv;

	(void)i;
	p->done = true;
	p->status = status;
	p->tmf_response = data ? *(uint32_t *)data : 0xffffffffu;
}

/* run the event loop for ms milliseconds, or until *until is true; ms < 0: until *until
 * alone (an answer the target owes: no limit of our own, fault_run.sh's timeout guards a hang) */
#define UNTIL_ANSWERED (-1)
static void service(struct iscsi_context *i, int ms, const bool *until)
{
	double end = ms < 0 ? 1e300 : now_s() + ms / 1000.0;

	while (now_s() < end && !(until && *until)) {
		struct pollfd p = { .fd = iscsi_get_fd(i), .events = (short)iscsi_which_events(i) };
		int left = ms < 0 ? 50 : (int)((end - now_s()) * 1000) + 1;
		if (poll(&p, 1, left > 50 ? 50 : left) > 0 && iscsi_service(i, p.revents) < 0)
			break;
	}
}

static void held(struct iscsi_context *i)
{
	struct pending rd = { 0 }, tmf = { 0 };
	struct scsi_task *t;
	struct outcome o;

	/* ABORT TASK */
	t = iscsi_read10_task(i, 0, 5000, 8 * BS, BS, 0, 0, 0, 0, 0, task_cb, &rd);
	service(i, 800, &rd.done);
	check(t && !rd.done, "held READ: no response after 0.8 s");
	o = read10(i, 0, 5200, NULL, 8);
	check(o.status == ST_GOOD, "  ... other commands of the same session still run");
	iscsi_task_mgmt_abort_task_async(i, t, tmf_cb, &tmf);
	service(i, UNTIL_ANSWERED, &tmf.done);
	check(tmf.done && tmf.tmf_response == 0, "ABORT TASK of the held READ: Function Complete (response %u)",
	      tmf.tmf_response);
	service(i, 300, &rd.done);
	check(!rd.done, "  ... and the aborted READ itself never gets a response");
	iscsi_scsi_cancel_task(i, t); /* libiscsi's own bookkeeping */
	o = outcome_of(iscsi_testunitready_sync(i, 0));
	check(o.status == ST_GOOD, "  ... the session goes on (TEST UNIT READY GOOD)");

	/* LUN RESET */
	memset(&rd, 0, sizeof(rd));
	memset(&tmf, 0, sizeof(tmf));
	t = iscsi_read10_task(i, 0, 5010, 8 * BS, BS, 0, 0, 0, 0, 0, task_cb, &rd);
	service(i, 500, &rd.done);
	check(t && !rd.done, "second held READ: no response after 0.5 s");
	iscsi_task_mgmt_lun_reset_async(i, 0, tmf_cb, &tmf);
	service(i, UNTIL_ANSWERED, &tmf.done);
	check(tmf.done && tmf.tmf_response == 0, "LUN RESET with a held READ: Function Complete (response %u)",
	      tmf.tmf_response);
	service(i, 300, &rd.done);
	/* libiscsi cancels a reset LUN's tasks itself when the LUN RESET
	 * completes: SCSI_STATUS_CANCELLED is its own doing, not the target's */
	check(!rd.done || rd.status == SCSI_STATUS_CANCELLED,
	      "  ... the held READ gets no response from the target (status %#x)", rd.status);
	if (!rd.done)
		iscsi_scsi_cancel_task(i, t);
	o = outcome_of(iscsi_testunitready_sync(i, 0));
	check(o.status == ST_CHECK && o.sense == 0x062903, "  ... next command: UNIT ATTENTION 06/29/03 (got %06x)", o.sense);
	o = outcome_of(iscsi_testunitready_sync(i, 0));
	check(o.status == ST_GOOD, "  ... then GOOD");

	/* the connection drops while a command is held: the target lets it go */
	struct iscsi_context *j = login(g_p1, INI_OTHER, false);
	struct pending r2 = { 0 };
	check(j != NULL, "a second session logs in");
	if (j) {
		t = iscsi_read10_task(j, 0, 5020, 8 * BS, BS, 0, 0, 0, 0, 0, task_cb, &r2);
		service(j, 300, &r2.done);
		check(t && !r2.done, "  ... its READ is held");
		iscsi_destroy_context(j); /* no logout: the connection just goes */
	}
}

static void drops(void)
{
	uint8_t data[8 * BS], back[8 * BS];
	struct iscsi_context *i = login(g_p1, INI, false), *k;
	struct outcome o;

	check(i != NULL, "session for drop=before");
	if (!i)
		return;
	o = read10(i, 0, 6000, NULL, 8);
	check(o.status != ST_GOOD, "READ in the drop range: no status (the connection closed; got %d)", o.status);
	/* no further command on it: libiscsi 1.19 corrupts its context when a
	 * command is sent on a connection it knows is gone (noautoreconnect);
	 * fault_run.sh checks the target's log says why the connection closed */
	iscsi_destroy_context(i);

	i = login(g_p1, INI, false);
	check(i != NULL, "session for drop=after");
	if (!i)
		return;
	fill(data, sizeof(data), 77);
	o = write10(i, 0, 7000, data, 8);
	check(o.status != ST_GOOD, "WRITE in the drop=after range: no status (got %d)", o.status);
	iscsi_destroy_context(i);
	i = login(g_p1, INI, false);
	if (i) {
		o = read10(i, 0, 7100, NULL, 8);
		check(o.status != ST_GOOD, "READ in the drop=after range: the data, then no status (got %d)", o.status);
		iscsi_destroy_context(i);
	}
	k = login(g_p1, INI, true);
	check(k != NULL, "a new session after the drop");
	if (!k)
		return;
	o = read10(k, 0, 7000, back, 8);
	check(o.status == ST_GOOD && memcmp(back, data, sizeof(data)) == 0,
	      "  ... reads back what the dropped WRITE sent (drop=after: the data moved, only the status was lost)");
	logout(k);
}

static void corruption(struct iscsi_context *i)
{
	uint8_t data[8 * BS], back[8 * BS], want[8 * BS];
	struct outcome o;
	int bad = 0;

	/* a READ that returns altered data, the stored data unchanged */
	fill(data, sizeof(data), 5);
	o = write10(i, 0, 8000, data, 8);
	check(o.status == ST_GOOD, "WRITE into the corrupt-READ range: GOOD");
	o = read10(i, 0, 8000, back, 8);
	memcpy(want, data, sizeof(want));
	for (int b = 0; b < 8; b++)
		want[b * BS] ^= 0xff;
	check(o.status == ST_GOOD && memcmp(back, want, sizeof(want)) == 0,
	      "READ with corrupt: GOOD, the first byte of every block inverted");
	o = read10(i, 0, 8000, back, 8);
	check(o.status == ST_GOOD && memcmp(back, data, sizeof(data)) == 0,
	      "  ... read again (count=1 spent): the stored data was never touched");

	/* a WRITE stored altered */
	fill(data, sizeof(data), 6);
	o = write10(i, 0, 8996, data, 8); /* 8996..9003: the rule covers 9000.. */
	check(o.status == ST_GOOD, "WRITE with corrupt (8996..9003, rule from 9000): GOOD");
	o = read10(i, 0, 8996, back, 8);
	for (int b = 0; b < 8; b++)
		bad += back[b * BS] != data[b * BS];
	check(o.status == ST_GOOD && bad == 4 && memcmp(back, data, 4 * BS) == 0 &&
	      (back[4 * BS] ^ data[4 * BS]) == 0xff,
	      "  ... reads back with blocks 9000..9003 altered, 8996..8999 intact (%d altered)", bad);
	o = write10(i, 0, 8996, data, 8);
	o = read10(i, 0, 8996, back, 8);
	check(o.status == ST_GOOD && memcmp(back, data, sizeof(data)) == 0, "  ... written again: intact (count=1 spent)");
}

static bool lu_naa(struct iscsi_context *i, int lun, struct xcopy_lu *lu)
{
	struct scsi_task *t = iscsi_inquiry_sync(i, lun, 1, 0x83, 255);
	bool ok = t && t->status == ST_GOOD && vpd83_find_naa(t->datain.data, (size_t)t->datain.size, lu) == 0;

	if (t)
		scsi_free_scsi_task(t);
	lu->block_size = BS;
	lu->peripheral_type = 0;
	return ok;
}

/* EXTENDED COPY of 4 segments of 8 blocks (LUN lun, src 0.. -> dst 1000..)
 * with LIST ID USAGE 00b (hold) and list id 9 */
static struct outcome xcopy4(struct iscsi_context *i, int lun)
{
	struct xcopy_lu lu;
	struct xcopy_segment seg[4];
	uint8_t list[512];
	struct iscsi_data d;
	int len;

	memset(&lu, 0, sizeof(lu));
	if (!lu_naa(i, lun, &lu))
		return outcome_of(NULL);
	for (int k = 0; k < 4; k++) {
		seg[k].src_index = seg[k].dst_index = 0;
		seg[k].blocks = 8;
		seg[k].src_lba = (uint64_t)k * 8;
		seg[k].dst_lba = 1000 + (uint64_t)k * 8;
	}
	len = xcopy_build(&lu, 1, seg, 4, list, sizeof(list));
	if (len < 0)
		return outcome_of(NULL);
	list[0] = 9;      /* LIST IDENTIFIER */
	list[1] &= ~0x18; /* LIST ID USAGE 00b: hold the status for RECEIVE COPY RESULTS */
	d.data = list;
	d.size = (size_t)len;
	return outcome_of(iscsi_extended_copy_sync(i, lun, &d));
}

static void xcopy_partial(struct iscsi_context *i)
{
	uint8_t src[32 * BS], back[32 * BS], zero[16 * BS];
	struct outcome o;
	struct scsi_task *t;

	fill(src, sizeof(src), 9);
	o = write10(i, 1, 0, src, 32);
	check(o.status == ST_GOOD, "LUN 1: 32 source blocks written");
	o = xcopy4(i, 1);
	check(o.status == ST_CHECK && o.sense == 0x0a0d02,
	      "EXTENDED COPY of 4 segments, xcopy-fail-after=2: COPY ABORTED 0D/02 (got %d %06x)", o.status, o.sense);
	check(o.csi == 2, "  ... COMMAND-SPECIFIC INFORMATION names segment 2 (got %u)", o.csi);
	/* a held (00b) copy that ended in CHECK CONDITION keeps its FAILED SEGMENT
	 * DETAILS (docs/xcopy.md "Held data"): the sense names the segment */
	t = iscsi_receive_copy_results_sync(i, 1, 4 /* FAILED SEGMENT DETAILS */, 9, 255);
	check(t && t->status == ST_GOOD && t->datain.size >= 60 + 18,
	      "RECEIVE COPY RESULTS (FAILED SEGMENT DETAILS) for list 9: GOOD, %d bytes", t ? t->datain.size : -1);
	if (t && t->status == ST_GOOD && t->datain.size >= 60 + 18) {
		const uint8_t *r = t->datain.data, *sn = r + 60;
		uint32_t seg = (uint32_t)sn[8] << 24 | (uint32_t)sn[9] << 16 | (uint32_t)sn[10] << 8 | sn[11];
		check(r[56] == ST_CHECK && (r[58] << 8 | r[59]) == 18,
		      "  ... COPY COMMAND STATUS CHECK CONDITION, 18 bytes of sense (got %02x, %d)", r[56],
		      r[58] << 8 | r[59]);
		check((sn[2] & 0x0f) == 0x0a && sn[12] == 0x0d && sn[13] == 0x02 && seg == 2,
		      "  ... the sense: COPY ABORTED 0D/02, 2 segments done before it (got %x/%02x/%02x, segment %u)",
		      sn[2] & 0x0f, sn[12], sn[13], seg);
	}
	if (t)
		scsi_free_scsi_task(t);
	o = read10(i, 1, 1000, back, 32);
	memset(zero, 0, sizeof(zero));
	check(o.status == ST_GOOD && memcmp(back, src, 16 * BS) == 0 && memcmp(back + 16 * BS, zero, 16 * BS) == 0,
	      "  ... the destination holds segments 0 and 1, segments 2 and 3 were never copied");

	/* the rule's own sense, before any segment */
	o = xcopy4(i, 2);
	check(o.status == ST_CHECK && o.sense == 0x0b0d01,
	      "LUN 2 EXTENDED COPY with xcopy-fail-after=0,sense=0b/0d/01: 0B/0D/01 (got %06x)", o.sense);
	o = read10(i, 2, 1000, back, 8);
	check(o.status == ST_GOOD && memcmp(back, zero, 8 * BS) == 0, "  ... nothing copied");
}

static void unmap_range(struct iscsi_context *i)
{
	struct unmap_list l = { 9990, 20 };
	struct outcome o = outcome_of(iscsi_unmap_sync(i, 0, 0, 0, &l, 1));

	check(o.status == ST_CHECK && o.sense == 0x031100 && o.info_valid && o.info == 10000,
	      "UNMAP of 9990..10009 (rule lba=10000-10099): 03/11/00 at LBA 10000 (got %06x, %u)", o.sense, o.info);
	l.lba = 9900;
	l.num = 10;
	o = outcome_of(iscsi_unmap_sync(i, 0, 0, 0, &l, 1));
	check(o.status == ST_GOOD, "UNMAP of 9900..9909: GOOD");
}

static void by_initiator_and_portal(struct iscsi_context *i)
{
	struct iscsi_context *o2 = login(g_p1, INI_OTHER, true), *p2 = login(g_p2, INI, true);
	struct outcome o;

	o = outcome_of(iscsi_modesense6_sync(i, 2, 1, 0, 0x3f, 0, 255));
	check(o.status == ST_GOOD, "MODE SENSE(6) on LUN 2 from %s: GOOD", INI);
	if (o2) {
		o = outcome_of(iscsi_modesense6_sync(o2, 2, 1, 0, 0x3f, 0, 255));
		check(o.status == ST_CHECK && o.sense == 0x044400,
		      "  ... from %s (initiator= rule): 04/44/00 (got %06x)", INI_OTHER, o.sense);
	}
	o = outcome_of(iscsi_modesense10_sync(i, 2, 0, 1, 0, 0x3f, 0, 255));
	check(o.status == ST_GOOD, "MODE SENSE(10) on LUN 2 through %s: GOOD", g_p1);
	if (p2) {
		o = outcome_of(iscsi_modesense10_sync(p2, 2, 0, 1, 0, 0x3f, 0, 255));
		check(o.status == ST_CHECK && o.sense == 0x0b4400,
		      "  ... through %s, advertised as %s (portal= rule): 0B/44/00 (got %06x)", g_p2, g_adv2, o.sense);
	}
	logout(o2);
	logout(p2);
}

/* SendTargets: the advertised address of portal 2, each portal's group tag */
static void send_targets(const char *portal, const char *first)
{
	struct iscsi_context *d = iscsi_create_context(INI);
	struct iscsi_discovery_address *da;
	char p1[96], p2[96], got[256] = "";

	snprintf(p1, sizeof(p1), "%s,1", g_p1);
	snprintf(p2, sizeof(p2), "%s,2", g_adv2);
	iscsi_set_session_type(d, ISCSI_SESSION_DISCOVERY);
	if (iscsi_full_connect_sync(d, portal, -1) != 0) {
		check(false, "discovery session on %s: %s", portal, iscsi_get_error(d));
		iscsi_destroy_context(d);
		return;
	}
	da = iscsi_discovery_sync(d);
	for (struct iscsi_target_portal *p = da ? da->portals : NULL; p; p = p->next) {
		strncat(got, p->portal, sizeof(got) - strlen(got) - 2);
		strcat(got, " ");
	}
	check(da && da->portals && da->portals->next && !da->portals->next->next &&
	      strcmp(da->portals->portal, strcmp(first, "1") == 0 ? p1 : p2) == 0 &&
	      strcmp(da->portals->next->portal, strcmp(first, "1") == 0 ? p2 : p1) == 0,
	      "SendTargets through %s: %s and %s, its own first (got %s)", portal, p1, p2, got);
	if (da)
		iscsi_free_discovery_data(d, da);
	iscsi_logout_sync(d);
	iscsi_destroy_context(d);
}

int main(int argc, char **argv)
{
	struct iscsi_context *i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 6 || strcmp(argv[1], "static") != 0) {
		fprintf(stderr, "usage: %s static PORTAL1 PORTAL2 ADVERTISED2 IQN\n", argv[0]);
		return 2;
	}
	g_p1 = argv[2];
	g_p2 = argv[3];
	g_adv2 = argv[4];
	g_iqn = argv[5];
	i = login(g_p1, INI, true);
	if (!i) {
		printf("FAIL: login\n");
		return 1;
	}
	medium_error(i);
	statuses(i);
	not_ready_then_ready(i);
	every_third(i);
	delayed(i);
	held(i);
	corruption(i);
	xcopy_partial(i);
	unmap_range(i);
	by_initiator_and_portal(i);
	logout(i);
	drops();
	send_targets(g_p1, "1");
	send_targets(g_p2, "2");
	printf("%s: %d check(s) failed\n", g_failed ? "FAIL" : "ok", g_failed);
	return g_failed ? 1 : 0;
}
