/* test_pr_state.c — the gate every command passes (target/lu/pr_state.c):
 * the conflict table of each reservation type for holder, registrant and
 * stranger; the unit-attention queue (per port, once, REQUEST SENSE
 * returns it, INQUIRY does not consume it); resets and nexus loss. */
#include "lunlab/scsi_vocab.h"
#include "pr_test_util.h"

#define K1 0x11ull
#define K2 0x22ull

static struct pr_port C; /* never registers */

static int setup(void **state)
{
	static const uint8_t isid_c[6] = { 0x80, 0, 0, 0, 0, 9 };

	pr_port_set(&C, "iqn.2026-11.org.lunlab.test:node-c", isid_c);
	return pr_fixture_setup(state);
}

/* expected access: 1 allowed, 0 RESERVATION CONFLICT */
struct access_row {
	uint8_t type;
	int reg_read, reg_write, unreg_read, unreg_write;
};

static void test_conflict_table(void **state)
{
	/* SPC-4 table 66 / what iscsi-test-cu ProutReserve.Access* expects */
	const struct access_row rows[] = {
		{ PR_TYPE_WE, 1, 0, 1, 0 },    { PR_TYPE_EA, 0, 0, 0, 0 },
		{ PR_TYPE_WE_RO, 1, 1, 1, 0 }, { PR_TYPE_EA_RO, 1, 1, 0, 0 },
		{ PR_TYPE_WE_AR, 1, 1, 1, 0 }, { PR_TYPE_EA_AR, 1, 1, 0, 0 },
	};
	const uint8_t reads[] = { 0x08, 0x28, 0xa8, 0x88, 0x2f, 0x8f, 0x34 };
	const uint8_t writes[] = { 0x0a, 0x2a, 0xaa, 0x8a, 0x35, 0x41, 0x42, 0x89, 0x93, 0x83, 0x15 };
	const uint8_t always[] = { 0x00, 0x12, 0x25, 0x4d, 0x5e, 0xa0, 0xa3 };

	(void)state;
	setup(state); /* the ports; each row has its own state below */
	pr_fixture_teardown(state);
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		struct pr_state *st = pr_state_new(NULL); /* conflicts only */

		assert_non_null(st);
		assert_int_equal(prout(st, &A, SA_REGISTER, 0, 0, K1).status, 0);
		assert_int_equal(prout(st, &B, SA_REGISTER, 0, 0, K2).status, 0);
		assert_int_equal(prout(st, &A, SA_RESERVE, rows[r].type, K1, 0).status, 0);
		for (size_t i = 0; i < sizeof(reads); i++) {
			assert_int_equal(gate(st, &A, reads[i], NULL), -1);
			assert_int_equal(gate(st, &B, reads[i], NULL), rows[r].reg_read ? -1 : 0x18);
			assert_int_equal(gate(st, &C, reads[i], NULL), rows[r].unreg_read ? -1 : 0x18);
		}
		for (size_t i = 0; i < sizeof(writes); i++) {
			assert_int_equal(gate(st, &A, writes[i], NULL), -1);
			assert_int_equal(gate(st, &B, writes[i], NULL), rows[r].reg_write ? -1 : 0x18);
			assert_int_equal(gate(st, &C, writes[i], NULL), rows[r].unreg_write ? -1 : 0x18);
		}
		for (size_t i = 0; i < sizeof(always); i++)
			assert_int_equal(gate(st, &C, always[i], NULL), -1);
		/* ODX: POPULATE TOKEN is a read, WRITE USING TOKEN a write, RRTI allowed */
		const uint8_t out = SCSI_OP_THIRD_PARTY_COPY_OUT;
		assert_int_equal(gate_sa(st, &B, out, SCSI_SA_POPULATE_TOKEN), rows[r].reg_read ? -1 : 0x18);
		assert_int_equal(gate_sa(st, &C, out, SCSI_SA_POPULATE_TOKEN), rows[r].unreg_read ? -1 : 0x18);
		assert_int_equal(gate_sa(st, &B, out, SCSI_SA_WRITE_USING_TOKEN), rows[r].reg_write ? -1 : 0x18);
		assert_int_equal(gate_sa(st, &C, out, SCSI_SA_WRITE_USING_TOKEN), rows[r].unreg_write ? -1 : 0x18);
		assert_int_equal(gate_sa(st, &C, SCSI_OP_THIRD_PARTY_COPY_IN, SCSI_SA_RECEIVE_ROD_TOKEN_INFORMATION), -1);
		/* the other reports of THIRD-PARTY COPY IN and COPY OPERATION ABORT
		 * are allowed under every type, to a stranger too (they were
		 * write-class: RESERVATION CONFLICT); RECEIVE COPY DATA is a read */
		const uint8_t in = SCSI_OP_THIRD_PARTY_COPY_IN;
		assert_int_equal(gate_sa(st, &C, in, SCSI_SA_RECEIVE_COPY_STATUS_LID1), -1);
		assert_int_equal(gate_sa(st, &C, in, SCSI_SA_RECEIVE_COPY_OPERATING_PARAMETERS), -1);
		assert_int_equal(gate_sa(st, &C, in, SCSI_SA_RECEIVE_COPY_FAILURE_DETAILS_LID1), -1);
		assert_int_equal(gate_sa(st, &C, out, SCSI_SA_COPY_OPERATION_ABORT), -1);
		assert_int_equal(gate_sa(st, &B, in, SCSI_SA_RECEIVE_COPY_DATA_LID1), rows[r].reg_read ? -1 : 0x18);
		assert_int_equal(gate_sa(st, &C, in, SCSI_SA_RECEIVE_COPY_DATA_LID1), rows[r].unreg_read ? -1 : 0x18);
		/* EXTENDED COPY stays a write */
		assert_int_equal(gate_sa(st, &C, out, SCSI_SA_EXTENDED_COPY_LID1), rows[r].unreg_write ? -1 : 0x18);
		pr_state_free(st);
	}
}

static void test_idle_lu_passes_everything(void **state)
{
	struct pr_state *st = *state;

	/* registrations alone reserve nothing */
	assert_int_equal(gate(st, &C, 0x2a, NULL), -1);
	assert_int_equal(prout(st, &A, SA_REGISTER, 0, 0, K1).status, 0);
	assert_int_equal(gate(st, &C, 0x2a, NULL), -1);
	assert_int_equal(gate(st, &C, 0x28, NULL), -1);
}

static void test_unit_attention_queue(void **state)
{
	struct pr_state *st = *state;
	struct pr_answer a;
	uint8_t cdb[6] = { SCSI_OP_REQUEST_SENSE, 0, 0, 0, 252, 0 };
	uint8_t buf[252];

	assert_int_equal(prout(st, &A, SA_REGISTER, 0, 0, K1).status, 0);
	assert_int_equal(prout(st, &A2, SA_REGISTER, 0, 0, K2).status, 0);
	assert_int_equal(prout(st, &B, SA_REGISTER, 0, 0, 0x33).status, 0);
	assert_int_equal(prout(st, &A, SA_RESERVE, PR_TYPE_WE_RO, K1, 0).status, 0);
	assert_int_equal(prout(st, &A, SA_RELEASE, PR_TYPE_WE_RO, K1, 0).status, 0);
	assert_int_equal(prout(st, &A, SA_RESERVE, PR_TYPE_WE_RO, K1, 0).status, 0);
	assert_int_equal(prout(st, &A, SA_RELEASE, PR_TYPE_WE_RO, K1, 0).status, 0);
	/* twice RELEASED for A2: queued once; INQUIRY and REPORT LUNS pass it by */
	assert_int_equal(gate(st, &A2, 0x12, NULL), -1);
	assert_int_equal(gate(st, &A2, 0xa0, NULL), -1);
	/* any other command gets it: CHECK CONDITION 06/2A/04 */
	assert_int_equal(gate(st, &A2, 0x28, &a), 0x02);
	assert_check(&a, SCSI_SK_UNIT_ATTENTION, SCSI_ASC_RESERVATIONS_RELEASED);
	assert_int_equal(gate(st, &A2, 0x28, NULL), -1);
	/* REQUEST SENSE: the unit attention is its data, status GOOD */
	assert_true(pr_gate(st, cdb, sizeof(cdb), &B, buf, sizeof(buf), &a));
	assert_int_equal(a.status, 0);
	assert_int_equal(a.data_len, 18);
	assert_int_equal(buf[0], 0x70);
	assert_int_equal(buf[2], 0x06);
	assert_int_equal(buf[12], 0x2a);
	assert_int_equal(buf[13], 0x04);
	assert_false(pr_gate(st, cdb, sizeof(cdb), &B, buf, sizeof(buf), &a));
	/* the releasing port and a stranger got nothing */
	assert_int_equal(gate(st, &A, 0x00, NULL), -1);
	assert_int_equal(gate(st, &C, 0x00, NULL), -1);
}

static void test_ua_order(void **state)
{
	struct pr_state *st = *state;

	/* a registration preempted, then everything cleared: two UAs, in order */
	assert_int_equal(prout(st, &A, SA_REGISTER, 0, 0, K1).status, 0);
	assert_int_equal(prout(st, &B, SA_REGISTER, 0, 0, K2).status, 0);
	assert_int_equal(prout(st, &B, SA_PREEMPT, PR_TYPE_WE, K2, K1).status, 0);
	assert_int_equal(prout(st, &A, SA_REGISTER, 0, 0, K1).status, 0);
	assert_int_equal(prout(st, &B, SA_CLEAR, 0, K2, 0).status, 0);
	assert_int_equal(next_ua(st, &A), 0x05);
	assert_int_equal(next_ua(st, &A), 0x03);
	assert_int_equal(next_ua(st, &A), -1);
}

static void test_resets_and_nexus_loss(void **state)
{
	struct pr_state *st = *state;
	uint8_t reserve6[6] = { SCSI_OP_RESERVE_6 };
	struct pr_answer a;

	pr_execute(st, reserve6, sizeof(reserve6), &A, 1, NULL, 0, &a);
	assert_int_equal(a.status, 0);
	assert_int_equal(gate(st, &B, 0x00, NULL), 0x18);
	pr_nexus_lost(st, &A2, 1); /* another port of the same node: no effect */
	assert_int_equal(gate(st, &B, 0x00, NULL), 0x18);
	pr_nexus_lost(st, &A, 2);  /* an older session of A's port (reinstated): no effect */
	assert_int_equal(gate(st, &B, 0x00, NULL), 0x18);
	pr_nexus_lost(st, &A, 1);
	assert_int_equal(gate(st, &B, 0x00, NULL), -1);

	pr_execute(st, reserve6, sizeof(reserve6), &A, 1, NULL, 0, &a);
	assert_int_equal(gate(st, &B, 0x5f, NULL), 0x18); /* PR OUT: SCSI-2 held by A */
	pr_lun_reset(st);
	assert_int_equal(gate(st, &B, 0x2a, NULL), -1);
	/* a LUN reset leaves persistent reservations alone, a power on does not */
	assert_int_equal(prout(st, &B, SA_REGISTER, 0, 0, K2).status, 0);
	assert_int_equal(prout(st, &B, SA_RESERVE, PR_TYPE_EA, K2, 0).status, 0);
	pr_lun_reset(st);
	assert_int_equal(gate(st, &A, 0x28, NULL), 0x18);
	pr_power_on(st);
	assert_int_equal(gate(st, &A, 0x28, NULL), -1);
	assert_int_equal(pr_registrations(st), 0);
	assert_int_equal(pr_generation(st), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conflict_table),
		cmocka_unit_test_setup_teardown(test_idle_lu_passes_everything, setup, pr_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_unit_attention_queue, setup, pr_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_ua_order, setup, pr_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_resets_and_nexus_loss, setup, pr_fixture_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
