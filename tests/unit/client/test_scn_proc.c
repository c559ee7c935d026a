/* test_scn_proc.c - the runner stops what it started by PID: a child that ignores SIGTERM is
 * killed after the grace time, a process group leader's children go with it, a PID the runner
 * did not start is refused, stop_all leaves nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "client/scn_proc.h"

static bool gone(pid_t pid)
{
	return kill(pid, 0) < 0 && errno == ESRCH;
}

static void ignores_sigterm(void **state)
{
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGTERM, SIG_IGN);
		close(p[0]);
		(void)!write(p[1], "x", 1); /* ready: SIGTERM is ignored now */
		for (;;)
			pause();
	}
	char c;
	close(p[1]);
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	scn_proc_track(pid, false);
	int st = scn_proc_stop(pid, 0.2);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	assert_true(gone(pid));
	assert_int_equal(scn_proc_stop(pid, 1), -1); /* not ours any more */
	assert_int_equal(scn_proc_stop(getppid(), 1), -1);
}

static void group_goes_with_its_leader(void **state)
{
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		pid_t g = fork();
		if (g == 0) {
			for (;;)
				pause();
		}
		close(p[0]);
		(void)!write(p[1], &g, sizeof(g));
		for (;;)
			pause();
	}
	setpgid(pid, pid);
	pid_t grandchild = 0;
	close(p[1]);
	assert_int_equal(read(p[0], &grandchild, sizeof(grandchild)), (ssize_t)sizeof(grandchild));
	close(p[0]);
	scn_proc_track(pid, true);
	scn_proc_stop_all();
	assert_true(gone(pid));
	/* the grandchild was reparented (to init or a subreaper): it must be dead, not running */
	for (int i = 0; i < 1000 && !gone(grandchild); i++) { /* 10 s at most: it dies at once */
		char path[64], st = 0;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)grandchild);
		FILE *f = fopen(path, "r");
		if (f && fscanf(f, "%*d %*s %c", &st) == 1 && st == 'Z') {
			fclose(f);
			break; /* killed, waiting for its new parent to reap it */
		}
		if (f)
			fclose(f);
		scn_sleep(0.01);
	}
	char path[64], st = 'Z';
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)grandchild);
	FILE *f = fopen(path, "r");
	if (f) {
		assert_int_equal(fscanf(f, "%*d %*s %c", &st), 1);
		fclose(f);
	}
	assert_int_equal(st, 'Z');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ignores_sigterm),
		cmocka_unit_test(group_goes_with_its_leader),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
