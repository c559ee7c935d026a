/* test_scsi_core.c — the SCSI core's check order (target/core/scsi_core.c)
 * on the real LU table, reservations, ALUA and fault rules: a unit
 * attention comes before a reservation conflict (SAM-5 5.14), INQUIRY,
 * REPORT LUNS and REQUEST SENSE pass a pending unit attention, a standby
 * port refuses what SPC-4 5.15.2.4.4 does not allow, a missing LUN gets
 * 05/25/00 or peripheral qualifier 011b, and a fault rule acts only on a
 * command every other check let through.  Sense data is compared byte for
 * byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"
#include "target/core/scsi_cmd_state.h"
#include "target/core/scsi_core.h"
#include "target/lu/alua.h"
#include "target/lu/fault_rules.h"
#include "target/lu/lu_pr.h"
#include "target/lu/lu_table.h"
#include "target/lu/power_on.h"

/* never called: the core answers or says "backend" */
static struct lu_backend be0 = { .block_size = 512 }, be_alua = { .block_size = 512, .tpgs = 1 };

/* the transport's side: one Data-In buffer per command */
static uint8_t databuf[4096];
static size_t buffer_calls;

static bool test_buffer(void *tcmd, size_t want, uint8_t **buf, size_t *len)
{
	(void)tcmd;
	buffer_calls++;
	if (want == 0)
		return true;
	*buf = databuf;
	*len = want == SCSI_CORE_WANT_ANSWER ? sizeof(databuf) : (want < sizeof(databuf) ? want : sizeof(databuf));
	return true;
}

static void test_log(const char *fmt, ...)
{
	(void)fmt;
}

static const struct scsi_core_ops ops = { .buffer = test_buffer, .log = test_log };

static const uint8_t isid_a[6] = { 0x80, 0, 0, 0, 0, 1 }, isid_b[6] = { 0x80, 0, 0, 0, 0, 2 };
static struct scsi_itn itn_a, itn_b;

static void itn_start(struct scsi_itn *itn, const char *iqn, const uint8_t *isid, uint64_t nexus, uint16_t tpg)
{
	memset(itn, 0, sizeof(*itn));
	itn->ops = &ops;
	itn->initiator = iqn;
	itn->isid = isid;
	itn->nexus_id = nexus;
	itn->tpg = tpg;
	scsi_core_itn_start(itn);
}

static int setup(void **state)
{
	static const uint16_t groups[] = { 1, 2 };

	(void)state;
	lu_table_reset();
	alua_reset();
	alua_set_groups(groups, 2);
	fault_rules_clear();
	assert_int_equal(lu_table_add(&be0), 0);
	assert_int_equal(lu_table_add(&be_alua), 1);
	itn_start(&itn_a, "iqn.2026-12.org.test:a", isid_a, 1, 1);
	itn_start(&itn_b, "iqn.2026-12.org.test:b", isid_b, 2, 2);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	scsi_core_itn_free(&itn_a);
	scsi_core_itn_free(&itn_b);
	fault_rules_clear();
	alua_reset();
	lu_table_reset();
	return 0;
}

struct run {
	struct lu_cmd lc;
	struct scsi_core_cmd cc;
};

static enum scsi_core_verdict check(struct run *r, struct scsi_itn *itn, uint64_t lun, uint8_t op)
{
	memset(r, 0, sizeof(*r));
	memset(databuf, 0xee, sizeof(databuf));
	r->lc.cdb[0] = op;
	r->lc.cdb_len = 16;
	switch (op) {
	case SCSI_OP_INQUIRY: case SCSI_OP_REQUEST_SENSE:
		r->lc.cdb[4] = 96; /* allocation length */
		r->lc.dir = LU_DIR_READ;
		break;
	case SCSI_OP_REPORT_LUNS:
		put_be32(r->lc.cdb + 6, 64);
		r->lc.dir = LU_DIR_READ;
		break;
	case SCSI_OP_MAINTENANCE_IN:
		r->lc.cdb[1] = SCSI_SA_REPORT_TARGET_PORT_GROUPS;
		put_be32(r->lc.cdb + 6, 64);
		r->lc.dir = LU_DIR_READ;
		break;
	case SCSI_OP_READ_10:
		r->lc.cdb[8] = 1; /* one block */
		r->lc.dir = LU_DIR_READ;
		break;
	case SCSI_OP_WRITE_10:
		r->lc.cdb[8] = 1;
		r->lc.dir = LU_DIR_WRITE;
		break;
	default:
		break;
	}
	r->cc.lc = &r->lc;
	r->cc.lun = lun;
	r->cc.attr = SCSI_TASK_SIMPLE;
	r->cc.edtl = r->lc.dir == LU_DIR_NONE ? 0 : 512;
	return scsi_core_check(itn, &r->cc);
}

/* 18 bytes of fixed-format current sense, key/ASC/ASCQ (SPC-4 4.5.3) */
static void assert_sense(const struct lu_cmd *lc, uint8_t key, uint16_t asc_ascq)
{
	uint8_t want[18] = { 0 };

	want[0] = SCSI_SENSE_FMT_FIXED_CURRENT;
	want[2] = key;
	want[7] = 10;
	want[12] = scsi_asc(asc_ascq);
	want[13] = scsi_ascq(asc_ascq);
	assert_int_equal(lc->status, SCSI_STAT_CHECK_CONDITION);
	assert_int_equal(lc->sense_len, 18);
	assert_memory_equal(lc->sense, want, 18);
}

/* SAM-5 5.14 / LIO's order: a command meeting both a unit attention and a
 * reservation it may not pass gets the unit attention first; the next one
 * gets RESERVATION CONFLICT, with no sense data. */
static void ua_before_reservation_conflict(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(check(&r, &itn_a, 0, SCSI_OP_RESERVE_6), SCSI_CORE_ANSWERED);
	assert_int_equal(r.lc.status, SCSI_STAT_GOOD);
	lu_entry_capacity_changed(lu_table_entry(0)); /* 06/2A/09 for both nexuses */

	assert_int_equal(check(&r, &itn_b, 0, SCSI_OP_WRITE_10), SCSI_CORE_ANSWERED);
	assert_sense(&r.lc, SCSI_SK_UNIT_ATTENTION, SCSI_ASC_CAPACITY_DATA_CHANGED);
	assert_int_equal(check(&r, &itn_b, 0, SCSI_OP_WRITE_10), SCSI_CORE_ANSWERED);
	assert_int_equal(r.lc.status, SCSI_STAT_RESERVATION_CONFLICT);
	assert_int_equal(r.lc.sense_len, 0);
	/* the holder: its own unit attention, then the backend */
	assert_int_equal(check(&r, &itn_a, 0, SCSI_OP_WRITE_10), SCSI_CORE_ANSWERED);
	assert_sense(&r.lc, SCSI_SK_UNIT_ATTENTION, SCSI_ASC_CAPACITY_DATA_CHANGED);
	assert_int_equal(check(&r, &itn_a, 0, SCSI_OP_WRITE_10), SCSI_CORE_PROCEED);
	assert_ptr_equal(r.cc.be, &be0);
	/* an LU the reservation does not cover */
	assert_int_equal(check(&r, &itn_b, 1, SCSI_OP_READ_10), SCSI_CORE_PROCEED);
}

/* PERSISTENT RESERVE OUT through the core: delivered (PROCEED: it waits
 * for its Data-Out), then executed with its 24-byte parameter list. */
static uint8_t prout(struct scsi_itn *itn, uint8_t sa, uint8_t type, uint64_t rk, uint64_t sark)
{
	struct run r;

	memset(&r, 0, sizeof(r));
	r.lc.cdb[0] = SCSI_OP_PERSISTENT_RESERVE_OUT;
	r.lc.cdb[1] = sa;
	r.lc.cdb[2] = type;
	r.lc.cdb[8] = 24;
	r.lc.dir = LU_DIR_WRITE;
	r.cc.lc = &r.lc;
	r.cc.lun = 0;
	r.cc.edtl = 24;
	assert_int_equal(scsi_core_check(itn, &r.cc), SCSI_CORE_PROCEED);
	memset(databuf, 0, 24);
	put_be64(databuf, rk);
	put_be64(databuf + 8, sark);
	r.cc.data_out = 24;
	assert_int_equal(scsi_core_execute(itn, &r.cc, lu_table_entry(0)->id, databuf, 24), SCSI_CORE_ANSWERED);
	return r.lc.status;
}

/* The same with a persistent reservation: B's registration preempted by A
 * (EXCLUSIVE ACCESS): B's next command gets 06/2A/05 REGISTRATIONS
 * PREEMPTED, the one after RESERVATION CONFLICT. */
static void pr_ua_before_conflict(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(prout(&itn_a, 0 /* REGISTER */, 0, 0, 0xa), SCSI_STAT_GOOD);
	assert_int_equal(prout(&itn_b, 0 /* REGISTER */, 0, 0, 0xb), SCSI_STAT_GOOD);
	assert_int_equal(prout(&itn_a, 1 /* RESERVE */, 3 /* EXCLUSIVE ACCESS */, 0xa, 0), SCSI_STAT_GOOD);
	assert_int_equal(prout(&itn_a, 4 /* PREEMPT */, 3, 0xa, 0xb), SCSI_STAT_GOOD);

	assert_int_equal(check(&r, &itn_b, 0, SCSI_OP_READ_10), SCSI_CORE_ANSWERED);
	assert_sense(&r.lc, SCSI_SK_UNIT_ATTENTION, SCSI_ASC_REGISTRATIONS_PREEMPTED);
	assert_int_equal(check(&r, &itn_b, 0, SCSI_OP_READ_10), SCSI_CORE_ANSWERED);
	assert_int_equal(r.lc.status, SCSI_STAT_RESERVATION_CONFLICT);
	assert_int_equal(r.lc.sense_len, 0);
	assert_int_equal(check(&r, &itn_a, 0, SCSI_OP_READ_10), SCSI_CORE_PROCEED);
}

/* SAM-5 5.14: INQUIRY, REPORT LUNS and REQUEST SENSE neither get nor clear
 * a pending unit attention; the next other command gets it. */
static void ua_exceptions(void **state)
{
	struct run r;

	(void)state;
	lu_entry_capacity_changed(lu_table_entry(0));
	assert_int_equal(check(&r, &itn_b, 0, SCSI_OP_INQUIRY), SCSI_CORE_PROCEED);
	assert_int_equal(check(&r, &itn_b, 0, SCSI_OP_REQUEST_SENSE), SCSI_CORE_PROCEED);
	/* REPORT LUNS: the target's own answer, LUNs 0 and 1 */
	assert_int_equal(check(&r, &itn_b, 0, SCSI_OP_REPORT_LUNS), SCSI_CORE_ANSWERED);
	assert_int_equal(r.lc.status, SCSI_STAT_GOOD);
	assert_int_equal(r.lc.data_len, 24);
	assert_int_equal(get_be32(databuf), 16);
	assert_int_equal(get_be64(databuf + 8), 0);
	assert_int_equal(get_be64(databuf + 16), (uint64_t)1 << 48);
	/* still pending: the first other command gets it, once */
	assert_int_equal(check(&r, &itn_b, 0, SCSI_OP_TEST_UNIT_READY), SCSI_CORE_ANSWERED);
	assert_sense(&r.lc, SCSI_SK_UNIT_ATTENTION, SCSI_ASC_CAPACITY_DATA_CHANGED);
	assert_int_equal(check(&r, &itn_b, 0, SCSI_OP_TEST_UNIT_READY), SCSI_CORE_PROCEED);
}

/* A power on is REQUEST SENSE's sense data (GOOD), and INQUIRY does not
 * take it (SPC-4 6.39, SAM-5 5.14). */
static void power_on_as_request_sense_data(void **state)
{
	struct scsi_itn itn_c;
	uint8_t want[18] = { 0 };
	struct run r;

	(void)state;
	lu_power_on_arm(0);
	itn_start(&itn_c, "iqn.2026-12.org.test:c", isid_a, 3, 1);
	assert_true(lu_power_on_owed(0, itn_c.initiator, itn_c.isid));

	assert_int_equal(check(&r, &itn_c, 0, SCSI_OP_INQUIRY), SCSI_CORE_PROCEED);
	assert_int_equal(check(&r, &itn_c, 0, SCSI_OP_REQUEST_SENSE), SCSI_CORE_ANSWERED);
	assert_int_equal(r.lc.status, SCSI_STAT_GOOD);
	assert_int_equal(r.lc.sense_len, 0);
	assert_int_equal(r.lc.data_len, 18);
	want[0] = SCSI_SENSE_FMT_FIXED_CURRENT;
	want[2] = SCSI_SK_UNIT_ATTENTION;
	want[7] = 10;
	want[12] = scsi_asc(SCSI_ASC_POWER_ON_OCCURRED);
	want[13] = scsi_ascq(SCSI_ASC_POWER_ON_OCCURRED);
	assert_memory_equal(databuf, want, 18);
	/* told: nothing more */
	assert_int_equal(check(&r, &itn_c, 0, SCSI_OP_TEST_UNIT_READY), SCSI_CORE_PROCEED);
	scsi_core_itn_free(&itn_c);
}

/* SPC-4 5.15.2.4.4: a standby port answers INQUIRY, REQUEST SENSE, REPORT
 * TARGET PORT GROUPS, MODE SENSE...; READ and WRITE get 02/04/0B.  A port
 * of the active/optimized group passes them. */
static void alua_standby(void **state)
{
	char err[128];
	struct run r;

	(void)state;
	assert_int_equal(alua_set(lu_table_entry(1), 1, 2, ALUA_STANDBY, -1, 0, err, sizeof(err)), 0);
	/* the change is a unit attention for both nexuses first (06/2A/06) */
	assert_int_equal(check(&r, &itn_b, 1, SCSI_OP_READ_10), SCSI_CORE_ANSWERED);
	assert_sense(&r.lc, SCSI_SK_UNIT_ATTENTION, SCSI_ASC_ALUA_STATE_CHANGED);

	assert_int_equal(check(&r, &itn_b, 1, SCSI_OP_READ_10), SCSI_CORE_ANSWERED);
	assert_sense(&r.lc, SCSI_SK_NOT_READY, SCSI_ASC_LU_NOT_ACCESSIBLE_STANDBY);
	assert_int_equal(check(&r, &itn_b, 1, SCSI_OP_WRITE_10), SCSI_CORE_ANSWERED);
	assert_sense(&r.lc, SCSI_SK_NOT_READY, SCSI_ASC_LU_NOT_ACCESSIBLE_STANDBY);
	assert_int_equal(check(&r, &itn_b, 1, SCSI_OP_INQUIRY), SCSI_CORE_PROCEED);
	assert_int_equal(check(&r, &itn_b, 1, SCSI_OP_REQUEST_SENSE), SCSI_CORE_PROCEED);
	assert_int_equal(check(&r, &itn_b, 1, SCSI_OP_MODE_SENSE_6), SCSI_CORE_PROCEED);
	/* REPORT TARGET PORT GROUPS: answered by the core, group 2 standby */
	assert_int_equal(check(&r, &itn_b, 1, SCSI_OP_MAINTENANCE_IN), SCSI_CORE_ANSWERED);
	assert_int_equal(r.lc.status, SCSI_STAT_GOOD);
	assert_true(r.lc.data_len >= 4 + 8);
	/* the other port (group 1, active/optimized) reads */
	assert_int_equal(check(&r, &itn_a, 1, SCSI_OP_READ_10), SCSI_CORE_ANSWERED); /* its 06/2A/06 */
	assert_sense(&r.lc, SCSI_SK_UNIT_ATTENTION, SCSI_ASC_ALUA_STATE_CHANGED);
	assert_int_equal(check(&r, &itn_a, 1, SCSI_OP_READ_10), SCSI_CORE_PROCEED);
	/* an LU without ALUA is not filtered */
	assert_int_equal(check(&r, &itn_b, 0, SCSI_OP_READ_10), SCSI_CORE_PROCEED);
}

/* A LUN nobody mapped: 05/25/00, INQUIRY with peripheral qualifier 011b
 * (SPC-4 6.6.2), REPORT LUNS still the nexus's list. */
static void lun_missing(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(check(&r, &itn_b, 9, SCSI_OP_TEST_UNIT_READY), SCSI_CORE_ANSWERED);
	assert_sense(&r.lc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_LU_NOT_SUPPORTED);
	assert_null(r.cc.be);
	assert_int_equal(check(&r, &itn_b, 9, SCSI_OP_READ_10), SCSI_CORE_ANSWERED);
	assert_sense(&r.lc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_LU_NOT_SUPPORTED);
	assert_int_equal(check(&r, &itn_b, 9, SCSI_OP_INQUIRY), SCSI_CORE_ANSWERED);
	assert_int_equal(r.lc.status, SCSI_STAT_GOOD);
	assert_int_equal(databuf[0], 0x7f); /* PQ 011b, device type 1Fh */
	assert_int_equal(check(&r, &itn_b, 9, SCSI_OP_REPORT_LUNS), SCSI_CORE_ANSWERED);
	assert_int_equal(r.lc.status, SCSI_STAT_GOOD);
	assert_int_equal(get_be32(databuf), 16);
	/* an undecodable LUN field is a missing LUN */
	assert_int_equal(check(&r, &itn_b, UINT64_MAX, SCSI_OP_TEST_UNIT_READY), SCSI_CORE_ANSWERED);
	assert_sense(&r.lc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_LU_NOT_SUPPORTED);
}

/* A fault rule is the last check: a unit attention and a reservation
 * conflict win over it; a command that passes them meets it before its
 * backend. */
static void fault_rule_after_the_others(void **state)
{
	char err[128] = "";
	struct run r;

	(void)state;
	assert_true(fault_rules_add("lun=0,sense=03/11/00", err, sizeof(err)) > 0);
	assert_int_equal(check(&r, &itn_a, 0, SCSI_OP_RESERVE_6), SCSI_CORE_ANSWERED);
	assert_int_equal(r.lc.status, SCSI_STAT_GOOD);
	lu_entry_capacity_changed(lu_table_entry(0));

	assert_int_equal(check(&r, &itn_b, 0, SCSI_OP_READ_10), SCSI_CORE_ANSWERED);
	assert_sense(&r.lc, SCSI_SK_UNIT_ATTENTION, SCSI_ASC_CAPACITY_DATA_CHANGED);
	assert_int_equal(check(&r, &itn_b, 0, SCSI_OP_READ_10), SCSI_CORE_ANSWERED);
	assert_int_equal(r.lc.status, SCSI_STAT_RESERVATION_CONFLICT);

	assert_int_equal(check(&r, &itn_a, 0, SCSI_OP_READ_10), SCSI_CORE_ANSWERED);
	assert_sense(&r.lc, SCSI_SK_UNIT_ATTENTION, SCSI_ASC_CAPACITY_DATA_CHANGED);
	assert_int_equal(check(&r, &itn_a, 0, SCSI_OP_READ_10), SCSI_CORE_PROCEED);
	assert_int_equal(scsi_core_execute(&itn_a, &r.cc, lu_table_entry(0)->id, databuf, 512), SCSI_CORE_FAULT);
	assert_int_equal(r.cc.fault.action, FAULT_ACT_SENSE);
	assert_int_equal(r.cc.fault.key, SCSI_SK_MEDIUM_ERROR);
	assert_int_equal(scsi_asc_pair(r.cc.fault.asc, r.cc.fault.ascq), SCSI_ASC_UNRECOVERED_READ_ERROR);
	/* LUN 1 has no rule: straight to the backend */
	assert_int_equal(check(&r, &itn_a, 1, SCSI_OP_READ_10), SCSI_CORE_PROCEED);
	assert_int_equal(scsi_core_execute(&itn_a, &r.cc, lu_table_entry(1)->id, databuf, 512), SCSI_CORE_BACKEND);
}

/* A write whose LU went away while its Data-Out travelled: 05/25/00. */
static void lu_gone_before_execute(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(check(&r, &itn_a, 0, SCSI_OP_WRITE_10), SCSI_CORE_PROCEED);
	r.cc.data_out = 512;
	assert_int_equal(scsi_core_execute(&itn_a, &r.cc, lu_table_entry(0)->id + 1000, databuf, 512),
			 SCSI_CORE_ANSWERED);
	assert_sense(&r.lc, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_LU_NOT_SUPPORTED);
	assert_int_equal(scsi_core_execute(&itn_a, &r.cc, lu_table_entry(0)->id, databuf, 512), SCSI_CORE_BACKEND);
}

/* The task states: the documented transitions and no others. */
static void state_transitions(void **state)
{
	(void)state;
	assert_true(scsi_cmd_state_allowed(SCSI_CMD_RECEIVED, SCSI_CMD_DELIVERED));
	assert_true(scsi_cmd_state_allowed(SCSI_CMD_RECEIVED, SCSI_CMD_FINISHED));
	assert_false(scsi_cmd_state_allowed(SCSI_CMD_RECEIVED, SCSI_CMD_IN_BACKEND));
	assert_true(scsi_cmd_state_allowed(SCSI_CMD_DELIVERED, SCSI_CMD_IN_BACKEND));
	assert_true(scsi_cmd_state_allowed(SCSI_CMD_DISPATCHED, SCSI_CMD_IN_BACKEND));
	assert_false(scsi_cmd_state_allowed(SCSI_CMD_IN_BACKEND, SCSI_CMD_FINISHED));
	assert_true(scsi_cmd_state_allowed(SCSI_CMD_IN_BACKEND, SCSI_CMD_DONE));
	assert_true(scsi_cmd_state_allowed(SCSI_CMD_DONE, SCSI_CMD_FINISHED));
	assert_false(scsi_cmd_state_allowed(SCSI_CMD_FINISHED, SCSI_CMD_RECEIVED));
	assert_false(scsi_cmd_state_allowed(SCSI_CMD_DONE, SCSI_CMD_IN_BACKEND));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(ua_before_reservation_conflict, setup, teardown),
		cmocka_unit_test_setup_teardown(pr_ua_before_conflict, setup, teardown),
		cmocka_unit_test_setup_teardown(ua_exceptions, setup, teardown),
		cmocka_unit_test_setup_teardown(power_on_as_request_sense_data, setup, teardown),
		cmocka_unit_test_setup_teardown(alua_standby, setup, teardown),
		cmocka_unit_test_setup_teardown(lun_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(fault_rule_after_the_others, setup, teardown),
		cmocka_unit_test_setup_teardown(lu_gone_before_execute, setup, teardown),
		cmocka_unit_test(state_transitions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
