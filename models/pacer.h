/* pacer.h — holds completions until their modeled time has passed: one timer
 * thread per process fires callbacks at CLOCK_MONOTONIC deadlines, so a
 * handler can return TCMU_STS_ASYNC_HANDLED and complete later without a
 * worker thread sleeping per command. */
#ifndef LUNLAB_PACER_H
#define LUNLAB_PACER_H

#include <stdint.h>

/* Run fn(arg) on the pacer thread at or shortly after deadline_ns. */
void pacer_schedule(uint64_t deadline_ns, void (*fn)(void *arg), void *arg);
uint64_t pacer_now_ns(void);

#endif
