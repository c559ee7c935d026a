/* test_report_luns.c — the LU table and what the target answers itself:
 * REPORT LUNS (select report, allocation length, LUN format, truncation),
 * commands to a LUN that does not exist. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lunlab/scsi_vocab.h"
#include "target/iscsi/pdu.h"
#include "target/lu/lu_table.h"

static struct lu_backend bes[300];

static int setup(void **state)
{
	lu_table_reset();
	for (int i = 0; i < 3; i++)
		assert_int_equal(lu_table_add(&bes[i]), i);
	return 0;
}

static void rl_cdb(uint8_t *cdb, uint8_t sel, uint32_t alloc)
{
	memset(cdb, 0, 12);
	cdb[0] = SCSI_OP_REPORT_LUNS;
	cdb[2] = sel;
	put_be32(cdb + 6, alloc);
}

/* Found by tests/fuzz (fuzz-iscsi-rx under UBSan): REPORT LUNS with EDTL 0
 * reaches report_luns() with no buffer (NULL, 0), and the header copy passed
 * NULL to memcpy.  No buffer: GOOD, nothing written, the length it would have
 * sent (the transport turns that into the residual). */
static void no_buffer(void **state)
{
	uint8_t cdb[12], sense[18];
	uint8_t sl = 0;
	size_t len = 99;

	rl_cdb(cdb, 0, 4096);
	assert_int_equal(report_luns(cdb, sizeof(cdb), NULL, 0, &len, sense, &sl), 0x00);
	assert_int_equal(len, 8 + 3 * 8);
	assert_int_equal(sl, 0);
}

static void table_order(void **state)
{
	assert_int_equal(lu_table_count(), 3);
	assert_ptr_equal(lu_table_get(0), &bes[0]);
	assert_ptr_equal(lu_table_get(2), &bes[2]);
	assert_null(lu_table_get(3));
	assert_int_equal(lu_table_add(NULL), -1);
}

static void lists_all_luns(void **state)
{
	uint8_t cdb[12], buf[64], sense[96], sl = 0;
	size_t n = 0;

	memset(buf, 0xee, sizeof(buf));
	rl_cdb(cdb, 0, 64);
	assert_int_equal(report_luns(cdb, sizeof(cdb), buf, sizeof(buf), &n, sense, &sl), 0);
	assert_int_equal(n, 8 + 3 * 8);
	assert_int_equal(get_be32(buf), 24);
	assert_int_equal(get_be32(buf + 4), 0);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(buf[8 + i * 8], 0);
		assert_int_equal(buf[8 + i * 8 + 1], i);
	}
	rl_cdb(cdb, 2, 64);
	assert_int_equal(report_luns(cdb, sizeof(cdb), buf, sizeof(buf), &n, sense, &sl), 0);
	assert_int_equal(n, 32);
	/* well-known LUs only: there are none */
	rl_cdb(cdb, 1, 64);
	assert_int_equal(report_luns(cdb, sizeof(cdb), buf, sizeof(buf), &n, sense, &sl), 0);
	assert_int_equal(n, 8);
	assert_int_equal(get_be32(buf), 0);
}

static void truncates_but_reports_full_length(void **state)
{
	uint8_t cdb[12], buf[64], sense[96], sl = 0;
	size_t n = 0;

	rl_cdb(cdb, 0, 16);
	assert_int_equal(report_luns(cdb, sizeof(cdb), buf, sizeof(buf), &n, sense, &sl), 0);
	assert_int_equal(n, 16);
	assert_int_equal(get_be32(buf), 24); /* the full list length */
}

static void bad_requests(void **state)
{
	uint8_t cdb[12], buf[64], sense[96], sl = 0;
	size_t n = 0;

	rl_cdb(cdb, 0, 15);
	assert_int_equal(report_luns(cdb, sizeof(cdb), buf, sizeof(buf), &n, sense, &sl), 0x02);
	assert_int_equal(sl, 18);
	assert_int_equal(sense[2], 0x05);
	assert_int_equal(sense[12], 0x24);
	assert_int_equal(sense[15], 0xc0); /* SKSV, in the CDB */
	assert_int_equal(get_be16(sense + 16), 6); /* ALLOCATION LENGTH */
	rl_cdb(cdb, 3, 64);
	assert_int_equal(report_luns(cdb, sizeof(cdb), buf, sizeof(buf), &n, sense, &sl), 0x02);
	assert_int_equal(get_be16(sense + 16), 2); /* SELECT REPORT */
}

static void flat_space_above_255(void **state)
{
	uint8_t cdb[12], buf[8 + 300 * 8], sense[96], sl = 0;
	size_t n = 0;

	lu_table_reset();
	for (int i = 0; i < 300; i++)
		lu_table_add(&bes[i]);
	rl_cdb(cdb, 0, sizeof(buf));
	assert_int_equal(report_luns(cdb, sizeof(cdb), buf, sizeof(buf), &n, sense, &sl), 0);
	assert_int_equal(n, sizeof(buf));
	assert_int_equal(buf[8 + 299 * 8], 0x40 | (299 >> 8));
	assert_int_equal(buf[8 + 299 * 8 + 1], 299 & 0xff);
}

static void missing_lun(void **state)
{
	uint8_t inq[6] = { SCSI_OP_INQUIRY, 0, 0, 0, 96, 0 }, rs[6] = { SCSI_OP_REQUEST_SENSE, 0, 0, 0, 18, 0 };
	uint8_t tur[6] = { 0 }, buf[96], sense[96], sl, st;
	size_t n;

	/* an existing LUN goes to its backend */
	assert_false(lu_local_answer(tur, sizeof(tur), 1, true, buf, sizeof(buf), &n, &st, sense, &sl));
	/* INQUIRY: peripheral qualifier 011b, type 1Fh */
	assert_true(lu_local_answer(inq, sizeof(inq), 7, true, buf, sizeof(buf), &n, &st, sense, &sl));
	assert_int_equal(st, 0);
	assert_int_equal(buf[0], 0x7f);
	assert_int_equal(n, 36);
	/* REQUEST SENSE: LOGICAL UNIT NOT SUPPORTED as data, GOOD */
	assert_true(lu_local_answer(rs, sizeof(rs), 7, true, buf, sizeof(buf), &n, &st, sense, &sl));
	assert_int_equal(st, 0);
	assert_int_equal(n, 18);
	assert_int_equal(buf[2], 0x05);
	assert_int_equal(buf[12], 0x25);
	/* anything else: CHECK CONDITION 05/25/00 */
	assert_true(lu_local_answer(tur, sizeof(tur), 7, true, buf, sizeof(buf), &n, &st, sense, &sl));
	assert_int_equal(st, 0x02);
	assert_int_equal(sense[2], 0x05);
	assert_int_equal(sense[12], 0x25);
	assert_int_equal(sense[13], 0x00);
	/* an undecodable LUN field counts as missing */
	assert_true(lu_local_answer(tur, sizeof(tur), 0, false, buf, sizeof(buf), &n, &st, sense, &sl));
	assert_int_equal(st, 0x02);
}

/* Found by tests/fuzz (fuzz-iscsi-rx under UBSan): INQUIRY or REQUEST SENSE
 * with EDTL 0 to a missing LUN copied the answer to a NULL buffer.  No buffer:
 * same status and length, nothing written. */
static void missing_lun_no_buffer(void **state)
{
	uint8_t inq[6] = { SCSI_OP_INQUIRY, 0, 0, 0, 96, 0 }, rs[6] = { SCSI_OP_REQUEST_SENSE, 0, 0, 0, 18, 0 };
	uint8_t sense[96], sl = 0xee, st = 0xee;
	size_t n = 0;

	assert_true(lu_local_answer(inq, sizeof(inq), 7, true, NULL, 0, &n, &st, sense, &sl));
	assert_int_equal(st, 0);
	assert_int_equal(sl, 0);
	assert_int_equal(n, 36);
	assert_true(lu_local_answer(rs, sizeof(rs), 7, true, NULL, 0, &n, &st, sense, &sl));
	assert_int_equal(st, 0);
	assert_int_equal(n, 18);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(table_order, setup),
		cmocka_unit_test_setup(no_buffer, setup),
		cmocka_unit_test_setup(lists_all_luns, setup),
		cmocka_unit_test_setup(truncates_but_reports_full_length, setup),
		cmocka_unit_test_setup(bad_requests, setup),
		cmocka_unit_test_setup(flat_space_above_255, setup),
		cmocka_unit_test_setup(missing_lun, setup),
		cmocka_unit_test_setup(missing_lun_no_buffer, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
