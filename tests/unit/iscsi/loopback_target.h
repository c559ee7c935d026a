/* loopback_target.h — the transport under test on 127.0.0.1: a listener on a
 * free port, N I/O threads and an acceptor thread, shared by the end-to-end
 * and raw-PDU tests (each configures g_target and the LU table first). */
#ifndef LUNLAB_TEST_LOOPBACK_TARGET_H
#define LUNLAB_TEST_LOOPBACK_TARGET_H

#include <stddef.h>

/* Start listening on 127.0.0.1:0 with io_threads I/O threads; returns the port. */
unsigned loopback_target_start(unsigned io_threads);
/* Stop accepting, close the listener, stop the I/O threads (io_threads_free
 * stays with the caller, after it has freed its backends). */
void loopback_target_stop(void);

/* Blocking whole-buffer socket I/O for raw initiators; a short or failed
 * transfer fails the test. */
void fd_write_all(int fd, const void *buf, size_t n);
void fd_read_all(int fd, void *buf, size_t n);

#endif
