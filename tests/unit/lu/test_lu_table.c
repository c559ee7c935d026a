/* test_lu_table.c — the LU table changed at run time: global LUs and LUN
 * maps (masking), each initiator's view and REPORT LUNS, the unit
 * attentions per I_T nexus (REPORTED LUNS DATA HAS CHANGED, CAPACITY DATA
 * HAS CHANGED, the LUN RESET one, their priority and clearing), the
 * refusals of lu_table_set_maps, and entries freed after unmapping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lunlab/scsi_vocab.h"
#include "target/iscsi/pdu.h"
#include "target/lu/lu_table.h"

#define A "iqn.2026-11.org.example:a"
#define B "iqn.2026-11.org.example:b"

/* initiator ports: a name and an ISID */
static const uint8_t isid1[6] = { 0x80, 0, 0, 0, 0, 1 }, isid2[6] = { 0x80, 0, 0, 0, 0, 2 },
		     isid3[6] = { 0x80, 0, 0, 0, 0, 3 };

static struct lu_backend g0, g1, v1, v2;
static struct lu_entry *e1, *e2;

static int setup(void **state)
{
	lu_table_reset();
	assert_int_equal(lu_table_add(&g0), 0);
	assert_int_equal(lu_table_add(&g1), 1);
	e1 = lu_entry_new(&v1);
	e2 = lu_entry_new(&v2);
	assert_non_null(e1);
	assert_non_null(e2);
	assert_int_not_equal(e1->id, e2->id);
	return 0;
}

static int teardown(void **state)
{
	lu_table_reset();
	return 0;
}

/* REPORT LUNS of a nexus: the LUNs, decoded */
static size_t report(struct lu_nexus *nx, uint64_t *luns, size_t max)
{
	uint8_t cdb[12] = { SCSI_OP_REPORT_LUNS }, buf[512], sense[96], st, sl;
	size_t n = 0, len;

	put_be32(cdb + 6, sizeof(buf));
	assert_true(lu_local_answer_nexus(nx, NULL, cdb, sizeof(cdb), buf, sizeof(buf), &len, &st, sense, &sl));
	assert_int_equal(st, 0);
	assert_int_equal(get_be32(buf), len - 8);
	for (size_t at = 8; at < len && n < max; at += 8) {
		bool ok;
		luns[n++] = pdu_lun_decode(buf + at, &ok);
		assert_true(ok);
	}
	return n;
}

static void masking(void **state)
{
	struct lu_nexus a, b;
	struct lu_map_spec maps[] = { { A, 5, e1 }, { "IQN.2026-11.ORG.EXAMPLE:A", 3, e2 } };
	char err[128];
	uint64_t luns[8];

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	assert_int_equal(lu_table_set_maps(maps, 2, err, sizeof(err)), 0);
	lu_nexus_start(&a, A, isid1);
	lu_nexus_start(&b, B, isid1);
	/* the global LUs: everyone */
	assert_ptr_equal(lu_nexus_lookup(&a, A, 0, true)->be, &g0);
	assert_ptr_equal(lu_nexus_lookup(&b, B, 1, true)->be, &g1);
	/* the maps: only A (names compare case-insensitively) */
	assert_ptr_equal(lu_nexus_lookup(&a, A, 5, true), e1);
	assert_ptr_equal(lu_nexus_lookup(&a, A, 3, true), e2);
	assert_null(lu_nexus_lookup(&b, B, 5, true));
	assert_null(lu_nexus_lookup(&a, A, 4, true));
	assert_null(lu_nexus_lookup(&a, A, 0, false));
	/* REPORT LUNS differs per initiator */
	assert_int_equal(report(&a, luns, 8), 4);
	assert_true(luns[0] == 0 && luns[1] == 1 && luns[2] == 3 && luns[3] == 5);
	assert_int_equal(report(&b, luns, 8), 2);
	assert_true(luns[0] == 0 && luns[1] == 1);
	/* a LUN B does not see: LOGICAL UNIT NOT SUPPORTED */
	{
		uint8_t tur[6] = { 0 }, sense[96], st, sl;
		size_t len;
		assert_true(lu_local_answer_nexus(&b, lu_nexus_lookup(&b, B, 5, true), tur, sizeof(tur), NULL, 0, &len, &st, sense,
						  &sl));
		assert_int_equal(st, 0x02);
		assert_int_equal(sense[2], 0x05);
		assert_int_equal(sense[12], 0x25);
	}
	lu_nexus_free(&a);
	lu_nexus_free(&b);
}

static void expect_ua(struct lu_nexus *nx, struct lu_entry *e, uint8_t asc, uint8_t ascq)
{
	uint8_t ua[3];

	assert_true(lu_nexus_take_ua(nx, e, 0x00, ua));
	assert_int_equal(ua[0], 0x06);
	assert_int_equal(ua[1], asc);
	assert_int_equal(ua[2], ascq);
}

static void no_ua(struct lu_nexus *nx, struct lu_entry *e)
{
	uint8_t ua[3];

	assert_false(lu_nexus_take_ua(nx, e, 0x00, ua));
}

static void inventory_attention(void **state)
{
	struct lu_nexus a, b;
	struct lu_map_spec maps[] = { { A, 5, e1 }, { B, 2, e2 } };
	char err[128];
	uint64_t luns[8];
	uint8_t ua[3];

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	lu_nexus_start(&a, A, isid1);
	lu_nexus_start(&b, B, isid1);
	no_ua(&a, lu_nexus_lookup(&a, A, 0, true));
	/* A gets a LU: A (and only A) owes 3F/0E, once */
	assert_int_equal(lu_table_set_maps(maps, 1, err, sizeof(err)), 0);
	assert_false(lu_nexus_take_ua(&a, lu_nexus_lookup(&a, A, 0, true), 0x12, ua)); /* INQUIRY passes */
	expect_ua(&a, lu_nexus_lookup(&a, A, 0, true), 0x3f, 0x0e);
	no_ua(&a, lu_nexus_lookup(&a, A, 5, true));
	no_ua(&b, lu_nexus_lookup(&b, B, 0, true));
	/* B gets one too; A's maps are unchanged: nothing for A */
	assert_int_equal(lu_table_set_maps(maps, 2, err, sizeof(err)), 0);
	no_ua(&a, lu_nexus_lookup(&a, A, 0, true));
	/* REPORT LUNS clears B's before any other command sees it */
	assert_int_equal(report(&b, luns, 8), 3);
	assert_true(luns[2] == 2);
	no_ua(&b, lu_nexus_lookup(&b, B, 2, true));
	/* A loses its LU: announced on a LU it still sees */
	assert_int_equal(lu_table_set_maps(&maps[1], 1, err, sizeof(err)), 0);
	assert_null(lu_nexus_lookup(&a, A, 5, true));
	expect_ua(&a, lu_nexus_lookup(&a, A, 1, true), 0x3f, 0x0e);
	no_ua(&a, lu_nexus_lookup(&a, A, 1, true));
	lu_nexus_free(&a);
	lu_nexus_free(&b);
}

static void capacity_and_reset(void **state)
{
	struct lu_nexus a1, a2;
	struct lu_map_spec maps[] = { { A, 5, e1 } };
	char err[128];

	memset(&a1, 0, sizeof(a1));
	memset(&a2, 0, sizeof(a2));
	assert_int_equal(lu_table_set_maps(maps, 1, err, sizeof(err)), 0);
	lu_nexus_start(&a1, A, isid1); /* two sessions of one initiator: two I_T nexuses */
	lu_nexus_start(&a2, A, isid2);
	lu_entry_capacity_changed(e1);
	expect_ua(&a1, lu_nexus_lookup(&a1, A, 5, true), 0x2a, 0x09);
	no_ua(&a1, lu_nexus_lookup(&a1, A, 5, true));
	/* the other LUs are not affected */
	no_ua(&a2, lu_nexus_lookup(&a2, A, 0, true));
	/* a reset comes before the capacity change (SAM-5 priority) */
	lu_entry_lun_reset(e1);
	expect_ua(&a2, lu_nexus_lookup(&a2, A, 5, true), 0x29, 0x03);
	expect_ua(&a2, lu_nexus_lookup(&a2, A, 5, true), 0x2a, 0x09);
	no_ua(&a2, lu_nexus_lookup(&a2, A, 5, true));
	expect_ua(&a1, lu_nexus_lookup(&a1, A, 5, true), 0x29, 0x03);
	/* a nexus started after the events owes nothing */
	struct lu_nexus late;
	memset(&late, 0, sizeof(late));
	lu_nexus_start(&late, A, isid3);
	no_ua(&late, lu_nexus_lookup(&late, A, 5, true));
	lu_nexus_free(&a1);
	lu_nexus_free(&a2);
	lu_nexus_free(&late);
}

static void refusals(void **state)
{
	char err[128];
	struct lu_map_spec global_lun[] = { { A, 1, e1 } };
	struct lu_map_spec twice[] = { { A, 7, e1 }, { "iqn.2026-11.ORG.example:a", 7, e2 } };
	struct lu_map_spec big[] = { { A, LU_TABLE_MAX, e1 } };
	struct lu_map_spec ok[] = { { A, 7, e1 } };
	struct lu_nexus a;

	memset(&a, 0, sizeof(a));
	assert_int_equal(lu_table_set_maps(ok, 1, err, sizeof(err)), 0);
	assert_int_equal(lu_table_set_maps(global_lun, 1, err, sizeof(err)), -1);
	assert_string_equal(err, "LUN 1 belongs to a --lun LU, which every initiator sees");
	assert_int_equal(lu_table_set_maps(twice, 2, err, sizeof(err)), -1);
	assert_string_equal(err, "initiator iqn.2026-11.org.example:a: two LUs at LUN 7");
	assert_int_equal(lu_table_set_maps(big, 1, err, sizeof(err)), -1);
	assert_string_equal(err, "LUN 16384: above 16383");
	/* a refused change leaves the maps as they were */
	lu_nexus_start(&a, A, isid1);
	assert_ptr_equal(lu_nexus_lookup(&a, A, 7, true), e1);
	/* and the next global LU may not take a mapped LUN either */
	struct lu_map_spec at2[] = { { A, 2, e1 } };
	static struct lu_backend g2;
	assert_int_equal(lu_table_set_maps(at2, 1, err, sizeof(err)), 0);
	assert_int_equal(lu_table_add(&g2), -1);
	lu_nexus_free(&a);
}

static void counter(struct lu_entry *e, void *cls)
{
	(void)e;
	(*(size_t *)cls)++;
}

static void unmap_then_free(void **state)
{
	struct lu_map_spec maps[] = { { A, 5, e1 }, { B, 5, e1 } };
	char err[128];
	size_t count = 0;

	assert_int_equal(lu_table_set_maps(maps, 2, err, sizeof(err)), 0);
	/* one LU mapped for two initiators is one LU */
	lu_table_each(counter, &count);
	assert_int_equal(count, 3);
	assert_int_equal(lu_table_set_maps(NULL, 0, err, sizeof(err)), 0);
	lu_entry_free(e1);
	count = 0;
	lu_table_each(counter, &count);
	assert_int_equal(count, 2);
	/* the global LUs' accessors are unchanged */
	assert_int_equal(lu_table_count(), 2);
	assert_ptr_equal(lu_table_get(1), &g1);
	assert_non_null(lu_table_pr(1));
	assert_null(lu_table_get(2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(masking, setup, teardown),
		cmocka_unit_test_setup_teardown(inventory_attention, setup, teardown),
		cmocka_unit_test_setup_teardown(capacity_and_reset, setup, teardown),
		cmocka_unit_test_setup_teardown(refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(unmap_then_free, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
