/* scn_proc.c - the runner's children: a small table of PIDs and the one way to stop them. */
#include "client/scn_proc.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#define MAX_PROCS 64

struct proc {
	pid_t pid;
	bool group;
};
static struct proc g_procs[MAX_PROCS];
static unsigned g_n;
static volatile sig_atomic_t g_interrupted;

static void on_signal(int sig)
{
	(void)sig;
	g_interrupted = 1;
}

void scn_proc_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

bool scn_proc_interrupted(void)
{
	return g_interrupted != 0;
}

void scn_proc_track(pid_t pid, bool group)
{
	if (g_n < MAX_PROCS)
		g_procs[g_n++] = (struct proc){ pid, group };
}

void scn_proc_forget(pid_t pid)
{
	for (unsigned i = 0; i < g_n; i++)
		if (g_procs[i].pid == pid) {
			g_procs[i] = g_procs[--g_n];
			return;
		}
}

double scn_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void scn_sleep(double s)
{
	if (s <= 0)
		return;
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
	nanosleep(&ts, NULL);
}

static void sig(pid_t pid, bool group, int s)
{
	if (group)
		kill(-pid, s);
	kill(pid, s);
}

int scn_proc_stop(pid_t pid, double grace_s)
{
	bool group = false, ours = false;
	for (unsigned i = 0; i < g_n; i++)
		if (g_procs[i].pid == pid)
			group = g_procs[i].group, ours = true;
	if (!ours || pid <= 0)
		return -1;
	sig(pid, group, SIGCONT);
	sig(pid, group, SIGTERM);
	int st = 0;
	double end = scn_now() + grace_s;
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid || (r < 0 && errno == ECHILD))
			break;
		if (scn_now() >= end) {
			sig(pid, group, SIGKILL);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			break;
		}
		scn_sleep(0.02);
	}
	if (group)
		kill(-pid, SIGKILL); /* what the group left behind */
	scn_proc_forget(pid);
	return st;
}

void scn_proc_stop_all(void)
{
	while (g_n)
		scn_proc_stop(g_procs[g_n - 1].pid, 10);
}
