/* api_nice.h — the management plane yields to the data plane.  Every thread
 * doing API work (the HTTPS server's listener and its connection threads,
 * the performance history's sampler, and with them the event store's
 * writes, which run on those threads) runs N nice steps below the threads
 * that serve I/O (--api-nice N; docs/api.md "Pollers and I/O").
 *
 * Why: on a real XtremIO the XMS is a machine of its own and the monitoring
 * tools that poll it run on other hosts: their requests never take CPU from
 * the storage controllers.  lunlab runs both planes in one process; a lower
 * CPU priority for the management threads is the nearest it can come: on a
 * machine the I/O keeps busy they get what the I/O leaves, on an idle one
 * they run at once.  Per-thread nice (setpriority(PRIO_PROCESS, TID)) needs
 * no privilege to be raised; it is relative to the nice the target started
 * with (a target started under `nice -n 5` keeps its I/O at 5 and its API at
 * 5 + N), and at most 19.  SCHED_IDLE is not used: a thread of that class
 * runs only when nothing else wants the CPU, and 100 VMs at full speed
 * always do, so a request could wait without bound. */
#ifndef LUNLAB_API_NICE_H
#define LUNLAB_API_NICE_H

#include <stddef.h>

/* 10: the nice(1) command's own default step.  At nice 10 a thread weighs
 * about a tenth of a nice-0 one (the kernel's weights 110 vs 1024), so under
 * full I/O the API's threads take little from it, yet a request still gets
 * its share and completes (bench/api-pollers.sh prints their times). */
#define API_NICE_DEFAULT 10
#define API_NICE_MAX 19

/* The steps (0: the API's threads run as the others, as before --api-nice)
 * and the base: the calling thread's nice now.  Called once before the
 * API's threads start (api_start). */
void api_nice_set(unsigned steps);
unsigned api_nice_steps(void);
/* The nice the API's threads run at: base + steps, at most 19. */
int api_nice_value(void);
/* The base: the I/O threads' nice (the target's). */
int api_nice_base(void);
/* Puts the calling thread at api_nice_value() (nothing when steps is 0):
 * a thread the API starts calls it first, and the threads it creates
 * inherit it (Linux copies a thread's nice to the threads it creates).
 * 0, or -1 with the reason in err. */
int api_nice_self(char *err, size_t errlen);

#endif
