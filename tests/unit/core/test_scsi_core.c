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
#include "target/core/ua_queue.h"
#include "target/lu/alua.h"
#include "target/lu/fault_rules.h"
#include "target/lu/lu_pr.h"
#include "target/lu/lu_table.h"
#include "target/lu/power_on.h"

/* never called: the core answers or says "backend" */
static struct lu_backend be0 = { .block_size = 512 }, be_alua = { .block_size = 512, .tpgs = 1 },
			 be_explicit = { .block_size = 512, .tpgs = 3 };

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

/* REQUEST SENSE of itn to lun answers GOOD with the unit attention asc_ascq
 * as its 18 bytes of sense data (SPC-4 6.39) */
static void expect_ua_as_data(struct scsi_itn *itn, uint64_t lun, uint16_t asc_ascq)
{
	uint8_t want[18] = { 0 };
	struct run r;

	assert_int_equal(check(&r, itn, lun, SCSI_OP_REQUEST_SENSE), SCSI_CORE_ANSWERED);
	assert_int_equal(r.lc.status, SCSI_STAT_GOOD);
	assert_int_equal(r.lc.sense_len, 0);
	assert_int_equal(r.lc.data_len, 18);
	want[0] = SCSI_SENSE_FMT_FIXED_CURRENT;
	want[2] = SCSI_SK_UNIT_ATTENTION;
	want[7] = 10;
	want[12] = scsi_asc(asc_ascq);
	want[13] = scsi_ascq(asc_ascq);
	assert_memory_equal(databuf, want, 18);
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
static uint8_t prout_lun(struct scsi_itn *itn, uint64_t lun, uint8_t sa, uint8_t type, uint64_t rk, uint64_t sark)
{
	struct run r;

	memset(&r, 0, sizeof(r));
	r.lc.cdb[0] = SCSI_OP_PERSISTENT_RESERVE_OUT;
	r.lc.cdb[1] = sa;
	r.lc.cdb[2] = type;
	r.lc.cdb[8] = 24;
	r.lc.cdb_len = 16;
	r.lc.dir = LU_DIR_WRITE;
	r.cc.lc = &r.lc;
	r.cc.lun = lun;
	r.cc.edtl = 24;
	assert_int_equal(scsi_core_check(itn, &r.cc), SCSI_CORE_PROCEED);
	memset(databuf, 0, 24);
	put_be64(databuf, rk);
	put_be64(databuf + 8, sark);
	r.cc.data_out = 24;
	assert_int_equal(scsi_core_execute(itn, &r.cc, lu_table_entry(lun)->id, databuf, 24), SCSI_CORE_ANSWERED);
	return r.lc.status;
}

static uint8_t prout(struct scsi_itn *itn, uint8_t sa, uint8_t type, uint64_t rk, uint64_t sark)
{
	return prout_lun(itn, 0, sa, type, rk, sark);
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
	struct run r;

	(void)state;
	lu_power_on_arm(0);
	itn_start(&itn_c, "iqn.2026-12.org.test:c", isid_a, 3, 1);
	assert_true(lu_power_on_owed(0, itn_c.initiator, itn_c.isid));

	assert_int_equal(check(&r, &itn_c, 0, SCSI_OP_INQUIRY), SCSI_CORE_PROCEED);
	expect_ua_as_data(&itn_c, 0, SCSI_ASC_POWER_ON_OCCURRED);
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

/* The next TEST UNIT READY of itn to lun gets exactly this unit attention. */
static void expect_ua(struct scsi_itn *itn, uint64_t lun, uint16_t asc_ascq)
{
	struct run r;

	assert_int_equal(check(&r, itn, lun, SCSI_OP_TEST_UNIT_READY), SCSI_CORE_ANSWERED);
	assert_sense(&r.lc, SCSI_SK_UNIT_ATTENTION, asc_ascq);
}

static void expect_none(struct scsi_itn *itn, uint64_t lun)
{
	struct run r;

	assert_int_equal(check(&r, itn, lun, SCSI_OP_TEST_UNIT_READY), SCSI_CORE_PROCEED);
}

/* An API volume mapped to itn_b's initiator at LUN 5 (its LUN inventory
 * changes): unmapped and freed by unmap_volume. */
static struct lu_entry *map_volume(void)
{
	static struct lu_backend bev = { .block_size = 512 };
	struct lu_entry *v = lu_entry_new(&bev);
	struct lu_map_spec m = { "iqn.2026-12.org.test:b", 5, v };
	char err[128];

	assert_non_null(v);
	assert_int_equal(lu_table_set_maps(&m, 1, err, sizeof(err)), 0);
	return v;
}

static void unmap_volume(struct lu_entry *v)
{
	char err[128];

	assert_int_equal(lu_table_set_maps(NULL, 0, err, sizeof(err)), 0);
	lu_entry_free(v);
}

/* Six conditions pending at once for one I_T_L nexus, raised in a jumbled
 * order by six producers: one per command, in SAM-5's priority (reset,
 * inventory, medium, capacity, ALUA, reservations), each with its exact
 * sense bytes; then the command runs. */
static void ua_priority_order(void **state)
{
	char err[128];
	struct lu_entry *v;

	(void)state;
	/* B registered on LU 1 (before anything: the registration is GOOD) */
	assert_int_equal(prout_lun(&itn_a, 1, 0 /* REGISTER */, 0, 0, 0xa), SCSI_STAT_GOOD);
	assert_int_equal(prout_lun(&itn_b, 1, 0 /* REGISTER */, 0, 0, 0xb), SCSI_STAT_GOOD);
	/* the producers, lowest priority first */
	assert_int_equal(prout_lun(&itn_a, 1, 4 /* PREEMPT */, 3, 0xa, 0xb), SCSI_STAT_GOOD); /* 2A/05 for B */
	assert_int_equal(alua_set(lu_table_entry(1), 1, 1, ALUA_ANO, -1, 0, err, sizeof(err)), 0); /* 2A/06 */
	lu_entry_capacity_changed(lu_table_entry(1));                                                /* 2A/09 */
	lu_entry_medium_changed(lu_table_entry(1));                                                  /* 28/00 */
	v = map_volume();                                                                             /* 3F/0E */
	lu_entry_lun_reset(lu_table_entry(1));                                                       /* 29/03 */

	expect_ua(&itn_b, 1, SCSI_ASC_BUS_DEVICE_RESET);
	expect_ua(&itn_b, 1, SCSI_ASC_REPORTED_LUNS_DATA_CHANGED);
	expect_ua(&itn_b, 1, SCSI_ASC_NOT_READY_TO_READY_CHANGE);
	expect_ua(&itn_b, 1, SCSI_ASC_CAPACITY_DATA_CHANGED);
	expect_ua(&itn_b, 1, SCSI_ASC_ALUA_STATE_CHANGED);
	expect_ua(&itn_b, 1, SCSI_ASC_REGISTRATIONS_PREEMPTED);
	expect_none(&itn_b, 1);
	/* 3F/0E was the nexus's, told once: not again on its other LUs */
	expect_none(&itn_b, 0);
	expect_none(&itn_b, 5);
	/* A: the same LU events, no inventory change, no preemption of its own
	 * (it preempted); it changed nothing of ALUA through SET TARGET PORT
	 * GROUPS, so it hears of the --alua style change too */
	expect_ua(&itn_a, 1, SCSI_ASC_BUS_DEVICE_RESET);
	expect_ua(&itn_a, 1, SCSI_ASC_NOT_READY_TO_READY_CHANGE);
	expect_ua(&itn_a, 1, SCSI_ASC_CAPACITY_DATA_CHANGED);
	expect_ua(&itn_a, 1, SCSI_ASC_ALUA_STATE_CHANGED);
	expect_none(&itn_a, 1);
	unmap_volume(v);
}

/* A power on covers what was pending before it (SAM-5 6.3.1): a LUN reset
 * and the reservation conditions go, the power on is reported once per
 * initiator port, then what comes after it. */
static void power_on_first_and_covers(void **state)
{
	(void)state;
	assert_int_equal(prout(&itn_a, 0 /* REGISTER */, 0, 0, 0xa), SCSI_STAT_GOOD);
	assert_int_equal(prout(&itn_b, 0 /* REGISTER */, 0, 0, 0xb), SCSI_STAT_GOOD);
	assert_int_equal(prout(&itn_a, 4 /* PREEMPT */, 3, 0xa, 0xb), SCSI_STAT_GOOD); /* 2A/05 for B */
	lu_entry_lun_reset(lu_table_entry(0));
	lu_power_on_arm(0);
	lu_entry_capacity_changed(lu_table_entry(0));
	expect_ua(&itn_b, 0, SCSI_ASC_POWER_ON_OCCURRED);
	expect_ua(&itn_b, 0, SCSI_ASC_CAPACITY_DATA_CHANGED);
	expect_none(&itn_b, 0);
	/* LU 1 had no power on */
	expect_none(&itn_b, 1);
}

/* SAM-5 5.14 / SPC-4 6.39 / 6.33: INQUIRY and REPORT LUNS never take one;
 * REQUEST SENSE takes a reservation condition as its data (GOOD, exact
 * bytes) but leaves a capacity change pending; REPORT LUNS clears the
 * nexus's 3F/0E. */
static void ua_exceptions_request_sense_report_luns(void **state)
{
	struct lu_entry *v;
	struct run r;

	(void)state;
	assert_int_equal(prout(&itn_a, 0 /* REGISTER */, 0, 0, 0xa), SCSI_STAT_GOOD);
	assert_int_equal(prout(&itn_b, 0 /* REGISTER */, 0, 0, 0xb), SCSI_STAT_GOOD);
	/* releasing a registrants-only reservation tells the other registrants */
	assert_int_equal(prout(&itn_a, 1 /* RESERVE */, 5 /* WRITE EXCLUSIVE - RO */, 0xa, 0), SCSI_STAT_GOOD);
	assert_int_equal(prout(&itn_a, 2 /* RELEASE */, 5, 0xa, 0), SCSI_STAT_GOOD); /* 2A/04 for B */
	lu_entry_capacity_changed(lu_table_entry(0));
	assert_int_equal(check(&r, &itn_b, 0, SCSI_OP_INQUIRY), SCSI_CORE_PROCEED);
	expect_ua_as_data(&itn_b, 0, SCSI_ASC_RESERVATIONS_RELEASED);
	/* the capacity change is not REQUEST SENSE's: the backend answers it */
	assert_int_equal(check(&r, &itn_b, 0, SCSI_OP_REQUEST_SENSE), SCSI_CORE_PROCEED);
	expect_ua(&itn_b, 0, SCSI_ASC_CAPACITY_DATA_CHANGED);
	expect_none(&itn_b, 0);

	/* 3F/0E: REPORT LUNS answers without it and clears it (SPC-4 6.33) */
	v = map_volume();
	assert_int_equal(check(&r, &itn_b, 0, SCSI_OP_REPORT_LUNS), SCSI_CORE_ANSWERED);
	assert_int_equal(r.lc.status, SCSI_STAT_GOOD);
	assert_int_equal(get_be32(databuf), 24); /* LUNs 0, 1 and 5 */
	expect_none(&itn_b, 0);
	expect_none(&itn_b, 5);
	unmap_volume(v);
}

/* Each I_T_L nexus has its own queue: a condition taken by one is still
 * pending for the others; a second session of the same initiator name
 * with another ISID is another nexus; the port that sent SET TARGET PORT
 * GROUPS does not get its 2A/06; a nexus that starts after an event owes
 * nothing of it; a condition posted twice is reported once. */
static void ua_per_nexus(void **state)
{
	static const uint8_t list[8] = { 0, 0, 0, 0, 0x02 /* standby */, 0, 0, 2 };
	struct scsi_itn itn_a2, late;
	struct run r;

	(void)state;
	itn_start(&itn_a2, itn_a.initiator, isid_b, 4, 1);
	lu_entry_capacity_changed(lu_table_entry(0));
	lu_entry_capacity_changed(lu_table_entry(0)); /* folded into the pending one */
	expect_ua(&itn_a, 0, SCSI_ASC_CAPACITY_DATA_CHANGED);
	expect_none(&itn_a, 0);
	expect_none(&itn_a, 1); /* another LU: another nexus */
	expect_ua(&itn_a2, 0, SCSI_ASC_CAPACITY_DATA_CHANGED);
	expect_none(&itn_a2, 0);
	itn_start(&late, "iqn.2026-12.org.test:late", isid_a, 5, 1);
	expect_none(&late, 0);

	/* SET TARGET PORT GROUPS from A on an LU with explicit ALUA (a new
	 * LUN 2: first the nexuses' 3F/0E): B hears 2A/06, A does not */
	assert_int_equal(lu_table_add(&be_explicit), 2);
	expect_ua(&itn_a, 0, SCSI_ASC_REPORTED_LUNS_DATA_CHANGED);
	expect_ua(&itn_b, 0, SCSI_ASC_REPORTED_LUNS_DATA_CHANGED);
	memset(&r, 0, sizeof(r));
	r.lc.cdb[0] = SCSI_OP_MAINTENANCE_OUT;
	r.lc.cdb[1] = SCSI_SA_SET_TARGET_PORT_GROUPS;
	put_be32(r.lc.cdb + 6, sizeof(list));
	r.lc.cdb_len = 16;
	r.lc.dir = LU_DIR_WRITE;
	r.cc.lc = &r.lc;
	r.cc.lun = 2;
	r.cc.edtl = sizeof(list);
	assert_int_equal(scsi_core_check(&itn_a, &r.cc), SCSI_CORE_PROCEED);
	memcpy(databuf, list, sizeof(list));
	r.cc.data_out = sizeof(list);
	assert_int_equal(scsi_core_execute(&itn_a, &r.cc, lu_table_entry(2)->id, databuf, sizeof(list)),
			 SCSI_CORE_ANSWERED);
	assert_int_equal(r.lc.status, SCSI_STAT_GOOD);
	assert_int_equal(alua_state_of(lu_table_entry(2), 2, 2, NULL), ALUA_STANDBY);
	expect_none(&itn_a, 2);
	expect_ua(&itn_b, 2, SCSI_ASC_ALUA_STATE_CHANGED);
	scsi_core_itn_free(&itn_a2);
	scsi_core_itn_free(&late);
}

/* The store itself (ua_queue.h): the reservation conditions share a
 * priority and leave in posting order; a kind above them overtakes them;
 * a port's take does not touch another port's; the cached generation
 * skips the lock only while nothing was posted. */
static void ua_queue_store(void **state)
{
	struct ua_queue *q = ua_queue_new();
	uint64_t p1 = ua_port_key("iqn.x:1", isid_a), p2 = ua_port_key("iqn.x:1", isid_b), seen = 0;
	enum ua_kind k;

	(void)state;
	assert_non_null(q);
	assert_true(p1 != p2);
	ua_queue_attach(q, p1);
	ua_queue_attach(q, p2);
	assert_false(ua_queue_take(q, p1, UA_ALL, &seen, &k));
	assert_true(seen != 0);
	assert_false(ua_queue_take(q, p1, UA_ALL, &seen, &k)); /* cached */
	ua_queue_post_port(q, p1, UA_RES_RELEASED);
	ua_queue_post_port(q, p1, UA_RES_PREEMPTED);
	ua_queue_post_all(q, UA_CAPACITY, p2); /* everyone but p2 */
	assert_true(ua_queue_take(q, p1, UA_ALL, &seen, &k));
	assert_int_equal(k, UA_CAPACITY);
	assert_true(ua_queue_take(q, p1, UA_ALL, &seen, &k));
	assert_int_equal(k, UA_RES_RELEASED); /* posted first */
	assert_true(ua_queue_take(q, p1, UA_ALL, &seen, &k));
	assert_int_equal(k, UA_RES_PREEMPTED);
	assert_false(ua_queue_take(q, p1, UA_ALL, &seen, &k));
	assert_false(ua_queue_take(q, p2, UA_ALL, NULL, &k));
	assert_int_equal(ua_queue_posted(q, UA_CAPACITY), 1);
	assert_int_equal(ua_kind_asc(UA_ALUA), SCSI_ASC_ALUA_STATE_CHANGED);
	assert_int_equal(ua_kind_of(SCSI_ASC_REGISTRATIONS_PREEMPTED), UA_REG_PREEMPTED);
	assert_int_equal(ua_kind_of(SCSI_ASC_LU_NOT_SUPPORTED), UA_KIND_N);
	ua_queue_free(q);
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
		cmocka_unit_test_setup_teardown(ua_priority_order, setup, teardown),
		cmocka_unit_test_setup_teardown(power_on_first_and_covers, setup, teardown),
		cmocka_unit_test_setup_teardown(ua_exceptions_request_sense_report_luns, setup, teardown),
		cmocka_unit_test_setup_teardown(ua_per_nexus, setup, teardown),
		cmocka_unit_test(ua_queue_store),
		cmocka_unit_test(state_transitions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
