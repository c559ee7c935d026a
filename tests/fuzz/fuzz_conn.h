/* fuzz_conn.h — what the socketpair fuzz harnesses (fuzz-iscsi-rx,
 * fuzz-iscsi-login-chap) share: a connection fed a whole input stream from
 * the other end of a socketpair, and the I/O thread's reaction to a peer
 * that left while reading was paused. */
#ifndef LUNLAB_FUZZ_CONN_H
#define LUNLAB_FUZZ_CONN_H

#include <stddef.h>
#include <stdint.h>

#include "target/iscsi/conn.h"

/* Largest stream the socket buffers are sized for: inputs above it are
 * skipped, so writing the whole stream never blocks. */
#define FUZZ_CONN_MAX_STREAM (192 * 1024)

/* A nonblocking socketpair with buffers that hold FUZZ_CONN_MAX_STREAM;
 * writes prefix then data into the peer end and shuts its write side, so the
 * target sees the stream end.  Returns the target's end for conn_new and the
 * peer end in *peer (still open, so the target's responses do not meet a
 * closed socket; the caller closes it); aborts on error. */
int fuzz_conn_stream(const uint8_t *prefix, size_t prefix_len, const uint8_t *data, size_t len,
		     int *peer);

/* The receiver pauses (conn_rx.c) when a SCSI Command would take the
 * connection's live EDTL past CONN_MAX_DATA_BYTES; only completions resume
 * it, and here nothing completes (no I/O thread: responses stay queued).
 * The pause must be real (the header in c->bhs over budget, else abort);
 * then this does what the I/O thread does when the peer has gone meanwhile
 * (EPOLLRDHUP on a paused connection): close it. */
void fuzz_conn_paused_peer_gone(struct conn *c);

#endif
