/* test_scsi2_reserve.c — RESERVE/RELEASE(6) and (10) (target/lu/
 * scsi2_reserve.c): who may reserve, what others may still do, and the
 * meeting with persistent reservations (CRH: SPC-4 5.13.3). */
#include "lunlab/scsi_vocab.h"
#include "pr_test_util.h"

static struct pr_answer scsi2(struct pr_state *st, const struct pr_port *p, uint8_t op, uint8_t byte1)
{
	uint8_t cdb[10] = { op, byte1 };
	struct pr_answer a;
	int g = gate(st, p, op, &a);

	if (g >= 0)
		return a;
	pr_execute(st, cdb, sizeof(cdb), p, 0, NULL, 0, &a);
	return a;
}


static void test_reserve6_two_initiators(void **state)
{
	struct pr_state *st = *state;

	/* iscsi-test-cu Reserve6.2Initiators */
	assert_int_equal(scsi2(st, &A, 0x16, 0).status, 0);
	assert_int_equal(scsi2(st, &A, 0x16, 0).status, 0); /* again: fine */
	assert_int_equal(scsi2(st, &B, 0x16, 0).status, 0x18);
	assert_int_equal(scsi2(st, &B, 0x17, 0).status, 0);  /* RELEASE of another's: no-op */
	assert_int_equal(gate(st, &A, 0x1a, NULL), -1);      /* MODE SENSE from the holder */
	assert_int_equal(gate(st, &B, 0x1a, NULL), 0x18);
	assert_int_equal(gate(st, &B, 0x28, NULL), 0x18);
	assert_int_equal(gate(st, &B, 0x00, NULL), 0x18);
	assert_int_equal(gate(st, &B, 0x5e, NULL), 0x18);
	assert_int_equal(gate(st, &B, 0x12, NULL), -1);      /* INQUIRY, REPORT LUNS, REQUEST SENSE pass */
	assert_int_equal(gate(st, &B, 0xa0, NULL), -1);
	assert_int_equal(gate(st, &B, 0x03, NULL), -1);
	assert_int_equal(gate(st, &A2, 0x2a, NULL), 0x18);   /* same node, other port: another nexus */
	assert_int_equal(scsi2(st, &A, 0x17, 0).status, 0);
	assert_int_equal(scsi2(st, &B, 0x56, 0).status, 0);  /* RESERVE(10) */
	assert_int_equal(scsi2(st, &A, 0x56, 0).status, 0x18);
	assert_int_equal(scsi2(st, &B, 0x57, 0).status, 0);  /* RELEASE(10) */
	assert_int_equal(gate(st, &A, 0x2a, NULL), -1);
}

static void test_obsolete_forms_refused(void **state)
{
	struct pr_state *st = *state;
	struct pr_answer a;

	a = scsi2(st, &A, 0x16, 0x01); /* extent */
	assert_check(&a, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CDB);
	a = scsi2(st, &A, 0x56, 0x10); /* third party */
	assert_check(&a, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CDB);
	a = scsi2(st, &A, 0x56, 0x02); /* LONGID */
	assert_check(&a, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CDB);
	assert_int_equal(gate(st, &B, 0x2a, NULL), -1);
}

static void test_with_persistent_reservation(void **state)
{
	struct pr_state *st = *state;

	/* registrations only: RESERVE works as ever */
	assert_int_equal(prout(st, &A, SA_REGISTER, 0, 0, 1).status, 0);
	assert_int_equal(scsi2(st, &B, 0x16, 0).status, 0);
	assert_int_equal(scsi2(st, &B, 0x17, 0).status, 0);
	/* a persistent reservation: its holder gets GOOD without effect,
	 * anyone else RESERVATION CONFLICT (RESERVE and RELEASE) */
	assert_int_equal(prout(st, &A, SA_RESERVE, PR_TYPE_WE, 1, 0).status, 0);
	assert_int_equal(scsi2(st, &B, 0x16, 0).status, 0x18);
	assert_int_equal(scsi2(st, &B, 0x17, 0).status, 0x18);
	assert_int_equal(scsi2(st, &A, 0x16, 0).status, 0);
	assert_int_equal(gate(st, &B, 0x28, NULL), -1); /* WE: B still reads: no SCSI-2 reservation was made */
	assert_int_equal(scsi2(st, &A, 0x17, 0).status, 0);
	assert_int_equal(gate(st, &B, 0x2a, NULL), 0x18); /* the PR is still there */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reserve6_two_initiators, pr_fixture_setup, pr_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_obsolete_forms_refused, pr_fixture_setup, pr_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_with_persistent_reservation, pr_fixture_setup, pr_fixture_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
