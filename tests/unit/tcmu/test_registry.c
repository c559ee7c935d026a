/* test_registry.c — loading handler_*.so files: only matching names are
 * tried, handler_init() registers, a second registration of a subtype is
 * refused, a broken file gives one error line naming it and dlerror(). */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "lunlab/tcmu_abi.h"
#include "target/tcmu/host.h"
#include "tcmu_test_util.h"

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_load_register_duplicate(void **state)
{
	char *err = NULL;
	char *dir = tmp_handler_dir();

	(void)state;
	assert_non_null(dir);
	/* files whose names do not match handler_*.so are never opened (if
	 * they were, these would fail to load) */
	write_file(dir, "libhandler_x.so", "junk");
	write_file(dir, "handler_x.txt", "junk");
	write_file(dir, "handler_.so", "junk");
	assert_int_equal(tcmu_host_load_handlers(dir, &err), 2);
	assert_null(err);

	/* the same subtype again, directly and through the loader */
	static struct tcmur_handler dup = { .name = "dup", .subtype = "hosttest" };

	assert_int_equal(tcmur_register_handler(&dup), -1);
	static struct tcmur_handler nosub = { .name = "nosub" };

	assert_int_equal(tcmur_register_handler(&nosub), -1);
	assert_int_equal(tcmu_host_load_handlers(dir, &err), -1);
	assert_non_null(err);
	assert_non_null(strstr(err, "/handler_hosttest.so: handler_init() failed: -1: subtype 'hosttest' is already registered"));
	assert_null(strchr(err, '\n'));
	free(err);

	/* a different subtype registers and its init() runs */
	static int inits;
	struct tcmur_handler *other = calloc(1, sizeof(*other));

	other->subtype = "other";
	other->init = NULL;
	assert_int_equal(tcmur_register_handler(other), 0);
	(void)inits;
	tcmu_host_shutdown();
	free(other);
	rm_dir(dir);
	free(dir);
}

static int failing_init(void) { return -5; }

static void test_init_failure_refuses(void **state)
{
	static struct tcmur_handler h = { .subtype = "initfail", .init = failing_init };
	static struct tcmur_handler again = { .subtype = "initfail" };

	(void)state;
	assert_int_equal(tcmur_register_handler(&h), -1);
	/* not registered: the subtype is still free */
	assert_int_equal(tcmur_register_handler(&again), 0);
	tcmu_host_shutdown();
}

static void test_broken_file(void **state)
{
	char *err = NULL;
	char tmpl[] = "/tmp/lunlab-tcmu-test-XXXXXX";
	char *dir = mkdtemp(tmpl);

	(void)state;
	assert_non_null(dir);
	write_file(dir, "handler_broken.so",
		   "this is not an ELF file, and it is long enough that the loader reads its header\n");
	assert_int_equal(tcmu_host_load_handlers(dir, &err), -1);
	assert_non_null(err);
	char expect[PATH_MAX + 64];

	snprintf(expect, sizeof(expect), "%s/handler_broken.so: dlopen failed: ", dir);
	assert_true(strncmp(err, expect, strlen(expect)) == 0);
	/* dlerror() text follows */
	assert_non_null(strstr(err, "handler_broken.so: invalid ELF header"));
	free(err);
	err = NULL;
	/* a missing directory */
	assert_int_equal(tcmu_host_load_handlers("/nonexistent/lunlab", &err), -1);
	assert_string_equal(err, "/nonexistent/lunlab: cannot read handler directory: No such file or directory");
	free(err);
	rm_dir(dir);
	/* an empty directory loads nothing and is not an error */
	char tmpl2[] = "/tmp/lunlab-tcmu-test-XXXXXX";

	dir = mkdtemp(tmpl2);
	err = NULL;
	assert_int_equal(tcmu_host_load_handlers(dir, &err), 0);
	assert_null(err);
	rm_dir(dir);
}

/* one named file: only it is opened, even with a broken neighbour */
static void test_load_one_file(void **state)
{
	char *err = NULL;
	char tmpl[] = "/tmp/lunlab-tcmu-test-XXXXXX";
	char *dir = mkdtemp(tmpl);
	char path[PATH_MAX];

	(void)state;
	assert_non_null(dir);
	write_file(dir, "handler_a.so", "not an ELF file, long enough for the loader to read its header\n");
	write_file(dir, "handler_b.so", "not an ELF file, long enough for the loader to read its header\n");
	snprintf(path, sizeof(path), "%s/handler_a.so", dir);
	assert_int_equal(tcmu_host_load_handler_file(path, &err), -1);
	assert_non_null(err);
	assert_non_null(strstr(err, "/handler_a.so: dlopen failed: "));
	assert_null(strstr(err, "handler_b.so"));
	free(err);
	err = NULL;
	snprintf(path, sizeof(path), "%s/handler_missing.so", dir);
	assert_int_equal(tcmu_host_load_handler_file(path, &err), -1);
	assert_non_null(strstr(err, "/handler_missing.so: dlopen failed: "));
	free(err);
	rm_dir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_register_duplicate),
		cmocka_unit_test(test_init_failure_refuses),
		cmocka_unit_test(test_broken_file),
		cmocka_unit_test(test_load_one_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
