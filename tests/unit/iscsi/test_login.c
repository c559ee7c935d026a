/* test_login.c — the login state machine: status class/detail of refused
 * logins, stage transitions, negotiated results, C-bit continuation,
 * discovery sessions.  Runs on a connection without a socket; responses are
 * read from its output queue. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <stdio.h>

#include "target/iscsi/auth_chap.h"
#include "target/iscsi/auth_config.h"
#include "target/iscsi/conn.h"
#include "target/iscsi/login_throttle.h"
#include "target/iscsi/target.h"
#include "target/iscsi/text.h"

#define IQN "iqn.2026-11.org.lunlab:test"

static struct conn *c;

static int setup(void **state)
{
	g_target.iqn = IQN;
	g_target.quiet = true;
	g_target.max_sessions = 4;
	c = conn_new(-1, NULL);
	assert_non_null(c);
	return 0;
}

static int teardown(void **state)
{
	g_target.auth = NULL;
	conn_close(c, "test over");
	assert_int_equal(atomic_load(&g_session_count), 0);
	return 0;
}

/* sends one Login Request; returns the response queued for it */
static struct txpdu *login(uint8_t flags, const char *text, size_t len)
{
	uint8_t bhs[48];
	static uint8_t data[8192];

	memset(bhs, 0, sizeof(bhs));
	bhs[0] = 0x40 | ISCSI_OP_LOGIN_REQ;
	bhs[1] = flags;
	memcpy(bhs + 8, "\x80\x12\x34\x56\x00\x00", 6);
	put_be32(bhs + 16, 0x77);
	put_be32(bhs + 24, 10); /* CmdSN */
	put_be32(bhs + 28, 3);  /* ExpStatSN */
	put_be24(bhs + 5, (uint32_t)len);
	memcpy(data, text, len);
	login_handle(c, bhs, data, (uint32_t)len);
	assert_non_null(c->tx_tail);
	return c->tx_tail;
}

static unsigned status_of(const struct txpdu *t) { return (unsigned)t->hdr[36] << 8 | t->hdr[37]; }

/* the response's value for key, or NULL */
static const char *answer(const struct txpdu *t, const char *key)
{
	static char copy[8192];
	static struct text_list l;
	const char *err;

	if (t->dlen) /* an empty response has no data pointer */
		memcpy(copy, t->data, t->dlen);
	assert_int_equal(text_parse(copy, t->dlen, &l, &err), 0);
	return text_get(&l, key);
}

#define T_CSG0_NSG1 (ISCSI_LOGIN_TRANSIT | 0x01)
#define T_CSG1_NSG3 (ISCSI_LOGIN_TRANSIT | 0x04 | 0x03)
#define T_CSG0_NSG3 (ISCSI_LOGIN_TRANSIT | 0x03)

static const char normal0[] = "InitiatorName=iqn.test:ini\0SessionType=Normal\0TargetName=" IQN "\0AuthMethod=None\0";

static void missing_initiator_name(void **state)
{
	static const char t[] = "TargetName=" IQN "\0";
	struct txpdu *r = login(T_CSG0_NSG1, t, sizeof(t) - 1);

	assert_int_equal(r->hdr[0], ISCSI_OP_LOGIN_RSP);
	assert_int_equal(status_of(r), 0x0207);
	assert_true(r->close_after);
}

static void unknown_target(void **state)
{
	static const char t[] = "InitiatorName=iqn.test:ini\0TargetName=iqn.nope\0";
	struct txpdu *r = login(T_CSG0_NSG1, t, sizeof(t) - 1);

	assert_int_equal(status_of(r), 0x0203);
	assert_true(r->close_after);
}

static void normal_without_target_name(void **state)
{
	static const char t[] = "InitiatorName=iqn.test:ini\0SessionType=Normal\0";

	assert_int_equal(status_of(login(T_CSG0_NSG1, t, sizeof(t) - 1)), 0x0207);
}

static void auth_method_unsupported(void **state)
{
	static const char t[] = "InitiatorName=iqn.test:ini\0TargetName=" IQN "\0AuthMethod=CHAP\0";

	assert_int_equal(status_of(login(T_CSG0_NSG1, t, sizeof(t) - 1)), 0x0201);
}

static void bad_version(void **state)
{
	uint8_t bhs[48];
	uint8_t data[64];

	memset(bhs, 0, sizeof(bhs));
	bhs[0] = 0x43;
	bhs[1] = T_CSG0_NSG1;
	bhs[2] = 2;
	bhs[3] = 1; /* Version-min 1: no such version */
	memcpy(data, normal0, sizeof(normal0) - 1 < 63 ? sizeof(normal0) - 1 : 63);
	login_handle(c, bhs, data, 0);
	assert_int_equal(status_of(c->tx_tail), 0x0205);
}

static void two_stage_login(void **state)
{
	static const char op[] = "HeaderDigest=CRC32C,None\0DataDigest=None\0MaxRecvDataSegmentLength=65536\0"
				 "ImmediateData=Yes\0InitialR2T=No\0MaxBurstLength=1048576\0"
				 "FirstBurstLength=65536\0X-vendor.key=1\0";
	struct txpdu *r = login(T_CSG0_NSG1, normal0, sizeof(normal0) - 1);

	assert_int_equal(status_of(r), 0);
	assert_int_equal(r->hdr[1], T_CSG0_NSG1); /* T=1 CSG=0 NSG=1 */
	assert_string_equal(answer(r, "AuthMethod"), "None");
	assert_string_equal(answer(r, "TargetPortalGroupTag"), "1");
	assert_int_equal(get_be32(r->hdr + 24), 3); /* StatSN starts at ExpStatSN */
	assert_int_equal(get_be32(r->hdr + 28), 10);
	assert_int_equal(get_be16(r->hdr + 14), 0); /* no TSIH before the last response */
	assert_int_equal(c->state, CS_LOGIN);

	r = login(T_CSG1_NSG3, op, sizeof(op) - 1);
	assert_int_equal(status_of(r), 0);
	assert_int_equal(r->hdr[1], T_CSG1_NSG3);
	assert_int_equal(get_be32(r->hdr + 24), 4);
	assert_int_not_equal(get_be16(r->hdr + 14), 0);
	assert_string_equal(answer(r, "HeaderDigest"), "CRC32C");
	assert_string_equal(answer(r, "InitialR2T"), "No");
	assert_string_equal(answer(r, "MaxBurstLength"), "1048576");
	assert_string_equal(answer(r, "X-vendor.key"), "NotUnderstood");
	assert_string_equal(answer(r, "MaxRecvDataSegmentLength"), "262144");
	assert_null(answer(r, "TargetPortalGroupTag")); /* sent once */
	assert_int_equal(c->state, CS_FFP);
	assert_true(c->params.header_digest);
	assert_false(c->params.data_digest);
	assert_int_equal(c->params.max_xmit_dsl, 65536);
	assert_int_equal(c->params.max_recv_dsl, 262144);
	assert_false(c->params.initial_r2t);
	assert_int_equal(c->exp_cmd_sn, 10);
	assert_int_equal(atomic_load(&g_session_count), 1);
}

static void security_straight_to_ffp_keeps_default_mrdsl(void **state)
{
	struct txpdu *r = login(T_CSG0_NSG3, normal0, sizeof(normal0) - 1);

	assert_int_equal(status_of(r), 0);
	assert_int_equal(c->state, CS_FFP);
	/* we never declared MaxRecvDataSegmentLength: the default 8192 binds us */
	assert_int_equal(c->params.max_recv_dsl, 8192);
}

static void continuation(void **state)
{
	struct txpdu *r;
	size_t half = 20;

	r = login(ISCSI_LOGIN_CONTINUE, normal0, half);
	assert_int_equal(status_of(r), 0);
	assert_int_equal(r->hdr[1] & ISCSI_LOGIN_TRANSIT, 0);
	assert_int_equal(r->dlen, 0);
	r = login(T_CSG0_NSG1, normal0 + half, sizeof(normal0) - 1 - half);
	assert_int_equal(status_of(r), 0);
	assert_string_equal(answer(r, "AuthMethod"), "None");
	assert_string_equal(c->initiator, "iqn.test:ini");
}

static void discovery_session(void **state)
{
	static const char t[] = "InitiatorName=iqn.test:ini\0SessionType=Discovery\0MaxBurstLength=4096\0";
	struct txpdu *r = login(ISCSI_LOGIN_TRANSIT | 0x04 | 0x03, t, sizeof(t) - 1);

	assert_int_equal(status_of(r), 0);
	assert_true(c->discovery);
	assert_string_equal(answer(r, "MaxBurstLength"), "Irrelevant");
	assert_null(answer(r, "TargetPortalGroupTag"));
}

static void malformed_text(void **state)
{
	static const char t[] = "InitiatorName=iqn.test:ini\0garbage\0";

	assert_int_equal(status_of(login(T_CSG0_NSG1, t, sizeof(t) - 1)), 0x0200);
}

static void invalid_nsg(void **state)
{
	/* NSG=2 is reserved */
	assert_int_equal(status_of(login(ISCSI_LOGIN_TRANSIT | 0x02, normal0, sizeof(normal0) - 1)), 0x0200);
}

/* ---- access control: allow-list and CHAP through the login state machine */

#define ALICE_SECRET "alicesecret123"
#define TARGET_SECRET "targetsecret99"
static struct auth_config acfg;

static int setup_chap(void **state)
{
	char err[256];

	setup(state);
	login_throttle_reset(); /* failures of one test never slow the next */
	memset(&acfg, 0, sizeof(acfg));
	assert_true(auth_config_add_user(&acfg, false, "alice", ALICE_SECRET, err, sizeof(err)));
	assert_true(auth_config_add_user(&acfg, true, "lunlab", TARGET_SECRET, err, sizeof(err)));
	g_target.auth = &acfg;
	return 0;
}

static int teardown_chap(void **state)
{
	teardown(state);
	auth_config_free(&acfg);
	return 0;
}

/* joins "k=v" strings into NUL-separated login text; returns its length */
static size_t kvs(char *buf, size_t cap, const char *const *items)
{
	size_t n = 0;

	for (; *items; items++) {
		size_t l = strlen(*items) + 1;
		assert_true(n + l <= cap);
		memcpy(buf + n, *items, l);
		n += l;
	}
	return n;
}

static struct txpdu *login_kv(uint8_t flags, const char *const *items)
{
	char buf[2048];

	return login(flags, buf, kvs(buf, sizeof(buf), items));
}

static const char *const chap_first[] = { "InitiatorName=iqn.test:ini", "SessionType=Normal",
					  "TargetName=" IQN, "AuthMethod=CHAP,None", NULL };
static const char *const chap_alg[] = { "CHAP_A=7,5", NULL };

/* AuthMethod and CHAP_A steps; returns our CHAP_I and fills the challenge */
static uint8_t chap_start(uint8_t chal[CHAP_CHALLENGE_LEN])
{
	struct txpdu *r = login_kv(T_CSG0_NSG1, chap_first);
	uint32_t id;

	assert_int_equal(status_of(r), 0);
	assert_string_equal(answer(r, "AuthMethod"), "CHAP");
	assert_int_equal(r->hdr[1], 0); /* T=0: not out of the security stage yet */
	r = login_kv(T_CSG0_NSG1, chap_alg);
	assert_int_equal(status_of(r), 0);
	assert_int_equal(r->hdr[1], 0);
	assert_string_equal(answer(r, "CHAP_A"), "5");
	assert_int_equal(strlen(answer(r, "CHAP_C")), 2 + 2 * CHAP_CHALLENGE_LEN);
	assert_int_equal(chap_decode_binary(answer(r, "CHAP_C"), chal, CHAP_CHALLENGE_LEN),
			 CHAP_CHALLENGE_LEN);
	assert_true(params_parse_num(answer(r, "CHAP_I"), 0, 255, &id));
	return (uint8_t)id;
}

static void hex_response(uint8_t id, const char *secret, const uint8_t *chal, size_t clen, char *out)
{
	uint8_t resp[AUTH_MD5_LEN];

	assert_true(chap_response(id, (const uint8_t *)secret, strlen(secret), chal, clen, resp));
	assert_true(chap_encode_hex(resp, sizeof(resp), out, 2 * AUTH_MD5_LEN + 3));
}

static void chap_one_way(void **state)
{
	uint8_t chal[CHAP_CHALLENGE_LEN];
	uint8_t id = chap_start(chal);
	char r_kv[64];
	struct txpdu *r;

	strcpy(r_kv, "CHAP_R=");
	hex_response(id, ALICE_SECRET, chal, sizeof(chal), r_kv + 7);
	const char *const step3[] = { "CHAP_N=alice", r_kv, NULL };
	r = login_kv(T_CSG0_NSG1, step3);
	assert_int_equal(status_of(r), 0);
	assert_int_equal(r->hdr[1], T_CSG0_NSG1); /* authenticated: transit granted */
	assert_null(answer(r, "CHAP_N"));      /* no mutual CHAP asked for */
	static const char op[] = "MaxRecvDataSegmentLength=65536\0";
	r = login(T_CSG1_NSG3, op, sizeof(op) - 1);
	assert_int_equal(status_of(r), 0);
	assert_int_equal(c->state, CS_FFP);
	assert_null(c->login.acc); /* the login's auth state is gone */
}

static void chap_base64_response(void **state)
{
	uint8_t chal[CHAP_CHALLENGE_LEN], resp[AUTH_MD5_LEN];
	uint8_t id = chap_start(chal);
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char r_kv[64] = "CHAP_R=0b";
	size_t o = strlen(r_kv);

	/* base64 by hand (independent of the decoder under test): 16 bytes */
	assert_true(chap_response(id, (const uint8_t *)ALICE_SECRET, strlen(ALICE_SECRET), chal,
				  sizeof(chal), resp));
	for (int i = 0; i < 15; i += 3) {
		uint32_t v = (uint32_t)resp[i] << 16 | (uint32_t)resp[i + 1] << 8 | resp[i + 2];
		for (int k = 3; k >= 0; k--)
			r_kv[o++] = b64[(v >> (6 * k)) & 63];
	}
	r_kv[o++] = b64[resp[15] >> 2];
	r_kv[o++] = b64[(resp[15] & 3) << 4];
	r_kv[o++] = '=';
	r_kv[o++] = '=';
	r_kv[o] = '\0';
	const char *const step3[] = { "CHAP_N=alice", r_kv, NULL };
	assert_int_equal(status_of(login_kv(T_CSG0_NSG1, step3)), 0);
	assert_int_equal(c->tx_tail->hdr[1], T_CSG0_NSG1);
}

static void chap_wrong_response(void **state)
{
	uint8_t chal[CHAP_CHALLENGE_LEN];
	uint8_t id = chap_start(chal);
	char r_kv[64] = "CHAP_R=";
	struct txpdu *r;

	hex_response(id, "wrongsecret123", chal, sizeof(chal), r_kv + 7);
	const char *const step3[] = { "CHAP_N=alice", r_kv, NULL };
	r = login_kv(T_CSG0_NSG1, step3);
	assert_int_equal(status_of(r), 0x0201);
	assert_true(r->close_after);
	assert_int_equal(c->state, CS_CLOSING);
}

/* wrong CHAP answers from one address (login_throttle.h), on a clock held
 * still: the 4th makes it wait, and inside the wait even the right answer is
 * refused 02/01 at once, unchecked; the wait over, it logs in */
static uint64_t frozen_ms = 1000000;
static uint64_t frozen(void)
{
	return frozen_ms;
}

/* a new connection, the CHAP users and the throttle's memory kept */
static void reconnect(void **state)
{
	teardown(state);
	setup(state);
	g_target.auth = &acfg;
}

static void chap_throttled(void **state)
{
	uint8_t chal[CHAP_CHALLENGE_LEN];
	char r_kv[64];
	uint8_t id;

	login_throttle_set_clock(frozen);
	for (int i = 0; i < 5; i++) {
		bool right = i == 4;
		if (i) /* a new connection from the same address */
			reconnect(state);
		id = chap_start(chal);
		strcpy(r_kv, "CHAP_R=");
		hex_response(id, right ? ALICE_SECRET : "wrongsecret123", chal, sizeof(chal), r_kv + 7);
		const char *const step3[] = { "CHAP_N=alice", r_kv, NULL };
		assert_int_equal(status_of(login_kv(T_CSG0_NSG1, step3)), 0x0201);
	}
	assert_int_equal(login_throttle_failures(LOGIN_THROTTLE_CHAP), 4);
	assert_int_equal(login_throttle_refused(LOGIN_THROTTLE_CHAP), 1);
	frozen_ms += 1000;
	reconnect(state);
	id = chap_start(chal);
	strcpy(r_kv, "CHAP_R=");
	hex_response(id, ALICE_SECRET, chal, sizeof(chal), r_kv + 7);
	const char *const ok3[] = { "CHAP_N=alice", r_kv, NULL };
	assert_int_equal(status_of(login_kv(T_CSG0_NSG1, ok3)), 0);
	login_throttle_set_clock(NULL);
}

static void chap_right_secret_wrong_id(void **state)
{
	uint8_t chal[CHAP_CHALLENGE_LEN];
	uint8_t id = chap_start(chal);
	char r_kv[64] = "CHAP_R=";

	hex_response((uint8_t)(id + 1), ALICE_SECRET, chal, sizeof(chal), r_kv + 7);
	const char *const step3[] = { "CHAP_N=alice", r_kv, NULL };
	assert_int_equal(status_of(login_kv(T_CSG0_NSG1, step3)), 0x0201);
}

static void chap_unknown_user(void **state)
{
	uint8_t chal[CHAP_CHALLENGE_LEN];
	uint8_t id = chap_start(chal);
	char r_kv[64] = "CHAP_R=";

	hex_response(id, ALICE_SECRET, chal, sizeof(chal), r_kv + 7);
	const char *const step3[] = { "CHAP_N=mallory", r_kv, NULL };
	assert_int_equal(status_of(login_kv(T_CSG0_NSG1, step3)), 0x0201);
}

static void chap_mutual(void **state)
{
	uint8_t chal[CHAP_CHALLENGE_LEN], mine[CHAP_CHALLENGE_LEN], want[AUTH_MD5_LEN], got[AUTH_MD5_LEN];
	uint8_t id = chap_start(chal);
	char r_kv[64] = "CHAP_R=", c_kv[64] = "CHAP_C=";
	struct txpdu *r;

	for (int i = 0; i < CHAP_CHALLENGE_LEN; i++)
		mine[i] = (uint8_t)(0xa0 + i);
	assert_true(chap_encode_hex(mine, sizeof(mine), c_kv + 7, sizeof(c_kv) - 7));
	hex_response(id, ALICE_SECRET, chal, sizeof(chal), r_kv + 7);
	const char *const step3[] = { "CHAP_N=alice", r_kv, "CHAP_I=77", c_kv, NULL };
	r = login_kv(T_CSG0_NSG1, step3);
	assert_int_equal(status_of(r), 0);
	assert_int_equal(r->hdr[1], T_CSG0_NSG1);
	assert_string_equal(answer(r, "CHAP_N"), "lunlab");
	assert_int_equal(chap_decode_binary(answer(r, "CHAP_R"), got, sizeof(got)), AUTH_MD5_LEN);
	assert_true(chap_response(77, (const uint8_t *)TARGET_SECRET, strlen(TARGET_SECRET), mine,
				  sizeof(mine), want));
	assert_memory_equal(got, want, AUTH_MD5_LEN);
}

/* CHAP_I as 0x hex and with a leading zero (decimal, not octal) */
static void chap_mutual_id_forms(void **state)
{
	static const char *const ids[] = { "CHAP_I=0x4d", "CHAP_I=077", NULL };
	static const uint8_t want_id[] = { 0x4d, 77 };

	for (int k = 0; ids[k]; k++) {
		uint8_t chal[CHAP_CHALLENGE_LEN], mine[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
		uint8_t want[AUTH_MD5_LEN], got[AUTH_MD5_LEN];
		char r_kv[64] = "CHAP_R=";
		uint8_t id;

		if (k) { /* a fresh connection for the second round */
			teardown_chap(state);
			setup_chap(state);
		}
		id = chap_start(chal);
		hex_response(id, ALICE_SECRET, chal, sizeof(chal), r_kv + 7);
		const char *const step3[] = { "CHAP_N=alice", r_kv, ids[k], "CHAP_C=0x0102030405060708", NULL };
		struct txpdu *r = login_kv(T_CSG0_NSG1, step3);
		assert_int_equal(status_of(r), 0);
		assert_int_equal(chap_decode_binary(answer(r, "CHAP_R"), got, sizeof(got)), AUTH_MD5_LEN);
		assert_true(chap_response(want_id[k], (const uint8_t *)TARGET_SECRET, strlen(TARGET_SECRET),
					  mine, sizeof(mine), want));
		assert_memory_equal(got, want, AUTH_MD5_LEN);
	}
}

static void chap_mutual_bad_id(void **state)
{
	uint8_t chal[CHAP_CHALLENGE_LEN];
	uint8_t id = chap_start(chal);
	char r_kv[64] = "CHAP_R=";

	hex_response(id, ALICE_SECRET, chal, sizeof(chal), r_kv + 7);
	const char *const step3[] = { "CHAP_N=alice", r_kv, "CHAP_I=256", "CHAP_C=0x0102", NULL };
	assert_int_equal(status_of(login_kv(T_CSG0_NSG1, step3)), 0x0201);
}

static void chap_reflected_challenge(void **state)
{
	uint8_t chal[CHAP_CHALLENGE_LEN];
	uint8_t id = chap_start(chal);
	char r_kv[64] = "CHAP_R=", c_kv[64] = "CHAP_C=", i_kv[16];

	hex_response(id, ALICE_SECRET, chal, sizeof(chal), r_kv + 7);
	/* our own challenge and identifier sent back to us */
	assert_true(chap_encode_hex(chal, sizeof(chal), c_kv + 7, sizeof(c_kv) - 7));
	snprintf(i_kv, sizeof(i_kv), "CHAP_I=%u", id);
	const char *const step3[] = { "CHAP_N=alice", r_kv, i_kv, c_kv, NULL };
	struct txpdu *r = login_kv(T_CSG0_NSG1, step3);
	assert_int_equal(status_of(r), 0x0201);
	assert_null(r->data); /* and no CHAP_R for it */
}

static void chap_mutual_not_configured(void **state)
{
	uint8_t chal[CHAP_CHALLENGE_LEN];
	uint8_t id;
	char r_kv[64] = "CHAP_R=";

	acfg.has_mutual = false;
	id = chap_start(chal);
	hex_response(id, ALICE_SECRET, chal, sizeof(chal), r_kv + 7);
	const char *const step3[] = { "CHAP_N=alice", r_kv, "CHAP_I=1", "CHAP_C=0x0102030405060708", NULL };
	assert_int_equal(status_of(login_kv(T_CSG0_NSG1, step3)), 0x0201);
}

static void chap_refusals(void **state)
{
	static const char *const none_only[] = { "InitiatorName=iqn.test:ini", "TargetName=" IQN,
						 "AuthMethod=None", NULL };
	assert_int_equal(status_of(login_kv(T_CSG0_NSG1, none_only)), 0x0201);
}

static void chap_skip_security_stage(void **state)
{
	static const char *const op[] = { "InitiatorName=iqn.test:ini", "TargetName=" IQN, NULL };
	/* starts in the operational stage: no chance to authenticate */
	assert_int_equal(status_of(login_kv(T_CSG1_NSG3, op)), 0x0201);
	assert_int_equal(atomic_load(&g_session_count), 0);
}

static void chap_leave_without_auth_method(void **state)
{
	static const char *const first[] = { "InitiatorName=iqn.test:ini", "TargetName=" IQN, NULL };
	assert_int_equal(status_of(login_kv(T_CSG0_NSG3, first)), 0x0201);
}

static void chap_no_md5(void **state)
{
	static const char *const alg[] = { "CHAP_A=6,7", NULL };

	assert_int_equal(status_of(login_kv(T_CSG0_NSG1, chap_first)), 0);
	assert_int_equal(status_of(login_kv(T_CSG0_NSG1, alg)), 0x0201);
}

static void chap_out_of_order(void **state)
{
	static const char *const early[] = { "CHAP_N=alice", "CHAP_R=0x00112233445566778899aabbccddeeff", NULL };

	assert_int_equal(status_of(login_kv(T_CSG0_NSG1, chap_first)), 0);
	assert_int_equal(status_of(login_kv(T_CSG0_NSG1, early)), 0x0201);
}

static void chap_garbage_response(void **state)
{
	uint8_t chal[CHAP_CHALLENGE_LEN];
	static const char *const bad[] = { "CHAP_N=alice", "CHAP_R=0xzz", NULL };

	chap_start(chal);
	assert_int_equal(status_of(login_kv(T_CSG0_NSG1, bad)), 0x0201);
}

static void chap_keys_after_security_stage(void **state)
{
	static const char *const first[] = { "InitiatorName=iqn.test:ini", "TargetName=" IQN,
					     "AuthMethod=None", NULL };
	static const char *const late[] = { "CHAP_A=5", NULL };

	g_target.auth = NULL; /* open target */
	assert_int_equal(status_of(login_kv(T_CSG0_NSG1, first)), 0);
	assert_int_equal(status_of(login_kv(T_CSG1_NSG3, late)), 0x0200);
}

static void acl_refuses_unlisted_initiator(void **state)
{
	char err[128];
	struct txpdu *r;

	assert_true(auth_config_add_allow(&acfg, "iqn.test:other", err, sizeof(err)));
	r = login_kv(T_CSG0_NSG1, chap_first);
	assert_int_equal(status_of(r), 0x0202);
	assert_true(r->close_after);
}

static void acl_admits_listed_initiator(void **state)
{
	char err[128];
	uint8_t chal[CHAP_CHALLENGE_LEN];

	assert_true(auth_config_add_allow(&acfg, "iqn.test:other", err, sizeof(err)));
	assert_true(auth_config_add_allow(&acfg, "IQN.TEST:INI", err, sizeof(err)));
	chap_start(chal); /* past the allow-list, into CHAP */
}

static void acl_without_chap(void **state)
{
	struct auth_config only_acl;
	char err[128];

	memset(&only_acl, 0, sizeof(only_acl));
	assert_true(auth_config_add_allow(&only_acl, "iqn.test:ini", err, sizeof(err)));
	g_target.auth = &only_acl;
	assert_int_equal(status_of(login(T_CSG0_NSG3, normal0, sizeof(normal0) - 1)), 0);
	assert_string_equal(answer(c->tx_tail, "AuthMethod"), "None");
	assert_int_equal(c->state, CS_FFP);
	g_target.auth = NULL;
	auth_config_free(&only_acl);
}

static void acl_discovery_login_allowed(void **state)
{
	static const char *const disc[] = { "InitiatorName=iqn.test:ini", "SessionType=Discovery",
					    "AuthMethod=CHAP", NULL };
	char err[128];

	/* not on the list: a discovery session still logs in (SendTargets
	 * then reports nothing) */
	assert_true(auth_config_add_allow(&acfg, "iqn.test:other", err, sizeof(err)));
	struct txpdu *r = login_kv(T_CSG0_NSG1, disc);
	assert_int_equal(status_of(r), 0);
	assert_string_equal(answer(r, "AuthMethod"), "CHAP"); /* discovery authenticates too */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(missing_initiator_name, setup, teardown),
		cmocka_unit_test_setup_teardown(unknown_target, setup, teardown),
		cmocka_unit_test_setup_teardown(normal_without_target_name, setup, teardown),
		cmocka_unit_test_setup_teardown(auth_method_unsupported, setup, teardown),
		cmocka_unit_test_setup_teardown(bad_version, setup, teardown),
		cmocka_unit_test_setup_teardown(two_stage_login, setup, teardown),
		cmocka_unit_test_setup_teardown(security_straight_to_ffp_keeps_default_mrdsl, setup, teardown),
		cmocka_unit_test_setup_teardown(continuation, setup, teardown),
		cmocka_unit_test_setup_teardown(discovery_session, setup, teardown),
		cmocka_unit_test_setup_teardown(malformed_text, setup, teardown),
		cmocka_unit_test_setup_teardown(invalid_nsg, setup, teardown),
		cmocka_unit_test_setup_teardown(chap_one_way, setup_chap, teardown_chap),
		cmocka_unit_test_setup_teardown(chap_base64_response, setup_chap, teardown_chap),
		cmocka_unit_test_setup_teardown(chap_wrong_response, setup_chap, teardown_chap),
		cmocka_unit_test_setup_teardown(chap_throttled, setup_chap, teardown_chap),
		cmocka_unit_test_setup_teardown(chap_right_secret_wrong_id, setup_chap, teardown_chap),
		cmocka_unit_test_setup_teardown(chap_unknown_user, setup_chap, teardown_chap),
		cmocka_unit_test_setup_teardown(chap_mutual, setup_chap, teardown_chap),
		cmocka_unit_test_setup_teardown(chap_mutual_id_forms, setup_chap, teardown_chap),
		cmocka_unit_test_setup_teardown(chap_mutual_bad_id, setup_chap, teardown_chap),
		cmocka_unit_test_setup_teardown(chap_reflected_challenge, setup_chap, teardown_chap),
		cmocka_unit_test_setup_teardown(chap_mutual_not_configured, setup_chap, teardown_chap),
		cmocka_unit_test_setup_teardown(chap_refusals, setup_chap, teardown_chap),
		cmocka_unit_test_setup_teardown(chap_skip_security_stage, setup_chap, teardown_chap),
		cmocka_unit_test_setup_teardown(chap_leave_without_auth_method, setup_chap, teardown_chap),
		cmocka_unit_test_setup_teardown(chap_no_md5, setup_chap, teardown_chap),
		cmocka_unit_test_setup_teardown(chap_out_of_order, setup_chap, teardown_chap),
		cmocka_unit_test_setup_teardown(chap_garbage_response, setup_chap, teardown_chap),
		cmocka_unit_test_setup_teardown(chap_keys_after_security_stage, setup_chap, teardown_chap),
		cmocka_unit_test_setup_teardown(acl_refuses_unlisted_initiator, setup_chap, teardown_chap),
		cmocka_unit_test_setup_teardown(acl_admits_listed_initiator, setup_chap, teardown_chap),
		cmocka_unit_test_setup_teardown(acl_without_chap, setup, teardown),
		cmocka_unit_test_setup_teardown(acl_discovery_login_allowed, setup_chap, teardown_chap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
