/* test_handler_dir.c — lunlab-target's default handler directory: the build
 * tree's handlers/ only for the executable in the build tree, the installed
 * directory for any other copy; $LUNLAB_HANDLER_PATH before both.  The paths
 * are the ones meson.build compiles into this test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "target/handler_dir.h"

#define BUILD_EXE "/build/target"
#define BUILD_H "/build/handlers"
#define INST "/usr/lib/x86_64-linux-gnu/tcmu-runner"

static void build_tree_executable_uses_build_handlers(void **state)
{
	assert_string_equal(handler_dir_pick(BUILD_EXE, BUILD_EXE, BUILD_H, INST), BUILD_H);
}

static void installed_executable_uses_installed_dir(void **state)
{
	assert_string_equal(handler_dir_pick("/usr/sbin", BUILD_EXE, BUILD_H, INST), INST);
	/* a prefix of the build directory is not the build directory */
	assert_string_equal(handler_dir_pick("/build", BUILD_EXE, BUILD_H, INST), INST);
	assert_string_equal(handler_dir_pick("/build/target/sub", BUILD_EXE, BUILD_H, INST), INST);
}

static void unknown_executable_uses_installed_dir(void **state)
{
	assert_string_equal(handler_dir_pick(NULL, BUILD_EXE, BUILD_H, INST), INST);
	/* no build directory compiled in: never the build default */
	assert_string_equal(handler_dir_pick("", "", BUILD_H, INST), INST);
}

static void environment_wins(void **state)
{
	setenv("LUNLAB_HANDLER_PATH", "/opt/handlers", 1);
	assert_string_equal(handler_dir_default(), "/opt/handlers");
	/* empty: as if unset; this test executable is not lunlab-target in the build tree */
	setenv("LUNLAB_HANDLER_PATH", "", 1);
	assert_string_equal(handler_dir_default(), INST);
	unsetenv("LUNLAB_HANDLER_PATH");
	assert_string_equal(handler_dir_default(), INST);
}

static void only_the_installed_dir_is_shared(void **state)
{
	/* lunlab-target loads only handler_lunlab.so from tcmu-runner's directory */
	assert_true(handler_dir_is_shared(INST));
	assert_false(handler_dir_is_shared(BUILD_H));
	assert_false(handler_dir_is_shared("/opt/handlers"));
	assert_false(handler_dir_is_shared(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(build_tree_executable_uses_build_handlers),
		cmocka_unit_test(installed_executable_uses_installed_dir),
		cmocka_unit_test(unknown_executable_uses_installed_dir),
		cmocka_unit_test(environment_wins),
		cmocka_unit_test(only_the_installed_dir_is_shared),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
