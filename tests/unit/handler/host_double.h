/* host_double.h — a stand-in for lunlab-target's extension contract
 * (include/lunlab/host_ext.h) in unit tests of handler code, which run
 * without a host: a complete struct lunlab_host_ops of the version this
 * tree builds, whose members record what they were asked. */
#ifndef LUNLAB_TEST_HOST_DOUBLE_H
#define LUNLAB_TEST_HOST_DOUBLE_H

#include <stdint.h>

#include "lunlab/host_ext.h"

/* what cmd_nexus answers, and the command it was last asked about */
extern uint64_t host_double_nexus;
extern const struct tcmulib_cmd *host_double_nexus_cmd;
/* what cmd_xcopy_fault answers: a fault rule's break-off (count: segments
 * of an EXTENDED COPY, blocks of a WRITE USING TOKEN); off by default */
extern bool host_double_fault;
extern uint32_t host_double_fault_count;
extern uint8_t host_double_fault_sense[3];
/* called by cmd_xcopy_fault when set: a test's stand-in for something that
 * happens while a copy runs (a COPY OPERATION ABORT from another thread) */
extern void (*host_double_fault_hook)(void);
/* how many times any member was called */
extern unsigned host_double_calls;

/* Fill *ops with the double's members, version and size. */
void host_double_fill(struct lunlab_host_ops *ops);

#endif
