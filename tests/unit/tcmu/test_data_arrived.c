/* test_data_arrived.c — the host's early Data-Out path
 * (lunlab_host_ops.dev_set_data_arrived, lu_backend_ops.data_arrived): each
 * call reaches the handler's hook with the command's CDB and byte count,
 * the state it keeps rides in the transport's command, handle_cmd sees it
 * through lunlab_host_ops.cmd_early, and the transport's early_drop frees it
 * once, whether the command ran or not.  A handler without the hook leaves
 * the command untouched.  Uses the test handler with early=1
 * (handler_hosttest.c: the hook counts calls for opcode 0xC2). */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "lunlab/tcmu_abi.h"
#include "target/tcmu/host.h"
#include "tcmu_test_util.h"
#include "hosttest_group.h"

static struct lu_backend *mkdev(const char *cfgstring, const char *name)
{
	char *err = NULL;
	struct tcmu_host_dev_cfg cfg = {
		.cfgstring = cfgstring, .size_bytes = 1 << 20, .block_size = 512,
		.wwn = "ear1", .name = name,
	};
	struct lu_backend *be = tcmu_host_create_device(&cfg, &err);

	if (!be)
		fprintf(stderr, "create %s: %s\n", name, err ? err : "?");
	free(err);
	return be;
}

struct seen {
	unsigned calls;
	size_t last;
	int drops;
};

static struct seen early_seen(void)
{
	void *h = dlopen(HOSTTEST_SO, RTLD_NOW | RTLD_NOLOAD);
	void (*fn)(unsigned *, size_t *, int *);
	struct seen s;

	assert_non_null(h);
	*(void **)&fn = dlsym(h, "hosttest_early");
	assert_non_null(fn);
	fn(&s.calls, &s.last, &s.drops);
	dlclose(h);
	return s;
}

static void test_state_reaches_handle_cmd(void **state)
{
	static const uint8_t wr[6] = { 0xC2 };
	struct lu_backend *be = mkdev("hosttest/name=e;early=1", "lun40");

	(void)state;
	assert_non_null(be);
	struct seen s0 = early_seen();
	struct tcmd *t = tcmd_new(wr, 6, LU_DIR_WRITE, 1000, 1);

	be->ops->data_arrived(be, &t->lu, 300);
	be->ops->data_arrived(be, &t->lu, 600);
	assert_non_null(t->lu.early);
	assert_non_null(t->lu.early_drop);
	be->ops->submit(be, &t->lu);
	tcmd_wait(t);
	assert_int_equal(t->lu.status, 0);
	struct seen s = early_seen();
	assert_int_equal(s.calls, 2);
	assert_int_equal(s.last, 600);
	assert_int_equal(s.drops, s0.drops); /* the transport's to drop */
	t->lu.early_drop(t->lu.early);
	assert_int_equal(early_seen().drops, s0.drops + 1);
	tcmd_free(t);

	/* a command with no call: handle_cmd sees no state */
	t = tcmd_new(wr, 6, LU_DIR_WRITE, 100, 1);
	be->ops->submit(be, &t->lu);
	tcmd_wait(t);
	assert_null(t->lu.early);
	assert_int_equal(early_seen().calls, 0);
	tcmd_free(t);
	be->ops->destroy(be);
}

/* The command never reaches the handler (aborted, refused before it): the
 * state is dropped all the same, and only once. */
static void test_state_of_a_command_that_never_ran(void **state)
{
	static const uint8_t wr[6] = { 0xC2 };
	struct lu_backend *be = mkdev("hosttest/name=e2;early=1", "lun41");

	(void)state;
	assert_non_null(be);
	struct seen s0 = early_seen();
	struct tcmd *t = tcmd_new(wr, 6, LU_DIR_WRITE, 1000, 1);

	be->ops->data_arrived(be, &t->lu, 512);
	assert_non_null(t->lu.early);
	t->lu.early_drop(t->lu.early);
	assert_int_equal(early_seen().drops, s0.drops + 1);
	assert_int_equal(tcmd_calls(t), 0);
	tcmd_free(t);
	be->ops->destroy(be);
}

/* Without the handler's hook (no early=1), or for a CDB the hook ignores,
 * the command stays as it was. */
static void test_no_hook_no_state(void **state)
{
	static const uint8_t wr[6] = { 0xC2 }, other[6] = { 0xC0 };
	struct lu_backend *plain = mkdev("hosttest/name=p", "lun42");
	struct lu_backend *be = mkdev("hosttest/name=e3;early=1", "lun43");

	(void)state;
	assert_non_null(plain);
	assert_non_null(be);
	struct tcmd *t = tcmd_new(wr, 6, LU_DIR_WRITE, 1000, 1);

	plain->ops->data_arrived(plain, &t->lu, 500);
	assert_null(t->lu.early);
	assert_null(t->lu.early_drop);
	tcmd_free(t);
	t = tcmd_new(other, 6, LU_DIR_WRITE, 1000, 1);
	be->ops->data_arrived(be, &t->lu, 500);
	assert_null(t->lu.early);
	tcmd_free(t);
	plain->ops->destroy(plain);
	be->ops->destroy(be);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state_reaches_handle_cmd),
		cmocka_unit_test(test_state_of_a_command_that_never_ran),
		cmocka_unit_test(test_no_hook_no_state),
	};

	return cmocka_run_group_tests(tests, hosttest_setup_all, hosttest_teardown_all);
}
