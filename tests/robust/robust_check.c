/* robust_check.c — abuse a running lunlab-target over raw sockets and check
 * its exact reaction (connection closed, Reject reason, login status), while
 * a healthy libiscsi session on LUN 0 keeps writing and verifying its own
 * region the whole time: no case may disturb it.
 *
 *   robust_check PORT IQN GROUP      GROUP: drop | stall | garbage | limits | shutdown
 *   (shutdown: SIGTERMs the target, pid in ROBUST_TARGET_PID, while it is busy)
 *
 * The target is started by run-robust.sh with
 *   LUN 0 model=unlimited (healthy session + raw cases), LUN 1 model=x1 at a
 *   slow time_scale (holds a command about a second), LUN 2 model=x1 at a
 *   fast one, --max-sessions 8, LUNLAB_LOGIN_TIMEOUT=5, LUNLAB_STALL_TIMEOUT=3.
 * Every group ends by filling the session limit exactly (7 raw + the healthy
 * one), which fails if any abused connection leaked its session count. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#include "lunlab/scsi_vocab.h"
#include "raw_ini.h"

#define MAX_SESSIONS 8
#define LOGIN_TIMEOUT_S 5
#define STALL_TIMEOUT_S 3
#define HEALTHY_LBA 1000000u  /* the healthy session's region on LUN 0 (512-byte blocks) */

static int failures;
static const char *cur_case = "";

#define CHECK(cond, ...) do { \
	if (!(cond)) { \
		failures++; \
		printf("FAIL [%s] %s:%d: ", cur_case, __FILE__, __LINE__); \
		printf(__VA_ARGS__); \
		printf("\n"); \
		fflush(stdout); \
	} } while (0)

/* ---- the healthy session ---- */

static atomic_long healthy_ops, healthy_errors;
static atomic_bool healthy_stop, healthy_up;
static char healthy_err[256];

static void *healthy_main(void *arg)
{
	struct iscsi_context *is = iscsi_create_context("iqn.2026-11.org.lunlab:robust-healthy");
	char portal[64];
	uint8_t wbuf[4096];
	(void)arg;

	snprintf(portal, sizeof(portal), "127.0.0.1:%d", g_port);
	iscsi_set_targetname(is, g_iqn);
	iscsi_set_session_type(is, ISCSI_SESSION_NORMAL);
	iscsi_set_header_digest(is, ISCSI_HEADER_DIGEST_NONE);
	if (iscsi_full_connect_sync(is, portal, 0) != 0) {
		snprintf(healthy_err, sizeof(healthy_err), "login: %s", iscsi_get_error(is));
		atomic_fetch_add(&healthy_errors, 1);
		iscsi_destroy_context(is);
		return NULL;
	}
	iscsi_set_timeout(is, 20);
	atomic_store(&healthy_up, true);
	for (uint32_t gen = 1; !atomic_load(&healthy_stop); gen++) {
		uint32_t lba = HEALTHY_LBA + (gen % 64) * 8;
		struct scsi_task *t;

		for (size_t i = 0; i < sizeof(wbuf); i += 4) {
			uint32_t v = gen * 2654435761u + (uint32_t)i;
			memcpy(wbuf + i, &v, 4);
		}
		t = iscsi_write10_sync(is, 0, lba, wbuf, sizeof(wbuf), 512, 0, 0, 0, 0, 0);
		if (!t || t->status != SCSI_STATUS_GOOD) {
			snprintf(healthy_err, sizeof(healthy_err), "WRITE(10) LBA %u: %s", lba,
				 t ? "bad status" : iscsi_get_error(is));
			atomic_fetch_add(&healthy_errors, 1);
			if (t)
				scsi_free_scsi_task(t);
			break;
		}
		scsi_free_scsi_task(t);
		t = iscsi_read10_sync(is, 0, lba, sizeof(wbuf), 512, 0, 0, 0, 0, 0);
		if (!t || t->status != SCSI_STATUS_GOOD || t->datain.size != (int)sizeof(wbuf) ||
		    memcmp(t->datain.data, wbuf, sizeof(wbuf))) {
			snprintf(healthy_err, sizeof(healthy_err), "READ(10) LBA %u: %s", lba,
				 !t ? iscsi_get_error(is) : t->status ? "bad status" : "data mismatch");
			atomic_fetch_add(&healthy_errors, 1);
			if (t)
				scsi_free_scsi_task(t);
			break;
		}
		scsi_free_scsi_task(t);
		atomic_fetch_add(&healthy_ops, 1);
	}
	iscsi_logout_sync(is);
	iscsi_destroy_context(is);
	return NULL;
}

/* The healthy session made progress since mark and has no error. */
static void healthy_check(long mark)
{
	long deadline = now_ms() + 15000;

	while (atomic_load(&healthy_ops) < mark + 3 && !atomic_load(&healthy_errors) && now_ms() < deadline)
		usleep(20000);
	CHECK(!atomic_load(&healthy_errors), "healthy session failed: %s", healthy_err);
	CHECK(atomic_load(&healthy_ops) >= mark + 3, "healthy session stalled (%ld ops, mark %ld)",
	      atomic_load(&healthy_ops), mark);
}

/* ---- helpers ---- */

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (uint8_t)(seed >> 16);
	}
}

/* READ(10) over a fresh raw session; returns 0 and the data in out */
static int raw_read(uint64_t lun, uint32_t lba, uint16_t blocks, uint8_t *out)
{
	struct raw r;
	uint8_t bhs[48], cdb[16], *data = malloc(262144);
	uint32_t got = 0, want = blocks * 512u;
	int rc = -1;

	if (raw_login(&r, &(struct login_opts){ .isid_low = 200 }) != 0) {
		free(data);
		raw_close(&r);
		return -1;
	}
	cdb_rw10(cdb, 0x28, lba, blocks);
	raw_scsi_cmd(&r, bhs, lun, cdb, want, true, false, true);
	raw_send(&r, bhs, NULL, 0, false);
	for (;;) {
		int n = raw_recv(&r, bhs, data, 262144, 20000);
		if (n < 0)
			break;
		if (bhs_opcode(bhs) == ISCSI_OP_DATA_IN) {
			uint32_t off = get_be32(bhs + 40);
			if (off + (uint32_t)n <= want)
				memcpy(out + off, data, (size_t)n);
			got += (uint32_t)n;
			if ((bhs[1] & ISCSI_DATAIN_STATUS)) {
				rc = bhs[3] == 0 && got == want ? 0 : -1;
				break;
			}
		} else if (bhs_opcode(bhs) == ISCSI_OP_SCSI_RSP) {
			rc = bhs[3] == 0 && got == want ? 0 : -1;
			break;
		}
	}
	raw_close(&r);
	free(data);
	return rc;
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* A fresh session logs in and answers a ping: the target is alive. */
static void target_alive(void)
{
	struct raw r;
	int rc = raw_login(&r, &(struct login_opts){ .isid_low = 201 });

	CHECK(rc == 0, "a fresh login after the case failed (status 0x%04x)", rc);
	if (rc == 0)
		CHECK(raw_ping_ok(&r, 5000), "fresh session: NOP-Out ping not answered");
	raw_close(&r);
}

/* Waits for the next PDU that is not a NOP-In / async message. */
static int recv_skip(struct raw *r, uint8_t *bhs, uint8_t *data, uint32_t cap, int timeout_ms)
{
	long deadline = now_ms() + timeout_ms;
	int n;

	do {
		n = raw_recv(r, bhs, data, cap, (int)(deadline - now_ms() > 0 ? deadline - now_ms() : 1));
	} while (n >= 0 && (bhs_opcode(bhs) == ISCSI_OP_ASYNC_MSG));
	return n;
}

/* A Reject with this reason for the PDU with this ITT (the rejected BHS comes back as data). */
static void expect_reject(struct raw *r, uint8_t reason, uint32_t itt)
{
	uint8_t bhs[48], data[512];
	int n = recv_skip(r, bhs, data, sizeof(data), 5000);

	CHECK(n == 48 && bhs_opcode(bhs) == ISCSI_OP_REJECT,
	      "want a Reject (reason 0x%02x), got %d bytes opcode 0x%02x", reason, n, n >= 0 ? bhs_opcode(bhs) : 0xff);
	if (n == 48 && bhs_opcode(bhs) == ISCSI_OP_REJECT) {
		CHECK(bhs[2] == reason, "Reject reason 0x%02x, want 0x%02x", bhs[2], reason);
		CHECK(get_be32(data + 16) == itt, "Reject carries ITT 0x%08x, want 0x%08x", get_be32(data + 16), itt);
	}
}

/* The claim is "closed, and not before min_ms" (the target's timers must not fire early).  How
 * late a server-side timer fires on a loaded machine is not the target's rule, so max_ms (the
 * timeout plus the margin it should take) is said when exceeded and the failure is a close
 * that never comes: HANG_GUARD_MS beyond it (docs/testing.md, rule 4). */
#define HANG_GUARD_MS 60000L
static void expect_closed(struct raw *r, long min_ms, long max_ms)
{
	long t = raw_wait_closed(r, (int)(max_ms + HANG_GUARD_MS));

	CHECK(t >= 0, "the target did not close the connection within %ld ms", max_ms + HANG_GUARD_MS);
	CHECK(t < 0 || t >= min_ms, "the target closed after %ld ms, earlier than %ld ms", t, min_ms);
	if (t > max_ms)
		printf("  note: closed after %ld ms, later than the %ld ms it should take (a loaded machine?)\n",
		       t, max_ms);
}

/* ---- group: drop ---- */

static void drop_write_partial_immediate(void)
{
	struct raw r;
	uint8_t bhs[48], cdb[16], data[16384], back[16384];

	CHECK(raw_login(&r, &(struct login_opts){ .isid_low = 1, .immediate_data = "Yes" }) == 0, "login");
	fill(data, sizeof(data), 1);
	cdb_rw10(cdb, 0x2a, 100, 32);
	raw_scsi_cmd(&r, bhs, 0, cdb, 16384, false, true, false);
	put_be24(bhs + 5, 8192);
	raw_send_bytes(&r, bhs, 48);
	raw_send_bytes(&r, data, 3000); /* 3000 of 8192 immediate bytes, then gone */
	raw_close(&r);
	usleep(300000);
	CHECK(raw_read(0, 100, 32, back) == 0, "read back");
	CHECK(all_zero(back, sizeof(back)), "a WRITE whose data never fully arrived changed the LUN");
}

static void drop_during_r2t(void)
{
	struct raw r;
	uint8_t bhs[48], cdb[16], data[512], back[65536];
	int n;

	CHECK(raw_login(&r, &(struct login_opts){ .isid_low = 2, .initial_r2t = "Yes", .immediate_data = "No" }) == 0, "login");
	cdb_rw10(cdb, 0x2a, 200, 128);
	raw_scsi_cmd(&r, bhs, 0, cdb, 65536, false, true, true);
	raw_send(&r, bhs, NULL, 0, false);
	n = recv_skip(&r, bhs, data, sizeof(data), 5000);
	CHECK(n == 0 && bhs_opcode(bhs) == ISCSI_OP_R2T, "want an R2T, got %d / opcode 0x%02x", n, bhs_opcode(bhs));
	CHECK(get_be32(bhs + 40) == 0, "first R2T BufferOffset %u", get_be32(bhs + 40));
	CHECK(get_be32(bhs + 44) == (r.max_burst < 65536 ? r.max_burst : 65536),
	      "first R2T desired length %u", get_be32(bhs + 44));
	raw_close(&r); /* no Data-Out ever */
	usleep(300000);
	CHECK(raw_read(0, 200, 128, back) == 0, "read back");
	CHECK(all_zero(back, sizeof(back)), "a WRITE without its Data-Out changed the LUN");
}

static void drop_during_datain(void)
{
	struct raw r;
	uint8_t bhs[48], cdb[16], *data = malloc(262144);
	int small = 4096, n;

	CHECK(raw_login(&r, &(struct login_opts){ .isid_low = 3 }) == 0, "login");
	setsockopt(r.fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	for (int i = 0; i < 8; i++) { /* 8 x 8 MiB READs: far more than the socket holds */
		cdb_rw10(cdb, 0x28, (uint32_t)i * 16384u, 16384);
		raw_scsi_cmd(&r, bhs, 0, cdb, 8u << 20, true, false, true);
		raw_send(&r, bhs, NULL, 0, false);
	}
	n = raw_recv(&r, bhs, data, 262144, 10000);
	CHECK(n > 0 && bhs_opcode(bhs) == ISCSI_OP_DATA_IN, "want Data-In, got %d opcode 0x%02x", n, bhs_opcode(bhs));
	usleep(200000); /* the target blocks on a full socket with most of 64 MiB queued */
	raw_close(&r);
	free(data);
}

static void drop_paced_held(void)
{
	struct raw r;
	uint8_t bhs[48], cdb[16], data[4096], back[4096];

	CHECK(raw_login(&r, &(struct login_opts){ .isid_low = 4, .immediate_data = "Yes" }) == 0, "login");
	/* LUN 1 holds each command about a second: drop the connection while
	 * 16 writes and 16 reads are inside the LU */
	for (int i = 0; i < 16; i++) {
		fill(data, sizeof(data), 100u + (uint32_t)i);
		cdb_rw10(cdb, 0x2a, (uint32_t)i * 8u, 8);
		raw_scsi_cmd(&r, bhs, 1, cdb, 4096, false, true, true);
		raw_send(&r, bhs, data, 4096, false);
		cdb_rw10(cdb, 0x28, 1000u + (uint32_t)i * 8u, 8);
		raw_scsi_cmd(&r, bhs, 1, cdb, 4096, true, false, true);
		raw_send(&r, bhs, NULL, 0, false);
	}
	usleep(100000);
	raw_close(&r);
	/* their completions arrive for a connection that is gone */
	sleep(3);
	for (int i = 0; i < 16; i += 5) {
		fill(data, sizeof(data), 100u + (uint32_t)i);
		CHECK(raw_read(1, (uint32_t)i * 8u, 8, back) == 0, "read back LUN 1 LBA %d", i * 8);
		CHECK(!memcmp(back, data, 4096), "write %d submitted before the drop was not stored", i);
	}
}

static void drop_half_logins(void)
{
	/* 50 connections that leave in the middle of a login PDU */
	for (int i = 0; i < 50; i++) {
		struct raw r = { .fd = raw_connect() };
		uint8_t bhs[48] = { ISCSI_FLAG_IMMEDIATE | ISCSI_OP_LOGIN_REQ, 0x87 };

		put_be24(bhs + 5, 400);
		raw_send_bytes(&r, bhs, 48);
		raw_send_bytes(&r, "InitiatorName=iqn.x", 19);
		raw_close(&r);
	}
}

static void drop_logged_in(void)
{
	/* 50 full logins dropped without Logout, each with a command in flight */
	for (int i = 0; i < 50; i++) {
		struct raw r;
		uint8_t bhs[48], cdb[16];

		if (raw_login(&r, &(struct login_opts){ .isid_low = (uint8_t)(10 + i) }) != 0) {
			CHECK(0, "login %d", i);
			raw_close(&r);
			continue;
		}
		cdb_rw10(cdb, 0x28, 0, 64);
		raw_scsi_cmd(&r, bhs, i % 3, cdb, 32768, true, false, true);
		raw_send(&r, bhs, NULL, 0, false);
		raw_close(&r);
	}
	usleep(500000);
}

/* ---- group: stall ---- */

static void stall_silent_connect(void)
{
	struct raw r = { .fd = raw_connect() };

	expect_closed(&r, (LOGIN_TIMEOUT_S - 1) * 1000L, (LOGIN_TIMEOUT_S + 4) * 1000L);
	raw_close(&r);
}

static void stall_half_bhs_login(void)
{
	struct raw r = { .fd = raw_connect() };
	uint8_t bhs[48] = { ISCSI_FLAG_IMMEDIATE | ISCSI_OP_LOGIN_REQ, 0x87 };

	raw_send_bytes(&r, bhs, 24);
	expect_closed(&r, (LOGIN_TIMEOUT_S - 1) * 1000L, (LOGIN_TIMEOUT_S + 4) * 1000L);
	raw_close(&r);
}

static void stall_login_unfinished(void)
{
	/* a correct first Login Request (security -> operational), answered,
	 * then nothing: the login never reaches full feature phase */
	struct raw r = { .fd = raw_connect() };
	static const char keys[] = "InitiatorName=iqn.2026-11.org.lunlab:robust-slow\0SessionType=Normal\0"
				   "TargetName=";
	char all[512];
	uint8_t bhs[48] = { 0 }, data[8192];
	size_t n = sizeof(keys) - 1;
	int got;

	memcpy(all, keys, n);
	n += (size_t)snprintf(all + n, sizeof(all) - n, "%s", g_iqn) + 1;
	n += (size_t)snprintf(all + n, sizeof(all) - n, "AuthMethod=None") + 1;
	bhs[0] = ISCSI_FLAG_IMMEDIATE | ISCSI_OP_LOGIN_REQ;
	bhs[1] = ISCSI_LOGIN_TRANSIT | 0x01; /* CSG 0 -> NSG 1 */
	memcpy(bhs + 8, "\x80\x00\x00\x52\x00\x77", 6);
	put_be32(bhs + 16, 1);
	put_be32(bhs + 24, 1);
	raw_send(&r, bhs, all, (uint32_t)n, false);
	long t0 = now_ms();
	got = raw_recv(&r, bhs, data, sizeof(data), 5000);
	CHECK(got >= 0 && bhs_opcode(bhs) == ISCSI_OP_LOGIN_RSP && bhs[36] == 0,
	      "security stage answered (got %d, opcode 0x%02x, status %02x%02x)", got, bhs_opcode(bhs), bhs[36], bhs[37]);
	long t = raw_wait_closed(&r, (int)((LOGIN_TIMEOUT_S + 4) * 1000L + HANG_GUARD_MS));
	CHECK(t >= 0, "an unfinished login was not timed out");
	CHECK(t < 0 || t + (now_ms() - t0 - t) >= (LOGIN_TIMEOUT_S - 1) * 1000L, "login timed out too early");
	raw_close(&r);
}

static void stall_half_bhs_ffp(void)
{
	struct raw r;
	uint8_t bhs[48];

	CHECK(raw_login(&r, &(struct login_opts){ .isid_low = 5 }) == 0, "login");
	raw_nop_ping(&r, bhs);
	raw_send_bytes(&r, bhs, 20);
	expect_closed(&r, (STALL_TIMEOUT_S - 1) * 1000L, (STALL_TIMEOUT_S + 4) * 1000L);
	raw_close(&r);
}

static void stall_partial_immediate(void)
{
	struct raw r;
	uint8_t bhs[48], cdb[16], data[8192] = { 1 }, back[8192];

	CHECK(raw_login(&r, &(struct login_opts){ .isid_low = 6, .immediate_data = "Yes" }) == 0, "login");
	cdb_rw10(cdb, 0x2a, 600, 16);
	raw_scsi_cmd(&r, bhs, 0, cdb, 8192, false, true, true);
	put_be24(bhs + 5, 8192);
	raw_send_bytes(&r, bhs, 48);
	raw_send_bytes(&r, data, 100);
	expect_closed(&r, (STALL_TIMEOUT_S - 1) * 1000L, (STALL_TIMEOUT_S + 4) * 1000L);
	raw_close(&r);
	CHECK(raw_read(0, 600, 16, back) == 0 && all_zero(back, sizeof(back)), "stalled WRITE changed the LUN");
}

static void stall_partial_dataout(void)
{
	struct raw r;
	uint8_t bhs[48], cdb[16], data[512] = { 1 };
	int n;

	CHECK(raw_login(&r, &(struct login_opts){ .isid_low = 7, .initial_r2t = "Yes", .immediate_data = "No" }) == 0, "login");
	cdb_rw10(cdb, 0x2a, 700, 32);
	raw_scsi_cmd(&r, bhs, 0, cdb, 16384, false, true, true);
	raw_send(&r, bhs, NULL, 0, false);
	n = recv_skip(&r, bhs, data, sizeof(data), 5000);
	CHECK(n == 0 && bhs_opcode(bhs) == ISCSI_OP_R2T, "want an R2T");
	uint32_t ttt = get_be32(bhs + 20);
	memset(bhs, 0, 48);
	bhs[0] = ISCSI_OP_DATA_OUT;
	bhs[1] = ISCSI_FLAG_FINAL;
	put_be32(bhs + 16, r.itt);
	put_be32(bhs + 20, ttt);
	put_be24(bhs + 5, 16384);
	raw_send_bytes(&r, bhs, 48);
	raw_send_bytes(&r, data, 512);
	expect_closed(&r, (STALL_TIMEOUT_S - 1) * 1000L, (STALL_TIMEOUT_S + 4) * 1000L);
	raw_close(&r);
}

static void stall_idle_session_kept(void)
{
	struct raw r;

	CHECK(raw_login(&r, &(struct login_opts){ .isid_low = 8 }) == 0, "login");
	sleep(LOGIN_TIMEOUT_S + 2); /* idle between PDUs: legal, must stay */
	CHECK(raw_ping_ok(&r, 5000), "an idle logged-in session was closed");
	raw_close(&r);
}

/* ---- group: garbage ---- */

static void garbage_before_login(void)
{
	for (uint32_t seed = 1; seed <= 8; seed++) {
		struct raw r = { .fd = raw_connect() };
		uint8_t junk[4096];

		fill(junk, sizeof(junk), seed);
		if ((junk[0] & 0x3f) == ISCSI_OP_LOGIN_REQ)
			junk[0] ^= 0x01;
		raw_send_bytes(&r, junk, sizeof(junk));
		expect_closed(&r, 0, 3000);
		raw_close(&r);
	}
}

static void garbage_in_ffp(void)
{
	for (uint32_t seed = 1; seed <= 8; seed++) {
		struct raw r;
		uint8_t junk[65536];

		CHECK(raw_login(&r, &(struct login_opts){ .isid_low = (uint8_t)(20 + seed) }) == 0, "login");
		fill(junk, sizeof(junk), seed * 7919u);
		raw_send_bytes(&r, junk, sizeof(junk));
		/* framing is lost: the target ends the connection (at once, or
		 * by the stall timeout if the junk ends mid-PDU) */
		expect_closed(&r, 0, (STALL_TIMEOUT_S + 4) * 1000L);
		raw_close(&r);
	}
}

static void garbage_invalid_opcode(void)
{
	struct raw r;
	uint8_t bhs[48] = { 0 };

	CHECK(raw_login(&r, &(struct login_opts){ .isid_low = 30 }) == 0, "login");
	bhs[0] = 0x1f; /* not an initiator opcode */
	bhs[1] = ISCSI_FLAG_FINAL;
	put_be32(bhs + 16, 0xabcd);
	raw_send(&r, bhs, NULL, 0, false);
	expect_reject(&r, ISCSI_REJECT_CMD_NOT_SUPPORTED, 0xabcd);
	CHECK(raw_ping_ok(&r, 5000), "session dead after an invalid opcode");
	/* SNACK at ErrorRecoveryLevel 0, and Login in full feature phase */
	memset(bhs, 0, 48);
	bhs[0] = ISCSI_OP_SNACK_REQ;
	bhs[1] = ISCSI_FLAG_FINAL;
	put_be32(bhs + 16, 0xabce);
	raw_send(&r, bhs, NULL, 0, false);
	expect_reject(&r, ISCSI_REJECT_CMD_NOT_SUPPORTED, 0xabce);
	memset(bhs, 0, 48);
	bhs[0] = ISCSI_FLAG_IMMEDIATE | ISCSI_OP_LOGIN_REQ;
	bhs[1] = 0x87;
	put_be32(bhs + 16, 0xabcf);
	raw_send(&r, bhs, NULL, 0, false);
	expect_reject(&r, ISCSI_REJECT_PROTOCOL_ERROR, 0xabcf);
	CHECK(raw_ping_ok(&r, 5000), "session dead after SNACK / Login in FFP");
	raw_close(&r);
}

static void garbage_dlen_over_mrdsl(void)
{
	struct raw r;
	uint8_t bhs[48];

	CHECK(raw_login(&r, &(struct login_opts){ .isid_low = 31 }) == 0, "login");
	raw_nop_ping(&r, bhs);
	put_be24(bhs + 5, r.target_mrdsl + 4);
	raw_send_bytes(&r, bhs, 48);
	/* the framing of what follows cannot be trusted: closed, no Reject */
	expect_closed(&r, 0, 3000);
	raw_close(&r);
	/* during login the limit is 8192 */
	r.fd = raw_connect();
	memset(bhs, 0, 48);
	bhs[0] = ISCSI_FLAG_IMMEDIATE | ISCSI_OP_LOGIN_REQ;
	bhs[1] = 0x87;
	put_be24(bhs + 5, 8192 + 4);
	raw_send_bytes(&r, bhs, 48);
	expect_closed(&r, 0, 3000);
	raw_close(&r);
}

static void garbage_ahs(void)
{
	struct raw r;
	uint8_t bhs[48 + 1020], cdb[16];

	CHECK(raw_login(&r, &(struct login_opts){ .isid_low = 32 }) == 0, "login");
	/* TotalAHSLength 1 word, the AHS inside claims 100 bytes */
	cdb_rw10(cdb, 0x28, 0, 1);
	raw_scsi_cmd(&r, bhs, 0, cdb, 512, true, false, true);
	bhs[4] = 1;
	put_be16(bhs + 48, 100);
	bhs[50] = 1; /* extended CDB */
	bhs[51] = 0;
	raw_send(&r, bhs, NULL, 0, false);
	expect_reject(&r, ISCSI_REJECT_INVALID_PDU_FIELD, r.itt);
	CHECK(raw_ping_ok(&r, 5000), "session dead after a bad AHS");
	/* an extended CDB longer than 32 bytes: 255 words of AHS */
	raw_scsi_cmd(&r, bhs, 0, cdb, 512, true, false, true);
	bhs[4] = 255;
	memset(bhs + 48, 0, 1020);
	put_be16(bhs + 48, 1017);
	bhs[50] = 1;
	raw_send(&r, bhs, NULL, 0, false);
	expect_reject(&r, ISCSI_REJECT_INVALID_PDU_FIELD, r.itt);
	CHECK(raw_ping_ok(&r, 5000), "session dead after an oversized AHS");
	raw_close(&r);
}

static void garbage_digests(void)
{
	struct raw r;
	uint8_t bhs[48], cdb[16], data[4096], back[4096];
	int n;

	/* wrong data digest on immediate data: Reject 02h, command not executed */
	CHECK(raw_login(&r, &(struct login_opts){ .isid_low = 33, .digest = "CRC32C", .immediate_data = "Yes" }) == 0, "login");
	CHECK(r.hd && r.dd, "CRC32C digests negotiated");
	fill(data, sizeof(data), 33);
	cdb_rw10(cdb, 0x2a, 800, 8);
	raw_scsi_cmd(&r, bhs, 0, cdb, 4096, false, true, true);
	raw_send(&r, bhs, data, 4096, true);
	expect_reject(&r, ISCSI_REJECT_DATA_DIGEST, r.itt);
	r.cmdsn--; /* RFC 7143 7.8: as if never sent, CmdSN not consumed */
	CHECK(raw_ping_ok(&r, 5000), "session dead after a data digest error");
	raw_close(&r);
	CHECK(raw_read(0, 800, 8, back) == 0 && all_zero(back, sizeof(back)),
	      "a WRITE with a bad data digest changed the LUN");

	/* wrong header digest: the header cannot be trusted, connection ends */
	CHECK(raw_login(&r, &(struct login_opts){ .isid_low = 34, .digest = "CRC32C" }) == 0, "login");
	raw_nop_ping(&r, bhs);
	raw_send_bytes(&r, bhs, 48);
	raw_send_bytes(&r, "\x01\x02\x03\x04", 4);
	expect_closed(&r, 0, 3000);
	raw_close(&r);

	/* wrong data digest on a Data-Out: ERL 0 cannot recover, connection ends */
	CHECK(raw_login(&r, &(struct login_opts){ .isid_low = 35, .digest = "CRC32C", .initial_r2t = "Yes",
						.immediate_data = "No" }) == 0, "login");
	raw_scsi_cmd(&r, bhs, 0, cdb, 4096, false, true, true);
	raw_send(&r, bhs, NULL, 0, false);
	n = recv_skip(&r, bhs, back, sizeof(back), 5000);
	CHECK(n == 0 && bhs_opcode(bhs) == ISCSI_OP_R2T, "want an R2T");
	uint32_t ttt = get_be32(bhs + 20);
	memset(bhs, 0, 48);
	bhs[0] = ISCSI_OP_DATA_OUT;
	bhs[1] = ISCSI_FLAG_FINAL;
	put_be32(bhs + 16, r.itt);
	put_be32(bhs + 20, ttt);
	raw_send(&r, bhs, data, 4096, true);
	expect_closed(&r, 0, 3000);
	raw_close(&r);
	CHECK(raw_read(0, 800, 8, back) == 0 && all_zero(back, sizeof(back)),
	      "a Data-Out with a bad data digest changed the LUN");
}

/* ---- group: limits ---- */

static void limits_cmdsn_window(void)
{
	struct raw r;
	uint8_t bhs[48], cdb[16], data[4096];
	static uint8_t burst[200 * 48];
	uint32_t first, first_itt, window, responses = 0, bad_itt = 0;

	CHECK(raw_login(&r, &(struct login_opts){ .isid_low = 40 }) == 0, "login");
	first = r.cmdsn;
	first_itt = r.itt + 1;
	window = r.max_cmdsn - first + 1;
	CHECK(window > 1 && window < 200, "advertised window %u", window);
	/* 200 READs to the paced LUN 2 in one burst: only the window is taken */
	for (int i = 0; i < 200; i++) {
		cdb_rw10(cdb, 0x28, (uint32_t)i, 1);
		raw_scsi_cmd(&r, bhs, 2, cdb, 512, true, false, true);
		memcpy(burst + i * 48, bhs, 48);
	}
	raw_send_bytes(&r, burst, sizeof(burst));
	for (;;) {
		int n = raw_recv(&r, bhs, data, sizeof(data), 4000);
		if (n < 0)
			break;
		if ((bhs_opcode(bhs) == ISCSI_OP_DATA_IN && (bhs[1] & ISCSI_DATAIN_STATUS)) ||
		    bhs_opcode(bhs) == ISCSI_OP_SCSI_RSP) {
			responses++;
			if (getenv("ROBUST_DEBUG"))
				printf("rsp itt 0x%x exp %u max %u\n", get_be32(bhs + 16), get_be32(bhs + 28), get_be32(bhs + 32));
			if (get_be32(bhs + 16) - first_itt >= window) /* ITTs of the first `window` */
				bad_itt++;
		}
	}
	CHECK(responses == window, "%u responses for 200 commands, want the window %u", responses, window);
	CHECK(bad_itt == 0, "%u responses for commands beyond MaxCmdSN", bad_itt);
	/* the dropped ones consumed no CmdSN: the next in order is first + window */
	r.cmdsn = first + window;
	memset(bhs, 0, 48);
	bhs[0] = ISCSI_OP_NOP_OUT; /* non-immediate: takes CmdSN */
	bhs[1] = ISCSI_FLAG_FINAL;
	put_be32(bhs + 16, 0x7777);
	put_be32(bhs + 20, ISCSI_RSVD_TAG);
	put_be32(bhs + 24, r.cmdsn++);
	raw_send(&r, bhs, NULL, 0, false);
	int n = recv_skip(&r, bhs, data, sizeof(data), 5000);
	CHECK(n == 0 && bhs_opcode(bhs) == ISCSI_OP_NOP_IN && get_be32(bhs + 16) == 0x7777,
	      "the next CmdSN in order is answered");
	CHECK(get_be32(bhs + 28) == first + window + 1, "ExpCmdSN %u, want %u", get_be32(bhs + 28), first + window + 1);
	raw_close(&r);
}

static void send_dataout(struct raw *r, uint32_t itt, uint32_t ttt, uint32_t datasn, uint32_t off,
			 const uint8_t *data, uint32_t len, bool final)
{
	uint8_t bhs[48] = { 0 };

	bhs[0] = ISCSI_OP_DATA_OUT;
	bhs[1] = final ? ISCSI_FLAG_FINAL : 0;
	put_be32(bhs + 16, itt);
	put_be32(bhs + 20, ttt);
	put_be32(bhs + 28, r->exp_statsn);
	put_be32(bhs + 36, datasn);
	put_be32(bhs + 40, off);
	raw_send(r, bhs, data, len, false);
}

static void limits_max_r2t(void)
{
	struct raw r;
	uint8_t bhs[48], cdb[16], rsp[512], back[65536];
	static uint8_t data[65536];
	uint32_t ttts[64], offs[64], lens[64], nr2t = 0, answered = 0, itt;
	int n;

	CHECK(raw_login(&r, &(struct login_opts){ .isid_low = 41, .initial_r2t = "Yes", .immediate_data = "No",
						.max_r2t = "2", .max_burst = "8192", .first_burst = "8192" }) == 0, "login");
	CHECK(r.max_r2t == 2 && r.max_burst == 8192, "negotiated MaxOutstandingR2T %u MaxBurstLength %u", r.max_r2t, r.max_burst);
	fill(data, sizeof(data), 41);
	cdb_rw10(cdb, 0x2a, 900, 128);
	raw_scsi_cmd(&r, bhs, 0, cdb, 65536, false, true, true);
	itt = r.itt;
	raw_send(&r, bhs, NULL, 0, false);
	/* exactly MaxOutstandingR2T R2Ts, then none until Data-Out comes.  Counted, not timed (a
	 * silence window read a slow target's second R2T as missing): the two R2Ts are read,
	 * then a NOP-Out ping whose NOP-In proves the target had sent everything it would for
	 * the WRITE before it (one connection, in order): a third R2T shows up before the NOP-In.
	 * The 20 s reads are hang guards, not thresholds. */
	while (nr2t < 2 && (n = raw_recv(&r, bhs, rsp, sizeof(rsp), 20000)) >= 0 && bhs_opcode(bhs) == ISCSI_OP_R2T) {
		ttts[nr2t] = get_be32(bhs + 20);
		offs[nr2t] = get_be32(bhs + 40);
		lens[nr2t] = get_be32(bhs + 44);
		nr2t++;
	}
	CHECK(nr2t == 2, "%u R2Ts before anything else, MaxOutstandingR2T is 2 (then %d, opcode 0x%02x)", nr2t, n,
	      n >= 0 ? bhs_opcode(bhs) : 0xff);
	{
		uint32_t ping;
		raw_nop_ping(&r, bhs);
		ping = r.itt;
		raw_send(&r, bhs, "ping", 4, false);
		n = raw_recv(&r, bhs, rsp, sizeof(rsp), 20000);
		CHECK(n >= 0 && bhs_opcode(bhs) == ISCSI_OP_NOP_IN && get_be32(bhs + 16) == ping,
		      "want the ping's NOP-In next, got %d bytes opcode 0x%02x (a third R2T is 0x%02x)", n,
		      n >= 0 ? bhs_opcode(bhs) : 0xff, ISCSI_OP_R2T);
	}
	CHECK(nr2t < 1 || (offs[0] == 0 && lens[0] == 8192), "R2T 0: offset %u length %u", offs[0], lens[0]);
	CHECK(nr2t < 2 || (offs[1] == 8192 && lens[1] == 8192), "R2T 1: offset %u length %u", offs[1], lens[1]);
	/* answer them one at a time: each answer frees a slot for exactly one more R2T until all
	 * eight bursts are asked for, then the last answer brings the response */
	bool started = nr2t == 2;
	while (started && answered < nr2t && answered < 8) {
		send_dataout(&r, itt, ttts[answered], 0, offs[answered], data + offs[answered], lens[answered], true);
		answered++;
		if (nr2t == 8 && answered < 8)
			continue; /* every burst asked for: nothing comes until the last is in */
		n = raw_recv(&r, bhs, rsp, sizeof(rsp), 20000);
		if (n >= 0 && bhs_opcode(bhs) == ISCSI_OP_R2T && nr2t < 8) {
			ttts[nr2t] = get_be32(bhs + 20);
			offs[nr2t] = get_be32(bhs + 40);
			lens[nr2t] = get_be32(bhs + 44);
			nr2t++;
			CHECK(nr2t - answered <= 2, "%u R2Ts outstanding", nr2t - answered);
		} else if (n >= 0 && bhs_opcode(bhs) == ISCSI_OP_SCSI_RSP) {
			CHECK(answered == 8 && bhs[3] == 0, "response after %u bursts, status 0x%02x", answered, bhs[3]);
			break;
		} else if (answered < 8) {
			CHECK(false, "after burst %u: got %d bytes opcode 0x%02x, want an R2T", answered, n,
			      n >= 0 ? bhs_opcode(bhs) : 0xff);
			break;
		}
	}
	CHECK(answered == 8 && nr2t == 8, "%u R2Ts, %u answered, want 8", nr2t, answered);
	raw_close(&r);
	CHECK(raw_read(0, 900, 128, back) == 0 && !memcmp(back, data, sizeof(back)), "the R2T-paced WRITE read back");
}

static void limits_dataout_beyond(void)
{
	struct raw r;
	uint8_t bhs[48], cdb[16], rsp[512], back[4096];
	static uint8_t data[16384];
	uint32_t itt, ttt;
	int n;

	fill(data, sizeof(data), 42);
	/* solicited: more than the R2T asked for, past EDTL */
	CHECK(raw_login(&r, &(struct login_opts){ .isid_low = 42, .initial_r2t = "Yes", .immediate_data = "No" }) == 0, "login");
	cdb_rw10(cdb, 0x2a, 1100, 8);
	raw_scsi_cmd(&r, bhs, 0, cdb, 4096, false, true, true);
	itt = r.itt;
	raw_send(&r, bhs, NULL, 0, false);
	n = recv_skip(&r, bhs, rsp, sizeof(rsp), 5000);
	CHECK(n == 0 && bhs_opcode(bhs) == ISCSI_OP_R2T && get_be32(bhs + 44) == 4096, "want an R2T for 4096 bytes");
	ttt = get_be32(bhs + 20);
	send_dataout(&r, itt, ttt, 0, 0, data, 8192, true);
	expect_reject(&r, ISCSI_REJECT_PROTOCOL_ERROR, itt);
	n = raw_recv(&r, bhs, rsp, sizeof(rsp), 1000);
	CHECK(n == RAW_TIMEOUT, "the dropped task still answered (opcode 0x%02x)", bhs_opcode(bhs));
	CHECK(raw_ping_ok(&r, 5000), "session dead after a Data-Out beyond EDTL");
	raw_close(&r);
	CHECK(raw_read(0, 1100, 8, back) == 0 && all_zero(back, sizeof(back)), "the rejected WRITE changed the LUN");

	/* unsolicited: past FirstBurstLength / EDTL */
	CHECK(raw_login(&r, &(struct login_opts){ .isid_low = 43, .initial_r2t = "No", .immediate_data = "Yes",
						.first_burst = "8192" }) == 0, "login");
	CHECK(!r.initial_r2t, "InitialR2T=No negotiated");
	raw_scsi_cmd(&r, bhs, 0, cdb, 8192, false, true, false);
	itt = r.itt;
	raw_send(&r, bhs, data, 4096, false);
	send_dataout(&r, itt, ISCSI_RSVD_TAG, 0, 4096, data, 8192, true);
	expect_reject(&r, ISCSI_REJECT_PROTOCOL_ERROR, itt);
	CHECK(raw_ping_ok(&r, 5000), "session dead after an unsolicited Data-Out beyond the first burst");
	raw_close(&r);
}

/* Regression: a WRITE still waiting for its CmdSN turn (a gap before it)
 * whose unsolicited Data-Out is rejected was freed while on the pending
 * queue; the CmdSN that fills the gap then delivered freed memory. */
static void limits_queued_task_bad_dataout(void)
{
	struct raw r;
	uint8_t bhs[48], cdb[16], rsp[512], data[4096] = { 7 };
	uint32_t first, itt;
	int n;

	CHECK(raw_login(&r, &(struct login_opts){ .isid_low = 44, .initial_r2t = "No", .immediate_data = "No" }) == 0, "login");
	first = r.cmdsn;
	r.cmdsn = first + 1; /* leave a gap at `first` */
	cdb_rw10(cdb, 0x2a, 1200, 8);
	raw_scsi_cmd(&r, bhs, 0, cdb, 4096, false, true, false);
	itt = r.itt;
	raw_send(&r, bhs, NULL, 0, false);
	send_dataout(&r, itt, ISCSI_RSVD_TAG, 0, 512, data, 512, false); /* offset should be 0 */
	expect_reject(&r, ISCSI_REJECT_PROTOCOL_ERROR, itt);
	/* fill the gap: the NOP is answered, the aborted WRITE silently dropped */
	memset(bhs, 0, 48);
	bhs[0] = ISCSI_OP_NOP_OUT;
	bhs[1] = ISCSI_FLAG_FINAL;
	put_be32(bhs + 16, 0x5555);
	put_be32(bhs + 20, ISCSI_RSVD_TAG);
	put_be32(bhs + 24, first);
	raw_send(&r, bhs, NULL, 0, false);
	n = recv_skip(&r, bhs, rsp, sizeof(rsp), 5000);
	CHECK(n == 0 && bhs_opcode(bhs) == ISCSI_OP_NOP_IN && get_be32(bhs + 16) == 0x5555, "gap-filling NOP answered");
	n = raw_recv(&r, bhs, rsp, sizeof(rsp), 1000);
	CHECK(n == RAW_TIMEOUT, "the rejected WRITE answered anyway (opcode 0x%02x)", bhs_opcode(bhs));
	/* the WRITE's CmdSN was consumed when its turn came: the next is first + 2 */
	memset(bhs, 0, 48);
	bhs[0] = ISCSI_OP_NOP_OUT;
	bhs[1] = ISCSI_FLAG_FINAL;
	put_be32(bhs + 16, 0x5556);
	put_be32(bhs + 20, ISCSI_RSVD_TAG);
	put_be32(bhs + 24, first + 2);
	raw_send(&r, bhs, NULL, 0, false);
	n = recv_skip(&r, bhs, rsp, sizeof(rsp), 5000);
	CHECK(n == 0 && bhs_opcode(bhs) == ISCSI_OP_NOP_IN && get_be32(bhs + 16) == 0x5556, "CmdSN first + 2 answered");
	CHECK(get_be32(bhs + 28) == first + 3, "ExpCmdSN %u, want %u", get_be32(bhs + 28), first + 3);
	r.cmdsn = first + 3;
	CHECK(raw_ping_ok(&r, 5000), "session dead");
	raw_close(&r);
}

static long target_rss_mib(void)
{
	const char *pid = getenv("ROBUST_TARGET_PID");
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	if (!pid)
		return -1;
	snprintf(path, sizeof(path), "/proc/%s/status", pid);
	if (!(f = fopen(path, "r")))
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb < 0 ? -1 : kb / 1024;
}

/* An initiator that asks for 96 x 8 MiB (the LU's MAXIMUM TRANSFER LENGTH)
 * and does not read: the target may pin only its per-connection data budget
 * (256 MiB, then it stops reading the socket), not 768 MiB; once the
 * initiator reads, all 96 complete. */
static void limits_slow_reader_memory(void)
{
	struct raw r;
	uint8_t bhs[48], cdb[16], *data = malloc(262144);
	int n, done = 0;
	long rss0, rss1;
	uint64_t got = 0;

	CHECK(raw_login(&r, &(struct login_opts){ .isid_low = 45 }) == 0, "login");
	rss0 = target_rss_mib();
	CHECK(rss0 > 0, "target RSS unreadable (ROBUST_TARGET_PID)");
	for (int i = 0; i < 96; i++) {
		memset(cdb, 0, 16);
		cdb[0] = SCSI_OP_READ_16;
		put_be64(cdb + 2, (uint64_t)(i % 48) * 16384u);
		put_be32(cdb + 10, 16384); /* 8 MiB */
		raw_scsi_cmd(&r, bhs, 0, cdb, 8u << 20, true, false, true);
		raw_send(&r, bhs, NULL, 0, false);
	}
	sleep(3);
	rss1 = target_rss_mib();
	printf("     slow reader: target RSS %ld -> %ld MiB with 768 MiB of READs requested\n", rss0, rss1);
	CHECK(rss1 - rss0 <= 256 + 96, "the target pinned %ld MiB for one non-reading connection (budget 256)",
	      rss1 - rss0);
	while (done < 96 && (n = raw_recv(&r, bhs, data, 262144, 20000)) >= 0) {
		if (bhs_opcode(bhs) == ISCSI_OP_DATA_IN)
			got += (uint64_t)n;
		if ((bhs_opcode(bhs) == ISCSI_OP_DATA_IN && (bhs[1] & ISCSI_DATAIN_STATUS)) ||
		    bhs_opcode(bhs) == ISCSI_OP_SCSI_RSP) {
			CHECK(bhs[3] == 0, "READ status 0x%02x", bhs[3]);
			done++;
		}
	}
	CHECK(done == 96 && got == 96ull << 23, "%d of 96 READs completed, %" PRIu64 " bytes", done, got);
	raw_close(&r);
	/* the same, and gone while reading is paused: the session must end at
	 * once (sessions-intact counts it) */
	CHECK(raw_login(&r, &(struct login_opts){ .isid_low = 46 }) == 0, "login");
	for (int i = 0; i < 96; i++) {
		memset(cdb, 0, 16);
		cdb[0] = SCSI_OP_READ_16;
		put_be64(cdb + 2, (uint64_t)(i % 48) * 16384u);
		put_be32(cdb + 10, 16384);
		raw_scsi_cmd(&r, bhs, 0, cdb, 8u << 20, true, false, true);
		raw_send(&r, bhs, NULL, 0, false);
	}
	sleep(2);
	raw_close(&r);
	usleep(500000);
	free(data);
}

/* Writes are not charged against the data budget: 40 x 8 MiB WRITEs
 * (320 MiB, past the 256 MiB budget) with every byte solicited by R2T
 * must all complete.  Charging them deadlocked: the 33rd header paused
 * reading, and the Data-Out the first 32 waited for sat behind it. */
static void limits_large_writes_flow(void)
{
	struct raw r;
	uint8_t bhs[48], cdb[16], rsp[512];
	uint8_t *data = malloc(262144);
	int n, done = 0, bad = 0;
	long last = now_ms();

	memset(data, 0x6b, 262144);
	CHECK(raw_login(&r, &(struct login_opts){ .isid_low = 47, .initial_r2t = "Yes", .immediate_data = "No" }) == 0,
	      "login");
	for (int i = 0; i < 40; i++) {
		memset(cdb, 0, 16);
		cdb[0] = SCSI_OP_WRITE_16;
		put_be64(cdb + 2, 2000000u + (uint64_t)(i % 8) * 16384u);
		put_be32(cdb + 10, 16384); /* 8 MiB */
		raw_scsi_cmd(&r, bhs, 0, cdb, 8u << 20, false, true, true);
		raw_send(&r, bhs, NULL, 0, false);
	}
	while (done < 40 && now_ms() - last < 20000) {
		n = raw_recv(&r, bhs, rsp, sizeof(rsp), 20000);
		if (n < 0)
			break;
		last = now_ms();
		if (bhs_opcode(bhs) == ISCSI_OP_R2T) {
			uint32_t off = get_be32(bhs + 40), len = get_be32(bhs + 44), sn = 0;
			for (uint32_t o = 0; o < len; o += r.target_mrdsl, sn++) {
				uint32_t k = len - o < r.target_mrdsl ? len - o : r.target_mrdsl;
				send_dataout(&r, get_be32(bhs + 16), get_be32(bhs + 20), sn, off + o, data,
					     k > 262144 ? 262144 : k, o + k >= len);
			}
		} else if (bhs_opcode(bhs) == ISCSI_OP_SCSI_RSP) {
			bad += bhs[3] != 0;
			done++;
		}
	}
	CHECK(done == 40 && !bad, "%d of 40 large WRITEs completed (%d not GOOD): stuck behind the data budget?",
	      done, bad);
	raw_close(&r);
	free(data);
}

/* ---- group: shutdown ---- */

/* SIGTERM while sessions are open, commands are inside the LU (LUN 1 holds
 * them ~1 s), a WRITE waits for Data-Out, a PDU is half received and a login
 * is half done: the target closes every connection and exits 0 (the script
 * checks the status; in the sanitizer build LeakSanitizer checks that the
 * shutdown freed everything). */
static void shutdown_busy(void)
{
	struct raw rs[6];
	uint8_t bhs[48], cdb[16], data[4096] = { 9 };
	const char *pid = getenv("ROBUST_TARGET_PID");
	int n;

	CHECK(pid && atoi(pid) > 1, "ROBUST_TARGET_PID not set");
	for (int i = 0; i < 4; i++) {
		CHECK(raw_login(&rs[i], &(struct login_opts){ .isid_low = (uint8_t)(50 + i), .immediate_data = "Yes" }) == 0,
		      "login %d", i);
		for (int k = 0; k < 4; k++) {
			cdb_rw10(cdb, 0x2a, (uint32_t)(i * 64 + k * 8), 8);
			raw_scsi_cmd(&rs[i], bhs, 1, cdb, 4096, false, true, true);
			raw_send(&rs[i], bhs, data, 4096, false);
			cdb_rw10(cdb, 0x28, (uint32_t)(2048 + i * 64 + k * 8), 8);
			raw_scsi_cmd(&rs[i], bhs, 1, cdb, 4096, true, false, true);
			raw_send(&rs[i], bhs, NULL, 0, false);
		}
	}
	/* a WRITE waiting for its Data-Out, with half a Data-Out PDU sent */
	CHECK(raw_login(&rs[4], &(struct login_opts){ .isid_low = 54, .initial_r2t = "Yes", .immediate_data = "No" }) == 0,
	      "login 4");
	cdb_rw10(cdb, 0x2a, 4096, 8);
	raw_scsi_cmd(&rs[4], bhs, 0, cdb, 4096, false, true, true);
	raw_send(&rs[4], bhs, NULL, 0, false);
	n = recv_skip(&rs[4], bhs, data, sizeof(data), 5000);
	CHECK(n == 0 && bhs_opcode(bhs) == ISCSI_OP_R2T, "want an R2T");
	raw_send_bytes(&rs[4], bhs, 30);
	/* a login in progress */
	rs[5].fd = raw_connect();
	memset(bhs, 0, 48);
	bhs[0] = ISCSI_FLAG_IMMEDIATE | ISCSI_OP_LOGIN_REQ;
	put_be24(bhs + 5, 300);
	raw_send_bytes(&rs[5], bhs, 48);
	usleep(200000); /* everything is in: the LU holds 32 commands */
	if (pid)
		kill((pid_t)atoi(pid), SIGTERM);
	for (int i = 0; i < 6; i++) {
		expect_closed(&rs[i], 0, 15000);
		raw_close(&rs[i]);
	}
}

/* ---- every group: the session limit, exactly ---- */

/* A login that the target may refuse for the limit only until it has released sessions closed
 * before (the group's cases, the start-up probe, the slot just freed): the I/O thread frees a
 * slot after the socket goes, however late a loaded machine runs it, so a refusal is retried;
 * 60 s is a hang guard (an idle machine takes a millisecond), after which the refusal stands
 * and is reported as a leak.  (It used to be one try after a 300 ms or 500 ms sleep.) */
static int login_when_released(struct raw *r, uint8_t isid_low)
{
	long deadline = now_ms() + 60000;
	int rc;

	while ((rc = raw_login(r, &(struct login_opts){ .isid_low = isid_low })) == 0x0302 && now_ms() < deadline) {
		raw_close(r);
		usleep(50000);
	}
	return rc;
}

static void sessions_intact(void)
{
	struct raw rs[MAX_SESSIONS];
	int rc;

	/* the healthy session is one; MAX_SESSIONS - 1 more fit, not one more */
	for (int i = 0; i < MAX_SESSIONS - 1; i++) {
		rc = login_when_released(&rs[i], (uint8_t)(100 + i));
		CHECK(rc == 0, "session %d of %d refused (status 0x%04x): a dropped connection leaked its session",
		      i + 2, MAX_SESSIONS, rc);
	}
	rc = raw_login(&rs[MAX_SESSIONS - 1], &(struct login_opts){ .isid_low = 120 });
	CHECK(rc == 0x0302, "login beyond --max-sessions: status 0x%04x, want 0x0302 (out of resources)", rc);
	raw_close(&rs[MAX_SESSIONS - 1]);
	raw_close(&rs[0]);
	rc = login_when_released(&rs[0], 121);
	CHECK(rc == 0, "a freed session slot is not reusable (status 0x%04x)", rc);
	for (int i = 0; i < MAX_SESSIONS - 1; i++)
		raw_close(&rs[i]);
	usleep(300000);
}

struct tcase {
	const char *group, *name;
	void (*fn)(void);
};

static const struct tcase cases[] = {
	{ "drop", "write-partial-immediate", drop_write_partial_immediate },
	{ "drop", "during-r2t", drop_during_r2t },
	{ "drop", "during-datain", drop_during_datain },
	{ "drop", "paced-commands-held", drop_paced_held },
	{ "drop", "half-logins", drop_half_logins },
	{ "drop", "logged-in-with-command", drop_logged_in },
	{ "stall", "silent-connect", stall_silent_connect },
	{ "stall", "half-bhs-login", stall_half_bhs_login },
	{ "stall", "login-unfinished", stall_login_unfinished },
	{ "stall", "half-bhs-ffp", stall_half_bhs_ffp },
	{ "stall", "partial-immediate-data", stall_partial_immediate },
	{ "stall", "partial-dataout", stall_partial_dataout },
	{ "stall", "idle-session-kept", stall_idle_session_kept },
	{ "garbage", "before-login", garbage_before_login },
	{ "garbage", "in-full-feature", garbage_in_ffp },
	{ "garbage", "invalid-opcode", garbage_invalid_opcode },
	{ "garbage", "dlen-over-mrdsl", garbage_dlen_over_mrdsl },
	{ "garbage", "ahs", garbage_ahs },
	{ "garbage", "digests", garbage_digests },
	{ "limits", "cmdsn-window", limits_cmdsn_window },
	{ "limits", "max-outstanding-r2t", limits_max_r2t },
	{ "limits", "dataout-beyond", limits_dataout_beyond },
	{ "limits", "queued-task-bad-dataout", limits_queued_task_bad_dataout },
	{ "limits", "slow-reader-memory", limits_slow_reader_memory },
	{ "limits", "large-writes-flow", limits_large_writes_flow },
	{ "shutdown", "sigterm-while-busy", shutdown_busy },
};

int main(int argc, char **argv)
{
	pthread_t ht;
	const char *group;
	int ran = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: %s PORT IQN drop|stall|garbage|limits|shutdown\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	g_port = atoi(argv[1]);
	g_iqn = argv[2];
	group = argv[3];
	pthread_create(&ht, NULL, healthy_main, NULL);
	for (int i = 0; i < 500 && !atomic_load(&healthy_up) && !atomic_load(&healthy_errors); i++)
		usleep(20000);
	if (!atomic_load(&healthy_up)) {
		printf("FAIL: the healthy libiscsi session did not log in: %s\n", healthy_err);
		atomic_store(&healthy_stop, true);
		pthread_join(ht, NULL);
		return 1;
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int before = failures;
		long mark, t0;

		if (strcmp(cases[i].group, group))
			continue;
		cur_case = cases[i].name;
		mark = atomic_load(&healthy_ops);
		t0 = now_ms();
		if (!strcmp(group, "shutdown")) {
			/* the healthy session proves nothing once the target stops */
			healthy_check(mark);
			atomic_store(&healthy_stop, true);
			pthread_join(ht, NULL);
			cases[i].fn();
			printf("%s %s/%s (%ld ms)\n", failures == before ? "ok  " : "FAIL", group, cur_case, now_ms() - t0);
			printf("%s: %d failure(s)\n", group, failures);
			return failures ? 1 : 0;
		}
		cases[i].fn();
		target_alive();
		healthy_check(mark);
		printf("%s %s/%s (%ld ms)\n", failures == before ? "ok  " : "FAIL", group, cur_case, now_ms() - t0);
		ran++;
	}
	cur_case = "sessions-intact";
	{
		long mark = atomic_load(&healthy_ops);
		int before = failures;
		sessions_intact();
		healthy_check(mark);
		printf("%s %s/sessions-intact\n", failures == before ? "ok  " : "FAIL", group);
	}
	atomic_store(&healthy_stop, true);
	pthread_join(ht, NULL);
	CHECK(!atomic_load(&healthy_errors), "healthy session: %s", healthy_err);
	if (!ran) {
		printf("FAIL: unknown group '%s'\n", group);
		return 2;
	}
	printf("%s: %d case(s), %d failure(s); healthy session: %ld verified write+read pairs\n", group, ran,
	       failures, atomic_load(&healthy_ops));
	return failures ? 1 : 0;
}
