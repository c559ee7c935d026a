/* iov_cursor.h — a cursor over a caller's iovec (never modified): the walk
 * a volume's data path (volume_io.c) and the storing of a write's whole
 * blocks (range_store.c) both take over SCSI data buffers.  Inline: it runs
 * once per block of every READ and WRITE.  Internal to handlers/array. */
#ifndef LUNLAB_ARRAY_IOV_CURSOR_H
#define LUNLAB_ARRAY_IOV_CURSOR_H

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/uio.h>

struct iovcur {
	const struct iovec *iov;
	size_t cnt, idx, off;
};

static inline void cur_skip(struct iovcur *c, size_t n);

static inline void cur_init(struct iovcur *c, const struct iovec *iov, size_t cnt)
{
	c->iov = iov;
	c->cnt = cnt;
	c->idx = 0;
	c->off = 0;
	cur_skip(c, 0);
}

/* Advance n bytes; the cursor never rests on an exhausted or empty segment. */
static inline void cur_skip(struct iovcur *c, size_t n)
{
	while (c->idx < c->cnt) {
		size_t k = c->iov[c->idx].iov_len - c->off;
		if (k > n)
			k = n;
		c->off += k;
		n -= k;
		if (c->off < c->iov[c->idx].iov_len)
			break;
		c->idx++;
		c->off = 0;
	}
}

/* Pointer to n contiguous bytes at the cursor, or NULL if they straddle. */
static inline const void *cur_peek(const struct iovcur *c, size_t n)
{
	if (c->idx >= c->cnt || c->iov[c->idx].iov_len - c->off < n)
		return NULL;
	return (const char *)c->iov[c->idx].iov_base + c->off;
}

static inline int cur_gather(struct iovcur *c, void *dst, size_t n)
{
	char *d = dst;
	while (n) {
		if (c->idx >= c->cnt)
			return -EINVAL;
		size_t k = c->iov[c->idx].iov_len - c->off;
		if (k > n)
			k = n;
		memcpy(d, (const char *)c->iov[c->idx].iov_base + c->off, k);
		d += k;
		n -= k;
		cur_skip(c, k);
	}
	return 0;
}

static inline int cur_scatter(struct iovcur *c, const void *src, size_t n)
{
	const char *s = src;
	while (n) {
		if (c->idx >= c->cnt)
			return -EINVAL;
		size_t k = c->iov[c->idx].iov_len - c->off;
		if (k > n)
			k = n;
		if (s)
			memcpy((char *)c->iov[c->idx].iov_base + c->off, s, k);
		else
			memset((char *)c->iov[c->idx].iov_base + c->off, 0, k);
		if (s)
			s += k;
		n -= k;
		cur_skip(c, k);
	}
	return 0;
}

static inline size_t iov_total(const struct iovec *iov, size_t cnt)
{
	size_t t = 0;
	for (size_t i = 0; i < cnt; i++)
		t += iov[i].iov_len;
	return t;
}

#endif
