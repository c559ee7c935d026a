/* test_lu_pr.c — the transport's door to the reservations (target/lu/
 * lu_pr.c): a struct lu_cmd's initiator name + ISID is the port, each LUN
 * has its own state, and nexus loss / resets reach every LU. */
#include "lunlab/scsi_vocab.h"
#include "pr_test_util.h"

#include "target/lu/lu_pr.h"
#include "target/lu/lu_table.h"

static struct lu_backend be0, be1; /* never called: the LU layer answers */

static int setup(void **state)
{
	(void)state;
	lu_table_reset();
	assert_int_equal(lu_table_add(&be0), 0);
	assert_int_equal(lu_table_add(&be1), 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	lu_table_reset();
	return 0;
}

static void cmd_init(struct lu_cmd *lc, uint64_t lun, const char *iqn, uint8_t isid_last,
		     uint64_t nexus, uint8_t op)
{
	memset(lc, 0, sizeof(*lc));
	lc->lun = lun;
	lc->initiator = iqn;
	lc->isid[0] = 0x80;
	lc->isid[5] = isid_last;
	lc->nexus_id = nexus;
	lc->cdb[0] = op;
	lc->cdb_len = 16; /* as the iSCSI transport gives it */
}

static uint8_t run(uint64_t lun, const char *iqn, uint8_t isid_last, uint64_t nexus, uint8_t op)
{
	struct lu_cmd lc;
	struct pr_answer a;
	uint8_t buf[64];

	cmd_init(&lc, lun, iqn, isid_last, nexus, op);
	if (lu_pr_gate(&lc, buf, sizeof(buf), &a))
		return a.status;
	if (!pr_owns_opcode(op))
		return 0xff; /* would reach the backend */
	lu_pr_execute(&lc, NULL, 0, &a);
	return a.status;
}

static void test_port_is_name_and_isid(void **state)
{
	(void)state;
	assert_int_equal(run(0, "iqn.x:a", 1, 10, 0x16), 0x00); /* RESERVE(6) on LUN 0 */
	assert_int_equal(run(0, "iqn.x:a", 1, 10, 0x2a), 0xff); /* the holder writes */
	assert_int_equal(run(0, "iqn.x:a", 2, 11, 0x2a), 0x18); /* same name, other ISID */
	assert_int_equal(run(0, "iqn.x:b", 1, 12, 0x2a), 0x18); /* other name, same ISID */
	/* LUN 1 is not reserved */
	assert_int_equal(run(1, "iqn.x:b", 1, 12, 0x2a), 0xff);
	/* a LUN that does not exist: nothing to gate; executing it is 05/25/00 */
	{
		struct lu_cmd lc;
		struct pr_answer a;

		cmd_init(&lc, 7, "iqn.x:b", 1, 12, 0x5e);
		assert_false(lu_pr_gate(&lc, NULL, 0, &a));
		lu_pr_execute(&lc, NULL, 0, &a);
		assert_check(&a, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_LU_NOT_SUPPORTED);
	}
}

static void test_nexus_loss_every_lu(void **state)
{
	(void)state;
	assert_int_equal(run(0, "iqn.x:a", 1, 10, 0x16), 0x00);
	assert_int_equal(run(1, "iqn.x:a", 1, 10, 0x16), 0x00);
	lu_pr_nexus_lost("iqn.x:a", (const uint8_t[6]){ 0x80, 0, 0, 0, 0, 1 }, 99); /* other session */
	assert_int_equal(run(0, "iqn.x:b", 1, 12, 0x2a), 0x18);
	lu_pr_nexus_lost("iqn.x:a", (const uint8_t[6]){ 0x80, 0, 0, 0, 0, 1 }, 10);
	assert_int_equal(run(0, "iqn.x:b", 1, 12, 0x2a), 0xff);
	assert_int_equal(run(1, "iqn.x:b", 1, 12, 0x2a), 0xff);
}

static void test_resets(void **state)
{
	(void)state;
	assert_int_equal(run(0, "iqn.x:a", 1, 10, 0x16), 0x00);
	assert_int_equal(run(1, "iqn.x:a", 1, 10, 0x16), 0x00);
	lu_pr_lun_reset(1);
	assert_int_equal(run(0, "iqn.x:b", 1, 12, 0x2a), 0x18);
	assert_int_equal(run(1, "iqn.x:b", 1, 12, 0x2a), 0xff);
	lu_pr_target_reset(false);
	assert_int_equal(run(0, "iqn.x:b", 1, 12, 0x2a), 0xff);
	/* a persistent reservation survives a warm reset, not a cold one */
	{
		struct pr_port a;

		pr_port_set(&a, "iqn.x:a", (const uint8_t[6]){ 0x80, 0, 0, 0, 0, 1 });
		assert_int_equal(prout(lu_table_pr(0), &a, SA_REGISTER, 0, 0, 5).status, 0);
		assert_int_equal(prout(lu_table_pr(0), &a, SA_RESERVE, PR_TYPE_EA, 5, 0).status, 0);
	}
	lu_pr_target_reset(false);
	assert_int_equal(run(0, "iqn.x:b", 1, 12, 0x28), 0x18);
	lu_pr_target_reset(true);
	assert_int_equal(run(0, "iqn.x:b", 1, 12, 0x28), 0xff);
	assert_int_equal(pr_registrations(lu_table_pr(0)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_port_is_name_and_isid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nexus_loss_every_lu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resets, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
