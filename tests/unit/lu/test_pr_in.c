/* test_pr_in.c — PERSISTENT RESERVE IN (target/lu/pr_in.c): exact bytes of
 * READ KEYS, READ RESERVATION, REPORT CAPABILITIES and READ FULL STATUS
 * (iSCSI TransportIDs), ALLOCATION LENGTH truncation, bad service action. */
#include "lunlab/scsi_vocab.h"
#include "pr_test_util.h"

#define K1 0x0102030405060708ull
#define K2 0xa1a2a3a4a5a6a7a8ull


static void test_read_keys_and_truncation(void **state)
{
	struct pr_state *st = *state;
	uint8_t buf[64];
	struct pr_answer a;

	a = prin(st, &A, 0, sizeof(buf), buf, sizeof(buf));
	assert_int_equal(a.status, 0);
	assert_int_equal(a.data_len, 8);
	assert_int_equal(get32(buf), 0);
	assert_int_equal(get32(buf + 4), 0);
	assert_int_equal(prout(st, &A, SA_REGISTER, 0, 0, K1).status, 0);
	assert_int_equal(prout(st, &B, SA_REGISTER, 0, 0, K2).status, 0);
	a = prin(st, &A, 0, sizeof(buf), buf, sizeof(buf));
	assert_int_equal(a.data_len, 24);
	assert_int_equal(get32(buf), 2);      /* PRGENERATION */
	assert_int_equal(get32(buf + 4), 16); /* ADDITIONAL LENGTH */
	assert_true(get64(buf + 8) == K1);
	assert_true(get64(buf + 16) == K2);
	/* ALLOCATION LENGTH 12: 12 bytes, the length field still says 16 */
	memset(buf, 0xee, sizeof(buf));
	a = prin(st, &A, 0, 12, buf, sizeof(buf));
	assert_int_equal(a.status, 0);
	assert_int_equal(a.data_len, 12);
	assert_int_equal(get32(buf + 4), 16);
	assert_int_equal(buf[12], 0xee);
	/* a buffer smaller than the allocation length: the buffer wins */
	a = prin(st, &A, 0, 64, buf, 10);
	assert_int_equal(a.data_len, 10);
	/* ALLOCATION LENGTH 0: GOOD, no data */
	a = prin(st, &A, 0, 0, buf, sizeof(buf));
	assert_int_equal(a.status, 0);
	assert_int_equal(a.data_len, 0);
}

static void test_read_reservation(void **state)
{
	struct pr_state *st = *state;
	uint8_t buf[32];
	const uint8_t want[24] = { 0, 0, 0, 1, 0, 0, 0, 16, 1, 2, 3, 4, 5, 6, 7, 8,
				   0, 0, 0, 0, 0, PR_TYPE_EA, 0, 0 };
	struct pr_answer a;

	assert_int_equal(prout(st, &A, SA_REGISTER, 0, 0, K1).status, 0);
	assert_int_equal(prout(st, &A, SA_RESERVE, PR_TYPE_EA, K1, 0).status, 0);
	a = prin(st, &B, 1, sizeof(buf), buf, sizeof(buf));
	assert_int_equal(a.data_len, 24);
	assert_memory_equal(buf, want, 24);
}

static void test_report_capabilities(void **state)
{
	struct pr_state *st = *state;
	uint8_t buf[16];
	/* LENGTH 8; CRH; TMV; WR_EX_AR EX_AC_RO WR_EX_RO EX_AC WR_EX; EX_AC_AR */
	const uint8_t want[8] = { 0, 8, 0x10, 0x80, 0xea, 0x01, 0, 0 };
	struct pr_answer a = prin(st, &A, 2, sizeof(buf), buf, sizeof(buf));

	assert_int_equal(a.status, 0);
	assert_int_equal(a.data_len, 8);
	assert_memory_equal(buf, want, 8);
}

static void test_read_full_status(void **state)
{
	struct pr_state *st = *state;
	uint8_t buf[512];
	const char *tid_a = "iqn.2026-11.org.lunlab.test:node-a,i,0x801234560001";
	size_t tlen_a = (strlen(tid_a) + 1 + 3) & ~(size_t)3;
	struct pr_answer a;
	uint8_t *e;

	assert_int_equal(prout(st, &A, SA_REGISTER, 0, 0, K1).status, 0);
	assert_int_equal(prout(st, &B, SA_REGISTER, 0, 0, K2).status, 0);
	assert_int_equal(prout(st, &A, SA_RESERVE, PR_TYPE_WE_RO, K1, 0).status, 0);
	a = prin(st, &B, 3, sizeof(buf), buf, sizeof(buf));
	assert_int_equal(a.status, 0);
	assert_int_equal(get32(buf), 2);
	assert_int_equal(a.data_len, 8 + get32(buf + 4));
	e = buf + 8;
	assert_true(get64(e) == K1);
	assert_int_equal(e[12], 0x01);          /* R_HOLDER, not ALL_TG_PT */
	assert_int_equal(e[13], PR_TYPE_WE_RO); /* scope 0, type */
	assert_int_equal(e[18] << 8 | e[19], 1);
	assert_int_equal(get32(e + 20), 4 + tlen_a);
	assert_int_equal(e[24], 0x45);          /* FORMAT CODE 01b, iSCSI */
	assert_int_equal(e[26] << 8 | e[27], tlen_a);
	assert_string_equal((const char *)e + 28, tid_a);
	assert_int_equal(tlen_a % 4, 0);
	e += 24 + 4 + tlen_a;
	assert_true(get64(e) == K2);
	assert_int_equal(e[12], 0);             /* not a holder */
	assert_int_equal(e[13], 0);
	assert_string_equal((const char *)e + 28, "iqn.2026-11.org.lunlab.test:node-b,i,0x400001370000");
	assert_true(e + 24 + get32(e + 20) == buf + a.data_len);
}

static void test_bad_service_action(void **state)
{
	struct pr_state *st = *state;
	uint8_t buf[16];

	for (uint8_t sa = 4; sa < 0x20; sa++) {
		struct pr_answer a = prin(st, &A, sa, sizeof(buf), buf, sizeof(buf));
		assert_check(&a, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CDB);
		assert_int_equal(a.sense[17], 1); /* field pointer: byte 1 */
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_read_keys_and_truncation, pr_fixture_setup, pr_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_read_reservation, pr_fixture_setup, pr_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_report_capabilities, pr_fixture_setup, pr_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_read_full_status, pr_fixture_setup, pr_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_bad_service_action, pr_fixture_setup, pr_fixture_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
