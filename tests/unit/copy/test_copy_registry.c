/* test_copy_registry.c — the copy manager's one table of third-party copy
 * operations: EXTENDED COPY hold/discard/no-id lifetimes, duplicate list
 * ids, the concurrency limits, the per-LU bounds on kept results,
 * forgetting an LU, and the one list id namespace per I_T nexus shared by
 * EXTENDED COPY and the token commands, each answer finding its own kind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <pthread.h>

#include "lunlab/scsi_vocab.h"
#include "handlers/copy/copy.h"
#include "handlers/copy/copy_limits.h"
#include "handlers/copy/copy_registry.h"

/* distinct addresses stand for distinct LUs */
static int lu_a, lu_b;

static int teardown(void **state)
{
	copy_reg_forget_dev(&lu_a);
	copy_reg_forget_dev(&lu_b);
	return 0;
}

static struct copy_status done(uint8_t cm, uint16_t segs, uint64_t bytes)
{
	struct copy_status st;

	memset(&st, 0, sizeof(st));
	st.cm_status = cm;
	st.segments = segs;
	st.bytes = bytes;
	return st;
}

static void test_hold_reported_once(void **state)
{
	struct copy_status st, out;
	int slot = copy_reg_begin(&lu_a, 0, COPY_KIND_XCOPY_LID1, true, 1, true);

	assert_true(slot >= 0);
	/* while running: in progress, with progress */
	copy_reg_progress(slot, 1, 4096);
	assert_true(copy_reg_xcopy_status(&lu_a, 0, 1, true, &out));
	assert_int_equal(out.cm_status, COPY_IN_PROGRESS);
	assert_int_equal(out.segments, 1);
	assert_int_equal(out.bytes, 4096);

	st = done(COPY_DONE_OK, 2, 8192);
	copy_reg_end_xcopy(slot, &st);
	/* a peek (allocation too short) keeps it */
	assert_true(copy_reg_xcopy_status(&lu_a, 0, 1, false, &out));
	assert_true(copy_reg_xcopy_status(&lu_a, 0, 1, true, &out));
	assert_int_equal(out.cm_status, COPY_DONE_OK);
	assert_int_equal(out.segments, 2);
	assert_int_equal(out.bytes, 8192);
	assert_false(copy_reg_xcopy_status(&lu_a, 0, 1, true, &out));
	/* list ids are per LU */
	slot = copy_reg_begin(&lu_a, 0, COPY_KIND_XCOPY_LID1, true, 1, true);
	copy_reg_end_xcopy(slot, &st);
	assert_false(copy_reg_xcopy_status(&lu_b, 0, 1, true, &out));
}

static void test_discard_and_no_id_not_held(void **state)
{
	struct copy_status st = done(COPY_DONE_OK, 1, 512), out;

	int slot = copy_reg_begin(&lu_a, 0, COPY_KIND_XCOPY_LID1, true, 5, false);    /* 10b */
	assert_true(slot >= 0);
	assert_true(copy_reg_xcopy_status(&lu_a, 0, 5, false, &out)); /* visible while running */
	copy_reg_end_xcopy(slot, &st);
	assert_false(copy_reg_xcopy_status(&lu_a, 0, 5, true, &out));

	slot = copy_reg_begin(&lu_a, 0, COPY_KIND_XCOPY_LID1, false, 0, false);       /* 11b */
	assert_true(slot >= 0);
	assert_int_equal(copy_reg_running(&lu_a, true), 1);
	assert_false(copy_reg_xcopy_status(&lu_a, 0, 0, true, &out));
	copy_reg_end_xcopy(slot, &st);
	assert_int_equal(copy_reg_running(&lu_a, true), 0);
}

static void test_same_list_id_twice(void **state)
{
	struct copy_status st = done(COPY_DONE_OK, 1, 512), out;
	int s1 = copy_reg_begin(&lu_a, 0, COPY_KIND_XCOPY_LID1, true, 3, true);

	/* list ids are per LU, not per initiator: a second host's copy with the
	 * same id is not refused while the first still runs */
	int s2 = copy_reg_begin(&lu_a, 0, COPY_KIND_XCOPY_LID1, true, 3, true);
	assert_true(s1 >= 0 && s2 >= 0 && s1 != s2);
	assert_int_equal(copy_reg_running(&lu_a, true), 2);
	struct copy_status st2 = done(COPY_DONE_OK, 7, 7);
	copy_reg_end_xcopy(s2, &st2);
	copy_reg_end_xcopy(s1, &st);
	/* one held status per list id: the copy that ended last */
	assert_true(copy_reg_xcopy_status(&lu_a, 0, 3, true, &out));
	assert_int_equal(out.segments, 1);
	assert_false(copy_reg_xcopy_status(&lu_a, 0, 3, true, &out));

	/* a completed held id is replaced by a new copy with that id */
	s1 = copy_reg_begin(&lu_a, 0, COPY_KIND_XCOPY_LID1, true, 3, true);
	copy_reg_end_xcopy(s1, &st2);
	int s4 = copy_reg_begin(&lu_a, 0, COPY_KIND_XCOPY_LID1, true, 3, true);
	assert_true(s4 >= 0);
	assert_true(copy_reg_xcopy_status(&lu_a, 0, 3, false, &out));
	assert_int_equal(out.cm_status, COPY_IN_PROGRESS);
	copy_reg_end_xcopy(s4, &st);
}

static void test_concurrency_limit(void **state)
{
	struct copy_status st = done(COPY_DONE_OK, 1, 512);
	int slots[XCOPY_TOTAL_CONCURRENT];

	for (unsigned i = 0; i < XCOPY_TOTAL_CONCURRENT; i++) {
		slots[i] = copy_reg_begin(&lu_a, 0, COPY_KIND_XCOPY_LID1, i % 2 == 0, (uint8_t)i, false);
		assert_true(slots[i] >= 0);
	}
	assert_int_equal(copy_reg_running(&lu_a, true), XCOPY_TOTAL_CONCURRENT);
	assert_int_equal(copy_reg_begin(&lu_a, 0, COPY_KIND_XCOPY_LID1, false, 0, false), COPY_REG_BUSY);
	int other = copy_reg_begin(&lu_b, 0, COPY_KIND_XCOPY_LID1, false, 0, false);
	assert_true(other >= 0);
	copy_reg_end_xcopy(other, &st);
	copy_reg_end_xcopy(slots[0], &st);
	int again = copy_reg_begin(&lu_a, 0, COPY_KIND_XCOPY_LID1, false, 0, false);
	assert_true(again >= 0);
	copy_reg_end_xcopy(again, &st);
	for (unsigned i = 1; i < XCOPY_TOTAL_CONCURRENT; i++)
		copy_reg_end_xcopy(slots[i], &st);
	assert_int_equal(copy_reg_running(&lu_a, true), 0);
}

static void test_held_bounded_oldest_dropped(void **state)
{
	struct copy_status out;

	for (unsigned i = 0; i < XCOPY_HELD_PER_DEV + 3; i++) {
		struct copy_status st = done(COPY_DONE_OK, 1, i);
		int slot = copy_reg_begin(&lu_a, 0, COPY_KIND_XCOPY_LID1, true, (uint8_t)i, true);
		assert_true(slot >= 0);
		copy_reg_end_xcopy(slot, &st);
	}
	for (unsigned i = 0; i < 3; i++)
		assert_false(copy_reg_xcopy_status(&lu_a, 0, (uint8_t)i, false, &out));
	for (unsigned i = 3; i < XCOPY_HELD_PER_DEV + 3; i++) {
		assert_true(copy_reg_xcopy_status(&lu_a, 0, (uint8_t)i, false, &out));
		assert_int_equal(out.bytes, i);
	}
}

/* What libiscsi's suites do back to back under tcmu-runner (no nexus):
 * ExtendedCopy.ValidTgtDescr holds a good copy with list id 1, ValidSegDescr
 * then ends two copies with list id 1 in COPY ABORTED; the next session's
 * ReceiveCopyResults.CopyStatus must find list id 1 unknown, then held once
 * its own copy with list id 1 succeeded. */
static void test_failed_copy_has_no_copy_status(void **state)
{
	struct copy_status ok = done(COPY_DONE_OK, 1, 1u << 20), bad = done(COPY_DONE_ERROR, 0, 0), out;

	bad.scsi_status = SCSI_STAT_CHECK_CONDITION;
	bad.sense_len = 18;
	bad.sense[2] = 0x0A;
	copy_reg_end_xcopy(copy_reg_begin(&lu_a, 0, COPY_KIND_XCOPY_LID1, true, 1, true), &ok);
	copy_reg_end_xcopy(copy_reg_begin(&lu_a, 0, COPY_KIND_XCOPY_LID1, true, 1, true), &bad);
	copy_reg_end_xcopy(copy_reg_begin(&lu_a, 0, COPY_KIND_XCOPY_LID1, true, 1, true), &bad);
	assert_false(copy_reg_xcopy_status(&lu_a, 0, 1, true, &out));
	/* the details of the last failure are still there for SA 4 */
	assert_true(copy_reg_xcopy_failed(&lu_a, 0, 1, false, &out));
	assert_int_equal(out.sense[2], 0x0A);

	copy_reg_end_xcopy(copy_reg_begin(&lu_a, 0, COPY_KIND_XCOPY_LID1, true, 1, true), &ok);
	assert_true(copy_reg_xcopy_status(&lu_a, 0, 1, true, &out));
	assert_int_equal(out.cm_status, COPY_DONE_OK);
	assert_int_equal(out.segments, 1);
	assert_int_equal(out.bytes, 1u << 20);
	/* replaced: the failure's details went with the new copy */
	assert_false(copy_reg_xcopy_failed(&lu_a, 0, 1, false, &out));
	/* reported once */
	assert_false(copy_reg_xcopy_status(&lu_a, 0, 1, true, &out));
}

static void test_failed_details_kept_until_read(void **state)
{
	struct copy_status st = done(COPY_DONE_ERROR, 0, 0), out;

	st.scsi_status = SCSI_STAT_CHECK_CONDITION;
	st.sense_len = 18;
	st.sense[2] = 0x0A;
	int slot = copy_reg_begin(&lu_a, 0, COPY_KIND_XCOPY_LID1, true, 9, true);
	copy_reg_end_xcopy(slot, &st);
	/* no COPY STATUS for a failed copy: its details only */
	assert_false(copy_reg_xcopy_status(&lu_a, 0, 9, true, &out));
	assert_true(copy_reg_xcopy_failed(&lu_a, 0, 9, false, &out));
	assert_true(copy_reg_xcopy_failed(&lu_a, 0, 9, true, &out));
	assert_int_equal(out.sense[2], 0x0A);
	assert_false(copy_reg_xcopy_failed(&lu_a, 0, 9, true, &out));
	assert_false(copy_reg_xcopy_status(&lu_a, 0, 9, true, &out));
}

static void test_forget_dev(void **state)
{
	struct copy_status st = done(COPY_DONE_OK, 1, 1), out;
	int slot = copy_reg_begin(&lu_a, 0, COPY_KIND_XCOPY_LID1, true, 4, true);

	copy_reg_end_xcopy(slot, &st);
	slot = copy_reg_begin(&lu_b, 0, COPY_KIND_XCOPY_LID1, true, 4, true);
	copy_reg_end_xcopy(slot, &st);
	copy_reg_forget_dev(&lu_a);
	assert_false(copy_reg_xcopy_status(&lu_a, 0, 4, false, &out));
	assert_true(copy_reg_xcopy_status(&lu_b, 0, 4, false, &out));
}

/* With a known I_T nexus (lunlab-target) list ids are per nexus, as SPC-4
 * says: a running duplicate of the same nexus is refused, other nexuses
 * neither see nor disturb each other's statuses. */
static void test_scoped_by_nexus(void **state)
{
	struct copy_status st = done(COPY_DONE_OK, 1, 512), st2 = done(COPY_DONE_OK, 2, 1024), out;

	int s1 = copy_reg_begin(&lu_a, 11, COPY_KIND_XCOPY_LID1, true, 1, true);
	assert_true(s1 >= 0);
	assert_int_equal(copy_reg_begin(&lu_a, 11, COPY_KIND_XCOPY_LID1, true, 1, true), COPY_REG_DUPLICATE);
	int s2 = copy_reg_begin(&lu_a, 12, COPY_KIND_XCOPY_LID1, true, 1, true);   /* other session: fine */
	assert_true(s2 >= 0);
	copy_reg_end_xcopy(s1, &st);
	copy_reg_end_xcopy(s2, &st2);
	assert_false(copy_reg_xcopy_status(&lu_a, 13, 1, false, &out)); /* a new session sees none */
	assert_false(copy_reg_xcopy_status(&lu_a, 0, 1, false, &out));
	assert_true(copy_reg_xcopy_status(&lu_a, 11, 1, true, &out));
	assert_int_equal(out.bytes, 512);
	assert_true(copy_reg_xcopy_status(&lu_a, 12, 1, true, &out));
	assert_int_equal(out.bytes, 1024);
	/* the nexus-less duplicate rule still holds for nexus 0 */
	s1 = copy_reg_begin(&lu_a, 0, COPY_KIND_XCOPY_LID1, true, 1, false);
	assert_true(copy_reg_begin(&lu_a, 0, COPY_KIND_XCOPY_LID1, true, 1, false) >= 0);
	assert_int_equal(copy_reg_running(&lu_a, true), 2);
}

/* SPC-4: the list ids of all third-party copy commands are one namespace per
 * I_T nexus.  A running EXTENDED COPY's list id is refused to a POPULATE
 * TOKEN of its nexus and a running token operation's to an EXTENDED COPY;
 * another nexus may use the same number; nexus 0 (tcmu-runner) refuses none. */
static void test_one_namespace_across_kinds(void **state)
{
	struct copy_status st = done(COPY_DONE_OK, 1, 512);
	struct odx_op op = { .sa = COPY_KIND_POPULATE_TOKEN, .status = ODX_OP_DONE };

	int x = copy_reg_begin(&lu_a, 11, COPY_KIND_XCOPY_LID1, true, 5, true);
	assert_true(x >= 0);
	assert_int_equal(copy_reg_begin(&lu_a, 11, COPY_KIND_POPULATE_TOKEN, true, 5, true), COPY_REG_DUPLICATE);
	assert_int_equal(copy_reg_begin(&lu_a, 11, COPY_KIND_WRITE_USING_TOKEN, true, 5, true), COPY_REG_DUPLICATE);
	int t = copy_reg_begin(&lu_a, 11, COPY_KIND_WRITE_USING_TOKEN, true, 9, true);
	assert_true(t >= 0);
	assert_int_equal(copy_reg_begin(&lu_a, 11, COPY_KIND_XCOPY_LID1, true, 9, false), COPY_REG_DUPLICATE);
	/* a LID1 list id is the 32-bit number 0..255: 0x105 is another id */
	int other_id = copy_reg_begin(&lu_a, 11, COPY_KIND_POPULATE_TOKEN, true, 0x105, true);
	assert_true(other_id >= 0);
	/* the same numbers on another nexus, and on another LU: fine */
	int p12 = copy_reg_begin(&lu_a, 12, COPY_KIND_POPULATE_TOKEN, true, 5, true);
	int x12 = copy_reg_begin(&lu_a, 12, COPY_KIND_XCOPY_LID1, true, 9, true);
	int pb = copy_reg_begin(&lu_b, 11, COPY_KIND_POPULATE_TOKEN, true, 5, true);
	assert_true(p12 >= 0 && x12 >= 0 && pb >= 0);
	/* nexus 0: the other may be another host's, not refused */
	int x0 = copy_reg_begin(&lu_a, 0, COPY_KIND_XCOPY_LID1, true, 7, true);
	int p0 = copy_reg_begin(&lu_a, 0, COPY_KIND_POPULATE_TOKEN, true, 7, true);
	assert_true(x0 >= 0 && p0 >= 0);
	assert_int_equal(copy_reg_running(&lu_a, true), 3);
	assert_int_equal(copy_reg_running(&lu_a, false), 4);

	copy_reg_end_xcopy(x, &st);
	/* ended: its list id is free again, for either kind (the held status goes) */
	int again = copy_reg_begin(&lu_a, 11, COPY_KIND_POPULATE_TOKEN, true, 5, true);
	assert_true(again >= 0);
	struct copy_status out;
	assert_false(copy_reg_xcopy_status(&lu_a, 11, 5, false, &out));
	copy_reg_end_odx(again, &op);
	copy_reg_end_odx(t, &op);
	copy_reg_end_odx(other_id, &op);
	copy_reg_end_odx(p12, &op);
	copy_reg_end_xcopy(x12, &st);
	copy_reg_end_odx(pb, &op);
	copy_reg_end_xcopy(x0, &st);
	copy_reg_end_odx(p0, &op);
	assert_int_equal(copy_reg_running(&lu_a, true) + copy_reg_running(&lu_a, false), 0);
}

/* Each answer reports on its own kind: RECEIVE COPY RESULTS on EXTENDED
 * COPY, RRTI and COPY OPERATION ABORT on the token commands; a list id of
 * the other kind is unknown to it (docs/xcopy.md). */
static void test_answers_find_their_kind(void **state)
{
	struct copy_status ok = done(COPY_DONE_OK, 1, 512), bad = done(COPY_DONE_ERROR, 0, 0), out;
	struct odx_op op = { .sa = COPY_KIND_POPULATE_TOKEN, .status = ODX_OP_DONE, .blocks = 8, .has_token = true },
		      got;
	uint8_t tok[ODX_TOKEN_LEN];
	bool has_token = true;

	op.token[0] = 0xAB;
	copy_reg_end_xcopy(copy_reg_begin(&lu_a, 11, COPY_KIND_XCOPY_LID1, true, 3, true), &ok);
	copy_reg_end_xcopy(copy_reg_begin(&lu_a, 11, COPY_KIND_XCOPY_LID1, true, 6, true), &bad);
	copy_reg_end_odx(copy_reg_begin(&lu_a, 11, COPY_KIND_POPULATE_TOKEN, true, 4, true), &op);
	assert_false(copy_reg_odx_get(&lu_a, 11, 3, &got));
	assert_false(copy_reg_odx_get(&lu_a, 11, 6, &got));
	assert_int_equal(copy_reg_odx_abort(&lu_a, 11, 3, tok, &has_token), 0);
	assert_false(has_token);
	assert_false(copy_reg_xcopy_status(&lu_a, 11, 4, false, &out));
	assert_false(copy_reg_xcopy_failed(&lu_a, 11, 4, false, &out));
	/* each still answers its own */
	assert_true(copy_reg_odx_get(&lu_a, 11, 4, &got));
	assert_int_equal(got.sa, 0x10);
	assert_int_equal(got.blocks, 8);
	assert_true(copy_reg_xcopy_status(&lu_a, 11, 3, false, &out));
	assert_int_equal(out.bytes, 512);
	assert_true(copy_reg_xcopy_failed(&lu_a, 11, 6, false, &out));
	assert_int_equal(copy_reg_odx_abort(&lu_a, 11, 4, tok, &has_token), 2);
	assert_true(has_token);
	assert_int_equal(tok[0], 0xAB);
	assert_true(copy_reg_odx_get(&lu_a, 11, 4, &got));
	assert_int_equal(got.status, ODX_OP_TERMINATED);

	/* a token command reusing a held EXTENDED COPY's list id replaces it */
	int p = copy_reg_begin(&lu_a, 11, COPY_KIND_WRITE_USING_TOKEN, true, 3, true);
	assert_true(p >= 0);
	assert_false(copy_reg_xcopy_status(&lu_a, 11, 3, false, &out));
	assert_true(copy_reg_odx_get(&lu_a, 11, 3, &got));
	assert_int_equal(got.sa, 0x11);
	assert_int_equal(got.status, ODX_OP_RUNNING);
	/* a running one is told to stop and ends TERMINATED */
	assert_int_equal(copy_reg_odx_abort(&lu_a, 11, 3, tok, &has_token), 1);
	assert_true(copy_reg_aborted(p));
	copy_reg_progress(p, 1, 5);
	assert_true(copy_reg_odx_get(&lu_a, 11, 3, &got));
	assert_int_equal(got.blocks, 5);
	struct odx_op wut = { .sa = COPY_KIND_WRITE_USING_TOKEN, .status = ODX_OP_DONE, .blocks = 6 };
	copy_reg_end_odx(p, &wut);
	assert_true(copy_reg_odx_get(&lu_a, 11, 3, &got));
	assert_int_equal(got.status, ODX_OP_TERMINATED);
	assert_int_equal(got.blocks, 6);
	/* and an EXTENDED COPY reusing a kept token operation's list id replaces it */
	copy_reg_end_xcopy(copy_reg_begin(&lu_a, 11, COPY_KIND_XCOPY_LID1, true, 4, true), &ok);
	assert_false(copy_reg_odx_get(&lu_a, 11, 4, &got));
	assert_true(copy_reg_xcopy_status(&lu_a, 11, 4, true, &out));
}

/* The limits stay per kind: 16 token operations running do not make an
 * EXTENDED COPY busy, and the token operations kept are bounded by
 * ODX_HELD_PER_DEV without touching the held EXTENDED COPY statuses. */
static void test_limits_per_kind(void **state)
{
	struct copy_status st = done(COPY_DONE_OK, 1, 512), out;
	struct odx_op op = { .sa = COPY_KIND_POPULATE_TOKEN, .status = ODX_OP_DONE }, got;
	int run[ODX_CONCURRENT];

	for (unsigned i = 0; i < ODX_CONCURRENT; i++) {
		run[i] = copy_reg_begin(&lu_a, 0, COPY_KIND_POPULATE_TOKEN, true, 1000 + i, true);
		assert_true(run[i] >= 0);
	}
	assert_int_equal(copy_reg_begin(&lu_a, 0, COPY_KIND_WRITE_USING_TOKEN, true, 999, true), COPY_REG_BUSY);
	int x = copy_reg_begin(&lu_a, 0, COPY_KIND_XCOPY_LID1, true, 1, true);
	assert_true(x >= 0);
	copy_reg_end_xcopy(x, &st);
	for (unsigned i = 0; i < ODX_CONCURRENT; i++)
		copy_reg_end_odx(run[i], &op);
	for (unsigned i = 0; i < ODX_HELD_PER_DEV; i++)
		copy_reg_end_odx(copy_reg_begin(&lu_a, 0, COPY_KIND_POPULATE_TOKEN, true, 2000 + i, true), &op);
	/* the oldest token operations went, the EXTENDED COPY status stayed */
	assert_false(copy_reg_odx_get(&lu_a, 0, 1000, &got));
	assert_true(copy_reg_odx_get(&lu_a, 0, 2000, &got));
	assert_true(copy_reg_odx_get(&lu_a, 0, 2000 + ODX_HELD_PER_DEV - 1, &got));
	assert_true(copy_reg_xcopy_status(&lu_a, 0, 1, false, &out));
}

/* Worker threads start and end copies at once (the host runs handle_cmd on
 * several threads): the table stays consistent (run under TSan as well). */
static void *churn(void *arg)
{
	const void *dev = (arg == &lu_a) ? (const void *)&lu_a : (const void *)&lu_b;
	struct copy_status st = done(COPY_DONE_OK, 1, 512), out;
	unsigned busy = 0;

	for (unsigned i = 0; i < 2000; i++) {
		int slot = copy_reg_begin(dev, 0, COPY_KIND_XCOPY_LID1, i % 3 != 0, (uint8_t)i, i % 2 == 0);
		if (slot < 0) {
			busy++;
			continue;
		}
		copy_reg_progress(slot, 1, 512);
		copy_reg_end_xcopy(slot, &st);
		copy_reg_xcopy_status(dev, 0, (uint8_t)i, true, &out);
	}
	return (void *)(uintptr_t)busy;
}

static void test_concurrent_workers(void **state)
{
	pthread_t th[8];
	struct copy_status out;

	for (unsigned i = 0; i < 8; i++)
		assert_int_equal(pthread_create(&th[i], NULL, churn, i % 2 ? (void *)&lu_a : (void *)&lu_b), 0);
	for (unsigned i = 0; i < 8; i++) {
		void *busy;
		pthread_join(th[i], &busy);
		/* 4 threads per LU never exceed the 16-copy limit */
		assert_int_equal((uintptr_t)busy, 0);
	}
	assert_int_equal(copy_reg_running(&lu_a, true), 0);
	assert_int_equal(copy_reg_running(&lu_b, true), 0);
	/* held statuses left behind stay within the per-LU bound */
	unsigned held = 0;
	for (unsigned id = 0; id < 256; id++)
		held += copy_reg_xcopy_status(&lu_a, 0, (uint8_t)id, false, &out);
	assert_true(held <= XCOPY_HELD_PER_DEV);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_hold_reported_once, teardown),
		cmocka_unit_test_teardown(test_discard_and_no_id_not_held, teardown),
		cmocka_unit_test_teardown(test_same_list_id_twice, teardown),
		cmocka_unit_test_teardown(test_concurrency_limit, teardown),
		cmocka_unit_test_teardown(test_held_bounded_oldest_dropped, teardown),
		cmocka_unit_test_teardown(test_failed_details_kept_until_read, teardown),
		cmocka_unit_test_teardown(test_failed_copy_has_no_copy_status, teardown),
		cmocka_unit_test_teardown(test_forget_dev, teardown),
		cmocka_unit_test_teardown(test_scoped_by_nexus, teardown),
		cmocka_unit_test_teardown(test_one_namespace_across_kinds, teardown),
		cmocka_unit_test_teardown(test_answers_find_their_kind, teardown),
		cmocka_unit_test_teardown(test_limits_per_kind, teardown),
		cmocka_unit_test_teardown(test_concurrent_workers, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
