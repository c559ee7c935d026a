/* test_host.c — handlers/host.c: which host the handler is in.  The lookup
 * of the extension contract (this program exports no lunlab_host_ops, as
 * tcmu-runner does not), the version check (a different major version, a
 * smaller struct and a NULL member refused with one log line; a newer minor
 * version with a bigger struct accepted), and what each operation does on
 * either path: through the host's member, or the tcmu-runner answer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "handlers/host.h"
#include "lunlab/tcmu_abi.h"
#include "tests/unit/copy/tcmu_log_capture.h"
#include "tests/unit/handler/host_double.h"

/* a library command, as handle_cmd gets it; only its address matters */
static struct tcmulib_cmd lib;

/* The tcmu-runner answers of every operation, and no call reached a host. */
static void assert_runner_path(void)
{
	uint32_t segments = 99;
	uint8_t sense[3] = { 9, 9, 9 };
	unsigned calls = host_double_calls;

	assert_null(host_ops());
	assert_false(host_completes_async());
	assert_false(host_has_data_progress());
	assert_int_equal(host_cmd_nexus(&lib), 0);
	assert_int_equal(host_cmd_arrival_ns(&lib), 0);
	assert_false(host_cmd_xcopy_fault(&lib, &segments, sense));
	assert_int_equal(segments, 99);
	assert_int_equal(host_cmd_fault_delay_ns(&lib), 0);
	assert_null(host_cmd_early(&lib));
	host_cmd_data_ready(NULL, &lib);
	host_cmd_data_progress(NULL, &lib, 4096);
	host_dev_set_inline(NULL, NULL);
	host_dev_set_data_arrived(NULL, NULL, NULL);
	host_dev_set_tpgs(NULL, 1);
	host_handler_set_array_ctl(NULL, NULL);
	assert_int_equal(host_double_calls, calls);
}

/* Runs first: the lookup itself, in a process without the symbol. */
static void test_absent_is_tcmu_runner(void **state)
{
	(void)state;
	tcmu_log_last[0] = 0;
	assert_runner_path();
	assert_string_equal(tcmu_log_last, ""); /* absent is normal: nothing logged */
	/* and so is an explicit NULL */
	assert_null(host_ops_adopt(NULL));
	assert_runner_path();
	assert_string_equal(tcmu_log_last, "");
}

static void test_current_version_accepted(void **state)
{
	static struct lunlab_host_ops ops;
	char why[160] = "";

	(void)state;
	host_double_fill(&ops);
	assert_int_equal(host_ops_check(&ops, why, sizeof(why)), 0);
	assert_ptr_equal(host_ops_adopt(&ops), &ops);
	assert_ptr_equal(host_ops(), &ops);
	assert_true(host_completes_async());
	assert_true(host_has_data_progress());
	host_double_nexus = 42;
	host_double_nexus_cmd = NULL;
	assert_int_equal(host_cmd_nexus(&lib), 42);
	assert_ptr_equal(host_double_nexus_cmd, &lib);
	unsigned calls = host_double_calls;
	host_dev_set_tpgs(NULL, 1);
	host_cmd_data_ready(NULL, &lib);
	assert_int_equal(host_double_calls, calls + 2);
}

/* Refused: host_ops() falls back to the tcmu-runner path (even after an
 * accepted struct) and one line names why. */
static void assert_refused(const struct lunlab_host_ops *ops, const char *reason)
{
	static struct lunlab_host_ops good;
	char why[160] = "";

	host_double_fill(&good);
	assert_ptr_equal(host_ops_adopt(&good), &good);
	assert_int_equal(host_ops_check(ops, why, sizeof(why)), -1);
	assert_non_null(strstr(why, reason));
	tcmu_log_last[0] = 0;
	assert_null(host_ops_adopt(ops));
	assert_non_null(strstr(tcmu_log_last, reason));
	assert_non_null(strstr(tcmu_log_last, "running as under tcmu-runner"));
	const char *nl = strchr(tcmu_log_last, '\n'); /* one line */
	assert_non_null(nl);
	assert_int_equal(nl[1], 0);
	assert_runner_path();
}

static void test_older_major_refused(void **state)
{
	struct lunlab_host_ops ops;

	(void)state;
	host_double_fill(&ops);
	ops.version = LUNLAB_HOST_OPS_VERSION(LUNLAB_HOST_OPS_MAJOR - 1, 9);
	assert_refused(&ops, "refused: this handler speaks major version 1");
}

static void test_newer_major_refused(void **state)
{
	struct lunlab_host_ops ops;

	(void)state;
	host_double_fill(&ops);
	ops.version = LUNLAB_HOST_OPS_VERSION(LUNLAB_HOST_OPS_MAJOR + 1, 0);
	assert_refused(&ops, "contract 2.0 refused");
}

static void test_smaller_size_refused(void **state)
{
	struct lunlab_host_ops ops;
	char reason[80];

	(void)state;
	host_double_fill(&ops);
	/* a host built before the last member existed */
	ops.size = (uint32_t)offsetof(struct lunlab_host_ops, handler_set_array_ctl);
	snprintf(reason, sizeof(reason), "size %u, this handler needs %zu", ops.size, sizeof(ops));
	assert_refused(&ops, reason);
}

static void test_null_member_refused(void **state)
{
	struct lunlab_host_ops ops;

	(void)state;
	host_double_fill(&ops);
	ops.cmd_xcopy_fault = NULL;
	assert_refused(&ops, "a member is NULL");
}

/* A host of a later minor version: its struct has a member this handler
 * does not know, appended at the end; the handler uses the ones it knows. */
static void test_newer_minor_bigger_struct_accepted(void **state)
{
	static struct {
		struct lunlab_host_ops known;
		void (*appended_later)(void);
	} newer;
	char why[160] = "";

	(void)state;
	host_double_fill(&newer.known);
	newer.known.version = LUNLAB_HOST_OPS_VERSION(LUNLAB_HOST_OPS_MAJOR, LUNLAB_HOST_OPS_MINOR + 3);
	newer.known.size = sizeof(newer);
	assert_true(newer.known.size > sizeof(struct lunlab_host_ops));
	assert_int_equal(host_ops_check(&newer.known, why, sizeof(why)), 0);
	tcmu_log_last[0] = 0;
	assert_ptr_equal(host_ops_adopt(&newer.known), &newer.known);
	assert_string_equal(tcmu_log_last, "");
	host_double_nexus = 7;
	assert_int_equal(host_cmd_nexus(&lib), 7);
	assert_true(host_completes_async());
	/* lunlab_host_ops_has: what the struct holds, not what it lacks */
	assert_true(lunlab_host_ops_has(&newer.known, handler_set_array_ctl));
	newer.known.size = (uint32_t)offsetof(struct lunlab_host_ops, handler_set_array_ctl);
	assert_false(lunlab_host_ops_has(&newer.known, handler_set_array_ctl));
	assert_true(lunlab_host_ops_has(&newer.known, cmd_nexus));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_absent_is_tcmu_runner), /* first: before any adopt */
		cmocka_unit_test(test_current_version_accepted),
		cmocka_unit_test(test_older_major_refused),
		cmocka_unit_test(test_newer_major_refused),
		cmocka_unit_test(test_smaller_size_refused),
		cmocka_unit_test(test_null_member_refused),
		cmocka_unit_test(test_newer_minor_bigger_struct_accepted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
