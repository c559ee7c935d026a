/* test_cdb_bounds.c — every reader of a CDB in target/lu is bounded by the
 * CDB's real length, not by the longest CDB there is: REPORT LUNS, the
 * answers for a missing LUN, PERSISTENT RESERVE IN/OUT, RESERVE, the
 * reservation gate, ALUA's checks and answers, fault matching and the
 * per-LU figures each get a CDB shorter than its operation code says, in a
 * heap buffer of exactly that many bytes, so the ASan build of this test
 * fails on any read past it.  A short CDB gets a precise answer (05/24/00,
 * or nothing to report); the same command whole decodes as before. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"
#include "target/lu/alua.h"
#include "target/lu/fault_rules.h"
#include "target/lu/lu_stats.h"
#include "target/lu/lu_table.h"
#include "target/lu/pr.h"

/* n bytes of src in a buffer of exactly n bytes (ASan: nothing after it) */
static uint8_t *exact(const uint8_t *src, size_t n)
{
	uint8_t *p = malloc(n);

	assert_non_null(p);
	memcpy(p, src, n);
	return p;
}

static void assert_invalid_field(const uint8_t *sense, uint8_t sense_len)
{
	assert_int_equal(sense_len, 18);
	assert_int_equal(sense[2], SCSI_SK_ILLEGAL_REQUEST);
	assert_int_equal(scsi_asc_pair(sense[12], sense[13]), SCSI_ASC_INVALID_FIELD_IN_CDB);
}

static void report_luns_short(void **state)
{
	uint8_t whole[12] = { SCSI_OP_REPORT_LUNS }, buf[64], sense[LU_SENSE_MAX], sl = 0, *cdb;
	size_t n = 99;

	(void)state;
	put_be32(whole + 6, sizeof(buf));
	cdb = exact(whole, 9); /* its ALLOCATION LENGTH (bytes 6..9) cut */
	assert_int_equal(report_luns(cdb, 9, buf, sizeof(buf), &n, sense, &sl), SCSI_STAT_CHECK_CONDITION);
	assert_invalid_field(sense, sl);
	assert_int_equal(n, 0);
	free(cdb);
	cdb = exact(whole, 12);
	assert_int_equal(report_luns(cdb, 12, buf, sizeof(buf), &n, sense, &sl), SCSI_STAT_GOOD);
	assert_int_equal(n, 8); /* the header: no --lun LU in this table */
	free(cdb);
}

static void missing_lun_short(void **state)
{
	uint8_t inq[6] = { SCSI_OP_INQUIRY, 0x01 /* EVPD */, 0x83, 0, 96, 0 };
	uint8_t rs[6] = { SCSI_OP_REQUEST_SENSE, 0, 0, 0, 18, 0 };
	uint8_t buf[96], sense[LU_SENSE_MAX], sl = 0, st = 0xff, *cdb;
	size_t n = 99;

	(void)state;
	/* INQUIRY's opcode alone: no EVPD bit to read, no allocation length */
	cdb = exact(inq, 1);
	assert_true(lu_local_answer(cdb, 1, 7, true, buf, sizeof(buf), &n, &st, sense, &sl));
	assert_int_equal(st, SCSI_STAT_GOOD);
	assert_int_equal(n, 0);
	free(cdb);
	cdb = exact(rs, 4);
	assert_true(lu_local_answer(cdb, 4, 7, true, buf, sizeof(buf), &n, &st, sense, &sl));
	assert_int_equal(st, SCSI_STAT_GOOD);
	assert_int_equal(n, 0);
	free(cdb);
	/* whole: REQUEST SENSE's 18 bytes of 05/25/00 */
	cdb = exact(rs, 6);
	assert_true(lu_local_answer(cdb, 6, 7, true, buf, sizeof(buf), &n, &st, sense, &sl));
	assert_int_equal(n, 18);
	assert_int_equal(scsi_asc_pair(buf[12], buf[13]), SCSI_ASC_LU_NOT_SUPPORTED);
	free(cdb);
}

static void reservations_short(void **state)
{
	static const uint8_t isid[6] = { 0x80, 0, 0, 0, 0, 1 };
	uint8_t prin[10] = { SCSI_OP_PERSISTENT_RESERVE_IN, 0, 0, 0, 0, 0, 0, 0, 64, 0 };
	uint8_t prout[10] = { SCSI_OP_PERSISTENT_RESERVE_OUT, 0 /* REGISTER */, 0, 0, 0, 0, 0, 0, 24, 0 };
	uint8_t rsv6[6] = { SCSI_OP_RESERVE_6 }, sai16[16] = { SCSI_OP_SERVICE_ACTION_IN_16 };
	uint8_t par[24] = { 0 }, buf[64], *cdb;
	struct pr_state *st = pr_state_new(NULL);
	struct pr_answer a;
	struct pr_port p;

	(void)state;
	assert_non_null(st);
	pr_port_set(&p, "iqn.2026-12.org.test:a", isid);
	put_be64(par + 8, 0xa);
	cdb = exact(prin, 5);
	pr_execute(st, cdb, 5, &p, 1, buf, sizeof(buf), &a);
	assert_int_equal(a.status, SCSI_STAT_CHECK_CONDITION);
	assert_invalid_field(a.sense, a.sense_len);
	free(cdb);
	cdb = exact(prout, 9);
	pr_execute(st, cdb, 9, &p, 1, par, sizeof(par), &a);
	assert_int_equal(a.status, SCSI_STAT_CHECK_CONDITION);
	assert_int_equal(pr_registrations(st), 0);
	free(cdb);
	cdb = exact(rsv6, 2);
	pr_execute(st, cdb, 2, &p, 1, NULL, 0, &a);
	assert_int_equal(a.status, SCSI_STAT_CHECK_CONDITION);
	free(cdb);
	/* whole: the registration is made, RESERVE(6) taken */
	cdb = exact(prout, 10);
	pr_execute(st, cdb, 10, &p, 1, par, sizeof(par), &a);
	assert_int_equal(a.status, SCSI_STAT_GOOD);
	assert_int_equal(pr_registrations(st), 1);
	free(cdb);
	cdb = exact(rsv6, 6);
	pr_execute(st, cdb, 6, &p, 1, NULL, 0, &a);
	assert_int_equal(a.status, SCSI_STAT_GOOD);
	free(cdb);
	/* the gate with the reservation active: a SERVICE ACTION IN(16) cut
	 * after its opcode is not read for its service action */
	pr_port_set(&p, "iqn.2026-12.org.test:b", isid);
	cdb = exact(sai16, 1);
	assert_true(pr_conflict(st, cdb, 1, &p, &a));
	assert_int_equal(a.status, SCSI_STAT_RESERVATION_CONFLICT);
	free(cdb);
	pr_state_free(st);
}

static void alua_short(void **state)
{
	static const uint16_t groups[] = { 1, 2 };
	static struct lu_backend be = { .block_size = 512, .tpgs = 3 };
	uint8_t rtpg[12] = { SCSI_OP_MAINTENANCE_IN, SCSI_SA_REPORT_TARGET_PORT_GROUPS, 0, 0, 0, 0, 0, 0, 0, 64 };
	uint8_t inq[6] = { SCSI_OP_INQUIRY, 0x01, 0x83, 0, 96, 0 }, buf[96] = { 0 }, *cdb;
	struct lu_entry e = { .be = &be, .global = true };
	struct alua_answer a;

	(void)state;
	alua_reset();
	alua_set_groups(groups, 2);
	cdb = exact(rtpg, 1);
	assert_false(alua_owns(cdb, 1));
	assert_true(alua_refuses(ALUA_STANDBY, cdb, 1, &a)); /* no service action to allow it */
	free(cdb);
	cdb = exact(rtpg, 11);
	assert_true(alua_owns(cdb, 11));
	alua_report_tpgs(&e, 0, cdb, 11, buf, sizeof(buf), &a);
	assert_int_equal(a.status, SCSI_STAT_GOOD);
	assert_int_equal(a.data_len, 0); /* no allocation length: nothing to send */
	free(cdb);
	cdb = exact(rtpg, 12);
	alua_report_tpgs(&e, 0, cdb, 12, buf, sizeof(buf), &a);
	assert_int_equal(a.status, SCSI_STAT_GOOD);
	assert_int_equal(a.data_len, 4 + 2 * 12); /* two groups, one port each */
	free(cdb);
	cdb = exact(inq, 2);
	buf[1] = 0x83;
	assert_int_equal(alua_patch_inquiry(3, 2, cdb, 2, buf, 4, sizeof(buf)), 4); /* untouched */
	free(cdb);
	alua_free(&e);
	alua_reset();
}

static void faults_and_figures_short(void **state)
{
	uint8_t rd10[10] = { SCSI_OP_READ_10, 0, 0, 0, 0, 9, 0, 0, 1, 0 };
	uint8_t wr16[16] = { SCSI_OP_WRITE_16 }, *cdb;
	uint64_t lba = 0, n = 0;

	(void)state;
	cdb = exact(rd10, 5);
	assert_int_equal(fault_cdb_kind(cdb, 5), FAULT_OP_OPCODE);
	assert_false(fault_cdb_range(cdb, 5, &lba, &n));
	assert_int_equal(lu_kind_of(cdb, 5), LU_KIND_OTHER);
	free(cdb);
	cdb = exact(rd10, 10);
	assert_int_equal(fault_cdb_kind(cdb, 10), FAULT_OP_READ);
	assert_true(fault_cdb_range(cdb, 10, &lba, &n));
	assert_int_equal(lba, 9);
	assert_int_equal(n, 1);
	assert_int_equal(lu_kind_of(cdb, 10), LU_KIND_READ);
	free(cdb);
	cdb = exact(wr16, 8);
	assert_int_equal(lu_kind_of(cdb, 8), LU_KIND_OTHER);
	assert_false(fault_cdb_exempt(cdb, 0));
	free(cdb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(report_luns_short),
		cmocka_unit_test(missing_lun_short),
		cmocka_unit_test(reservations_short),
		cmocka_unit_test(alua_short),
		cmocka_unit_test(faults_and_figures_short),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
