/* test_iscsi_stats.c — target/iscsi/iscsi_stats.c and the transport's
 * counting (scsi_cmd_flow.c -> target/lu/lu_stats.c) through real PDUs:
 * libiscsi logs in to the transport on 127.0.0.1 (an in-memory test LU
 * behind it), writes and reads; logins by result, open sessions, and the
 * LU's commands and wire bytes by kind must come out exact. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

#include "loopback_target.h"
#include "mem_backend.h"
#include "target/iscsi/io_thread.h"
#include "target/iscsi/iscsi_stats.h"
#include "target/iscsi/target.h"
#include "target/lu/lu_stats.h"
#include "target/lu/lu_table.h"

#define IQN "iqn.2026-11.org.lunlab:stats"

static char portal[64];
static struct lu_backend *lu0;

static int group_setup(void **state)
{
	(void)state;
	g_target.iqn = IQN;
	g_target.quiet = true;
	g_target.max_sessions = 100;
	lu0 = mem_backend_new(8u << 20, 512);
	lu_table_reset();
	lu_table_add(lu0);
	snprintf(portal, sizeof(portal), "127.0.0.1:%u", loopback_target_start(2));
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	loopback_target_stop();
	mem_backend_free(lu0);
	io_threads_free();
	lu_table_reset();
	return 0;
}

static void test_result_of_status(void **state)
{
	(void)state;
	assert_int_equal(login_result_of_status(0x0000), LOGIN_RESULT_SUCCESS);
	assert_int_equal(login_result_of_status(0x0201), LOGIN_RESULT_AUTHENTICATION_FAILURE);
	assert_int_equal(login_result_of_status(0x0202), LOGIN_RESULT_AUTHORIZATION_FAILURE);
	assert_int_equal(login_result_of_status(0x0203), LOGIN_RESULT_NOT_FOUND);
	assert_int_equal(login_result_of_status(0x0207), LOGIN_RESULT_INITIATOR_ERROR);
	assert_int_equal(login_result_of_status(0x0302), LOGIN_RESULT_TARGET_ERROR);
	assert_string_equal(login_result_name(LOGIN_RESULT_AUTHORIZATION_FAILURE), "authorization_failure");
	assert_string_equal(login_result_name(LOGIN_RESULT_ABANDONED), "abandoned");
	assert_string_equal(login_result_name(LOGIN_RESULTS), "target_error");
}

static struct iscsi_context *connect_to(const char *target, int *rc)
{
	static int serial;
	char name[96];
	struct iscsi_context *ic;

	snprintf(name, sizeof(name), "iqn.2026-11.org.lunlab:stats-initiator-%d", serial++);
	ic = iscsi_create_context(name);
	assert_non_null(ic);
	iscsi_set_targetname(ic, target);
	iscsi_set_session_type(ic, ISCSI_SESSION_NORMAL);
	iscsi_set_header_digest(ic, ISCSI_HEADER_DIGEST_NONE);
	iscsi_set_timeout(ic, 10);
	*rc = iscsi_full_connect_sync(ic, portal, 0);
	return ic;
}

/* the target's counters move on its I/O threads: wait until they show n */
static uint64_t sessions_eventually(uint64_t n)
{
	for (int i = 0; i < 200 && iscsi_stats_sessions(false) != n; i++)
		usleep(10000);
	return iscsi_stats_sessions(false);
}

static void test_logins_and_sessions(void **state)
{
	uint64_t ok0 = iscsi_stats_logins(LOGIN_RESULT_SUCCESS);
	uint64_t nf0 = iscsi_stats_logins(LOGIN_RESULT_NOT_FOUND);
	int rc;

	(void)state;
	struct iscsi_context *a = connect_to(IQN, &rc);
	assert_int_equal(rc, 0);
	struct iscsi_context *b = connect_to("iqn.2026-11.org.lunlab:nobody", &rc);
	assert_int_not_equal(rc, 0);
	iscsi_destroy_context(b);
	assert_int_equal(sessions_eventually(1), 1);
	assert_int_equal(iscsi_stats_logins(LOGIN_RESULT_SUCCESS), ok0 + 1);
	assert_int_equal(iscsi_stats_logins(LOGIN_RESULT_NOT_FOUND), nf0 + 1);
	assert_int_equal(iscsi_stats_sessions(true), 0);
	iscsi_logout_sync(a);
	iscsi_destroy_context(a);
	assert_int_equal(sessions_eventually(0), 0);
}

static void test_lu_counts(void **state)
{
	struct lu_kind_figures f0[LU_KINDS], f[LU_KINDS];
	uint8_t buf[8192];
	struct scsi_task *t;
	uint64_t sum = 0;
	int rc;

	(void)state;
	lu_stats_read(lu_table_entry(0)->stats, f0);
	struct iscsi_context *a = connect_to(IQN, &rc);
	assert_int_equal(rc, 0);
	memset(buf, 0x5a, sizeof(buf));
	for (int i = 0; i < 3; i++) {
		t = iscsi_write10_sync(a, 0, (unsigned)i * 16, buf, sizeof(buf), 512, 0, 0, 0, 0, 0);
		assert_non_null(t);
		assert_int_equal(t->status, SCSI_STATUS_GOOD);
		scsi_free_scsi_task(t);
	}
	t = iscsi_read10_sync(a, 0, 0, 4096, 512, 0, 0, 0, 0, 0);
	assert_non_null(t);
	assert_int_equal(t->status, SCSI_STATUS_GOOD);
	scsi_free_scsi_task(t);
	/* a READ past the end: CHECK CONDITION, counted as an error, no data */
	t = iscsi_read16_sync(a, 0, (8u << 20) / 512, 512, 512, 0, 0, 0, 0, 0);
	assert_non_null(t);
	assert_int_equal(t->status, SCSI_STATUS_CHECK_CONDITION);
	scsi_free_scsi_task(t);
	iscsi_logout_sync(a);
	iscsi_destroy_context(a);

	lu_stats_read(lu_table_entry(0)->stats, f);
	assert_int_equal(f[LU_KIND_WRITE].commands - f0[LU_KIND_WRITE].commands, 3);
	assert_int_equal(f[LU_KIND_WRITE].bytes - f0[LU_KIND_WRITE].bytes, 3 * sizeof(buf));
	assert_int_equal(f[LU_KIND_WRITE].errors - f0[LU_KIND_WRITE].errors, 0);
	assert_int_equal(f[LU_KIND_READ].commands - f0[LU_KIND_READ].commands, 2);
	assert_int_equal(f[LU_KIND_READ].bytes - f0[LU_KIND_READ].bytes, 4096);
	assert_int_equal(f[LU_KIND_READ].errors - f0[LU_KIND_READ].errors, 1);
	/* the login's own commands (libiscsi's TEST UNIT READY, READ CAPACITY, ...) are "other" */
	assert_true(f[LU_KIND_OTHER].commands > f0[LU_KIND_OTHER].commands);
	for (unsigned b = 0; b < LUNLAB_LAT_BUCKETS; b++)
		sum += f[LU_KIND_WRITE].latency_buckets[b] - f0[LU_KIND_WRITE].latency_buckets[b];
	assert_int_equal(sum, 3);
	assert_true(f[LU_KIND_WRITE].latency_sum_ns > f0[LU_KIND_WRITE].latency_sum_ns);
	assert_null(lu_table_entry(1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_result_of_status),
		cmocka_unit_test(test_logins_and_sessions),
		cmocka_unit_test(test_lu_counts),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
