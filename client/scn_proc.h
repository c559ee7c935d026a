/* scn_proc.h - every process the scenario runner starts, so that each is stopped on every
 * exit path (end of run, failed expectation, Ctrl-C, SIGTERM), by its PID. */
#ifndef LUNLAB_CLIENT_SCN_PROC_H
#define LUNLAB_CLIENT_SCN_PROC_H

#include <stdbool.h>
#include <sys/types.h>

/* SIGINT/SIGTERM set a flag (no SA_RESTART: a sleep returns early) the runner polls */
void scn_proc_signals(void);
bool scn_proc_interrupted(void);

/* group: the child made itself a process group leader; stopping it signals the group (a
 * run: command's own children go with it) */
void scn_proc_track(pid_t pid, bool group);
void scn_proc_forget(pid_t pid);
/* SIGCONT (a paused array), SIGTERM, up to grace_s for it to go, then SIGKILL; reaps it.
 * Returns the wait status, or -1 when it was not ours. */
int scn_proc_stop(pid_t pid, double grace_s);
/* every tracked process, in the reverse order they were started */
void scn_proc_stop_all(void);

double scn_now(void);
/* sleeps up to s seconds; returns early on a signal */
void scn_sleep(double s);

#endif
