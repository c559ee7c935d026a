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

#include "target/iscsi/conn.h"
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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
