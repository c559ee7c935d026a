/* copy_iov.c — flat buffer <-> iovec, bounded by both sides. */
#include <string.h>

#include "handlers/copy/copy_iov.h"

size_t copy_from_iov(void *dst, size_t n, const struct iovec *iov, size_t iovcnt)
{
	size_t done = 0;

	for (size_t i = 0; i < iovcnt && done < n; i++) {
		size_t k = iov[i].iov_len < n - done ? iov[i].iov_len : n - done;
		if (k)
			memcpy((char *)dst + done, iov[i].iov_base, k);
		done += k;
	}
	return done;
}

size_t copy_to_iov(const struct iovec *iov, size_t iovcnt, const void *src, size_t n)
{
	size_t done = 0;

	for (size_t i = 0; i < iovcnt && done < n; i++) {
		size_t k = iov[i].iov_len < n - done ? iov[i].iov_len : n - done;
		if (k)
			memcpy(iov[i].iov_base, (const char *)src + done, k);
		done += k;
	}
	return done;
}
