/* test_pr_out.c — PERSISTENT RESERVE OUT (target/lu/pr_out.c): registration
 * rules, reservation ownership, CLEAR, PREEMPT (AND ABORT), parameter-list
 * validation with exact sense bytes, PRGENERATION, and which initiator port
 * gets which unit attention. */
#include "lunlab/scsi_vocab.h"
#include "pr_test_util.h"

#define K1 0x1111111111111111ull
#define K2 0x2222222222222222ull
#define K3 0x3333333333333333ull


static void test_register_rules(void **state)
{
	struct pr_state *st = *state;
	uint64_t keys[4];
	uint32_t gen;

	/* unregistered, SARK 0: GOOD and nothing happens (no generation) */
	assert_int_equal(prout(st, &A, SA_REGISTER, 0, 0, 0).status, 0);
	assert_int_equal(read_keys(st, keys, 4, &gen), 0);
	assert_int_equal(gen, 0);
	/* unregistered with a nonzero RESERVATION KEY: conflict */
	assert_int_equal(prout(st, &A, SA_REGISTER, 0, K3, K1).status, 0x18);
	assert_int_equal(prout(st, &A, SA_REGISTER, 0, 0, K1).status, 0);
	assert_int_equal(read_keys(st, keys, 4, &gen), 1);
	assert_true(keys[0] == K1);
	assert_int_equal(gen, 1);
	/* registered: the key must match */
	assert_int_equal(prout(st, &A, SA_REGISTER, 0, K2, K3).status, 0x18);
	assert_int_equal(prout(st, &A, SA_REGISTER, 0, K1, K2).status, 0);
	assert_int_equal(read_keys(st, keys, 4, &gen), 1);
	assert_true(keys[0] == K2);
	assert_int_equal(gen, 2);
	/* the same name with another ISID is another initiator port */
	assert_int_equal(prout(st, &A2, SA_REGISTER, 0, 0, K2).status, 0);
	assert_int_equal(read_keys(st, keys, 4, &gen), 2);
	/* unregister */
	assert_int_equal(prout(st, &A, SA_REGISTER, 0, K2, 0).status, 0);
	assert_int_equal(read_keys(st, keys, 4, &gen), 1);
	assert_int_equal(gen, 4);
	assert_int_equal(pr_registrations(st), 1);
}

static void test_register_and_ignore(void **state)
{
	struct pr_state *st = *state;
	uint64_t keys[4];

	assert_int_equal(prout(st, &B, SA_REGISTER_IGNORE, 0, K3, K1).status, 0);
	assert_int_equal(prout(st, &B, SA_REGISTER_IGNORE, 0, 0xdead, K2).status, 0);
	assert_int_equal(read_keys(st, keys, 4, NULL), 1);
	assert_true(keys[0] == K2);
	assert_int_equal(prout(st, &B, SA_REGISTER_IGNORE, 0, 0, 0).status, 0);
	assert_int_equal(read_keys(st, keys, 4, NULL), 0);
	assert_int_equal(pr_generation(st), 3);
}

static void test_parameter_list_validation(void **state)
{
	struct pr_state *st = *state;
	uint8_t par[32] = { 0 };
	struct pr_answer a;
	uint8_t cdb[10] = { SCSI_OP_PERSISTENT_RESERVE_OUT, SA_REGISTER, 0, 0, 0, 0, 0, 0, 24, 0 };

	put64(par + 8, K1);
	cdb[8] = 0; /* PARAMETER LIST LENGTH 0 */
	pr_execute(st, cdb, sizeof(cdb), &A, 0, NULL, 0, &a);
	assert_check(&a, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_PARAMETER_LIST_LENGTH_ERROR);
	cdb[8] = 28; /* no SPEC_I_PT: only 24 is right */
	pr_execute(st, cdb, sizeof(cdb), &A, 0, par, 28, &a);
	assert_check(&a, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_PARAMETER_LIST_LENGTH_ERROR);
	par[20] = 0x08; /* SPEC_I_PT with a TransportID list: refused for the flag */
	pr_execute(st, cdb, sizeof(cdb), &A, 0, par, 28, &a);
	assert_check(&a, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST);
	par[20] = 0;
	cdb[8] = 24; /* the length says 24 but only 10 bytes came */
	pr_execute(st, cdb, sizeof(cdb), &A, 0, par, 10, &a);
	assert_check(&a, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_PARAMETER_LIST_LENGTH_ERROR);
	/* APTPL, ALL_TG_PT, SPEC_I_PT: not supported (REPORT CAPABILITIES) */
	a = prout_flags(st, &A, 0, SA_REGISTER, 0, 0, K1, 0x01);
	assert_check(&a, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST);
	a = prout_flags(st, &A, 0, SA_REGISTER, 0, 0, K1, 0x04);
	assert_check(&a, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST);
	a = prout_flags(st, &A, 0, SA_REGISTER_IGNORE, 0, 0, K1, 0x08);
	assert_check(&a, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST);
	assert_int_equal(pr_registrations(st), 0);
	/* REGISTER AND MOVE and beyond: INVALID FIELD IN CDB, pointer to byte 1 */
	a = prout(st, &A, 0x07, 0, 0, K1);
	assert_check(&a, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CDB);
	assert_int_equal(a.sense[15], 0xc0);
	assert_int_equal(a.sense[16], 0);
	assert_int_equal(a.sense[17], 1);
	a = prout(st, &A, 0x1f, 0, 0, K1);
	assert_check(&a, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CDB);
	/* RESERVE: scope other than LU_SCOPE, or a type that does not exist */
	assert_int_equal(prout(st, &A, SA_REGISTER, 0, 0, K1).status, 0);
	a = prout(st, &A, SA_RESERVE, 0x10 | PR_TYPE_WE, K1, 0);
	assert_check(&a, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CDB);
	assert_int_equal(a.sense[17], 2);
	a = prout(st, &A, SA_RESERVE, 2, K1, 0);
	assert_check(&a, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CDB);
	a = prout(st, &A, SA_PREEMPT, 0, K1, K1);
	assert_check(&a, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CDB);
}

static void test_reserve_release_ro(void **state)
{
	struct pr_state *st = *state;
	uint8_t buf[24];
	struct pr_answer a;

	assert_int_equal(prout(st, &B, SA_RESERVE, PR_TYPE_WE_RO, 0, 0).status, 0x18); /* not registered */
	assert_int_equal(prout(st, &A, SA_REGISTER, 0, 0, K1).status, 0);
	assert_int_equal(prout(st, &B, SA_REGISTER, 0, 0, K2).status, 0);
	assert_int_equal(prout(st, &A, SA_RESERVE, PR_TYPE_WE_RO, K2, 0).status, 0x18); /* wrong key */
	assert_int_equal(prout(st, &A, SA_RESERVE, PR_TYPE_WE_RO, K1, 0).status, 0);
	a = prin(st, &B, 1, sizeof(buf), buf, sizeof(buf));
	assert_int_equal(a.data_len, 24);
	assert_true(get64(buf + 8) == K1);
	assert_int_equal(buf[21], PR_TYPE_WE_RO);
	/* the holder again, same type: GOOD; another type or another port: conflict */
	assert_int_equal(prout(st, &A, SA_RESERVE, PR_TYPE_WE_RO, K1, 0).status, 0);
	assert_int_equal(prout(st, &A, SA_RESERVE, PR_TYPE_EA, K1, 0).status, 0x18);
	assert_int_equal(prout(st, &B, SA_RESERVE, PR_TYPE_WE_RO, K2, 0).status, 0x18);
	/* RELEASE by a registrant that does not hold it: GOOD, no effect */
	assert_int_equal(prout(st, &B, SA_RELEASE, PR_TYPE_WE_RO, K2, 0).status, 0);
	a = prin(st, &B, 1, sizeof(buf), buf, sizeof(buf));
	assert_int_equal(a.data_len, 24);
	assert_int_equal(get32(buf + 4), 16);
	/* the holder with the wrong type: INVALID RELEASE OF PERSISTENT RESERVATION */
	a = prout(st, &A, SA_RELEASE, PR_TYPE_WE, K1, 0);
	assert_check(&a, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_RELEASE_OF_PR);
	/* RELEASE needs the registration and key like the others */
	assert_int_equal(prout(st, &A, SA_RELEASE, PR_TYPE_WE_RO, K2, 0).status, 0x18);
	assert_int_equal(prout(st, &A, SA_RELEASE, PR_TYPE_WE_RO, K1, 0).status, 0);
	a = prin(st, &B, 1, sizeof(buf), buf, sizeof(buf));
	assert_int_equal(a.data_len, 8);
	assert_int_equal(get32(buf + 4), 0);
	/* registrants-only released: the other registrants hear RESERVATIONS RELEASED */
	assert_int_equal(next_ua(st, &B), 0x04);
	assert_int_equal(next_ua(st, &B), -1);
	assert_int_equal(next_ua(st, &A), -1);
	/* RESERVE/RELEASE never change PRGENERATION */
	assert_int_equal(pr_generation(st), 2);
}

static void test_release_we_no_ua(void **state)
{
	struct pr_state *st = *state;

	assert_int_equal(prout(st, &A, SA_REGISTER, 0, 0, K1).status, 0);
	assert_int_equal(prout(st, &B, SA_REGISTER, 0, 0, K2).status, 0);
	assert_int_equal(prout(st, &A, SA_RESERVE, PR_TYPE_WE, K1, 0).status, 0);
	assert_int_equal(prout(st, &A, SA_RELEASE, PR_TYPE_WE, K1, 0).status, 0);
	assert_int_equal(next_ua(st, &B), -1);
}

static void test_clear(void **state)
{
	struct pr_state *st = *state;
	uint64_t keys[4];

	assert_int_equal(prout(st, &A, SA_REGISTER, 0, 0, K1).status, 0);
	assert_int_equal(prout(st, &A2, SA_REGISTER, 0, 0, K3).status, 0);
	assert_int_equal(prout(st, &B, SA_REGISTER, 0, 0, K2).status, 0);
	assert_int_equal(prout(st, &A, SA_RESERVE, PR_TYPE_EA, K1, 0).status, 0);
	assert_int_equal(prout(st, &B, SA_CLEAR, 0, K1, 0).status, 0x18); /* not B's key */
	assert_int_equal(prout(st, &B, SA_CLEAR, 0, K2, 0).status, 0);
	assert_int_equal(read_keys(st, keys, 4, NULL), 0);
	assert_int_equal(pr_generation(st), 4);
	/* everyone else registered hears RESERVATIONS PREEMPTED, the issuer nothing */
	assert_int_equal(next_ua(st, &A), 0x03);
	assert_int_equal(next_ua(st, &A2), 0x03);
	assert_int_equal(next_ua(st, &B), -1);
	assert_int_equal(next_ua(st, &A), -1);
	/* and the LU is open again */
	assert_int_equal(gate(st, &B, 0x2a, NULL), -1);
}

static void test_preempt_registration_only(void **state)
{
	struct pr_state *st = *state;
	uint64_t keys[4];
	uint32_t gen;

	/* iscsi-test-cu ProutPreempt.RemoveRegistration: no reservation */
	assert_int_equal(prout(st, &A, SA_REGISTER_IGNORE, 0, 0, K1).status, 0);
	assert_int_equal(prout(st, &B, SA_REGISTER_IGNORE, 0, 0, K2).status, 0);
	assert_int_equal(read_keys(st, keys, 4, &gen), 2);
	assert_int_equal(prout(st, &B, SA_PREEMPT, PR_TYPE_EA, K2, K1).status, 0);
	assert_int_equal(read_keys(st, keys, 4, NULL), 1);
	assert_true(keys[0] == K2);
	assert_int_equal(pr_generation(st), gen + 1);
	assert_int_equal(next_ua(st, &A), 0x05);
	assert_int_equal(next_ua(st, &B), -1);
	/* no reservation: nothing is reserved by a PREEMPT */
	assert_int_equal(gate(st, &A, 0x2a, NULL), -1);
	/* a key nobody has: conflict; SARK 0 without a reservation: 05/26/00 */
	assert_int_equal(prout(st, &B, SA_PREEMPT, PR_TYPE_EA, K2, K3).status, 0x18);
	struct pr_answer a = prout(st, &B, SA_PREEMPT, PR_TYPE_EA, K2, 0);
	assert_check(&a, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST);
}

static void test_preempt_and_abort_reservation(void **state)
{
	struct pr_state *st = *state;
	uint8_t buf[24];
	struct pr_answer a;

	/* fence_scsi: every node registers, one holds WE-RO, a survivor fences
	 * the victim with PREEMPT AND ABORT of the victim's key */
	assert_true(prout_flags(st, &A, 11, SA_REGISTER, 0, 0, K1, 0).status == 0);
	assert_true(prout_flags(st, &B, 22, SA_REGISTER, 0, 0, K2, 0).status == 0);
	assert_true(prout_flags(st, &A2, 33, SA_REGISTER, 0, 0, K3, 0).status == 0);
	assert_true(prout_flags(st, &A, 11, SA_RESERVE, PR_TYPE_WE_RO, K1, 0, 0).status == 0);
	a = prout_flags(st, &B, 22, SA_PREEMPT_ABORT, PR_TYPE_WE_RO, K2, K1, 0);
	assert_int_equal(a.status, 0);
	assert_int_equal(a.n_abort, 1);
	assert_true(a.abort_nexus[0] == 11);
	a = prin(st, &B, 1, sizeof(buf), buf, sizeof(buf));
	assert_true(get64(buf + 8) == K2);
	assert_int_equal(buf[21], PR_TYPE_WE_RO);
	/* same type: only the victim hears (REGISTRATIONS PREEMPTED) */
	assert_int_equal(next_ua(st, &A), 0x05);
	assert_int_equal(next_ua(st, &A2), -1);
	/* the victim may read, not write; a registrant still writes */
	assert_int_equal(gate(st, &A, 0x28, NULL), -1);
	assert_int_equal(gate(st, &A, 0x2a, NULL), 0x18);
	assert_int_equal(gate(st, &A2, 0x2a, NULL), -1);
	/* a change of type: the remaining registrants hear RESERVATIONS RELEASED */
	assert_int_equal(prout(st, &B, SA_PREEMPT, PR_TYPE_EA, K2, K2).status, 0);
	assert_int_equal(next_ua(st, &A2), 0x04);
	assert_int_equal(next_ua(st, &B), -1);
	assert_int_equal(gate(st, &A2, 0x28, NULL), 0x18);
}

static void test_fence_scsi_preempt_own_key(void **state)
{
	struct pr_state *st = *state;
	uint64_t keys[4];
	uint8_t buf[24];

	/* fence_scsi "on" after a stale registration: REGISTER AND IGNORE,
	 * then PREEMPT with its own key.  No reservation: every registration
	 * of the key goes, the issuer's too (it registers again) */
	assert_int_equal(prout(st, &A, SA_REGISTER_IGNORE, 0, 0, K1).status, 0);
	assert_int_equal(prout(st, &A2, SA_REGISTER_IGNORE, 0, 0, K1).status, 0);
	assert_int_equal(prout(st, &A2, SA_PREEMPT, PR_TYPE_WE_RO, K1, K1).status, 0);
	assert_int_equal(read_keys(st, keys, 4, NULL), 0);
	assert_int_equal(next_ua(st, &A), 0x05);
	assert_int_equal(next_ua(st, &A2), -1);
	/* holding the reservation: the stale entry goes, the issuer keeps its
	 * registration and the reservation */
	assert_int_equal(prout(st, &A2, SA_REGISTER_IGNORE, 0, 0, K1).status, 0);
	assert_int_equal(prout(st, &A2, SA_RESERVE, PR_TYPE_WE_RO, K1, 0).status, 0);
	assert_int_equal(prout(st, &A, SA_REGISTER_IGNORE, 0, 0, K1).status, 0);
	assert_int_equal(prout(st, &A2, SA_PREEMPT, PR_TYPE_WE_RO, K1, K1).status, 0);
	assert_int_equal(read_keys(st, keys, 4, NULL), 1);
	assert_true(keys[0] == K1);
	prin(st, &B, 1, sizeof(buf), buf, sizeof(buf));
	assert_true(get64(buf + 8) == K1);
	assert_int_equal(buf[21], PR_TYPE_WE_RO);
	assert_int_equal(next_ua(st, &A), 0x05);
	assert_int_equal(gate(st, &A, 0x2a, NULL), 0x18);
	assert_int_equal(gate(st, &A2, 0x2a, NULL), -1);
}

static void test_preempt_all_registrants(void **state)
{
	struct pr_state *st = *state;
	uint8_t buf[24];
	struct pr_answer a;
	uint64_t keys[4];

	assert_int_equal(prout(st, &A, SA_REGISTER, 0, 0, K1).status, 0);
	assert_int_equal(prout(st, &B, SA_REGISTER, 0, 0, K2).status, 0);
	assert_int_equal(prout(st, &A2, SA_REGISTER, 0, 0, K3).status, 0);
	assert_int_equal(prout(st, &A, SA_RESERVE, PR_TYPE_WE_AR, K1, 0).status, 0);
	/* READ RESERVATION of an all-registrants reservation: key 0 */
	a = prin(st, &B, 1, sizeof(buf), buf, sizeof(buf));
	assert_int_equal(a.data_len, 24);
	assert_true(get64(buf + 8) == 0);
	/* SARK 0: every other registration goes, B holds the new type */
	assert_int_equal(prout(st, &B, SA_PREEMPT, PR_TYPE_EA, K2, 0).status, 0);
	assert_int_equal(read_keys(st, keys, 4, NULL), 1);
	assert_true(keys[0] == K2);
	a = prin(st, &B, 1, sizeof(buf), buf, sizeof(buf));
	assert_int_equal(a.status, 0);
	assert_true(get64(buf + 8) == K2);
	assert_int_equal(buf[21], PR_TYPE_EA);
	assert_int_equal(next_ua(st, &A), 0x05);
	assert_int_equal(next_ua(st, &A2), 0x05);
	assert_int_equal(next_ua(st, &B), -1);
}

static void test_unregister_holder(void **state)
{
	struct pr_state *st = *state;
	uint8_t buf[24];

	/* registrants-only: the holder unregistering releases it */
	assert_int_equal(prout(st, &A, SA_REGISTER, 0, 0, K1).status, 0);
	assert_int_equal(prout(st, &B, SA_REGISTER, 0, 0, K2).status, 0);
	assert_int_equal(prout(st, &A, SA_RESERVE, PR_TYPE_EA_RO, K1, 0).status, 0);
	assert_int_equal(prout(st, &A, SA_REGISTER, 0, K1, 0).status, 0);
	prin(st, &B, 1, sizeof(buf), buf, sizeof(buf));
	assert_int_equal(get32(buf + 4), 0);
	assert_int_equal(next_ua(st, &B), 0x04);
	/* all-registrants: it stays while one registrant is left */
	assert_int_equal(prout(st, &A, SA_REGISTER, 0, 0, K1).status, 0);
	assert_int_equal(prout(st, &A, SA_RESERVE, PR_TYPE_EA_AR, K1, 0).status, 0);
	assert_int_equal(prout(st, &A, SA_REGISTER, 0, K1, 0).status, 0);
	prin(st, &B, 1, sizeof(buf), buf, sizeof(buf));
	assert_int_equal(get32(buf + 4), 16);
	assert_int_equal(buf[21], PR_TYPE_EA_AR);
	/* any registrant releases an all-registrants reservation */
	assert_int_equal(prout(st, &B, SA_RELEASE, PR_TYPE_EA_AR, K2, 0).status, 0);
	prin(st, &B, 1, sizeof(buf), buf, sizeof(buf));
	assert_int_equal(get32(buf + 4), 0);
	/* ... and the last one leaving takes it with it */
	assert_int_equal(prout(st, &B, SA_RESERVE, PR_TYPE_WE_AR, K2, 0).status, 0);
	assert_int_equal(prout(st, &B, SA_REGISTER, 0, K2, 0).status, 0);
	prin(st, &B, 1, sizeof(buf), buf, sizeof(buf));
	assert_int_equal(get32(buf + 4), 0);
}

static void test_registration_limit(void **state)
{
	struct pr_state *st = *state;
	struct pr_port p;
	uint8_t isid[6] = { 0x80, 0, 0, 0, 0, 0 };
	struct pr_answer a;

	for (int i = 0; i < PR_REGS_MAX; i++) {
		isid[5] = (uint8_t)i;
		pr_port_set(&p, "iqn.2026-11.org.lunlab.test:many", isid);
		assert_int_equal(prout(st, &p, SA_REGISTER, 0, 0, 100u + (unsigned)i).status, 0);
	}
	isid[4] = 1;
	pr_port_set(&p, "iqn.2026-11.org.lunlab.test:many", isid);
	a = prout(st, &p, SA_REGISTER, 0, 0, 7);
	assert_check(&a, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INSUFFICIENT_REGISTRATION_RESOURCES);
	assert_int_equal(pr_registrations(st), PR_REGS_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_register_rules, pr_fixture_setup, pr_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_register_and_ignore, pr_fixture_setup, pr_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_parameter_list_validation, pr_fixture_setup, pr_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_reserve_release_ro, pr_fixture_setup, pr_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_release_we_no_ua, pr_fixture_setup, pr_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_clear, pr_fixture_setup, pr_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_preempt_registration_only, pr_fixture_setup, pr_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_preempt_and_abort_reservation, pr_fixture_setup, pr_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_fence_scsi_preempt_own_key, pr_fixture_setup, pr_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_preempt_all_registrants, pr_fixture_setup, pr_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_unregister_holder, pr_fixture_setup, pr_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_registration_limit, pr_fixture_setup, pr_fixture_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
