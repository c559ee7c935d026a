/* readback.h - after a session was lost and logged in again, check that data the target had
 * acknowledged before the loss is still there, so a run that continues across the outage
 * reports the array's figures and not those of a target that came back empty. */
#ifndef LUNLAB_CLIENT_READBACK_H
#define LUNLAB_CLIENT_READBACK_H

#include <stddef.h>
#include <stdint.h>

#include "client/conn.h"
#include "client/stream_write.h"

/* Read back `samples` pieces of 64 KiB spread over the `bytes` written at start_lba, plus the
 * first piece whose source is not all zeros (the oldest data: whatever a restart lost, it lost
 * that), and compare them with fill().  Pieces whose source is all zeros prove nothing and are
 * skipped.  Returns 0 when every piece matched (*checked: bytes compared), -1 with a one-line
 * error naming the first byte that differs, or the failure. */
int readback_check(struct bench_conn *c, uint64_t start_lba, uint64_t bytes, stream_fill_fn fill,
		   void *fill_arg, unsigned samples, uint64_t *checked, char *err, size_t errlen);

#endif
