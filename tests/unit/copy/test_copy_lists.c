/* test_copy_lists.c — the copy manager's table of running and held copies:
 * hold/discard/no-id lifetimes, duplicate list ids, the concurrency limit,
 * the per-LU bound on held statuses, and forgetting an LU. */
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
#include "handlers/copy/copy_lists.h"

/* distinct addresses stand for distinct LUs */
static int lu_a, lu_b;

static int teardown(void **state)
{
	copy_lists_forget_dev(&lu_a);
	copy_lists_forget_dev(&lu_b);
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
	int slot = copy_lists_begin(&lu_a, 0, true, 1, true);

	assert_true(slot >= 0);
	/* while running: in progress, with progress */
	copy_lists_progress(slot, 1, 4096);
	assert_true(copy_lists_status(&lu_a, 0, 1, true, &out));
	assert_int_equal(out.cm_status, COPY_IN_PROGRESS);
	assert_int_equal(out.segments, 1);
	assert_int_equal(out.bytes, 4096);

	st = done(COPY_DONE_OK, 2, 8192);
	copy_lists_end(slot, &st);
	/* a peek (allocation too short) keeps it */
	assert_true(copy_lists_status(&lu_a, 0, 1, false, &out));
	assert_true(copy_lists_status(&lu_a, 0, 1, true, &out));
	assert_int_equal(out.cm_status, COPY_DONE_OK);
	assert_int_equal(out.segments, 2);
	assert_int_equal(out.bytes, 8192);
	assert_false(copy_lists_status(&lu_a, 0, 1, true, &out));
	/* list ids are per LU */
	slot = copy_lists_begin(&lu_a, 0, true, 1, true);
	copy_lists_end(slot, &st);
	assert_false(copy_lists_status(&lu_b, 0, 1, true, &out));
}

static void test_discard_and_no_id_not_held(void **state)
{
	struct copy_status st = done(COPY_DONE_OK, 1, 512), out;

	int slot = copy_lists_begin(&lu_a, 0, true, 5, false);    /* 10b */
	assert_true(slot >= 0);
	assert_true(copy_lists_status(&lu_a, 0, 5, false, &out)); /* visible while running */
	copy_lists_end(slot, &st);
	assert_false(copy_lists_status(&lu_a, 0, 5, true, &out));

	slot = copy_lists_begin(&lu_a, 0, false, 0, false);       /* 11b */
	assert_true(slot >= 0);
	assert_int_equal(copy_lists_running(&lu_a), 1);
	assert_false(copy_lists_status(&lu_a, 0, 0, true, &out));
	copy_lists_end(slot, &st);
	assert_int_equal(copy_lists_running(&lu_a), 0);
}

static void test_same_list_id_twice(void **state)
{
	struct copy_status st = done(COPY_DONE_OK, 1, 512), out;
	int s1 = copy_lists_begin(&lu_a, 0, true, 3, true);

	/* list ids are per LU, not per initiator: a second host's copy with the
	 * same id is not refused while the first still runs */
	int s2 = copy_lists_begin(&lu_a, 0, true, 3, true);
	assert_true(s1 >= 0 && s2 >= 0 && s1 != s2);
	assert_int_equal(copy_lists_running(&lu_a), 2);
	struct copy_status st2 = done(COPY_DONE_OK, 7, 7);
	copy_lists_end(s2, &st2);
	copy_lists_end(s1, &st);
	/* one held status per list id: the copy that ended last */
	assert_true(copy_lists_status(&lu_a, 0, 3, true, &out));
	assert_int_equal(out.segments, 1);
	assert_false(copy_lists_status(&lu_a, 0, 3, true, &out));

	/* a completed held id is replaced by a new copy with that id */
	s1 = copy_lists_begin(&lu_a, 0, true, 3, true);
	copy_lists_end(s1, &st2);
	int s4 = copy_lists_begin(&lu_a, 0, true, 3, true);
	assert_true(s4 >= 0);
	assert_true(copy_lists_status(&lu_a, 0, 3, false, &out));
	assert_int_equal(out.cm_status, COPY_IN_PROGRESS);
	copy_lists_end(s4, &st);
}

static void test_concurrency_limit(void **state)
{
	struct copy_status st = done(COPY_DONE_OK, 1, 512);
	int slots[XCOPY_TOTAL_CONCURRENT];

	for (unsigned i = 0; i < XCOPY_TOTAL_CONCURRENT; i++) {
		slots[i] = copy_lists_begin(&lu_a, 0, i % 2 == 0, (uint8_t)i, false);
		assert_true(slots[i] >= 0);
	}
	assert_int_equal(copy_lists_running(&lu_a), XCOPY_TOTAL_CONCURRENT);
	assert_int_equal(copy_lists_begin(&lu_a, 0, false, 0, false), COPY_BEGIN_BUSY);
	int other = copy_lists_begin(&lu_b, 0, false, 0, false);
	assert_true(other >= 0);
	copy_lists_end(other, &st);
	copy_lists_end(slots[0], &st);
	int again = copy_lists_begin(&lu_a, 0, false, 0, false);
	assert_true(again >= 0);
	copy_lists_end(again, &st);
	for (unsigned i = 1; i < XCOPY_TOTAL_CONCURRENT; i++)
		copy_lists_end(slots[i], &st);
	assert_int_equal(copy_lists_running(&lu_a), 0);
}

static void test_held_bounded_oldest_dropped(void **state)
{
	struct copy_status out;

	for (unsigned i = 0; i < XCOPY_HELD_PER_DEV + 3; i++) {
		struct copy_status st = done(COPY_DONE_OK, 1, i);
		int slot = copy_lists_begin(&lu_a, 0, true, (uint8_t)i, true);
		assert_true(slot >= 0);
		copy_lists_end(slot, &st);
	}
	for (unsigned i = 0; i < 3; i++)
		assert_false(copy_lists_status(&lu_a, 0, (uint8_t)i, false, &out));
	for (unsigned i = 3; i < XCOPY_HELD_PER_DEV + 3; i++) {
		assert_true(copy_lists_status(&lu_a, 0, (uint8_t)i, false, &out));
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
	copy_lists_end(copy_lists_begin(&lu_a, 0, true, 1, true), &ok);
	copy_lists_end(copy_lists_begin(&lu_a, 0, true, 1, true), &bad);
	copy_lists_end(copy_lists_begin(&lu_a, 0, true, 1, true), &bad);
	assert_false(copy_lists_status(&lu_a, 0, 1, true, &out));
	/* the details of the last failure are still there for SA 4 */
	assert_true(copy_lists_failed(&lu_a, 0, 1, false, &out));
	assert_int_equal(out.sense[2], 0x0A);

	copy_lists_end(copy_lists_begin(&lu_a, 0, true, 1, true), &ok);
	assert_true(copy_lists_status(&lu_a, 0, 1, true, &out));
	assert_int_equal(out.cm_status, COPY_DONE_OK);
	assert_int_equal(out.segments, 1);
	assert_int_equal(out.bytes, 1u << 20);
	/* replaced: the failure's details went with the new copy */
	assert_false(copy_lists_failed(&lu_a, 0, 1, false, &out));
	/* reported once */
	assert_false(copy_lists_status(&lu_a, 0, 1, true, &out));
}

static void test_failed_details_kept_until_read(void **state)
{
	struct copy_status st = done(COPY_DONE_ERROR, 0, 0), out;

	st.scsi_status = SCSI_STAT_CHECK_CONDITION;
	st.sense_len = 18;
	st.sense[2] = 0x0A;
	int slot = copy_lists_begin(&lu_a, 0, true, 9, true);
	copy_lists_end(slot, &st);
	/* no COPY STATUS for a failed copy: its details only */
	assert_false(copy_lists_status(&lu_a, 0, 9, true, &out));
	assert_true(copy_lists_failed(&lu_a, 0, 9, false, &out));
	assert_true(copy_lists_failed(&lu_a, 0, 9, true, &out));
	assert_int_equal(out.sense[2], 0x0A);
	assert_false(copy_lists_failed(&lu_a, 0, 9, true, &out));
	assert_false(copy_lists_status(&lu_a, 0, 9, true, &out));
}

static void test_forget_dev(void **state)
{
	struct copy_status st = done(COPY_DONE_OK, 1, 1), out;
	int slot = copy_lists_begin(&lu_a, 0, true, 4, true);

	copy_lists_end(slot, &st);
	slot = copy_lists_begin(&lu_b, 0, true, 4, true);
	copy_lists_end(slot, &st);
	copy_lists_forget_dev(&lu_a);
	assert_false(copy_lists_status(&lu_a, 0, 4, false, &out));
	assert_true(copy_lists_status(&lu_b, 0, 4, false, &out));
}

/* With a known I_T nexus (lunlab-target) list ids are per nexus, as SPC-4
 * says: a running duplicate of the same nexus is refused, other nexuses
 * neither see nor disturb each other's statuses. */
static void test_scoped_by_nexus(void **state)
{
	struct copy_status st = done(COPY_DONE_OK, 1, 512), st2 = done(COPY_DONE_OK, 2, 1024), out;

	int s1 = copy_lists_begin(&lu_a, 11, true, 1, true);
	assert_true(s1 >= 0);
	assert_int_equal(copy_lists_begin(&lu_a, 11, true, 1, true), COPY_BEGIN_DUPLICATE);
	int s2 = copy_lists_begin(&lu_a, 12, true, 1, true);   /* other session: fine */
	assert_true(s2 >= 0);
	copy_lists_end(s1, &st);
	copy_lists_end(s2, &st2);
	assert_false(copy_lists_status(&lu_a, 13, 1, false, &out)); /* a new session sees none */
	assert_false(copy_lists_status(&lu_a, 0, 1, false, &out));
	assert_true(copy_lists_status(&lu_a, 11, 1, true, &out));
	assert_int_equal(out.bytes, 512);
	assert_true(copy_lists_status(&lu_a, 12, 1, true, &out));
	assert_int_equal(out.bytes, 1024);
	/* the nexus-less duplicate rule still holds for nexus 0 */
	s1 = copy_lists_begin(&lu_a, 0, true, 1, false);
	assert_true(copy_lists_begin(&lu_a, 0, true, 1, false) >= 0);
	assert_int_equal(copy_lists_running(&lu_a), 2);
}

/* Worker threads start and end copies at once (the host runs handle_cmd on
 * several threads): the table stays consistent (run under TSan as well). */
static void *churn(void *arg)
{
	const void *dev = (arg == &lu_a) ? (const void *)&lu_a : (const void *)&lu_b;
	struct copy_status st = done(COPY_DONE_OK, 1, 512), out;
	unsigned busy = 0;

	for (unsigned i = 0; i < 2000; i++) {
		int slot = copy_lists_begin(dev, 0, i % 3 != 0, (uint8_t)i, i % 2 == 0);
		if (slot < 0) {
			busy++;
			continue;
		}
		copy_lists_progress(slot, 1, 512);
		copy_lists_end(slot, &st);
		copy_lists_status(dev, 0, (uint8_t)i, true, &out);
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
	assert_int_equal(copy_lists_running(&lu_a), 0);
	assert_int_equal(copy_lists_running(&lu_b), 0);
	/* held statuses left behind stay within the per-LU bound */
	unsigned held = 0;
	for (unsigned id = 0; id < 256; id++)
		held += copy_lists_status(&lu_a, 0, (uint8_t)id, false, &out);
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
		cmocka_unit_test_teardown(test_concurrent_workers, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
