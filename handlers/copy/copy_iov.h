/* copy_iov.h — move bytes between a command's iovec and a flat buffer
 * (the parameter list in, the RECEIVE COPY RESULTS data out). */
#ifndef LUNLAB_COPY_IOV_H
#define LUNLAB_COPY_IOV_H

#include <stddef.h>
#include <sys/uio.h>

/* Copy at most n bytes from iov into dst; returns bytes copied. */
size_t copy_from_iov(void *dst, size_t n, const struct iovec *iov, size_t iovcnt);
/* Copy at most n bytes from src into iov; returns bytes copied. */
size_t copy_to_iov(const struct iovec *iov, size_t iovcnt, const void *src, size_t n);

#endif
