/* test_state_dir.c — state/state_dir.c: the directory is created, locked
 * against a second user (with the holder's pid in the message), released on
 * unlock; array directory names are safe file names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "state/state_dir.h"
#include "test_util.h"

static void test_create_and_lock(void **state)
{
	(void)state;
	char *d = make_scratch(), sub[512], err[512];
	int fd, fd2;
	struct stat st;

	snprintf(sub, sizeof(sub), "%s/a/b/state", d);
	assert_int_equal(state_dir_lock(sub, false, &fd, err, sizeof(err)), -1); /* not there, not created */
	assert_non_null(strstr(err, "No such file"));
	assert_int_equal(state_dir_lock(sub, true, &fd, err, sizeof(err)), 0);
	assert_int_equal(stat(sub, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	/* a second user (another open file description) is refused, by pid */
	assert_int_equal(state_dir_lock(sub, true, &fd2, err, sizeof(err)), -1);
	char want[64];
	snprintf(want, sizeof(want), "in use by another process (pid %ld)", (long)getpid());
	assert_non_null(strstr(err, want));
	assert_int_equal(fd2, -1);
	state_dir_unlock(fd);
	assert_int_equal(state_dir_lock(sub, false, &fd2, err, sizeof(err)), 0);
	state_dir_unlock(fd2);
	rm_scratch(d);
}

static void test_not_a_directory(void **state)
{
	(void)state;
	char *d = make_scratch(), f[512], err[512];
	int fd;

	snprintf(f, sizeof(f), "%s/file", d);
	FILE *fp = fopen(f, "w");
	assert_non_null(fp);
	fclose(fp);
	assert_int_equal(state_dir_lock(f, true, &fd, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a directory"));
	assert_int_equal(state_dir_lock("", true, &fd, err, sizeof(err)), -1);
	rm_scratch(d);
}

static void test_array_dir_names(void **state)
{
	(void)state;
	char out[128];

	assert_int_equal(state_array_dir("/s", "a1", out, sizeof(out)), 0);
	assert_string_equal(out, "/s/arrays/a1");
	assert_int_equal(state_array_dir("/s", "private:uio0", out, sizeof(out)), 0);
	assert_string_equal(out, "/s/arrays/private%3Auio0");
	/* names that would be special to the file system */
	assert_int_equal(state_array_dir("/s", "..", out, sizeof(out)), 0);
	assert_string_equal(out, "/s/arrays/%2E%2E");
	assert_int_equal(state_array_dir("/s", "-x/y", out, sizeof(out)), 0);
	assert_string_equal(out, "/s/arrays/%2Dx%2Fy");
	assert_int_equal(state_array_dir("/s", "", out, sizeof(out)), -1);
	assert_int_equal(state_array_dir("/s", "abcdef", out, 14), -1); /* does not fit */
}

static void test_has_state(void **state)
{
	(void)state;
	char *d = make_scratch(), p[512];

	assert_false(state_dir_has_state(d));
	snprintf(p, sizeof(p), "%s/arrays", d);
	assert_int_equal(mkdir(p, 0700), 0);
	assert_true(state_dir_has_state(d));
	rm_scratch(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_and_lock),
		cmocka_unit_test(test_not_a_directory),
		cmocka_unit_test(test_array_dir_names),
		cmocka_unit_test(test_has_state),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
